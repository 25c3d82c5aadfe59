"""Reading a submit description into statements, as HTCondor's ``Parse_macros``.

How this works
--------------
``Reader.read`` walks the logical lines of a text (``_lines.logical_lines``) and keeps
the macro table up to date as it goes, because later lines depend on earlier ones: an
``if`` condition, a macro in a command's name, a queue statement's item block. It
produces a flat list of ``Assign`` and ``Queue`` statements; everything else is done
here, at read time, as HTCondor does:

* ``#`` comments and blank lines are skipped;
* ``if``/``elif``/``else``/``endif`` keep a stack of open blocks (``_conditions`` reads
  the conditions); a line starting with ``:`` inside a block loses the ``:``;
* ``name = value`` (the name is macro-expanded and must be made of letters, digits,
  ``_ . /``), ``+name = value`` and ``-name =`` (``MY.name``, the value stored as
  written, empty for ``-``), ``name @=TAG`` ... ``@TAG`` (a multi-line value);
* ``include [ifexist[s]] : file`` reads another file (relative to the submit
  directory); the ``command``/``output``/``into`` forms, which run programs, are refused;
* ``use CATEGORY : NAME, ...`` reads submit templates (``_templates``);
* ``error [code] : text`` refuses the description, ``warning : text`` warns;
* a queue statement ends the if-stack, as condor_submit starts a fresh parse after each;
  its item block (``queue x in (`` ... ``)``) is read with it.

Errors raise ``SubmitError`` located at the file and line.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from ._conditions import ConditionError, test_condition
from ._errors import SubmitError
from ._lines import Assign, Queue, Statement, logical_lines, queue_args
from ._macros import MacroError, MacroTable
from ._templates import TemplateError, template_texts

_SPACE = " \t\n\r\v\f"
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./")
_MAX_DEPTH = 20


def valid_name(name: str) -> bool:
    """HTCondor's ``is_valid_param_name``: non-empty, letters, digits and ``_ . /``."""
    return bool(name) and all(ch in _NAME_CHARS for ch in name)


@dataclass
class _IfStack:
    """Open ``if`` blocks: (this branch is read, some branch was true, ``else`` seen)."""

    frames: list[list[bool]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)  # where each open block began

    def enabled(self) -> bool:
        return all(frame[0] for frame in self.frames)

    def outer_enabled(self) -> bool:
        return all(frame[0] for frame in self.frames[:-1])


