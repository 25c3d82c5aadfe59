"""``$F<options>(name)``: parts of a file name, as HTCondor's config/submit macro reader.

How this works
--------------
``$F`` is followed by option letters (any case, any order) and a body in parentheses.
The body is a macro name whose value is used, or, when no such macro exists, the text of
the body itself. A value with a ``$`` in it is macro-expanded first; surrounding double
(or single) quotes are dropped. The options say what to keep:

* ``p`` the directory with its trailing ``/``; ``d`` the last directory (``dd`` the last
  two, and so on); ``n`` the base name without extension; ``x`` the extension with its
  dot; no part letter keeps the whole name;
* ``f`` makes the name absolute against the job's initial directory first (``./``
  dropped); ``b`` (bare) drops the trailing ``/`` of ``p``/``d`` and the dot of ``x``;
* ``q`` wraps the result in double quotes (single quotes with ``a``);
* ``u`` and ``w`` turn every path separator into ``/`` or ``\\``.

``file_part`` follows HTCondor's ``evaluate_macro_func`` (``SPECIAL_MACRO_ID_FILENAME``)
character for character, including its quirks: ``p`` and ``d`` are ignored when the
name has no directory and ``n`` or ``x`` is asked for, and ``px`` keeps the whole name.
"""

from __future__ import annotations

FILE_OPTIONS = frozenset("pnxdqabfwuPNXDQABFWU")


def unquote(value: str) -> str:
    """``strlen_unquote``: drop one pair of surrounding ``"`` or ``'`` quotes."""
    if len(value) > 1 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _copy_quoted(text: str, quote: str) -> str:
    """``strcpy_quoted``: drop a leading ``"`` (or ``quote``) and its matching trailing
    character, then wrap in ``quote`` when one is asked for."""
    strip = ""
    if text[:1] == '"' or (text and quote and text[0] == quote):
        strip, text = text[0], text[1:]
    if text and strip and text[-1] == strip:
        text = text[:-1]
    return f"{quote}{text}{quote}"


def _to_path_chars(text: str, to_path: str) -> str:
    if not to_path:
        return text
    other = "\\" if to_path == "/" else "/"
    return text.replace(other, to_path)


def _full_path(name: str, cwd: str | None, quote: str, to_path: str) -> str:
    """``strdup_full_path_quoted``: ``name`` made absolute against ``cwd``."""
    if name.startswith("/") or not cwd:
        return _to_path_chars(_copy_quoted(name, quote), to_path)
    base = cwd
    if base.endswith("/") or (to_path and base.endswith(to_path)):
        base = base[:-1]
    if len(name) > 2 and name[0] == "." and (name[1] == "/" or (to_path and name[1] == to_path)):
        name = name[2:]
    head = _to_path_chars(_copy_quoted(base, quote), to_path)
    tail = _to_path_chars(_copy_quoted(name, quote), to_path)
    delim = to_path or "/"
    if quote:
        return head[:-1] + delim + tail[1:]
    return head + delim + tail


def _basename_at(buf: str) -> int:
    """Index where ``condor_basename`` starts (after the last ``/``)."""
    return buf.rfind("/") + 1


def _extension_at(buf: str, start: int) -> int:
    """``condor_basename_extension_ptr``: index of the last ``.`` after the first
    character of the base name, or the end."""
    dot = buf.rfind(".", start + 1)
    return dot if dot > start else len(buf)


def _basename_plus_dirs(buf: str, num_dirs: int) -> int:
    """``condor_basename_plus_dirs``: index of the base name and ``num_dirs`` directories."""
    seps: list[int] = []
    i = 0
    if buf.startswith("\\\\"):
        i = 4 if buf[2:4] == ".\\" else 2
        seps.append(i)
    for k in range(i, len(buf)):
        if buf[k] in "\\/":
            seps.append(k + 1)
    del seps[max(0, len(seps) - num_dirs) :]
    return seps[-1] if seps else 0


def file_part(value: str, options: str, cwd: str | None) -> str:
    """The part of file name ``value`` that ``$F<options>`` keeps (see the module text)."""
    parts = 0
    num_dirs = 0
    quoted = full = bare = arg_quote = False
    to_path = ""
    for ch in options.lower():
        if ch == "x":
            parts |= 1
        elif ch == "n":
            parts |= 2
        elif ch == "p":
            parts |= 4
        elif ch == "d":
            parts |= 8
            num_dirs += 1
        elif ch == "a":
            arg_quote = True
        elif ch == "b":
            bare = True
        elif ch == "f":
            full = True
        elif ch == "w":
            to_path = "\\"
        elif ch == "u":
            to_path = "/"
        elif ch == "q":
            quoted = True
    quote = ("'" if arg_quote else '"') if quoted else ""
    name = unquote(value)
    if full:
        buf = _full_path(name, cwd, quote, to_path)
    elif parts or to_path or bare:
        buf = _to_path_chars(_copy_quoted(name, quote), to_path)
    else:
        buf = _copy_quoted(name, quote)
    chars = [*buf, "\0", "\0"]
    end = len(buf)
    ixn = _basename_at(buf)
    ixx = _extension_at(buf, ixn)
    if not ixn and parts & 3:
        parts &= ~(4 | 8)
    start = 0
    kind = parts & 0xF
    if kind == 1:
        start = ixx + (1 if bare and ixx < end else 0)
    elif kind == 3:
        start = ixn
    elif kind == 2:
        start, end = ixn, ixx
    elif kind in (0, 7, 5):
        start = 0
    elif kind == 4:
        end = ixn - 1 if bare and ixn > 0 else ixn
    elif kind == 6:
        end = ixx
    elif ixn > 0:
        start = _basename_plus_dirs(buf, num_dirs)
        if parts & 3 == 2:
            end = ixx
        elif parts & 3 == 0:
            end = ixn - 1 if bare and ixn > 0 else ixn
    else:
        start = end = 1
    if quoted:
        if chars[start] != quote:
            start -= 1
            chars[start] = quote
        if end > 1 and chars[end - 1] == quote:
            end -= 1
        chars[end] = quote
        end += 1
    return "".join(chars[start:end])
