"""The collector in an in-process pool: the same daemon code, memory streams, MockClock."""

from __future__ import annotations

from pathlib import Path

import trio

from condorsim.classad import ClassAd
from condorsim.config import Config
from condorsim.runtime.inproc import open_inprocess_pool
from condorsim.wire import messages as m
from daemons.collector.daemon import Collector


def _slot(name: str, state: str = "Unclaimed") -> ClassAd:
    return ClassAd.parse(
        f'[ MyType = "Machine"; Name = "{name}"; Machine = "exec1"; State = "{state}";'
        f' MyAddress = "<127.0.0.1:1>"; Cpus = 1 ]'
    )


async def test_ads_are_replaced_queried_and_expire_after_classad_lifetime(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    config = Config.from_text("COLLECTOR_HOST = 127.0.0.1:9618\nCLASSAD_LIFETIME = 900\n")
    async with open_inprocess_pool(config, tmp_path, [("collector", Collector)]) as pool:
        assert pool.addresses["collector"] == "<127.0.0.1:9618>"
        conn = await pool.connect("collector", me="startd")
        async with conn:
            await conn.send(m.UPDATE_STARTD_AD(ad=_slot("slot1@exec1")))
            await conn.send(m.UPDATE_STARTD_AD(ad=_slot("slot2@exec1")))
            await conn.send(m.UPDATE_STARTD_AD(ad=_slot("slot1@exec1", "Claimed")))
            reply = await conn.request(
                m.QUERY_STARTD_ADS(constraint='State == "Claimed"', projection=["Name", "State"])
            )
        assert isinstance(reply, m.QUERY_RESULT)
        assert [(a.evaluate("Name"), a.evaluate("State")) for a in reply.ads] == [
            ("slot1@exec1", "Claimed")
        ]
        await trio.sleep(899)
        async with await pool.connect("collector") as conn:
            reply = await conn.request(m.QUERY_STARTD_ADS(constraint="", projection=[]))
        assert len(reply.ads) == 2  # type: ignore[attr-defined]
        await trio.sleep(2)
        async with await pool.connect("collector") as conn:
            reply = await conn.request(m.QUERY_STARTD_ADS(constraint="", projection=[]))
        assert reply.ads == []  # type: ignore[attr-defined]
        # Every message between daemons is in the trace, with the attributes it carried.
        updates = [r for r in pool.trace if r["cmd"] == "UPDATE_STARTD_AD"]
        assert len(updates) == 3 and updates[0]["from"] == "startd"
        assert updates[0]["to"] == "collector" and "State" in updates[0]["attrs"]


async def test_a_bad_constraint_is_refused_and_the_collector_carries_on(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    config = Config.from_text("COLLECTOR_HOST = 127.0.0.1:9618\n")
    async with open_inprocess_pool(config, tmp_path, [("collector", Collector)]) as pool:
        async with await pool.connect("collector") as conn:
            reply = await conn.request(m.QUERY_STARTD_ADS(constraint="State ==", projection=[]))
            assert isinstance(reply, m.FAILED)
            reply = await conn.request(m.QUERY_STARTD_ADS(constraint="", projection=[]))
            assert isinstance(reply, m.QUERY_RESULT)
        # A peer that sends garbage loses its connection; the collector keeps serving.
        stream = await pool.network.connect(pool.addresses["collector"])
        await stream.send_all(b"\xff\xff\xff\xffgarbage")
        await stream.aclose()
        async with await pool.connect("collector") as conn:
            assert isinstance(
                await conn.request(m.QUERY_ANY_ADS(constraint="", projection=[])), m.QUERY_RESULT
            )
