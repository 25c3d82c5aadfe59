"""``condorsim status``: condor_status's arguments and its views of collector ads.

How this works
--------------
:func:`parse_status_args` reads condor_status's command line into a
:class:`StatusRequest` (the view, the query, the form); :func:`format_status` and
:func:`views.table` render ads in that view as condor_status prints them, through the
print-mask engine of :mod:`condorsim.tools.printmask`; :mod:`.totals` is the totals
block after the tables. The modules are pure: ads in, text out.
"""

from .args import USAGE, StatusArgError, StatusRequest, parse_status_args
from .views import MODES, format_status

__all__ = ["MODES", "USAGE", "StatusArgError", "StatusRequest", "format_status",
           "parse_status_args"]
