"""condor_negotiator's runner: negotiation cycles over the wire.

How this works
--------------
A cycle starts when :class:`~.schedule.CycleSchedule` says so (every NEGOTIATOR_INTERVAL,
sooner after a RESCHEDULE), always at the end of the simulated instant so that every
message of that instant has arrived. Each cycle:

1. QUERY_STARTD_ADS (NEGOTIATOR_SLOT_CONSTRAINT) and QUERY_SUBMITTOR_ADS from the collector;
   nothing is kept from earlier cycles but the accountant's priorities.
2. the accountant decays priorities towards current usage (the claimed slots' weights
   per RemoteUser) and orders the submitters with idle jobs by EUP;
3. pie spins: each spin gives every hungry submitter its fair-share limit and negotiates
   with its schedd (the submitter ad's MyAddress): NEGOTIATE, then SEND_RESOURCE_REQUEST_LIST
   until the schedd has no more requests; for each request (``_condor_RESOURCE_COUNT``
   jobs) PERMISSION_AND_AD per matched slot, REJECTED_WITH_REASON("no match found") when
   none is left; END_NEGOTIATE. Spins repeat with the leftover slots while some submitter
   stopped at its limit and the last spin matched something.

The matching itself is matchmaker.py, the priorities accountant.py. The negotiator ad goes
to the collector every NEGOTIATOR_UPDATE_INTERVAL.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import trio

from condorsim.classad import ClassAd
from condorsim.runtime.daemon import DaemonContext
from condorsim.runtime.network import Conn
from condorsim.wire import ConnectionClosed, Message, ProtocolError
from condorsim.wire import messages as m

from .accountant import Accountant, order_submitters, submitter_limits
from .matchmaker import Matchmaker, MatchPolicy, remote_user, significant_attributes, slot_weight
from .schedule import CycleSchedule

NO_MATCH = "no match found"
LIMIT_REACHED = "submitter limit exceeded"
_NET_ERRORS = (OSError, trio.BrokenResourceError, trio.ClosedResourceError, ProtocolError,
               ConnectionClosed)


@dataclass
class CycleStats:
    start: float = 0.0
    end: float = 0.0
    matches: int = 0
    rejections: int = 0
    submitters: int = 0
    slots: int = 0  # candidate slots (LastNegotiationCycleCandidateSlots0)
    schedulers: int = 0  # schedds of the submitters
    idle_jobs: int = 0  # idle jobs the submitters reported


@dataclass
class _Outcome:
    used: float = 0.0
    limited: bool = False  # stopped at its limit with requests left


class Negotiator:
    def __init__(self) -> None:
        self._wakeup = trio.Event()
        self.stats = CycleStats()
        self.cycles = 0
        self._schedd_addr = ""

    async def run(self, ctx: DaemonContext, task_status: trio.TaskStatus[str]) -> None:
        self._ctx = ctx
        self._to_collector = ctx.collector_updates()
        cfg = ctx.config
        self.policy = MatchPolicy.from_config(cfg)
        self.schedule = CycleSchedule(
            interval=cfg.get_int("NEGOTIATOR_INTERVAL", 60),
            min_interval=cfg.get_int("NEGOTIATOR_MIN_INTERVAL", 5),
            cycle_delay=cfg.get_int("NEGOTIATOR_CYCLE_DELAY", 20),
        )
        self.accountant = Accountant(halflife=cfg.get_float("PRIORITY_HALFLIFE", 86400.0),
                                     default_factor=cfg.get_float("DEFAULT_PRIO_FACTOR", 1000.0))
        self._update_interval = cfg.get_int("NEGOTIATOR_UPDATE_INTERVAL", 300)
        self._per_submitter = cfg.get_int("NEGOTIATOR_MAX_TIME_PER_SUBMITTER", 60)
        self._list_size = cfg.get_int("NEGOTIATOR_RESOURCE_REQUEST_LIST_SIZE", 200)
        self._slot_constraint = cfg.get("NEGOTIATOR_SLOT_CONSTRAINT") or ""
        self._name = cfg.get("NEGOTIATOR_NAME") or cfg.get("FULL_HOSTNAME") or "localhost"
        self._start_time = int(trio.current_time())
        self._update_after_cycle = cfg.get_bool("NEGOTIATOR_UPDATE_AFTER_CYCLE", False)
        self._advertise_accounting = cfg.get_bool("NEGOTIATOR_ADVERTISE_ACCOUNTING", True)
        async with self._to_collector, trio.open_nursery() as nursery:
            self._address = await nursery.start(
                lambda task_status: ctx.serve(self._handle, task_status=task_status))
            nursery.start_soon(self._update_loop)
            nursery.start_soon(self._cycle_loop)
            task_status.started(self._address)

    # -- messages ----------------------------------------------------------------------

    async def _handle(self, msg: Message, conn: Conn) -> None:
        if isinstance(msg, m.RESCHEDULE):
            self.schedule.reschedule()
            self._wakeup.set()
            return
        self._ctx.log.warning("unexpected_command", cmd=msg.command, peer=conn.peer)
        if not msg.command.startswith("DC_"):  # daemon-control commands have no reply
            await conn.send(m.FAILED(reason=f"the negotiator does not take {msg.command}"))

    # -- the negotiator ad -------------------------------------------------------------

    def negotiator_ad(self) -> ClassAd:
        """The negotiator's ad; the last cycle's statistics once a cycle has run (HTCondor
        publishes none before its first cycle)."""
        from condorsim.submit._build import CONDOR_VERSION

        ad = ClassAd({
            "MyType": "Negotiator", "Name": self._name, "MyAddress": self._address,
            "NegotiatorIpAddr": self._address, "DaemonStartTime": self._start_time,
            "CondorVersion": CONDOR_VERSION,
        })
        if self.cycles:
            s = self.stats
            ad.update({
                "LastNegotiationCycleTime0": int(s.start), "LastNegotiationCycleEnd0": int(s.end),
                "LastNegotiationCycleDuration0": int(s.end - s.start),
                "LastNegotiationCycleMatches0": s.matches,
                "LastNegotiationCycleRejections0": s.rejections,
                "LastNegotiationCycleActiveSubmitterCount0": s.submitters,
                "LastNegotiationCycleCandidateSlots0": s.slots,
                "LastNegotiationCycleNumSchedulers0": s.schedulers,
                "LastNegotiationCycleNumIdleJobs0": s.idle_jobs,
            })
        return ad

    async def _send_ads(self, *, accounting: bool = False, own: bool = True) -> None:
        """UPDATE_NEGOTIATOR_AD; with ``accounting``, the submitters' Accounting ads too
        (NEGOTIATOR_ADVERTISE_ACCOUNTING)."""
        msgs: list[Message] = [m.UPDATE_NEGOTIATOR_AD(ad=self.negotiator_ad())] if own else []
        if accounting:
            msgs += [m.UPDATE_AD_GENERIC(ad=ClassAd(ad))
                     for ad in self.accountant.accounting_ads(trio.current_time())]
        await self._to_collector.send(*msgs)

    async def _update_loop(self) -> None:
        while True:
            await self._send_ads()
            await trio.sleep(self._update_interval)

    # -- cycles ------------------------------------------------------------------------

    async def _cycle_loop(self) -> None:
        while True:
            now = trio.current_time()
            when = self.schedule.next_cycle(now)
            if when > now:
                with trio.move_on_at(when):
                    await self._wakeup.wait()
                self._wakeup = trio.Event()
                continue
            self._wakeup = trio.Event()
            ready = trio.Event()
            # keys are (time, text) across the pool (the schedd's claim reuse uses them too)
            self._ctx.at_end_of_instant((int(trio.current_time()), "negotiator cycle"),
                                        ready.set)
            await ready.wait()
            self.schedule.cycle_started(trio.current_time())
            try:
                await self.negotiation_cycle()
            finally:
                self.schedule.cycle_ended(trio.current_time())
            if self._update_after_cycle or self._advertise_accounting:
                # HTCondor's negotiator advertises the Accounting ads after every cycle
                # (NEGOTIATOR_ADVERTISE_ACCOUNTING), its own ad only with
                # NEGOTIATOR_UPDATE_AFTER_CYCLE; here both go in one connection.
                await self._send_ads(accounting=self._advertise_accounting,
                                     own=self._update_after_cycle)

    async def _query(self, msg: Message) -> list[ClassAd]:
        try:
            async with await self._ctx.connect(self._ctx.collector_address(), "collector") as c:
                reply = await c.request(msg)
        except _NET_ERRORS as e:
            self._ctx.log.warning("collector_query_failed", cmd=msg.command, error=str(e))
            return []
        if isinstance(reply, m.QUERY_RESULT):
            return reply.ads
        self._ctx.log.warning("collector_query_refused", cmd=msg.command,
                              reason=getattr(reply, "reason", reply.command))
        return []

    async def negotiation_cycle(self) -> CycleStats:
        """One negotiation cycle (see the module docstring); returns its statistics."""
        now = trio.current_time()
        wall_start = time.perf_counter()
        self.cycles += 1
        stats = CycleStats(start=now)
        slots = await self._query(
            m.QUERY_STARTD_ADS(constraint=self._slot_constraint, projection=[]))
        submitter_ads = await self._query(m.QUERY_SUBMITTOR_ADS(constraint="", projection=[]))
        weights = self.policy.use_slot_weights
        claimed: dict[str, tuple[str, float]] = {}
        for slot in slots:
            user = remote_user(slot)
            slot_name = slot.evaluate("Name")
            if user and type(slot_name) is str \
                    and slot.evaluate("State") in ("Claimed", "Preempting"):
                claimed[slot_name] = (user, slot_weight(slot, weights))
        # HTCondor's order: charge the interval that ended, then compare with the slots
        self.accountant.update_priorities(now)
        self.accountant.check_matches(now, claimed)
        usage = self.accountant.usage()
        by_name: dict[str, ClassAd] = {}
        for ad in submitter_ads:
            name = ad.evaluate("Name")
            idle = ad.evaluate("IdleJobs")
            if type(name) is str and not (type(idle) is int and idle <= 0):
                by_name.setdefault(name, ad)
        for name in by_name:  # a submitter has an accountant record from its first cycle
            self.accountant.record(name)
        eups = {name: self.accountant.effective_priority(name) for name in by_name}
        stats.submitters = len(eups)
        stats.slots = len(slots)
        stats.schedulers = len({str(ad.evaluate("ScheddName")) for ad in by_name.values()})
        stats.idle_jobs = sum(int(v) for ad in by_name.values()
                              if type(v := ad.evaluate("IdleJobs")) is int)
        total = sum(slot_weight(s, weights) for s in slots)
        mm = Matchmaker(slots, self.policy, now, self.accountant.effective_priority)
        attrs = significant_attributes(slots, [
            self.policy.pre_job_rank, self.policy.post_job_rank,
            self.policy.preemption_requirements, self.policy.preemption_rank])
        self._ctx.log.info("cycle_started", cycle=self.cycles, slots=len(slots),
                           submitters=len(eups))
        hungry = order_submitters(eups)
        spin = 0
        while hungry and len(mm):
            spin += 1
            if spin == 1:
                limits = submitter_limits({n: eups[n] for n in hungry}, usage, total)
            else:
                pie = sum(slot_weight(s, weights) for s in mm.slots.values()
                          if s.evaluate("State") == "Unclaimed")
                smallest = min((slot_weight(s, weights) for s in mm.slots.values()), default=1.0)
                shares = submitter_limits({n: eups[n] for n in hungry}, {}, pie)
                limits = {n: max(v, smallest) for n, v in shares.items()}
            matched_any = False
            still_hungry = []
            for name in hungry:
                outcome = await self._negotiate(by_name[name], name, limits[name], eups[name],
                                                mm, attrs, stats)
                usage[name] = usage.get(name, 0.0) + outcome.used
                matched_any = matched_any or outcome.used > 0
                if outcome.limited:
                    still_hungry.append(name)
            if not matched_any and spin > 1:
                break  # (after spin 1, limits below one slot are raised to one: go on)
            hungry = still_hungry
        stats.end = trio.current_time()
        self.stats = stats
        # wall_seconds: what the cycle cost in real time, its collector queries included
        # (LastNegotiationCycleDuration0 is on the pool's simulated clock)
        self._ctx.log.info("cycle_finished", cycle=self.cycles, matches=stats.matches,
                           rejections=stats.rejections,
                           wall_seconds=round(time.perf_counter() - wall_start, 6))
        return stats

    async def _negotiate(self, submitter_ad: ClassAd, name: str, limit: float, eup: float,
                         mm: Matchmaker, attrs: list[str], stats: CycleStats) -> _Outcome:
        """Negotiate for one submitter with its schedd, up to ``limit`` slot weight."""
        outcome = _Outcome()
        address = submitter_ad.evaluate("MyAddress")
        if type(address) is not str:
            self._ctx.log.warning("submitter_without_address", submitter=name)
            return outcome
        ad = ClassAd({"Name": name, "AutoClusterAttrs": ",".join(attrs),
                      "SubmitterUserPrio": eup, "SubmitterLimit": limit})
        self._schedd_addr = address
        self._ctx.log.info("negotiating_with", submitter=name, address=address)
        with trio.move_on_after(self._per_submitter) as scope:
            try:
                async with await self._ctx.connect(address, "schedd") as conn:
                    await conn.send(m.NEGOTIATE(submitter=name, ad=ad))
                    more = True
                    while more and not outcome.limited:
                        reply = await conn.request(
                            m.SEND_RESOURCE_REQUEST_LIST(count=self._list_size))
                        if not isinstance(reply, m.RESOURCE_REQUEST_LIST) or not reply.requests:
                            break
                        more = len(reply.requests) >= self._list_size
                        for index, request in enumerate(reply.requests):
                            await self._serve_request(conn, request, index, name, eup, limit,
                                                      mm, outcome, stats)
                            if outcome.limited:
                                break
                    await conn.send(m.END_NEGOTIATE())
            except _NET_ERRORS as e:
                self._ctx.log.warning("negotiation_failed", submitter=name, error=str(e))
        if scope.cancelled_caught:
            self._ctx.log.warning("negotiation_timed_out", submitter=name)
        return outcome

    async def _serve_request(self, conn: Conn, request: ClassAd, index: int, name: str,
                             eup: float, limit: float, mm: Matchmaker, outcome: _Outcome,
                             stats: CycleStats) -> None:
        """Match up to ``_condor_RESOURCE_COUNT`` slots to one resource request.

        The candidates are ranked once: the jobs of a request are alike, and matching only
        removes slots. Sets ``outcome.limited`` when the submitter's limit stops it.
        """
        count = request.evaluate("_condor_RESOURCE_COUNT")
        wanted = count if type(count) is int and count > 0 else 1
        weights = self.policy.use_slot_weights
        ranked = iter(mm.candidates(request, name, eup))
        cluster, proc = request.evaluate("ClusterId"), request.evaluate("ProcId")
        autocluster = request.evaluate("AutoClusterId")
        for offer in range(wanted):
            if outcome.used >= limit:
                # the limit is reached: stop, no rejection (HTCondor's "Reached submitter
                # resource limit")
                outcome.limited = True
                return
            best = next((c for c in ranked if c.name in mm.slots), None)
            if best is None:
                stats.rejections += 1
                await conn.send(m.REJECTED_WITH_REASON(reason=NO_MATCH, request_index=index))
                return
            weight = slot_weight(best.slot, weights)
            if outcome.used + weight > limit + 1e-9:
                outcome.limited = True
                stats.rejections += 1
                await conn.send(m.REJECTED_WITH_REASON(reason=LIMIT_REACHED,
                                                       request_index=index))
                return
            mm.take(best)
            outcome.used += weight
            self.accountant.add_match(name, best.name, weight, trio.current_time())
            stats.matches += 1
            # HTCondor's NegotiatorLog: "Request 00001.00000: autocluster 1 (request count 2
            # of 3)" then "Matched 1.0 alice@x <schedd> preempting none <startd> slot1@m". The
            # id is the request's (the autocluster's representative job), repeated for every
            # match of the request: which job takes the slot is the schedd's choice (its
            # "match_received" record names it).
            startd_addr = best.slot.evaluate("MyAddress")
            self._ctx.log.info("matched", request=f"{cluster}.{proc}", submitter=name,
                               autocluster=autocluster if type(autocluster) is int else None,
                               request_count=f"{offer + 1} of {wanted}",
                               schedd=conn.peer, slot=best.name, schedd_addr=self._schedd_addr,
                               startd_addr=startd_addr if type(startd_addr) is str else None,
                               preempting=best.preemption.name.lower(),
                               remote_user=_remote_user(best.slot))
            await conn.send(m.PERMISSION_AND_AD(claim_id=best.claim_id, slot_ad=best.slot,
                                                request_index=index))


def _remote_user(slot: ClassAd) -> str | None:
    """The claimed slot's user for the "matched" record, None for a slot without one (the
    unclaimed slots of most matches: two lookups instead of two evaluations)."""
    if slot.lookup("RemoteUser") is None and slot.lookup("RemoteOwner") is None:
        return None
    return remote_user(slot) or None
