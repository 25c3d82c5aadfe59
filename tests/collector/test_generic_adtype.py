"""A generic query or invalidation with no ad type is a bad request: refused with a reason
(a query) or logged (an invalidation), never a handler failure; the collector serves on."""

from __future__ import annotations

import json
from pathlib import Path

import trio
import trio.testing

from condorsim.classad import ClassAd
from condorsim.config import Config
from condorsim.runtime.inproc import open_inprocess_pool
from condorsim.wire import messages as m
from daemons.collector.daemon import Collector


async def test_a_generic_request_without_an_ad_type_is_refused(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    log_dir = tmp_path / "log"
    async with open_inprocess_pool(Config.from_text(""), tmp_path, [("collector", Collector)],
                                   log_dir=log_dir) as pool:
        async with await pool.connect("collector") as conn:
            await conn.send(m.UPDATE_AD_GENERIC(ad=ClassAd({"MyType": "Test", "Name": "a"})))
            await conn.send(m.INVALIDATE_ADS_GENERIC(adtype="", constraint=""))
            reply = await conn.request(m.QUERY_GENERIC_ADS(adtype="", constraint="",
                                                           projection=[]))
            assert isinstance(reply, m.FAILED)
            assert reply.reason == "QUERY_GENERIC_ADS names no ad type (its adtype is empty)"
            # the same connection goes on: the ad is still there
            found = await conn.request(m.QUERY_GENERIC_ADS(adtype="Test", constraint="",
                                                           projection=[]))
            assert isinstance(found, m.QUERY_RESULT) and len(found.ads) == 1
    records = [json.loads(line)
               for line in (log_dir / "CollectorLog.json").read_text().splitlines()]
    assert not [r for r in records if r["event"] == "handler_failed"]
    bad = [r["cmd"] for r in records if r["event"] == "bad_request"]
    assert bad == ["INVALIDATE_ADS_GENERIC", "QUERY_GENERIC_ADS"]
