"""Test-only messages that use every field type the codec supports (registered once)."""

from __future__ import annotations

from condorsim.classad import ClassAd
from condorsim.wire import Message, message


@message("TEST_ALL_TYPES")
class TEST_ALL_TYPES(Message):
    i: int
    f: float
    b: bool
    s: str
    raw: bytes
    maybe: int | None
    names: list[str]
    pair: tuple[int, str]
    many: tuple[float, ...]
    table: dict[str, list[int]]
    ad: ClassAd
    ads: list[ClassAd]
    maybe_ad: ClassAd | None


@message("TEST_INNER")
class TEST_INNER(Message):
    n: int


@message("TEST_NESTED")
class TEST_NESTED(Message):
    inner: TEST_INNER
    inners: list[TEST_INNER]
    anything: Message
