"""ClassAds as hooks read and write them: ``Name = value`` lines.

How this works
--------------
:func:`print_ad` is HTCondor's ``sPrintAd``: one ``Name = expression`` line per
attribute (old syntax, as ``condor_q -l`` prints). :data:`SEPARATOR` is the line the
startd writes between two ads on a hook's standard input (``-----``).

What a hook prints is read one line at a time, each line inserted into an ad as
``ClassAd::Insert`` does. HTCondor reads hook output in two ways, both here:

* :func:`parse_all_or_nothing` -- the fetch-work hook (``FetchClient::hookExited``):
  empty lines are skipped; one line that is not ``Name = expression`` makes the whole
  output be ignored.
* :func:`parse_until_bad` -- a prepare-job hook (``initAdFromString``): leading white space
  and empty lines are skipped; reading stops at the first bad line, and what came before
  it is kept.

Either way the bad line is returned so that the caller can log it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from condorsim.classad import ClassAd, ClassAdError

SEPARATOR = "-----\n"
"""What separates the job ad from the slot ad on REPLY_FETCH's and EVICT_CLAIM's stdin."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


@dataclass(frozen=True)
class ParsedOutput:
    """The ad read from a hook's output; ``bad_line`` is the first line that is not an
    attribute assignment (None when every line was good)."""

    ad: ClassAd
    bad_line: str | None = None


def print_ad(ad: ClassAd) -> str:
    """The ad as HTCondor writes it to a hook: ``Name = expression`` lines."""
    return ad.to_long()


def insert_line(ad: ClassAd, line: str) -> bool:
    """Insert one ``Name = expression`` line into ``ad``; False when it is not one."""
    name, eq, rest = line.partition("=")
    name = name.strip()
    if not eq or not _NAME.fullmatch(name) or not rest.strip() or rest.startswith("="):
        return False
    try:
        parsed = ClassAd.parse_old(f"{name} = {rest.strip()}")
    except ClassAdError:
        return False
    ad.update(parsed)
    return True


def parse_all_or_nothing(text: str) -> ParsedOutput:
    """The fetch-work hook's output: every non-empty line must be good, or nothing counts."""
    ad = ClassAd()
    for line in text.split("\n"):
        if not line.strip("\r"):
            continue
        if not insert_line(ad, line.rstrip("\r")):
            return ParsedOutput(ClassAd(), line)
    return ParsedOutput(ad)


def parse_until_bad(text: str) -> ParsedOutput:
    """A prepare hook's output: lines up to the first bad one."""
    ad = ClassAd()
    for line in text.split("\n"):
        line = line.strip()
        if not line:
            continue
        if not insert_line(ad, line):
            return ParsedOutput(ad, line)
    return ParsedOutput(ad)
