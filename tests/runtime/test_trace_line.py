"""The trace file's line is written by hand for speed: it must stay exactly what
``json.dumps`` wrote before (other tools read trace.jsonl)."""

from __future__ import annotations

import json
import random

import trio
import trio.testing

from condorsim.classad import ClassAd
from condorsim.runtime.trace import Tracer, read_trace, record_line
from condorsim.wire import messages as m


def _dumps(rec: dict[str, object]) -> str:
    return json.dumps(rec, separators=(",", ":")) + "\n"


def test_record_line_is_json_dumps_character_for_character() -> None:
    cases: list[dict[str, object]] = [
        {"t": 1767571200, "from": "schedd", "to": "startd@exec1", "cmd": "REQUEST_CLAIM",
         "job": "1.0", "attrs": ["A", "b", "\u00dc", 'q"\\x', "\x01\n\t", "\u65e5", "\U0001F600"]},
        {"t": 1767571200.25, "from": "a", "to": "b", "cmd": "X", "job": None, "attrs": []},
        {"t": 0.1 + 0.2, "from": "a", "to": "b", "cmd": "X", "job": None, "attrs": ["x"]},
        {"t": float("inf"), "from": "a", "to": "b", "cmd": "X", "job": None, "attrs": []},
        {"t": 5, "from": "a", "to": "b", "cmd": 3, "job": None, "attrs": ["x"]},
    ]
    rnd = random.Random(7)
    for _ in range(2000):
        text = "".join(chr(rnd.choice([rnd.randint(0, 0x7F), rnd.randint(0x80, 0x3000),
                                       rnd.randint(0x10000, 0x10FFFF)]))
                       for _ in range(rnd.randint(0, 8)))
        cases.append({"t": rnd.random() * 1e9, "from": text, "to": text[::-1],
                      "cmd": text + "c", "job": text or None, "attrs": [text, text * 2]})
    for rec in cases:
        assert record_line(rec) == _dumps(rec), rec


def test_tracer_writes_one_json_line_per_message(tmp_path) -> None:
    path = tmp_path / "trace.jsonl"
    seen: list[dict[str, object]] = []
    tracer = Tracer(path, sink=seen.append)
    ad = ClassAd()
    ad["ClusterId"] = 4
    ad["ProcId"] = 2
    ad["requestMemory"] = 1024

    async def main() -> None:
        tracer.record("schedd", "startd", m.UPDATE_STARTD_AD(ad=ad))

    trio.run(main, clock=trio.testing.MockClock())
    tracer.close()
    assert path.read_text() == _dumps(seen[0])
    assert read_trace(path) == [{"t": 0, "from": "schedd", "to": "startd",
                                 "cmd": "UPDATE_STARTD_AD", "job": "4.2",
                                 "attrs": ["ClusterId", "ProcId", "requestMemory"]}]