@dataclass
class Reader:
    """The state of reading one description (with the files it includes)."""

    table: MacroTable
    source: str
    cwd: str
    config: Mapping[str, str]
    block_follows: Callable[[str], bool]
    warnings: list[str] = field(default_factory=list)
    statements: list[Statement] = field(default_factory=list)
    queues: list[Queue] = field(default_factory=list)

    def error(self, message: str, source: str | None, line: int) -> SubmitError:
        return SubmitError(message, source=source or self.source, line=line)

    def expand(self, text: str, source: str | None, line: int) -> str:
        try:
            return self.table.expand(text)
        except MacroError as exc:
            raise self.error(str(exc), source, line) from None

    def assign(self, key: str, value: str, line: int, source: str | None, raw: bool) -> None:
        statement = Assign(key, value, line, source, raw)
        self.table.set(key, value, expand_self=not raw)
        self.statements.append(statement)

    # -- files -----------------------------------------------------------------------------

    def read(self, text: str, source: str | None = None, depth: int = 0) -> None:
        """Read ``text`` (the description, or an included file named ``source``)."""
        lines = logical_lines(text)
        ifs = _IfStack()
        here: tuple[str, str, int] | None = None  # name, tag, line of an @= value
        here_lines: list[str] = []
        for number, line in lines:
            if "\0" in line:
                raise self.error("the line holds a NUL character, which a submit description "
                                 "cannot (HTCondor's reader does not finish on it)", source,
                                 number)  # fmt: skip
            if line.startswith("#") or not line.strip(_SPACE):
                continue
            if here is not None:
                if line.startswith("@") and line[1:] == here[1]:
                    self.assign(here[0], "\n".join(here_lines), here[2], source, False)
                    here, here_lines = None, []
                else:
                    here_lines.append(line)
                continue
            if line.startswith(":") and (ifs.frames or _keyword(line[1:], "if")):
                line = line[1:]
            if self._if_line(line, ifs, source, number):
                continue
            if not ifs.enabled():
                continue
            queued = len(self.queues)
            started = self._statement(line, number, source, depth, lines)
            if started is not None:
                here, here_lines = started, []
            elif len(self.queues) > queued:
                ifs = _IfStack()  # condor_submit parses anew after a queue statement
        if here is not None:
            raise self.error(f"Found end-of-file while scanning for '@{here[1]}'", source,
                             here[2])  # fmt: skip
        if ifs.frames:
            # (condor_submit names no line; the unclosed if's is more use)
            raise self.error("endif(s) not found before end-of-file", source, ifs.lines[-1])

    def _if_line(self, line: str, ifs: _IfStack, source: str | None, number: int) -> bool:
        word = next((w for w in ("if", "elif", "else", "endif") if _keyword(line, w)), None)
        if word is None:
            return False
        expr = line[len(word) :].lstrip(_SPACE)

        def test(what: str) -> bool:
            try:
                return test_condition(expr, lambda t: self.expand(t, source, number),
                                      self.table.raw)  # fmt: skip
            except ConditionError as exc:
                raise self.error(f"{expr} is not a valid {what} condition because {exc}",
                                 source, number) from None  # fmt: skip

        if word == "if":
            if len(ifs.frames) >= 63:
                raise self.error("if nesting too deep!", source, number)
            value = test("if") if ifs.enabled() else False
            ifs.frames.append([value, value, False])
            ifs.lines.append(number)
            return True
        if word == "endif":
            if not ifs.frames:
                raise self.error("endif without matching if", source, number)
            ifs.frames.pop()
            ifs.lines.pop()
            return True
        if not ifs.frames:
            raise self.error(f"{word} without matching if", source, number)
        frame = ifs.frames[-1]
        if frame[2]:
            raise self.error(f"{word} is not allowed after else", source, number)
        if word == "elif":
            value = not frame[1] and ifs.outer_enabled() and test("elif")
            frame[0], frame[1] = value, frame[1] or value
        else:
            frame[0], frame[2] = not frame[1], True
        return True

    # -- one statement -----------------------------------------------------------------------

    def _statement(
        self, line: str, number: int, source: str | None, depth: int,
        lines: Iterator[tuple[int, str]],
    ) -> tuple[str, str, int] | None:  # fmt: skip
        """Read one line; returns (name, tag, line) when it starts an ``@=`` value."""
        end = 0
        while end < len(line) and line[end] not in _SPACE and line[end] not in "=:":
            end += 1
        if end == len(line):
            self._queue(line, number, source, lines)
            return None
        name = line[:end]
        op = line[end]
        before_op = ""
        p = end + 1
        if op not in "=:":
            while p < len(line) and line[p] in _SPACE:
                p += 1
            q = p
            while q < len(line) and line[q] not in "=:@":
                q += 1
            before_op = line[p:q].rstrip(_SPACE)
            op = line[q] if q < len(line) else ""
            p = q + 1
            if op == "@":
                if line[p : p + 1] == "=":
                    p += 1
                else:
                    op = ""
        rhs = line[p:].lstrip(_SPACE)
        bare = name[1:] if name.startswith("@") else name
        keyword = bare.lower() if op == ":" else ""
        if keyword == "use":
            category = self.expand(before_op, source, number)
            self._use(category, rhs, number, source, depth)
            return None
        if keyword in ("error", "warning"):
            message = self.expand(rhs, source, number)
            where = f'"{source or self.source}", Line {number}'
            if keyword == "warning":
                self.warnings.append(f"Warning {where}: {message}")
                return None
            raise self.error(message, source, number)
        if keyword == "include":
            self._include(before_op, self.expand(rhs, source, number), number, source, depth)
            return None
        if before_op:
            self._queue(line, number, source, lines)
            return None
        name = self.expand(name, source, number)
        if op == "=" and name and name[0] in "+-":
            self.assign("MY." + name[1:], rhs if name[0] == "+" else "", number, source, True)
            return None
        if op not in ("=", "@") or name.lower() == "queue":
            self._queue(line, number, source, lines)
            return None
        if not valid_name(name):
            raise self.error(f"Illegal Identifier: <{name}>", source, number)
        if op == "@":
            return name, rhs, number
        self.assign(name, rhs, number, source, False)
        return None

    def _queue(
        self, line: str, number: int, source: str | None, lines: Iterator[tuple[int, str]]
    ) -> None:
        args = queue_args(line)
        if args is None:
            raise self.error(f'syntax error: expected "name = value" or a queue statement, '
                             f'got "{line}"', source, number)  # fmt: skip
        if source is not None:
            raise self.error("Queue statement not allowed in include file or command", source,
                             number)  # fmt: skip
        if not self.block_follows(self.expand(args, source, number)):
            self._add_queue(Queue(args, number))
            return
        block: list[str] = []
        for _, item in lines:
            item = item.strip(_SPACE)
            if item.startswith("#"):
                continue
            if item.startswith(")"):
                break
            block.append(item)
        else:
            raise self.error("Reached end of file without finding closing brace ')' for Queue "
                             f"command on line {number}", source, number)  # fmt: skip
        self._add_queue(Queue(args, number, tuple(block), number + 1))

    def _add_queue(self, queue: Queue) -> None:
        self.statements.append(queue)
        self.queues.append(queue)

    def _include(
        self, options: str, path: str, number: int, source: str | None, depth: int
    ) -> None:
        words = options.split()
        must_exist = True
        if words and words[0] in ("ifexist", "ifexists"):
            must_exist = False
            words = words[1:]
        if words and words[0] in ("command", "output"):
            raise self.error("include command statements are not supported by condorsim: they "
                             "run a program while the description is read", source, number)  # fmt: skip
        if words:
            raise self.error(f"unexpected keyword(s) '{options}' after include", source, number)
        if path.rstrip(" ").endswith("|"):
            raise self.error("include of a command's output ('... |') is not supported by "
                             "condorsim: it runs a program while the description is read",
                             source, number)  # fmt: skip
        if depth + 1 >= _MAX_DEPTH:
            raise self.error("includes nested too deep", source, number)
        full = path if os.path.isabs(path) else os.path.join(self.cwd, path)
        try:
            with open(full, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError as exc:
            if not must_exist:
                return
            raise self.error(f"can't open file {path}: {exc.strerror}", source, number) from None
        self.read(text, path, depth + 1)

    def _use(self, category: str, rhs: str, number: int, source: str | None, depth: int) -> None:
        if not category:
            raise self.error(f"use needs a keyword before : {rhs}", source, number)
        if depth + 1 >= _MAX_DEPTH:
            raise self.error(f"use {category}: nesting too deep", source, number)
        try:
            texts = template_texts(category, rhs, self.config)
        except TemplateError as exc:
            raise self.error(str(exc), source, number) from None
        for text in texts:
            self._template(text, category, number, source, depth + 1)

    def _template(self, text: str, category: str, number: int, source: str | None,
                  depth: int) -> None:  # fmt: skip
        """Read a template's statements (``Parse_config_string``: no continuations, no
        queue statements; located at the ``use`` line)."""
        ifs = _IfStack()
        here: tuple[str, str] | None = None
        here_lines: list[str] = []
        for line in (piece for piece in text.split("\n") if piece):
            if line.startswith("#") or not line.strip(_SPACE):
                continue
            if here is not None:
                if line.startswith("@") and line[1:] == here[1]:
                    self.assign(here[0], "\n".join(here_lines), number, source, False)
                    here, here_lines = None, []
                else:
                    here_lines.append(line)
                continue
            if self._if_line(line, ifs, source, number):
                continue
            if not ifs.enabled():
                continue
            here = self._template_line(line, category, number, source, depth)
            here_lines = []

    def _template_line(self, line: str, category: str, number: int, source: str | None,
                       depth: int) -> tuple[str, str] | None:  # fmt: skip
        invalid = self.error(f"use {category}: template line '{line}' is invalid", source,
                             number)  # fmt: skip
        is_use = line[:4].lower() == "use "
        body = line[4:].lstrip(_SPACE) if is_use else line
        end = 0
        while end < len(body) and body[end] not in _SPACE and body[end] not in "=:":
            end += 1
        name, rest = body[:end], body[end:]
        op = ""
        p = 0
        while p < len(rest):
            ch = rest[p]
            if ch == "@":
                if rest[p + 1 : p + 2] != "=" or op:
                    raise invalid
                op, p = "@", p + 1
            elif ch in "=:":
                if op:
                    raise invalid
                op = ch
            elif ch not in _SPACE:
                break
            p += 1
        rhs = rest[p:].lstrip(_SPACE)
        if not op:
            raise invalid
        if op == ":" and name.lower() in ("error", "warning"):
            message = self.expand(rhs, source, number)
            if name.lower() == "error":
                raise self.error(message, source, number)
            self.warnings.append(f"Warning : {message}")
        if is_use:
            self._use(name, rhs, number, source, depth)
        elif name and name[0] in "+-":
            self.assign("MY." + name[1:], rhs if name[0] == "+" else "", number, source, True)
        elif not valid_name(name):
            raise invalid
        elif op == "@":
            return name, rhs
        else:
            self.assign(name, rhs, number, source, False)
        return None


def _keyword(line: str, word: str) -> bool:
    """``line`` starts with ``word`` (any case) followed by white space or the end."""
    return line[: len(word)].lower() == word and (len(line) == len(word)
                                                    or line[len(word)] in _SPACE)  # fmt: skip
