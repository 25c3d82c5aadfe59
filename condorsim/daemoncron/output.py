"""What a cron job prints, read as HTCondor's ``CronJobOut`` and ``ClassAdCronJob`` read it.

How this works
--------------
Each line of standard output is ``Name = expression``; the job's PREFIX is put in front
of it before it is inserted (so ``Value = 1`` with prefix ``test_`` is ``test_Value``).
Empty lines are ignored; a line that cannot be inserted is skipped and reported. A line
that starts with ``-`` ends an ad (a *block*); what follows the dash is
``[name] [update:bool]``: a first word without a colon names the ad (the startd keeps ads
of different names apart: ``<Job>.<name>``), and ``update`` (alone, or ``update:true`` /
``update:false``) forces or suppresses an immediate collector update. The lines after the
last dash, when the job exits, make a last block with neither. A block with no good line
publishes nothing; every other block gets ``<prefix>LastUpdate = now`` (the prefix may be
empty: HTCondor adds ``LastUpdate`` for every job).
"""

from __future__ import annotations

from dataclasses import dataclass

from condorsim.classad import ClassAd, ClassAdError, parse_expr
from condorsim.hooks.adtext import insert_line


@dataclass(frozen=True)
class OutputBlock:
    """One ad a cron job published."""

    ad: ClassAd
    tag: str | None = None
    update: bool | None = None  # None: the separator said nothing about updates
    bad_lines: tuple[str, ...] = ()


def parse_separator(rest: str) -> tuple[str | None, bool | None]:
    """(name tag, update flag) from the text after a ``-`` line's dash."""
    words = rest.replace(",", " ").split()
    tag: str | None = None
    update: bool | None = None
    if words and ":" not in words[0]:
        tag = words.pop(0)
    for word in words:
        key, colon, value = word.partition(":")
        if key.lower() != "update":
            continue
        if not colon:
            update = True
            continue
        try:
            parsed = parse_expr(value).evaluate()
        except ClassAdError:
            continue
        if type(parsed) is bool:
            update = parsed
        elif type(parsed) in (int, float):
            update = parsed != 0
    return tag, update


class OutputReader:
    """Feeds a cron job's stdout in, line by line; yields the blocks it completes."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self._ad = ClassAd()
        self._bad: list[str] = []
        self._lines = 0

    def line(self, text: str, now: int) -> OutputBlock | None:
        """One line of output; a block when it was a ``-`` line that ended one."""
        text = text.rstrip("\r")
        if not text:
            return None
        if text.startswith("-"):
            tag, update = parse_separator(text[1:].strip())
            return self._end(now, tag, update)
        self._lines += 1
        if not insert_line(self._ad, self.prefix + text):
            self._bad.append(text)
        return None

    def finish(self, now: int) -> OutputBlock | None:
        """The job exited: what follows the last ``-`` line makes a last block."""
        return self._end(now, None, None) if self._lines else None

    def _end(self, now: int, tag: str | None, update: bool | None) -> OutputBlock | None:
        ad, bad = self._ad, tuple(self._bad)
        self._ad, self._bad, self._lines = ClassAd(), [], 0
        if not len(ad):
            return None if not bad else OutputBlock(ClassAd(), tag, update, bad)
        ad[f"{self.prefix}LastUpdate"] = int(now)
        return OutputBlock(ad, tag, update, bad)


def read_output(text: str, prefix: str, now: int) -> list[OutputBlock]:
    """Every block of a finished job's output, in order."""
    reader = OutputReader(prefix)
    blocks = [b for b in (reader.line(line, now) for line in text.split("\n")) if b is not None]
    last = reader.finish(now)
    return blocks + ([last] if last is not None else [])
