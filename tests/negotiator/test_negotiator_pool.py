"""The negotiator in an in-process pool: collector, startd, and a small fake schedd."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

from condorsim.classad import ClassAd
from condorsim.config import Config
from condorsim.runtime.daemon import Daemon, DaemonContext
from condorsim.runtime.inproc import open_inprocess_pool
from condorsim.runtime.network import Conn
from condorsim.wire import Message
from condorsim.wire import messages as m
from daemons.collector.daemon import Collector
from daemons.negotiator.daemon import Negotiator
from daemons.startd.daemon import Startd

EPOCH = 1_767_225_600

CONFIG = """
COLLECTOR_HOST = 127.0.0.1:9000
SIM_MACHINES = exec1
SIM_MACHINE_exec1_SLOTS = 2
SIM_MACHINE_exec1_CPUS = 2
SIM_MACHINE_exec1_MEMORY = 2048
SIM_MACHINE_exec1_RANK = TARGET.JobPrio
"""


def _request(owner: str, count: int, memory: int = 100, prio: int = 0) -> ClassAd:
    return ClassAd.parse(
        f'[ MyType = "Job"; ClusterId = 1; ProcId = 0; Owner = "{owner}"; JobPrio = {prio};'
        f' User = "{owner}@localhost"; RequestMemory = {memory}; Rank = 0.0;'
        f' Requirements = TARGET.Memory >= RequestMemory; _condor_RESOURCE_COUNT = {count};'
        f' AutoClusterId = 1 ]'
    )


class FakeSchedd:
    """Serves the negotiation protocol with fixed resource requests; records what it got."""

    def __init__(self, owner: str, requests: list[ClassAd], claim: bool = False) -> None:
        self.owner = owner
        self.requests = requests
        self.claim = claim  # claim each match at its startd, as a schedd does
        self.log: list[tuple[float, Message]] = []
        self.claims: list[m.CLAIM_RESPONSE] = []
        # awaited on each NEGOTIATE, while the negotiator's cycle waits for this schedd
        self.on_negotiate: Callable[[float], Awaitable[None]] | None = None

    async def _claim(self, ctx: DaemonContext, permit: m.PERMISSION_AND_AD, me: str) -> None:
        startd = str(permit.slot_ad.evaluate("MyAddress"))
        async with await ctx.connect(startd, "startd") as conn:
            reply = await conn.request(m.REQUEST_CLAIM(
                claim_id=permit.claim_id, job_ad=self.requests[permit.request_index],
                scheduler_addr=me))
        assert isinstance(reply, m.CLAIM_RESPONSE)
        self.claims.append(reply)

    async def run(self, ctx: DaemonContext, task_status: trio.TaskStatus[str]) -> None:
        sent: dict[int, bool] = {}

        async def handle(msg: Message, conn: Conn) -> None:
            self.log.append((trio.current_time() - EPOCH, msg))
            if isinstance(msg, m.NEGOTIATE):
                sent[id(conn)] = False
                if self.on_negotiate is not None:
                    await self.on_negotiate(trio.current_time() - EPOCH)
            elif isinstance(msg, m.SEND_RESOURCE_REQUEST_LIST):
                first = not sent.get(id(conn), True)
                sent[id(conn)] = True
                await conn.send(m.RESOURCE_REQUEST_LIST(requests=self.requests if first else []))
            elif isinstance(msg, m.PERMISSION_AND_AD) and self.claim:
                nursery.start_soon(self._claim, ctx, msg, address)

        async with trio.open_nursery() as nursery:
            address = await nursery.start(
                lambda task_status: ctx.serve(handle, task_status=task_status))
            ad = ClassAd({"MyType": "Submitter", "Name": f"{self.owner}@localhost",
                          "ScheddName": f"schedd-{self.owner}", "MyAddress": address,
                          "IdleJobs": 3, "RunningJobs": 0})
            nursery.start_soon(self._advertise, ctx, ad)
            task_status.started(address)

    async def _advertise(self, ctx: DaemonContext, ad: ClassAd) -> None:
        while True:
            async with await ctx.connect(ctx.collector_address(), "collector") as conn:
                await conn.send(m.UPDATE_SUBMITTOR_AD(ad=ad))
            await trio.sleep(300)

    def of(self, kind: type[Message]) -> list[tuple[float, Message]]:
        return [(t, msg) for t, msg in self.log if isinstance(msg, kind)]


async def test_matches_reach_the_schedd_every_negotiator_interval(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    schedd = FakeSchedd("alice", [_request("alice", 1, memory=99999), _request("alice", 3)])
    async with open_inprocess_pool(
        Config.from_text(CONFIG), tmp_path,
        [("collector", Collector), ("startd", Startd), ("schedd", lambda: schedd),
         ("negotiator", Negotiator)],
    ) as pool:
        await trio.sleep(150)
        starts = [t for t, _ in schedd.of(m.NEGOTIATE)]
        assert starts == [0, 60, 120]
        cycle0 = [msg for t, msg in schedd.log if t == 0]
        kinds = [type(msg).__name__ for msg in cycle0]
        # the first request fits no slot; the second takes both, then the submitter's
        # limit (the whole pool) is reached and negotiation ends without a rejection
        assert kinds == ["NEGOTIATE", "SEND_RESOURCE_REQUEST_LIST", "REJECTED_WITH_REASON",
                         "PERMISSION_AND_AD", "PERMISSION_AND_AD", "END_NEGOTIATE"]
        permits = [msg for msg in cycle0 if isinstance(msg, m.PERMISSION_AND_AD)]
        # ties broken by slot name; the claim id is the one the slot ad offers
        assert [p.slot_ad.evaluate("Name") for p in permits] == ["slot1@exec1", "slot2@exec1"]
        assert all(p.claim_id == p.slot_ad.evaluate("ClaimId") for p in permits)
        rejects = [msg for msg in cycle0 if isinstance(msg, m.REJECTED_WITH_REASON)]
        assert [(r.reason, r.request_index) for r in rejects] == [("no match found", 0)]
        assert [p.request_index for p in permits] == [1, 1]
        negotiate = schedd.of(m.NEGOTIATE)[0][1]
        assert isinstance(negotiate, m.NEGOTIATE) and negotiate.submitter == "alice@localhost"
        attrs = str(negotiate.ad.evaluate("AutoClusterAttrs")).split(",")
        assert "JobPrio" in attrs
        # the negotiator ad: at start, then every NEGOTIATOR_UPDATE_INTERVAL
        await trio.sleep(601 - 150)
        ads = [int(r["t"]) - EPOCH for r in pool.trace if r["cmd"] == "UPDATE_NEGOTIATOR_AD"]
        assert ads == [0, 300, 600]
        async with await pool.connect("collector") as conn:
            reply = await conn.request(m.QUERY_NEGOTIATOR_ADS(constraint="", projection=[]))
        assert isinstance(reply, m.QUERY_RESULT) and len(reply.ads) == 1
        neg = reply.ads[0]
        assert neg.evaluate("MyAddress") == pool.addresses["negotiator"]
        assert neg.evaluate("LastNegotiationCycleMatches0") == 2
        # the negotiator's trace shows the same cycle times
        times = [int(r["t"]) - EPOCH for r in pool.trace
                 if r["cmd"] == "NEGOTIATE" and r["from"] == "negotiator"]
        assert times == [60 * k for k in range(11)]


async def test_reschedule_starts_a_cycle_after_the_cycle_delay(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    schedd = FakeSchedd("alice", [_request("alice", 1)])
    async with open_inprocess_pool(
        Config.from_text(CONFIG), tmp_path,
        [("collector", Collector), ("startd", Startd), ("schedd", lambda: schedd),
         ("negotiator", Negotiator)],
    ) as pool:
        await trio.sleep(10)
        async with await pool.connect("negotiator", me="schedd") as conn:
            await conn.send(m.RESCHEDULE())
        await trio.sleep(100)
        # at 0, then 20 (20 s after the end of the first), then 80 (60 s after 20)
        assert [t for t, _ in schedd.of(m.NEGOTIATE)] == [0, 20, 80]


async def test_a_reschedule_that_arrives_during_a_cycle_is_not_lost(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    """A RESCHEDULE (a release, a submit) reaching the negotiator while a cycle runs asks
    for the next cycle: it starts NEGOTIATOR_CYCLE_DELAY after this one ends, as
    HTCondor's negotiator (single-threaded: it reads the command after the cycle and resets
    its timer), not a whole NEGOTIATOR_INTERVAL later (issue #12)."""
    autojump_clock.jump(EPOCH)
    schedd = FakeSchedd("alice", [_request("alice", 1, memory=99999)])
    async with open_inprocess_pool(
        Config.from_text(CONFIG), tmp_path,
        [("collector", Collector), ("startd", Startd), ("schedd", lambda: schedd),
         ("negotiator", Negotiator)],
    ) as pool:
        sent: list[float] = []

        async def release_during_the_cycle(now: float) -> None:
            if now == 60:  # the regular cycle at 60 is waiting for this schedd's answer
                async with await pool.connect("negotiator", me="schedd") as conn:
                    await conn.send(m.RESCHEDULE())
                await trio.sleep(0.5)  # the negotiator has read it before the cycle goes on
                sent.append(now)

        schedd.on_negotiate = release_during_the_cycle
        await trio.sleep(150)
        assert sent == [60]
        assert [t for t, _ in schedd.of(m.NEGOTIATE)] == [0, 60, 80.5, 140.5]


async def test_fair_share_splits_the_pool_between_two_submitters(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    alice = FakeSchedd("alice", [_request("alice", 4)])
    bob = FakeSchedd("bob", [_request("bob", 4)])
    config = Config.from_text(CONFIG.replace("SLOTS = 2", "SLOTS = 4").replace(
        "CPUS = 2", "CPUS = 4"))
    async with open_inprocess_pool(
        config, tmp_path,
        [("collector", Collector), ("startd", Startd), ("alice", lambda: alice),
         ("bob", lambda: bob), ("negotiator", Negotiator)],
    ):
        await trio.sleep(1)
        got = {name: [p.slot_ad.evaluate("Name") for _, p in s.of(m.PERMISSION_AND_AD)
                      if isinstance(p, m.PERMISSION_AND_AD)]
               for name, s in (("alice", alice), ("bob", bob))}
        # equal priorities: two slots each; alice sorts first by name on the tie
        assert got == {"alice": ["slot1@exec1", "slot2@exec1"],
                       "bob": ["slot3@exec1", "slot4@exec1"]}
        # each stopped at its limit: no rejection, the negotiation just ends
        for schedd in (alice, bob):
            assert schedd.of(m.REJECTED_WITH_REASON) == []
            assert len(schedd.of(m.END_NEGOTIATE)) == 1


async def test_a_match_claims_the_slot_and_a_claimed_idle_slot_is_not_offered_again(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    schedd = FakeSchedd("alice", [_request("alice", 2)], claim=True)
    config = Config.from_text(CONFIG.replace("SLOTS = 2", "SLOTS = 3").replace(
        "CPUS = 2", "CPUS = 3"))
    async with open_inprocess_pool(
        config, tmp_path,
        [("collector", Collector), ("startd", Startd), ("schedd", lambda: schedd),
         ("negotiator", Negotiator)],
    ) as pool:
        await trio.sleep(61)
        # the claim ids the negotiator handed out are the ones the startd accepts
        assert [c.accepted for c in schedd.claims] == [True, True, True]
        permits = [(t, p.slot_ad.evaluate("Name")) for t, p in schedd.of(m.PERMISSION_AND_AD)
                   if isinstance(p, m.PERMISSION_AND_AD)]
        # at 60 s slots 1 and 2 are Claimed/Idle and skipped; alice's limit is the one
        # slot she does not use yet
        assert permits == [(0, "slot1@exec1"), (0, "slot2@exec1"), (60, "slot3@exec1")]
        async with await pool.connect("collector") as conn:
            reply = await conn.request(m.QUERY_STARTD_ADS(constraint="", projection=[]))
        assert isinstance(reply, m.QUERY_RESULT)
        assert sorted(str(a.evaluate("RemoteUser")) for a in reply.ads) == [
            "alice@localhost"] * 3


async def test_a_second_pie_spin_hands_out_what_a_satisfied_submitter_left(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    alice = FakeSchedd("alice", [_request("alice", 3)])
    bob = FakeSchedd("bob", [_request("bob", 1)])
    config = Config.from_text(CONFIG.replace("SLOTS = 2", "SLOTS = 4").replace(
        "CPUS = 2", "CPUS = 4"))
    async with open_inprocess_pool(
        config, tmp_path,
        [("collector", Collector), ("startd", Startd), ("alice", lambda: alice),
         ("bob", lambda: bob), ("negotiator", Negotiator)],
    ):
        await trio.sleep(1)
    got = {name: [p.slot_ad.evaluate("Name") for _, p in s.of(m.PERMISSION_AND_AD)
                  if isinstance(p, m.PERMISSION_AND_AD)]
           for name, s in (("alice", alice), ("bob", bob))}
    # spin 1: limits of 2 each; bob needs only one. Spin 2: alice gets the slot left.
    assert got == {"alice": ["slot1@exec1", "slot2@exec1", "slot4@exec1"],
                   "bob": ["slot3@exec1"]}
    assert len(alice.of(m.NEGOTIATE)) == 2 and len(bob.of(m.NEGOTIATE)) == 1


async def test_shares_smaller_than_a_slot_still_hand_the_slot_out_in_priority_order(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    schedds = {n: FakeSchedd(n, [_request(n, 1)]) for n in ("carol", "alice", "bob")}
    config = Config.from_text(CONFIG.replace("SLOTS = 2", "SLOTS = 1").replace(
        "CPUS = 2", "CPUS = 1"))
    daemons: list[tuple[str, Callable[[], Daemon]]] = [("collector", Collector),
                                                         ("startd", Startd)]
    daemons += [(n, (lambda s=s: s)) for n, s in schedds.items()]  # type: ignore[misc]
    daemons.append(("negotiator", Negotiator))
    async with open_inprocess_pool(config, tmp_path, daemons):
        await trio.sleep(1)
    # each share is a third of the one slot: spin 1 gives nothing, spin 2 raises the
    # limits to one slot and serves the submitters best priority (then name) first
    got = {n: len(s.of(m.PERMISSION_AND_AD)) for n, s in schedds.items()}
    assert got == {"alice": 1, "bob": 0, "carol": 0}
    reasons = {n: [r.reason for _, r in s.of(m.REJECTED_WITH_REASON)
                   if isinstance(r, m.REJECTED_WITH_REASON)] for n, s in schedds.items()}
    assert reasons == {"alice": ["submitter limit exceeded"],
                       "bob": ["submitter limit exceeded", "no match found"],
                       "carol": ["submitter limit exceeded", "no match found"]}
