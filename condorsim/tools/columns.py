"""``-af`` and ``-format``: the custom columns condor_q, condor_status and condor_history share.

How this works
--------------
``-format FMT ATTR`` is one printf column with no separators at all (the format carries
its own newline). ``-autoformat[:opts] ATTR ...`` (``-af``) is HTCondor's
``parse_autoformat_args``: one ``%v`` column per attribute or expression, separated by a
space, a newline after each ad. Its options: ``j`` the job id first (``1.0``), ``l``
``Name = value`` labels, ``h`` headings (each column as wide as its widest value),
``V`` strings quoted (``%V``), ``r``/``o`` the raw expression (``%r``), ``,`` a comma
after each value, ``t`` tabs between values, ``n`` a newline after each value, ``g``
a newline between ads and nothing between values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from condorsim.classad import ClassAdSyntaxError, parse_expr

from .printmask import Column, PrintMask


@dataclass(frozen=True)
class AfOptions:
    """The letters after ``-af:``."""

    label: bool = False
    quoted: bool = False
    raw: bool = False
    headings: bool = False
    job_id: bool = False
    row_prefix: str = ""
    col_prefix: str = " "
    col_suffix: str = ""


def parse_af_options(text: str) -> AfOptions:
    """The options of ``-af:<text>`` (unknown letters are ignored, as HTCondor does)."""
    row_prefix, col_prefix, col_suffix = "", " ", ""
    flags = {"label": False, "quoted": False, "raw": False, "headings": False, "job_id": False}
    for char in text:
        if char == ",":
            col_suffix = ","
        elif char == "n":
            col_suffix = "\n"
        elif char == "g":
            col_prefix, row_prefix = "", "\n"
        elif char == "t":
            col_prefix = "\t"
        elif char == "l":
            flags["label"] = True
        elif char == "V":
            flags["quoted"] = True
        elif char in "ro":
            flags["raw"] = True
        elif char == "h":
            flags["headings"] = True
        elif char == "j":
            flags["job_id"] = True
    return AfOptions(row_prefix=row_prefix, col_prefix=col_prefix, col_suffix=col_suffix,
                     **flags)


def af_mask(attrs: Sequence[str], options: AfOptions) -> PrintMask:
    """The print mask of ``-af``; a bad expression raises ClassAdSyntaxError."""
    columns: list[Column] = []
    if options.job_id:
        if options.headings:
            columns += [Column("ClusterId", " ID", 5, fmt="ID = %4d." if options.label else "%4d.",
                               autowidth=True, nosuffix=True),
                        Column("ProcId", " ", 3, fmt="%-3d", autowidth=True, noprefix=True)]
        else:
            columns += [Column("ClusterId", "", 0, fmt="ID = %d." if options.label else "%d.",
                               nosuffix=True),
                        Column("ProcId", "", 0, fmt="%d", noprefix=True)]
    conversion = "%r" if options.raw else ("%V" if options.quoted else "%v")
    for attr in attrs:
        parse_expr(attr)
        if options.headings:
            columns.append(Column(attr, attr, -len(attr), fmt=conversion, autowidth=True,
                                  notruncate=True))
        elif options.label:
            columns.append(Column(attr, "", 0, fmt=f"{attr} = {conversion}"))
        else:
            columns.append(Column(attr, "", 0, fmt=conversion, notruncate=True))
    return PrintMask(columns, row_prefix=options.row_prefix, col_prefix=options.col_prefix,
                     col_suffix=options.col_suffix, row_suffix="\n")


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v",
            "\\": "\\", "'": "'", '"': '"', "?": "?"}


def collapse_escapes(text: str) -> str:
    """HTCondor's ``collapse_escapes``: ``\\n``, ``\\t``, ... and octal ``\\NNN`` / hex
    ``\\xHH`` escapes of a format string become the characters they name."""
    out = []
    i = 0
    while i < len(text):
        char = text[i]
        if char != "\\" or i + 1 >= len(text):
            out.append(char)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        elif nxt in "01234567":
            j = i + 1
            while j < len(text) and j < i + 4 and text[j] in "01234567":
                j += 1
            out.append(chr(int(text[i + 1:j], 8)))
            i = j
        elif nxt == "x" and i + 2 < len(text) and text[i + 2] in "0123456789abcdefABCDEF":
            j = i + 2
            while j < len(text) and text[j] in "0123456789abcdefABCDEF":
                j += 1
            out.append(chr(int(text[i + 2:j], 16) & 0xFF))
            i = j
        else:
            out.append(char)
            i += 1
    return "".join(out)


def format_mask(fmt: str, attr: str) -> PrintMask:
    """The print mask of one ``-format FMT ATTR`` (no separators, no newline; the
    format's escapes are collapsed, as ``registerFormat`` does)."""
    return PrintMask([Column(attr, "", 0, fmt=collapse_escapes(fmt), notruncate=True)],
                     row_prefix="", col_prefix="", col_suffix="", row_suffix="")


def combine(parts: Sequence[tuple[str, list[str], str]]) -> PrintMask:
    """One mask of several ``-format``/``-af`` in command-line order: ``(kind, values,
    af options)``; the separators are those of the last ``-af`` (HTCondor sets them on
    the whole mask), none when there is only ``-format``."""
    columns: list[Column] = []
    last: PrintMask | None = None
    for kind, values, opts in parts:
        if kind == "format":
            columns += format_mask(values[0], values[1]).columns
        else:
            mask = af_mask(values, parse_af_options(opts))
            columns += mask.columns
            last = mask
    if last is None:
        return PrintMask(columns, row_prefix="", col_prefix="", col_suffix="", row_suffix="")
    return PrintMask(columns, row_prefix=last.row_prefix, col_prefix=last.col_prefix,
                     col_suffix=last.col_suffix, row_suffix="\n")


__all__ = ["AfOptions", "ClassAdSyntaxError", "af_mask", "combine", "format_mask",
           "parse_af_options"]
