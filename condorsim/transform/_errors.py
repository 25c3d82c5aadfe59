"""The one error type of the transform language and of route configuration."""

from __future__ import annotations

__all__ = ["TransformError"]


class TransformError(Exception):
    """A transform or route that cannot be used, or a problem found in one.

    ``source`` names where the text came from (a knob such as ``JOB_ROUTER_ROUTE_Site1``,
    or a file), ``line`` is the line in that text (0 when the problem is not on one
    line) and ``reason`` says what is wrong. ``str()`` gives one line, for a daemon log,
    a tool's error message or a scenario check alike.
    """

    def __init__(self, reason: str, source: str = "", line: int = 0) -> None:
        self.reason = reason
        self.source = source
        self.line = line
        super().__init__(str(self))

    def located(self, source: str, line_offset: int = 0) -> TransformError:
        """The same problem, said of ``source`` (lines shifted by ``line_offset``)."""
        line = self.line + line_offset if self.line else 0
        return TransformError(self.reason, source or self.source, line)

    def __str__(self) -> str:
        where = self.source
        if self.line:
            where = f"{where}, line {self.line}" if where else f"line {self.line}"
        return f"{where}: {self.reason}" if where else self.reason
