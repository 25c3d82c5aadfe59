"""The startd in an in-process pool with the collector: slot ads, updates, claims."""

from __future__ import annotations

from pathlib import Path

import trio

from condorsim.classad import ClassAd
from condorsim.config import Config
from condorsim.runtime.daemon import DaemonContext
from condorsim.runtime.inproc import open_inprocess_pool
from condorsim.runtime.network import Conn
from condorsim.wire import Message
from condorsim.wire import messages as m
from daemons.collector.daemon import Collector
from daemons.startd.daemon import Startd

EPOCH = 1_767_225_600

CONFIG = """
COLLECTOR_HOST = 127.0.0.1:9000
SIM_MACHINES = exec1, exec2
SIM_MACHINE_exec1_SLOTS = 2
SIM_MACHINE_exec1_CPUS = 4
SIM_MACHINE_exec1_MEMORY = 8192
SIM_MACHINE_exec1_ATTRS = [ HasGPU = false ]
SIM_MACHINE_exec1_CLOCK_OFFSET = -30
SIM_MACHINE_exec2_CPUS = 1
SIM_MACHINE_exec2_START = TARGET.Owner == "alice"
UID_DOMAIN = example.org
"""


def _job(owner: str = "alice", requirements: str = "true") -> ClassAd:
    return ClassAd.parse(
        f'[ MyType = "Job"; ClusterId = 7; ProcId = 0; Owner = "{owner}";'
        f' User = "{owner}@example.org"; Requirements = {requirements}; Rank = 0.0;'
        f' RequestCpus = 1; RequestMemory = 128 ]'
    )


async def _slots(pool: object) -> dict[str, ClassAd]:
    async with await pool.connect("collector") as conn:  # type: ignore[attr-defined]
        reply = await conn.request(m.QUERY_STARTD_ADS(constraint="", projection=[]))
    assert isinstance(reply, m.QUERY_RESULT)
    return {str(ad.evaluate("Name")): ad for ad in reply.ads}


