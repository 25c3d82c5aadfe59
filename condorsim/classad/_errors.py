"""The ClassAd package's own error classes (no library exception leaks out of it)."""

from __future__ import annotations


class ClassAdError(Exception):
    """Base class of every error raised by ``condorsim.classad``."""


class ClassAdSyntaxError(ClassAdError):
    """Text that is not a valid ClassAd expression or ClassAd.

    ``line`` and ``column`` are 1-based and point at the offending character;
    ``expected`` says what the parser was looking for (may be empty).
    """

    def __init__(self, message: str, line: int, column: int, expected: str = "") -> None:
        self.message = message
        self.line = line
        self.column = column
        self.expected = expected
        super().__init__(message, line, column, expected)

    def __str__(self) -> str:
        text = f"line {self.line}, column {self.column}: {self.message}"
        if self.expected:
            text += f" (expected {self.expected})"
        return text


class ClassAdWireError(ClassAdError):
    """A ClassAd in wire (msgpack) form that is malformed; names the attribute at fault."""


class DollarDollarError(ClassAdError):
    """``$$(Attr)`` in a job names an attribute the matched slot ad does not have.

    The schedd puts such a job on hold; ``attr`` is the name inside ``$$( )``.
    """

    def __init__(self, attr: str) -> None:
        self.attr = attr
        super().__init__(attr)

    def __str__(self) -> str:
        return f"$$({self.attr}) cannot be expanded: the matched machine ad has no {self.attr}"
