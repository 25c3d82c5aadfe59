"""Reading configuration statements into a :class:`MacroSet`.

How this works
--------------
:meth:`Parser.parse_text` walks the logical lines of one file (see ``_lines``)
and handles, as HTCondor's ``Parse_macros`` does:

* ``NAME = value`` -- the name may itself contain macros (expanded at once); the
  value is stored raw, except that references to NAME itself are replaced by its
  previous value (``X = $(X) more``).  ``NAME : value`` is accepted with the
  warning HTCondor gives for this obsolete form.
* ``NAME @=tag`` ... ``@tag`` -- a multi-line value; the lines in between are
  trimmed, and comment and blank lines among them are dropped, as in HTCondor.
* ``if`` / ``elif`` / ``else`` / ``endif`` with HTCondor's simple conditions
  (``defined NAME``, ``version >= 8.1.6``, booleans, numbers, ``$(NAME)``, ``!``).
* ``include [ifexist] : file`` (also ``@include``); a relative file name is taken
  relative to the including file.  ``include command`` is refused.
* ``use CATEGORY : NAME`` for the templates in ``_metaknobs``; others are refused.
* ``error : message`` stops with a :class:`ConfigError`; ``warning : message`` is
  recorded in ``warnings``.
* A line starting with ``[`` and without an operator is ignored (ini headers).

Every error is a :class:`ConfigError` naming the file and line.
"""

from __future__ import annotations

import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ._conditions import MAX_IF_NESTING, Branch, ConditionError, IfStack, evaluate_condition
from ._errors import ConfigError, ExpandError, Origin
from ._expand import Expander
from ._lines import WHITESPACE, keyword, logical_lines
from ._macros import MacroSet, is_valid_name
from ._metaknobs import metaknob_body, supported_metaknobs

__all__ = ["MAX_FILE_BYTES", "MAX_NESTING", "Parser", "read_config_file"]

MAX_NESTING = 20
MAX_FILE_BYTES = 16 * 1024 * 1024

_USE_ITEM = re.compile(r"([^\s,(]+)\s*(\([^)]*\))?")


def read_config_file(path: Path, origin: Origin | None = None) -> str:
    """The text of a configuration file, or a ConfigError saying why it cannot be read."""
    try:
        info = path.stat()
    except OSError as exc:
        raise ConfigError(f"cannot read configuration file {path}: {exc.strerror}", origin) from None
    except ValueError:  # a NUL in the name
        raise ConfigError(f"cannot read configuration file {path!r}: invalid file name", origin) from None
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(f"cannot read configuration file {path}: not a regular file", origin)
    if info.st_size > MAX_FILE_BYTES:
        raise ConfigError(
            f"cannot read configuration file {path}: larger than {MAX_FILE_BYTES} bytes", origin
        )
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read configuration file {path}: {exc.strerror}", origin) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ConfigError("the file is not valid UTF-8 text", Origin(str(path), line)) from None


@dataclass(slots=True)
class _HereDoc:
    name: str
    tag: str
    origin: Origin
    lines: list[str] = field(default_factory=list)


