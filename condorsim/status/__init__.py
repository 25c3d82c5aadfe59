"""``condorsim status``: condor_status's arguments and its views of collector ads.

How this works
--------------
:func:`parse_status_args` turns condor_status-style arguments into a
:class:`StatusRequest`: which ad type to ask the collector for, the constraint, the
attributes to fetch (the projection) and the view. :func:`format_status` renders the ads
that came back in that view, as condor_status prints them:

* every view sorts the ads by ``Machine`` then ``Name`` in natural order ("slot2" before
  "slot10"), condor_status's default sort;
* a table view is a list of columns, each with a header, a width and a renderer; the
  widths and summary blocks follow HTCondor's prettyPrint.cpp and totals.cpp (see
  docs/collector.md for where we differ, e.g. the Name column fits its longest value and
  trailing blanks are trimmed);
* ``long`` prints each ad's attributes sorted case-insensitively, a blank line after each
  ad; ``af`` prints one line per ad, values separated by a space, strings unquoted.

The module is pure: ads and ``now`` in, text out.
"""

from .args import USAGE, StatusArgError, StatusRequest, parse_status_args
from .views import MODES, format_status

__all__ = ["MODES", "USAGE", "StatusArgError", "StatusRequest", "format_status",
           "parse_status_args"]
