"""The schedd applies JOB_TRANSFORM_NAMES to every submitted job, in order, each transform
whose REQUIREMENTS match the job as transformed so far; a failing transform refuses the
submission (HTCondor's ``JobTransforms::transformJob`` in ``CheckTransaction``)."""

from __future__ import annotations

from pathlib import Path

import trio
import trio.testing

from condorsim.classad import UNDEFINED
from condorsim.config import Config
from condorsim.runtime.inproc import open_inprocess_pool
from condorsim.wire import messages as m
from daemons.collector.daemon import Collector
from daemons.schedd.daemon import Schedd

T0 = 1_767_225_600
CONFIG = """
COLLECTOR_HOST = 127.0.0.1:9301
UID_DOMAIN = example.org
JOB_TRANSFORM_NAMES = Tag Big NAMES Old Missing Broken Fail
JOB_TRANSFORM_Tag @=end
  SET Tagged = "by-$(tag_by)"
  tag_by = schedd
  SET Tagged = "by-$(tag_by)"
  DEFAULT Department "physics"
  DELETE Rank
@end
JOB_TRANSFORM_Big @=end
  REQUIREMENTS RequestMemory > 1000
  SET Big = true
  RENAME Tagged Label
@end
JOB_TRANSFORM_Old = [ set_FromOld = 42; copy_Cmd = "OrigCmd"; Requirements = TARGET.Fail =!= true; ]
JOB_TRANSFORM_Broken = FROB x
JOB_TRANSFORM_Fail @=end
  REQUIREMENTS Fail =?= true
  SET X $INT(notanumber)
@end
"""


async def submit(pool: object, text: str) -> m.Message:
    async with await pool.connect("schedd") as conn:  # type: ignore[attr-defined]
        return await conn.request(m.SUBMIT_JOBS(owner="alice", text=text, iwd="/tmp", source="j.sub"))  # type: ignore[no-any-return]


async def test_every_submitted_job_is_transformed(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(T0)
    config = Config.from_text(CONFIG + f"LOCAL_DIR = {tmp_path}\n")
    text = ("executable = /bin/sleep\nrequest_memory = $(mem)\nrank = Memory\n"
            "queue mem in (100, 2000)\n")
    async with open_inprocess_pool(config, tmp_path, [("collector", Collector), ("schedd", Schedd)]) as pool:  # type: ignore[arg-type]
        reply = await submit(pool, text)
        assert reply == m.SUBMIT_RESULT(cluster=1, procs=2)
        refused = await submit(pool, "executable = /bin/sleep\n+Fail = true\nqueue\n")
        async with await pool.connect("schedd") as conn:
            q = await conn.request(m.QUERY_JOB_ADS(constraint="", projection=[]))
    assert isinstance(q, m.QUERY_RESULT)
    small, big = sorted(q.ads, key=lambda a: a.evaluate("ProcId"))
    assert small.evaluate("Tagged") == "by-schedd"  # a macro set before it is used
    assert small.evaluate("Department") == "physics"
    assert small.evaluate("Rank") is UNDEFINED and "Rank" in small  # deleted: set undefined
    assert "Big" not in small
    assert big.evaluate("Big") is True
    assert big.evaluate("Label") == "by-schedd" and big.evaluate("Tagged") is UNDEFINED
    for ad in (small, big):  # the old ClassAd syntax, converted
        assert ad.evaluate("FromOld") == 42 and ad.evaluate("OrigCmd") == ad.evaluate("Cmd")
    # the broken transform was left out (and logged); the failing one refused the submission
    assert isinstance(refused, m.FAILED)
    assert "Failed to apply a required job transform." in refused.reason
    assert "$INT() macro: notanumber does not evaluate to an integer!" in refused.reason
