"""The one error class of the submit language.

A ``SubmitError`` carries HTCondor's own message text (``message``), the submit command
it is about (``command``, ``None`` for syntax errors), and where it came from
(``source``, ``line``).  ``str()`` of the error names all of them.
"""

from __future__ import annotations


class SubmitError(Exception):
    """A submit description condor_submit would refuse.

    ``message`` is the text condor_submit prints after ``ERROR:`` (without the line
    breaks around it); ``source`` and ``line`` locate the statement (``line`` is 0 when
    no single line is to blame).
    """

    def __init__(
        self, message: str, *, source: str = "<submit>", line: int = 0, command: str | None = None
    ) -> None:
        message = message.strip("\n")
        self.message = message
        self.source = source
        self.line = line
        self.command = command
        where = f"{source}, line {line}" if line else source
        what = f" ({command})" if command else ""
        super().__init__(f"{where}{what}: {message}")