async def test_slot_ads_carry_the_machine_and_are_updated_every_update_interval(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    config = Config.from_text(CONFIG)
    async with open_inprocess_pool(
        config, tmp_path, [("collector", Collector), ("startd", Startd)]
    ) as pool:
        await trio.sleep(1)
        slots = await _slots(pool)
        assert sorted(slots) == ["slot1@exec1", "slot1@exec2", "slot2@exec1"]
        s1 = slots["slot1@exec1"]
        values = {a: s1.evaluate(a) for a in (
            "MyType", "Machine", "SlotID", "Cpus", "Memory", "TotalSlots", "State", "Activity",
            "Arch", "OpSys", "HasFileTransfer", "HasJobDeferral", "HasGPU", "SimClockOffset",
            "UidDomain", "MyAddress")}
        assert values == {
            "MyType": "Machine", "Machine": "exec1", "SlotID": 1, "Cpus": 2, "Memory": 4096,
            "TotalSlots": 2, "State": "Unclaimed", "Activity": "Idle", "Arch": "X86_64",
            "OpSys": "LINUX", "HasFileTransfer": True, "HasJobDeferral": True,
            "HasGPU": False, "SimClockOffset": -30, "UidDomain": "example.org",
            "MyAddress": pool.addresses["startd"],
        }
        assert isinstance(s1.evaluate("ClaimId"), str)
        # Requirements is START: exec2 takes alice's jobs only.
        s2 = slots["slot1@exec2"]
        assert s2.evaluate("Requirements", _job("alice")) is True
        assert s2.evaluate("Requirements", _job("bob")) is False
        await trio.sleep(1000)
        times = sorted({int(r["t"]) - EPOCH for r in pool.trace if r["cmd"] == "UPDATE_STARTD_AD"})
        assert times == [0, 300, 600, 900]


class FakeStarter:
    """A starter stand-in: publishes its Starter ad, records what the startd tells it."""

    def __init__(self) -> None:
        self.received: list[Message] = []

    async def run(self, ctx: DaemonContext, task_status: trio.TaskStatus[str]) -> None:
        claims: dict[str, tuple[str, str]] = {}  # job -> (claim id, startd address)

        async def exit_later(job: str) -> None:
            await trio.sleep(3)  # the job takes 3 s to vacate
            claim_id, startd = claims.pop(job)
            async with await ctx.connect(startd, "startd") as conn:
                await conn.send(m.STARTER_EXITED(claim_id=claim_id))

        async def handle(msg: Message, conn: Conn) -> None:
            self.received.append(msg)
            if isinstance(msg, m.STARTER_START):
                job = f"{msg.job_ad.evaluate('ClusterId')}.{msg.job_ad.evaluate('ProcId')}"
                claims[job] = (msg.claim_id, str(msg.slot_ad.evaluate("MyAddress")))
            elif isinstance(msg, m.STARTER_REMOVE) and msg.job in claims:
                nursery.start_soon(exit_later, msg.job)
            await conn.send(m.OK())

        async with trio.open_nursery() as nursery:
            address = await nursery.start(
                lambda task_status: ctx.serve(handle, task_status=task_status))
            ad = ClassAd({"MyType": "Starter", "Name": "starter@exec1", "MyAddress": address,
                          "StartdDaemon": "startd"})
            async with await ctx.connect(ctx.collector_address(), "collector") as conn:
                await conn.send(m.UPDATE_AD_GENERIC(ad=ad))
            task_status.started(address)


async def test_claim_activate_exit_release_with_updates_at_once_and_history(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    config = Config.from_text(CONFIG)
    starter = FakeStarter()
    async with open_inprocess_pool(
        config, tmp_path,
        [("collector", Collector), ("starter", lambda: starter), ("startd", Startd)],
    ) as pool:
        await trio.sleep(10)
        claim_id = str((await _slots(pool))["slot1@exec1"].evaluate("ClaimId"))
        async with await pool.connect("startd", me="schedd") as conn:
            reply = await conn.request(m.REQUEST_CLAIM(
                claim_id=claim_id, job_ad=_job(), scheduler_addr="<127.0.0.1:9700>"))
        assert isinstance(reply, m.CLAIM_RESPONSE) and reply.accepted
        assert reply.slot_ad is not None and reply.slot_ad.evaluate("State") == "Claimed"
        slot = (await _slots(pool))["slot1@exec1"]
        assert (slot.evaluate("State"), slot.evaluate("Activity")) == ("Claimed", "Idle")
        assert slot.evaluate("RemoteOwner") == "alice@example.org"
        assert slot.evaluate("ClaimId") != claim_id  # a fresh id for a preempting claim
        # the state change went to the collector at once, not at the next 300 s update
        claimed_updates = [r for r in pool.trace if r["cmd"] == "UPDATE_STARTD_AD"
                           and int(r["t"]) - EPOCH == 10]
        assert len(claimed_updates) == 1

        await trio.sleep(5)
        async with await pool.connect("startd", me="shadow") as conn:
            reply = await conn.request(m.ACTIVATE_CLAIM(
                claim_id=claim_id, job_ad=_job(), shadow_addr="<127.0.0.1:9701>"))
        assert isinstance(reply, m.OK)
        assert [type(x).__name__ for x in starter.received] == ["STARTER_START"]
        slot = (await _slots(pool))["slot1@exec1"]
        assert (slot.evaluate("Activity"), slot.evaluate("JobId")) == ("Busy", "7.0")

        async with await pool.connect("startd", me="starter") as conn:
            await conn.send(m.STARTER_UPDATE(claim_id=claim_id,
                                             ad=ClassAd({"ImageSize": 1000})))
            await conn.send(m.STARTER_EXITED(claim_id=claim_id))
        await trio.sleep(1)
        slot = (await _slots(pool))["slot1@exec1"]
        assert (slot.evaluate("State"), slot.evaluate("Activity")) == ("Claimed", "Idle")
        history = (tmp_path / "spool" / "startd_history").read_text()
        assert "ImageSize = 1000\n" in history
        assert history.endswith('*** Offset = 0 ClusterId = 7 ProcId = 0 Owner = "alice" '
                                f'CompletionDate = {EPOCH + 15}\n')

        async with await pool.connect("startd", me="schedd") as conn:
            assert isinstance(await conn.request(m.ALIVE(claim_id=claim_id)), m.OK)
            assert isinstance(await conn.request(m.RELEASE_CLAIM(claim_id=claim_id)), m.OK)
            assert isinstance(await conn.request(m.ALIVE(claim_id=claim_id)), m.FAILED)
        slot = (await _slots(pool))["slot1@exec1"]
        assert (slot.evaluate("State"), slot.evaluate("Activity")) == ("Unclaimed", "Idle")


async def test_a_claim_without_alives_lapses_after_six_alive_intervals(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    config = Config.from_text(CONFIG + "ALIVE_INTERVAL = 100\nUPDATE_INTERVAL = 5000\nCLASSAD_LIFETIME = 9000\n")
    async with open_inprocess_pool(
        config, tmp_path, [("collector", Collector), ("startd", Startd)]
    ) as pool:
        await trio.sleep(1)
        claim_id = str((await _slots(pool))["slot1@exec2"].evaluate("ClaimId"))
        async with await pool.connect("startd", me="schedd") as conn:
            reply = await conn.request(m.REQUEST_CLAIM(
                claim_id=claim_id, job_ad=_job(), scheduler_addr="<127.0.0.1:9700>"))
            assert isinstance(reply, m.CLAIM_RESPONSE) and reply.accepted
            await trio.sleep(599)
            assert isinstance(await conn.request(m.ALIVE(claim_id=claim_id)), m.OK)
            await trio.sleep(599)
            assert (await _slots(pool))["slot1@exec2"].evaluate("State") == "Claimed"
            await trio.sleep(2)
            assert (await _slots(pool))["slot1@exec2"].evaluate("State") == "Unclaimed"
            assert isinstance(await conn.request(m.ALIVE(claim_id=claim_id)), m.FAILED)
        # the lease (6 x 100 s after the last ALIVE at +600) lapsed at +1200 exactly
        updates = [int(r["t"]) - EPOCH for r in pool.trace if r["cmd"] == "UPDATE_STARTD_AD"]
        assert updates == [0, 0, 0, 1, 1200]  # three slots at start, the claim, the lapse


async def test_start_and_job_requirements_are_checked_on_request_claim(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    config = Config.from_text(CONFIG)
    async with open_inprocess_pool(
        config, tmp_path, [("collector", Collector), ("startd", Startd)]
    ) as pool:
        await trio.sleep(1)
        slots = await _slots(pool)
        async with await pool.connect("startd", me="schedd") as conn:
            reply = await conn.request(m.REQUEST_CLAIM(
                claim_id=str(slots["slot1@exec2"].evaluate("ClaimId")), job_ad=_job("bob"),
                scheduler_addr="<127.0.0.1:9700>"))
            assert isinstance(reply, m.CLAIM_RESPONSE) and not reply.accepted
            reply = await conn.request(m.REQUEST_CLAIM(
                claim_id=str(slots["slot1@exec1"].evaluate("ClaimId")),
                job_ad=_job("bob", "TARGET.Memory > 100000"), scheduler_addr="<127.0.0.1:9700>"))
            assert isinstance(reply, m.CLAIM_RESPONSE) and not reply.accepted
            # the startd checks the job against the same full ad the collector has
            reply = await conn.request(m.REQUEST_CLAIM(
                claim_id=str(slots["slot2@exec1"].evaluate("ClaimId")),
                job_ad=_job("bob", 'TARGET.OpSys == "LINUX" && TARGET.Arch == "X86_64" && '
                            'TARGET.HasFileTransfer && TARGET.UidDomain == "example.org"'),
                scheduler_addr="<127.0.0.1:9700>"))
            assert isinstance(reply, m.CLAIM_RESPONSE) and reply.accepted, reply
            reply = await conn.request(m.REQUEST_CLAIM(
                claim_id="bogus", job_ad=_job(), scheduler_addr="<127.0.0.1:9700>"))
            assert isinstance(reply, m.CLAIM_RESPONSE) and not reply.accepted
            # an unknown command is refused, and the startd carries on
            reply = await conn.request(m.RESCHEDULE())
            assert isinstance(reply, m.FAILED)
            assert isinstance(await conn.request(m.ALIVE(claim_id="bogus")), m.FAILED)


async def test_rank_preemption_answers_the_new_claim_once_the_old_job_has_left(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    config = Config.from_text(CONFIG + "SIM_MACHINE_exec2_RANK = TARGET.JobPrio\n")
    starter = FakeStarter()
    async with open_inprocess_pool(
        config, tmp_path,
        [("collector", Collector), ("starter", lambda: starter), ("startd", Startd)],
    ) as pool:
        await trio.sleep(1)
        old_id = str((await _slots(pool))["slot1@exec2"].evaluate("ClaimId"))
        low, high = _job(), _job()
        low["JobPrio"], high["JobPrio"], high["ClusterId"] = 1, 5, 8
        async with await pool.connect("startd", me="schedd") as conn:
            reply = await conn.request(m.REQUEST_CLAIM(
                claim_id=old_id, job_ad=low, scheduler_addr="<127.0.0.1:9700>"))
            assert isinstance(reply, m.CLAIM_RESPONSE) and reply.accepted
        async with await pool.connect("startd", me="shadow") as conn:
            assert isinstance(await conn.request(m.ACTIVATE_CLAIM(
                claim_id=old_id, job_ad=low, shadow_addr="<127.0.0.1:9701>")), m.OK)
        slot = (await _slots(pool))["slot1@exec2"]
        assert slot.evaluate("CurrentRank") == 1.0
        new_id = str(slot.evaluate("ClaimId"))
        await trio.sleep(10)
        asked = trio.current_time()
        async with await pool.connect("startd", me="schedd") as conn:
            reply = await conn.request(m.REQUEST_CLAIM(
                claim_id=new_id, job_ad=high, scheduler_addr="<127.0.0.1:9702>"))
        # the reply came once the vacated job had gone (3 s), with the slot claimed anew
        assert trio.current_time() - asked == 3
        assert isinstance(reply, m.CLAIM_RESPONSE) and reply.accepted
        assert reply.slot_ad is not None
        assert (reply.slot_ad.evaluate("State"), reply.slot_ad.evaluate("Activity"),
                reply.slot_ad.evaluate("CurrentRank")) == ("Claimed", "Idle", 5.0)
        removes = [x for x in starter.received if isinstance(x, m.STARTER_REMOVE)]
        assert [x.job for x in removes] == ["7.0"]
        history = (tmp_path / "spool" / "startd_history").read_text()
        assert history.count("*** Offset") == 1 and "ClusterId = 7\n" in history
        async with await pool.connect("startd", me="schedd") as conn:
            assert isinstance(await conn.request(m.ALIVE(claim_id=old_id)), m.FAILED)
            assert isinstance(await conn.request(m.ALIVE(claim_id=new_id)), m.OK)