class Parser:
    """Parses configuration text into ``macros``; records files read and warnings."""

    def __init__(self, macros: MacroSet, *, sources: list[str], warnings: list[str]) -> None:
        self.macros = macros
        self.expander = Expander(macros)
        self.sources = sources
        self.warnings = warnings

    # -- whole files ------------------------------------------------------------------

    def parse_file(self, path: Path, *, depth: int, origin: Origin | None = None) -> None:
        """Read and parse one file; ``origin`` is the statement that asked for it."""
        text = read_config_file(path, origin)
        self.sources.append(str(path))
        self.parse_text(text, str(path), path.parent, depth)

    def parse_text(
        self, text: str, source: str, base_dir: Path, depth: int, fixed: Origin | None = None
    ) -> None:
        """Parse ``text``; ``fixed`` gives every statement one origin (template bodies)."""
        ifs = IfStack()
        here: _HereDoc | None = None
        last = Origin(source, 1)
        for number, line in logical_lines(text):
            origin = fixed or Origin(source, number)
            if not line or line.startswith("#"):
                continue
            last = origin
            if here is not None:
                if line == "@" + here.tag:
                    self.set_value(here.name, "\n".join(here.lines), here.origin)
                    here = None
                else:
                    here.lines.append(line)
                continue
            if line.startswith(":") and (ifs.frames or keyword(line[1:], "if") is not None):
                line = line[1:].lstrip(WHITESPACE)
            if self._conditional(line, ifs, origin) or not ifs.enabled:
                continue
            here = self._statement(line, origin, base_dir, depth, source)
        if here is not None:
            raise ConfigError(
                f"the file ended while looking for '@{here.tag}', the end of {here.name}'s value",
                here.origin,
            )
        if ifs.frames:
            raise ConfigError("endif(s) not found before end-of-file", last)

    # -- if / elif / else / endif -------------------------------------------------------

    def _conditional(self, line: str, ifs: IfStack, origin: Origin) -> bool:
        expr = keyword(line, "if")
        if expr is not None:
            if len(ifs.frames) >= MAX_IF_NESTING:
                raise ConfigError("if nesting too deep", origin)
            value = self._test(expr, origin, "if") if ifs.enabled else False
            ifs.frames.append(Branch(active=value, taken=value))
            return True
        expr = keyword(line, "elif")
        if expr is not None:
            top = self._top(ifs, "elif", origin)
            if top.taken or not all(f.active for f in ifs.frames[:-1]):
                top.active = False
            else:
                top.active = top.taken = self._test(expr, origin, "elif")
            return True
        if keyword(line, "else") is not None:
            top = self._top(ifs, "else", origin)
            top.active, top.taken, top.seen_else = not top.taken, True, True
            return True
        if keyword(line, "endif") is not None:
            if not ifs.frames:
                raise ConfigError("endif without matching if", origin)
            ifs.frames.pop()
            return True
        return False

    @staticmethod
    def _top(ifs: IfStack, word: str, origin: Origin) -> Branch:
        if not ifs.frames:
            raise ConfigError(f"{word} without matching if", origin)
        top = ifs.frames[-1]
        if top.seen_else:
            raise ConfigError(f"{word} is not allowed after else", origin)
        return top

    def _test(self, expr: str, origin: Origin, word: str) -> bool:
        text = expr
        expanded = "$" in text
        if expanded:
            text = self._expand_now(text, origin).rstrip(WHITESPACE)
        text = text.lstrip(WHITESPACE)
        inverted = text.startswith("!")
        if inverted:
            text = text[1:].lstrip(WHITESPACE)
        try:
            value = False if expanded and not text else evaluate_condition(text, self.macros)
        except ConditionError as exc:
            raise ConfigError(f"{expr} is not a valid {word} condition because {exc}", origin) from None
        return value != inverted

    # -- statements ---------------------------------------------------------------------

    def _statement(
        self, line: str, origin: Origin, base_dir: Path, depth: int, source: str
    ) -> _HereDoc | None:
        if line.startswith("[") and not any(c in line for c in "=:"):
            return None  # an ini-style section header (the manual; the C++ code rejects spaces)
        n = len(line)
        i = 0
        while i < n and line[i] not in WHITESPACE and line[i] not in "=:":
            i += 1
        if i == n:
            raise ConfigError(f"expected NAME = value, not {line!r}", origin)
        raw_name, before, op, rhs = line[:i], "", line[i], line[i + 1 :]
        if op not in "=:":
            j = i
            while j < n and line[j] in WHITESPACE:
                j += 1
            k = j
            while k < n and line[k] not in "=:@":
                k += 1
            if k == n:
                raise ConfigError(f"expected NAME = value, not {line!r}", origin)
            before = line[j:k].strip(WHITESPACE)
            if line[k] == "@":
                if not line.startswith("=", k + 1):
                    raise ConfigError(f"expected '@=' after {raw_name}", origin)
                op, rhs = "@=", line[k + 2 :]
            else:
                op, rhs = line[k], line[k + 1 :]
        rhs = rhs.lstrip(WHITESPACE)
        keyword = (raw_name[1:] if raw_name.startswith("@") else raw_name).lower()
        if op == ":" and keyword == "include":
            self._include(before, rhs, origin, base_dir, depth)
            return None
        if op == ":" and keyword == "use":
            self._use(before, rhs, origin, base_dir, depth, source)
            return None
        if op == ":" and keyword in ("error", "warning"):
            message = self._expand_now(rhs, origin)
            if keyword == "error":
                raise ConfigError(f"configuration error: {message}", origin)
            self.warnings.append(f"{origin}: warning: {message}")
            return None
        if op == ":":
            self.warnings.append(
                f"{origin}: warning: obsolete use of ':' for parameter assignment at {raw_name} : {rhs}"
            )
            op = "="
        if before:
            raise ConfigError(f"unexpected {before!r} between {raw_name} and '{op}'", origin)
        name = self._expand_now(raw_name, origin)
        if not is_valid_name(name):
            raise ConfigError(
                f"illegal name {name!r}: a name has only letters, digits, '_', '.' and '/'", origin
            )
        if op == "@=":
            return _HereDoc(name, rhs, origin)
        self.set_value(name, rhs, origin)
        return None

    def set_value(self, name: str, raw: str, origin: Origin) -> None:
        """Set ``name`` from a statement (self references are expanded at once)."""
        self.macros.set(name, self.expander.expand_self(raw, name), origin)

    def _expand_now(self, text: str, origin: Origin) -> str:
        try:
            return self.expander.expand(text)
        except ExpandError as exc:
            raise ConfigError(str(exc), origin) from None

    def _include(self, options: str, rhs: str, origin: Origin, base_dir: Path, depth: int) -> None:
        words = options.split()
        if_exists = bool(words) and words[0] in ("ifexist", "ifexists")
        if if_exists:
            words = words[1:]
        if words and words[0] in ("command", "output"):
            raise ConfigError(
                "'include command' is not supported: condorsim does not run programs to "
                "build its configuration",
                origin,
            )
        if words:
            raise ConfigError(f"unexpected keyword(s) '{options}' after include", origin)
        target = self._expand_now(rhs, origin).strip(WHITESPACE)
        if target.endswith("|"):
            raise ConfigError(
                "'include : <command> |' is not supported: condorsim does not run programs "
                "to build its configuration",
                origin,
            )
        if not target:
            raise ConfigError("include : needs a file name", origin)
        path = base_dir / target
        if if_exists and not path.exists():
            return
        if depth + 1 >= MAX_NESTING:
            raise ConfigError(f"includes nested too deep (more than {MAX_NESTING})", origin)
        self.parse_file(path, depth=depth + 1, origin=origin)

    def _use(
        self, category: str, rhs: str, origin: Origin, base_dir: Path, depth: int, source: str
    ) -> None:
        if not category:
            raise ConfigError(f"use needs a keyword before : (as in use ROLE : Personal): {rhs}", origin)
        for name, args in _USE_ITEM.findall(rhs):
            if args:
                raise ConfigError(
                    f"use {category} : {name}{args}: templates with arguments are not supported "
                    "by condorsim",
                    origin,
                )
            body = metaknob_body(category, name)
            if body is None:
                raise ConfigError(
                    f"use {category} : {name} is not supported by condorsim "
                    f"(supported: {supported_metaknobs()})",
                    origin,
                )
            if depth + 1 >= MAX_NESTING:
                raise ConfigError(f"use {category} : {name} nesting too deep", origin)
            self.parse_text(body, source, base_dir, depth + 1, fixed=origin)
