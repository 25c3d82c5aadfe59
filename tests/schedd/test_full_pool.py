"""A job's whole life with every real daemon in one in-process pool: submit, negotiate,
claim, run (a simulated ``sleep 60``), complete and leave for history; the user log tells
the story."""

from __future__ import annotations

from pathlib import Path

import trio
import trio.testing

from condorsim.config import Config
from condorsim.eventlog import read_events
from condorsim.runtime.inproc import open_inprocess_pool
from condorsim.wire import messages as m
from daemons.collector.daemon import Collector
from daemons.negotiator.daemon import Negotiator
from daemons.schedd.daemon import Schedd
from daemons.shadow.daemon import Shadow
from daemons.startd.daemon import Startd
from daemons.starter.daemon import Starter

T0 = 1_767_225_600
CONFIG = """
COLLECTOR_HOST = 127.0.0.1:9300
SIM_MACHINES = exec1
SIM_MACHINE_exec1_CPUS = 2
SIM_MACHINE_exec1_MEMORY = 2048
NEGOTIATOR_INTERVAL = 60
UID_DOMAIN = example.org
"""


async def test_jobs_run_to_completion_through_every_daemon(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(T0)
    config = Config.from_text(CONFIG + f"LOCAL_DIR = {tmp_path}\n")
    daemons = [("collector", Collector), ("negotiator", Negotiator), ("schedd", Schedd),
               ("shadow", Shadow), ("startd", Startd), ("starter", Starter)]
    text = ("executable = /bin/sleep\narguments = 60\nlog = job.log\nrequest_memory = 100\n"
            "queue 3\n")
    async with open_inprocess_pool(config, tmp_path, daemons) as pool:  # type: ignore[arg-type]
        start = trio.current_time()
        async with await pool.connect("schedd") as conn:
            reply = await conn.request(m.SUBMIT_JOBS(owner="alice", text=text,
                                                     iwd=str(tmp_path), source="job.sub"))
            assert reply == m.SUBMIT_RESULT(cluster=1, procs=3)
        await trio.sleep(1200)
        async with await pool.connect("schedd") as conn:
            left = await conn.request(m.QUERY_JOB_ADS(constraint="", projection=[]))
            hist = await conn.request(m.QUERY_HISTORY(constraint="", projection=[], limit=0))
    assert isinstance(left, m.QUERY_RESULT) and isinstance(hist, m.QUERY_RESULT)
    assert left.ads == []
    assert sorted(a.evaluate("ProcId") for a in hist.ads) == [0, 1, 2]
    assert all(a.evaluate("JobStatus") == 4 and a.evaluate("ExitCode") == 0 for a in hist.ads)
    events = read_events(tmp_path / "job.log")
    per_job = {p: [(e.type, e.timestamp - start) for e in events if e.proc == p]
               for p in range(3)}
    # Two slots: 1.0 and 1.1 match at the cycle the submit's RESCHEDULE asks for (sent at
    # 5 s, after the schedd's next collector update; the cycle waits NEGOTIATOR_CYCLE_DELAY
    # after the one at 0 s); 1.2 takes a freed claim at once.
    assert per_job[0] == [("SUBMIT", 0), ("EXECUTE", 20), ("IMAGE_SIZE", 28),
                          ("JOB_TERMINATED", 80)]
    assert per_job[2] == [("SUBMIT", 0), ("EXECUTE", 80), ("IMAGE_SIZE", 88),
                          ("JOB_TERMINATED", 140)]
    assert [a.evaluate("CompletionDate") - start for a in hist.ads] == [140, 80, 80]


async def test_a_crontab_job_runs_on_its_schedule_and_is_requeued(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(T0)
    config = Config.from_text(CONFIG + f"LOCAL_DIR = {tmp_path}\n")
    daemons = [("collector", Collector), ("negotiator", Negotiator), ("schedd", Schedd),
               ("shadow", Shadow), ("startd", Startd), ("starter", Starter)]
    text = ("executable = /bin/sleep\narguments = 30\nlog = cron.log\ncron_minute = */5\n"
            "on_exit_remove = false\nqueue\n")
    async with open_inprocess_pool(config, tmp_path, daemons) as pool:  # type: ignore[arg-type]
        async with await pool.connect("schedd") as conn:
            await conn.request(m.SUBMIT_JOBS(owner="alice", text=text, iwd=str(tmp_path),
                                             source="cron.sub"))
        await trio.sleep(1000)
        async with await pool.connect("schedd") as conn:
            q = await conn.request(m.QUERY_JOB_ADS(constraint="", projection=[]))
    assert isinstance(q, m.QUERY_RESULT)
    [job] = q.ads
    events = [(e.type, e.timestamp - T0) for e in read_events(tmp_path / "cron.log")]
    # Each run starts on a 5-minute boundary and is requeued (004) after its 30 s; the next
    # DeferralTime was computed at once, and the job already waits on its slot for it.
    assert [t for kind, t in events if kind == "EXECUTE"] == [300, 600, 900]
    assert [t for kind, t in events if kind == "JOB_EVICTED"] == [330, 630, 930]
    assert job.evaluate("DeferralTime") == T0 + 1200 and job.evaluate("JobStatus") == 2
