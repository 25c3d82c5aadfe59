"""What the schedd does with a claim when its job's shadow exits (claims.py): the next idle
job that fits, RELEASE_CLAIM when none does -- and neither when the startd closes the claim
itself (past its CLAIM_WORKLIFE, or the shadow's JOB_EXITED_AND_CLAIM_CLOSING): HTCondor's
schedd then deletes its match with ``needs_release_claim = false`` (schedd.cpp)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import trio
import trio.testing

from condorsim.classad import ClassAd
from condorsim.config import Config
from condorsim.jobs.codes import ShadowExit
from daemons.schedd.claims import Claim, ClaimKeeper
from daemons.schedd.queue import JobQueue
from daemons.schedd.running import mark_running

T0 = 1_767_225_600
JOBS = "executable = /bin/sleep\narguments = 600\nrequest_memory = 100\nqueue\n"


class _Host:
    """The schedd as the claim keeper sees it: what it starts and logs is recorded."""

    def __init__(self, queue: JobQueue) -> None:
        self.queue = queue
        self.tz = "UTC"
        self.address = "<127.0.0.1:1>"
        self.tasks: list[tuple[str, tuple[Any, ...]]] = []
        self.logged: list[str] = []
        self.at_end: list[Any] = []
        self.ctx = SimpleNamespace(
            config=Config.from_text(""), name="schedd", connect=None,
            log=SimpleNamespace(info=lambda event, **kw: self.logged.append(event)),
            at_end_of_instant=lambda key, fn: self.at_end.append(fn))

    def start_task(self, fn: Any, *args: Any) -> None:
        self.tasks.append((fn.__name__, args))


def _after_exit(tmp_path: Path, worklife: int, exit_code: int, next_memory: int = 100) -> tuple[_Host, ClaimKeeper]:
    """Job 1.0 ran on claim c1 from T0; its shadow exits at T0 + 600 with ``exit_code``.
    Job 2.0, idle, asks for ``next_memory`` MB of the slot's 1024."""
    q = JobQueue(tmp_path / "spool")
    q.open(T0)
    q.submit("alice", JOBS, str(tmp_path), "job.sub", T0)
    q.submit("alice", JOBS.replace("100", str(next_memory)), str(tmp_path), "job.sub", T0)
    slot = ClassAd.parse('[ Name = "slot1@exec1"; MyType = "Machine"; Arch = "X86_64"; '
                         'OpSys = "LINUX"; Disk = 1000000; Memory = 1024; HasFileTransfer = true; '
                         f'Requirements = true; CLAIM_WORKLIFE = {worklife} ]')
    mark_running(q, (1, 0), claim_id="c1", slot_ad=slot, startd_addr="<127.0.0.1:5>", now=T0)
    q.has_shadow.add((1, 0))  # as the schedd records it when it starts the shadow
    host = _Host(q)
    keeper = ClaimKeeper(host)  # type: ignore[arg-type]
    keeper.claims["c1"] = Claim("c1", "<127.0.0.1:5>", slot, created=T0, job=(1, 0))

    async def main() -> None:
        keeper.shadow_exit((1, 0), exit_code, ClassAd.parse("[ ExitCode = 0 ]"), T0 + 600)
        for fn in host.at_end:  # the end of the instant
            fn()

    clock = trio.testing.MockClock()
    clock.jump(T0 + 600)
    trio.run(main, clock=clock)
    assert (1, 0) not in q.has_shadow
    return host, keeper


def test_a_claim_within_its_worklife_runs_the_next_idle_job(tmp_path: Path) -> None:
    host, keeper = _after_exit(tmp_path, worklife=1200, exit_code=ShadowExit.JOB_EXITED)
    assert host.tasks == [("_start_job", (keeper.claims["c1"], (2, 0)))]


@pytest.mark.parametrize("worklife, exit_code", [
    (300, ShadowExit.JOB_EXITED),  # 600 s old: past its worklife, the startd closed it
    (1200, ShadowExit.JOB_EXITED_AND_CLAIM_CLOSING),  # the startd said it is closing
])
def test_a_claim_the_startd_closes_is_forgotten_without_release_claim(
        tmp_path: Path, worklife: int, exit_code: int) -> None:
    host, keeper = _after_exit(tmp_path, worklife, exit_code)
    assert host.tasks == []  # neither the next job nor a RELEASE_CLAIM
    assert keeper.claims == {}
    assert "claim_closed_by_startd" in host.logged


@pytest.mark.parametrize("exit_code, next_memory", [
    (ShadowExit.JOB_EXITED, 4096),  # the idle job does not fit the slot
    (ShadowExit.JOB_RECONNECT_FAILED, 100),  # the claim is not to be trusted again
])
def test_a_claim_the_schedd_ends_gets_release_claim(
        tmp_path: Path, exit_code: int, next_memory: int) -> None:
    host, keeper = _after_exit(tmp_path, 1200, exit_code, next_memory)
    assert [name for name, _ in host.tasks] == ["_release"]
    assert keeper.claims == {}
