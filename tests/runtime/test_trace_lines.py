"""A trace line is the JSON text of its record: what `condorsim replay` and the report read
back, whatever shortcuts the writer takes."""

from __future__ import annotations

import json
from pathlib import Path

import trio
import trio.testing
from hypothesis import given, settings
from hypothesis import strategies as st

from condorsim.classad import ClassAd
from condorsim.runtime.trace import Tracer, read_trace
from condorsim.wire import messages as m

_names = st.text(alphabet="abcXYZ_é1", min_size=1, max_size=6).filter(lambda s: s[0] != "1")


def _ad(names: list[str]) -> ClassAd:
    ad = ClassAd()
    for i, name in enumerate(names):
        ad[name] = i
    return ad


@settings(max_examples=60, deadline=None)
@given(first=st.lists(_names, max_size=8), second=st.lists(_names, max_size=8),
       t=st.one_of(st.integers(0, 2**40), st.floats(0, 2**40, allow_nan=False)),
       sender=st.text(max_size=8), job=st.sampled_from(["", "3.4", "12.0"]))
def test_every_line_is_the_records_json_text(tmp_path_factory: object, first: list[str],
                                            second: list[str], t: float, sender: str,
                                            job: str) -> None:
    path = Path(str(tmp_path_factory.mktemp("trace"))) / "trace.jsonl"  # type: ignore[attr-defined]
    records: list[dict[str, object]] = []
    tracer = Tracer(path, sink=records.append)
    msgs = [
        m.PERMISSION_AND_AD(claim_id="c#1", slot_ad=_ad(first), request_index=0),
        m.RESOURCE_REQUEST_LIST(requests=[_ad(first), _ad(second), _ad(first)]),
        m.SHADOW_UPDATE(job=job, ad=_ad(second), durable=False),
        m.OK(),
    ]

    async def main() -> None:
        await trio.sleep_until(t)
        for msg in msgs:
            tracer.record(sender, "schedd@x", msg)

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    tracer.close()
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines == [json.dumps(r, separators=(",", ":")) for r in records]
    assert read_trace(path) == records
    ads = [set(first), set(first) | set(second), set(second), set()]
    for record, names in zip(records, ads, strict=True):
        assert record["attrs"] == sorted(names, key=str.lower)
    assert records[2]["job"] == (job or None)


def _plain_attrs_of(ads: list[ClassAd]) -> tuple[str, ...]:
    """The record's attrs as they were made before several ads' names were cached."""
    if len(ads) == 1:
        return tuple(sorted(ads[0].names(), key=str.lower))
    names: set[str] = set()
    for ad in ads:
        names.update(ad.names())
    return tuple(sorted(tuple(sorted(names)), key=str.lower))


_cased = st.sampled_from(["a", "A", "b", "B", "Name", "NAME", "name", "x1", "X1", "é", "É"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.lists(_cased, max_size=6), max_size=4), min_size=1, max_size=6))
def test_the_cached_names_of_ads_are_the_names_sorted_anew(
        messages: list[list[list[str]]]) -> None:
    from condorsim.runtime.trace import _attrs_of, _names_json
    for ads_names in messages + messages:  # each combination again: from the cache
        ads = [_ad(names) for names in ads_names]
        ordered, text = _attrs_of(ads)
        assert ordered == _plain_attrs_of(ads)
        assert text == _names_json(list(ordered))


def test_an_ad_is_told_by_its_type_as_isinstance_tells_it() -> None:
    from condorsim.classad import SealedAd
    from condorsim.classad._wire import ad_from_wire_lazy
    from condorsim.runtime.trace import _is_ad
    values: list[object] = [ClassAd(), SealedAd(), ad_from_wire_lazy({"A": 1}), "text", 3,
                            None, [ClassAd()], {"A": 1}, b"x", m.OK()]
    for value in values + values:  # the second time from the types kept
        assert _is_ad(value) == isinstance(value, ClassAd)
