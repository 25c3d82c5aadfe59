"""The startd's fetch-work hooks, run: FETCH_WORK, REPLY_FETCH and EVICT_CLAIM.

How this works
--------------
Every slot whose keyword names a usable ``<K>_HOOK_FETCH_WORK`` gets a
:class:`~.fetch.FetchState`. One task (:meth:`StartdHooks.fetch_loop`) sleeps until the
earliest slot is due (the throttle rules are in fetch.py; the startd wakes the task
whenever a slot changes), waits for the end of the instant (starters that exit at the
same simulated time report in any order), then runs the due slots' fetch hooks one after
the other, in slot order, each through the startd's :class:`~condorsim.hooks.HookLane` (so hooks that
share a work queue see each other's effects in a fixed order) and with the startd busy,
so no simulated time passes.

A fetch hook gets no arguments and the slot ad on stdin. Its output is read as
``FetchClient::hookExited`` does: nothing means no work; one bad line means the output is
ignored (logged, ``fetch_work_bad_output``) and nothing happens to the slot; otherwise the
ad is the job, handed to :meth:`Slot.fetched_work`, which accepts or refuses it.
REPLY_FETCH then runs (advisory: the startd does not wait) with ``accept`` or ``reject``
and the job ad, ``-----``, the slot ad as it was when the answer came, and ``ClaimId``
when accepted. A hook that could not be run or was killed after its timeout counts as
one that printed nothing.

EVICT_CLAIM (advisory, no arguments) runs whenever a claim on fetched work is vacated:
stdin the claim's job ad, ``-----``, the slot ad and ``ClaimId``. Hook paths are checked
once (HTCondor's ``StartdHookMgr`` caches them until a reconfig); a refused path is
logged once and that hook counts as undefined.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import trio

from condorsim.classad import ClassAd, EvalContext
from condorsim.config import Config
from condorsim.hooks import (
    SEPARATOR,
    HookCall,
    HookLane,
    HookResult,
    check_hook_path,
    hook_knob,
    hook_timeout,
    machine_lookup,
    parse_all_or_nothing,
    print_ad,
)

from .actions import FetchClaimEvicted
from .fetch import FetchState, fetch_delay
from .slot import Slot

if TYPE_CHECKING:
    from .daemon import Startd


class StartdHooks:
    """The fetch-work hooks of one startd process (see the module doc)."""

    def __init__(self, startd: Startd, config: Config, now: float) -> None:
        self.startd = startd
        self.ctx = startd.ctx
        self.config = config
        self.lane = HookLane(self.ctx.log, self.ctx.busy)
        self.fetch: dict[str, FetchState] = {}
        self._paths: dict[tuple[str, str, str], str | None] = {}
        self._now: set[str] = set()  # slots whose starter just left a fetched claim idle
        self._wakeup = trio.Event()
        self._poll = config.get_int("POLLING_INTERVAL", 5)
        self._start = now
        self._setup()

    def _setup(self) -> None:
        assert self.startd.state is not None
        for slot in self.startd.state.slots:
            keyword = slot.machine.hook_keywords[slot.slot_id - 1] \
                if slot.slot_id <= len(slot.machine.hook_keywords) else None
            slot.fetch_keyword = keyword
            path = self.path(slot, "FETCH_WORK") if keyword else None
            if keyword and path:
                old = self.fetch.get(slot.name)
                state = FetchState(keyword, path, self._start, self._poll)
                if old is not None:
                    state.last_spawned, state.last_completed = old.last_spawned, \
                        old.last_completed
                    state.timer = old.timer
                self.fetch[slot.name] = state
            else:
                self.fetch.pop(slot.name, None)
            self.refresh(slot)
        # the slots with a fetch hook, in slot order (the fetch loop visits only these)
        self._fetching = [s for s in self.startd.state.slots if s.name in self.fetch]

    def reconfig(self, config: Config) -> None:
        """A condor_reconfig: hook paths are looked up and checked again."""
        self.config = config
        self._paths.clear()
        self._setup()
        self.wake()

    def path(self, slot: Slot, hook_type: str) -> str | None:
        """The checked path of the slot's ``<K>_HOOK_<TYPE>`` (None: not usable)."""
        keyword = slot.fetch_keyword
        if not keyword:
            return None
        key = (slot.machine.name, keyword, hook_type)
        if key not in self._paths:
            knob = hook_knob(keyword, hook_type)
            value = machine_lookup(self.config, slot.machine.name)(knob)
            path = None
            if value is not None:
                checked = check_hook_path(knob, value, self.ctx.run_dir)
                path = checked.path
                if path is None:
                    self.ctx.log.error("hook_path_refused", knob=knob, slot=slot.name,
                                       error=checked.error)
            self._paths[key] = path
        return self._paths[key]

    def _timeout(self, slot: Slot, hook_type: str) -> float:
        return hook_timeout(machine_lookup(self.config, slot.machine.name),
                            slot.fetch_keyword, hook_type)

    def refresh(self, slot: Slot) -> None:
        """What the slot ad publishes about fetching."""
        state = self.fetch.get(slot.name)
        if state is None:
            return
        slot.published.update(state.publish())
        if slot.machine.fetch_delay is not None:
            slot.published["FetchWorkDelay"] = slot.machine.fetch_delay

    def wake(self) -> None:
        self._wakeup.set()

    def _slot_ad(self, slot: Slot, now: float) -> ClassAd:
        """The slot ad a hook reads: without ``ClaimId``, private in HTCondor (condorsim
        publishes it; REPLY_FETCH and EVICT_CLAIM get the claim's id as their last line)."""
        assert self.startd.state is not None
        ad = self.startd.state.slot_ad(slot, now)
        if "ClaimId" in ad:
            del ad["ClaimId"]
        return ad

    def _delay(self, slot: Slot, now: float) -> int:
        job = slot.claim.request_ad if slot.claim is not None else None
        return fetch_delay(slot.machine.fetch_delay, slot.ad(now), job, now)

    def starter_exited(self, slot: Slot) -> None:
        """The starter of a fetched job exited: Claimed/Idle tries to fetch at once."""
        state = self.fetch.get(slot.name)
        if state is None or not slot.idle_fetch_claim():
            return
        now = trio.current_time()
        if state.trigger(self._delay(slot, now), now):
            self._now.add(slot.name)
        self.wake()

    # -- fetching -------------------------------------------------------------------------

    async def _end_of_instant(self, now: float) -> None:
        over = trio.Event()
        self.ctx.at_end_of_instant((now, "startd fetch work"), over.set)
        await over.wait()

    async def fetch_loop(self) -> None:
        assert self.startd.state is not None
        settled = False
        while True:
            now = trio.current_time()
            due: list[Slot] = []
            wake = math.inf
            for slot in self._fetching:
                state = self.fetch.get(slot.name)
                if state is None:
                    continue
                if (slot.name in self._now and not state.fetching) or state.due(now):
                    when: float | None = now
                else:
                    when = state.next_try(slot, self._delay(slot, now), now)
                self.refresh(slot)
                if when is None:
                    continue
                if when <= now:
                    due.append(slot)
                else:
                    wake = min(wake, when)
            if due and not settled:
                # Starters of one instant may report in any order: wait until the pool is
                # quiet at this instant, look again, and run every due slot in slot order.
                await self._end_of_instant(now)
                settled = True
                continue
            settled = False
            for slot in due:
                self._now.discard(slot.name)
                await self._fetch(slot)
            if due:
                continue
            with trio.move_on_at(wake):
                await self._wakeup.wait()
            self._wakeup = trio.Event()

    async def _fetch(self, slot: Slot) -> None:
        state = self.fetch[slot.name]
        assert self.startd.state is not None
        now = trio.current_time()
        delay = self._delay(slot, now)
        start = slot.machine.policy["START"].evaluate(my=slot.ad(now), target=None,
                                                      ctx=EvalContext(now=int(now)))
        if start is False:  # willingToRun(NULL): no hook while START is locally false
            state.not_willing(delay, now)
            return
        if await self.startd.starter_address() is None:
            # condorsim's starter is a process of its own, found through the collector; a
            # job fetched before it is up would be lost (HTCondor's is always at hand)
            self.ctx.log.info("fetch_postponed", slot=slot.name, why="no starter yet")
            state.retry(now + max(self._poll, 1))
            return
        state.spawned(now)
        self.refresh(slot)
        log = self.ctx.log
        call = HookCall(name=hook_knob(state.keyword, "FETCH_WORK"), path=state.hook,
                        stdin=print_ad(self._slot_ad(slot, now)),
                        cwd=str(self.ctx.run_dir), timeout=self._timeout(slot, "FETCH_WORK"))
        result = await self.lane.run(call, slot=slot.name)
        now = trio.current_time()
        ignored, job = self._job_from(slot, result)
        if ignored:
            state.completed(self._delay(slot, now), now)
            self.refresh(slot)
            return
        slot_ad = self._slot_ad(slot, now)  # as it was when the answer came
        decision = slot.fetched_work(job, now)
        if decision.job_ad is not None:
            log.info("fetched_work", slot=slot.name, accepted=decision.accepted,
                     reason=decision.reason, job=_job_name(decision.job_ad),
                     keyword=state.keyword)
            self._reply(slot, decision.accepted, decision.job_ad, slot_ad, decision.claim_id)
        elif decision.actions:
            log.info("fetched_claim_out_of_work", slot=slot.name)
        await self.startd.after(slot, decision.actions)
        now = trio.current_time()
        state.completed(self._delay(slot, now), now)
        self.refresh(slot)

    def _job_from(self, slot: Slot, result: HookResult) -> tuple[bool, ClassAd | None]:
        """(output ignored, the fetched job or None for no work)."""
        log = self.ctx.log
        if result.error is not None or result.timed_out:
            return False, None
        if not result.stdout.strip():
            log.info("fetch_work_no_data", slot=slot.name, hook=result.call.path)
            return False, None
        parsed = parse_all_or_nothing(result.stdout)
        if parsed.bad_line is not None:
            log.warning("fetch_work_bad_output", slot=slot.name, hook=result.call.path,
                        line=parsed.bad_line[:500],
                        error="not an attribute assignment: the hook's output is ignored")
            return True, None
        return False, parsed.ad

    def _reply(self, slot: Slot, accepted: bool, job: ClassAd, slot_ad: ClassAd,
               claim_id: str) -> None:
        path = self.path(slot, "REPLY_FETCH")
        if path is None:
            return
        stdin = print_ad(job) + SEPARATOR + print_ad(slot_ad)
        if accepted:
            stdin += f'ClaimId = "{claim_id}"\n'
        self.lane.submit(HookCall(
            name=hook_knob(slot.fetch_keyword or "", "REPLY_FETCH"), path=path,
            args=("accept" if accepted else "reject",), stdin=stdin,
            cwd=str(self.ctx.run_dir), timeout=self._timeout(slot, "REPLY_FETCH")),
            slot=slot.name)

    def evicted(self, slot: Slot, action: FetchClaimEvicted) -> None:
        """EVICT_CLAIM for a fetched claim being vacated (advisory)."""
        assert self.startd.state is not None
        path = self.path(slot, "EVICT_CLAIM")
        self.ctx.log.info("fetched_claim_evicted", slot=slot.name,
                          job=_job_name(action.job_ad), hook=path)
        if path is None:
            return
        slot_ad = self._slot_ad(slot, trio.current_time())
        stdin = (print_ad(action.job_ad) + SEPARATOR + print_ad(slot_ad)
                 + f'ClaimId = "{action.claim_id}"\n')
        self.lane.submit(HookCall(
            name=hook_knob(slot.fetch_keyword or "", "EVICT_CLAIM"), path=path, stdin=stdin,
            cwd=str(self.ctx.run_dir), timeout=self._timeout(slot, "EVICT_CLAIM")),
            slot=slot.name)


def _job_name(ad: ClassAd) -> str:
    cluster, proc = ad.evaluate("ClusterId"), ad.evaluate("ProcId")
    return f"{cluster}.{proc}" if type(cluster) is int and type(proc) is int else "?"

