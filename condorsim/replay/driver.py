"""The scenario driver: submits, actions and expectations at their simulated moments.

How this works
--------------
:meth:`Driver.run_timeline` walks ``scenario.events_in_order()`` moment by moment. At a
moment it sleeps until then (``trio.sleep_until``), lets the pool finish that instant
(:meth:`Instants.settle`), then submits (SUBMIT_JOBS to the schedd) and acts
(ACT_ON_JOBS, QEDIT, DC_RECONFIG; a kill or restart through the master; SIM_SITE_DOWN and
SIM_SITE_UP to the gridmanager) in file order.
If the moment has expectations it settles again -- so they see what the submits and
actions caused within the same simulated second -- takes one :func:`snapshot` of the pool
and checks each. :meth:`Driver.wait_quiet` is ``until = "quiet"``: after each instant the
pool reaches, it asks the schedd whether the queue is empty.

A daemon the driver needs that is dead (a ``kill`` action) while the master will start it
again is waited for in simulated time (:meth:`.client.PoolClient.wait_running`): a submit,
an action or an expectation due while the schedd is dead happens once the master has
restarted it (expectations are checked then, at one instant, with a note saying so), and
``until = "quiet"`` does not count the pool as quiet while any daemon awaits its restart.

Problems that are not expectations (an action the schedd refused, a daemon that is not
running and will not be) are kept as ``notes``; a daemon that did not answer fails the
expectations of that moment, and a queue that cannot be looked at fails ``until = "quiet"``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path
from typing import Any

import trio

from condorsim.scenario import END, ActionSpec, ExpectSpec, Scenario, SubmitSpec
from condorsim.scenario.checks import ExpectResult, check_expectation, check_submit_error
from condorsim.wire import Message
from condorsim.wire import messages as m

from .client import PoolClient, PoolUnreachable
from .instants import Instants
from .poolconfig import append_knobs
from .view import PoolSnapshot, snapshot

ACT_ON_JOBS = ("hold", "release", "remove", "suspend", "continue", "vacate")
SUPER_USER = "condor"  # the replay acts as an administrator (QUEUE_SUPER_USERS)


@dataclass
class Driver:
    """Carries a scenario's timeline out against a running pool."""

    scenario: Scenario
    client: PoolClient
    instants: Instants
    run_dir: Path
    config_path: Path
    master_address: str
    log: Any
    background: trio.Nursery | None = None  # reads the answers to control commands
    results: list[ExpectResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    last_snapshot: PoolSnapshot | None = None
    jobs_in_queue: int = 0

    # -- the timeline ------------------------------------------------------------------------
    async def run_timeline(self) -> None:
        """Every submit, action and timed expectation, at its moment."""
        timed = [e for e in self.scenario.events_in_order() if e.at != END]
        for moment, group in groupby(timed, key=lambda e: int(e.at)):
            entries = list(group)
            await trio.sleep_until(moment)
            await self.instants.settle()
            for entry in entries:
                if isinstance(entry, SubmitSpec):
                    await self._submit(entry)
                elif isinstance(entry, ActionSpec):
                    await self._act(entry)
            expects = [e for e in entries if isinstance(e, ExpectSpec)]
            if expects:
                await self.instants.settle()
                await self.check(expects)

    async def wait_quiet(self) -> None:
        """Return at the first instant the schedd's queue is empty and no daemon is dead
        awaiting its restart (HTCondor's pool is not idle then)."""
        while True:
            await self.instants.settle()
            if self.instants.finished:
                return
            try:
                dead = self.client.awaiting_restart()
                for name in dead:
                    await self.client.wait_running(name)
                if dead:
                    continue  # settle the restart's instant, and look again
                queue = await self.client.job_ads(history=False, projection=["ClusterId"])
            except PoolUnreachable as e:
                if not self.instants.finished:
                    self.results.append(ExpectResult(
                        False, f"could not look at the queue: {e}", "",
                        entry='until = "quiet"', at=self._when().removeprefix("t=")))
                return
            self.jobs_in_queue = len(queue)
            if not queue:
                return
            await self.instants.wait_moved()

    async def check(self, expects: Iterable[ExpectSpec]) -> None:
        """Check expectations against one snapshot of the pool, now."""
        expects = list(expects)
        tz = self.scenario.timezone
        due = self._when()
        try:
            await self._wait_for(expects)
            now = int(trio.current_time())
            if self._when() != due:
                self.notes.append(f"{due}: a daemon the expectations ask was dead; they "
                                  f"were checked at {self._when()}, once the master had "
                                  "restarted it")
            snap = await snapshot(self.client, [e.ads for e in expects if e.ads], tz,
                                  jobs=any(e.ads is None for e in expects),
                                  trace_of=self.run_dir if any(e.messages for e in expects)
                                  else None)
        except PoolUnreachable as e:
            for expect in expects:
                self.results.append(ExpectResult(
                    False, f"could not look at the pool: {e}", "", entry=f"[[expect]] "
                    f"#{expect.index}", at=expect.at_text, description=expect.description))
            return
        self.last_snapshot = snap
        self.notes += [f"{self._when()}: {p}" for p in snap.problems]
        for expect in expects:
            self.results.append(check_expectation(expect, snap, now, tz,
                                                  start=self.scenario.start))
        self.log.info("expectations_checked", count=len(expects),
                      failed=sum(1 for r in self.results[-len(expects):] if not r.ok))

    async def _wait_for(self, expects: list[ExpectSpec]) -> None:
        """Wait until every daemon the expectations ask runs (the schedd for jobs, the
        collector for ads), so that one instant answers them all."""
        children = getattr(self.client.master, "children", {})
        needed = (["schedd"] if any(e.ads is None for e in expects) and "schedd" in children
                  else []) + (["collector"] if any(e.ads for e in expects) else [])
        while True:
            for name in needed:
                await self.client.wait_running(name)
            if all(self.client.child_address(name) is not None for name in needed):
                return

    # -- submits and actions -------------------------------------------------------------
    async def _submit(self, spec: SubmitSpec) -> None:
        msg = m.SUBMIT_JOBS(owner=spec.owner, text=spec.text, iwd=str(self.run_dir),
                            source=f"{self.scenario.source} {spec.label}")
        error: str | None
        try:
            reply = await self.client.schedd_request(msg)
        except PoolUnreachable as e:
            reply = m.FAILED(reason=str(e))
        if isinstance(reply, m.SUBMIT_RESULT):
            error = None
            self.log.info("scenario_submit", entry=spec.label, cluster=reply.cluster,
                          procs=reply.procs)
        else:
            error = reply.reason if isinstance(reply, m.FAILED) else f"answered {reply.command}"
            self.log.info("scenario_submit_refused", entry=spec.label, reason=error)
        if spec.expect_error is not None or error is not None:
            self.results.append(check_submit_error(spec, error))

    async def _act(self, spec: ActionSpec) -> None:
        self.log.info("scenario_action", entry=spec.label, do=spec.do, job=spec.job,
                      constraint=spec.constraint, target=spec.daemon)
        try:
            if spec.do in ACT_ON_JOBS or spec.do == "qedit":
                await self._jobs_action(spec)
            elif spec.do == "reconfig":
                await self._reconfig(spec)
            elif spec.do == "kill":
                self._kill(spec)
            elif spec.do == "restart":
                await self._restart(spec)
            elif spec.do in ("site_down", "site_up"):
                await self._site(spec)
        except PoolUnreachable as e:
            self.notes.append(f"{spec.label}: {e}")

    async def _jobs_action(self, spec: ActionSpec) -> None:
        ids = [spec.job] if spec.job else []
        msg: Message
        if spec.do == "qedit":
            msg = m.QEDIT(ids=ids, constraint=spec.constraint or "", attr=spec.attr or "",
                          value=spec.value or "", owner=SUPER_USER)
        else:
            msg = m.ACT_ON_JOBS(action=spec.do, ids=ids, constraint=spec.constraint or "",
                                reason=spec.reason or "", owner=SUPER_USER)
        reply = await self.client.schedd_request(msg)
        if isinstance(reply, m.ACT_RESULT):
            self.notes += [f"{spec.label}: condor_{spec.do}: {e}" for e in reply.errors]
        elif isinstance(reply, m.FAILED):
            self.notes.append(f"{spec.label}: the schedd refused it: {reply.reason}")

    async def _reconfig(self, spec: ActionSpec) -> None:
        if spec.config:
            append_knobs(self.config_path, spec.config, f"{spec.label}: reconfig")
        children = getattr(self.client.master, "children", {})
        names = [spec.daemon] if spec.daemon else ["master", *children]
        awaiting = self.client.awaiting_restart()
        for name in names:
            address = self.master_address if name == "master" else \
                self.client.child_address(name)
            if address is None:
                if name in awaiting:  # it reads the new configuration when it starts again
                    self.log.info("reconfig_skipped_dead_daemon", target=name)
                else:
                    self.notes.append(f"{spec.label}: no {name} is running")
                continue
            assert self.background is not None
            await self.client.send_control(address, name, m.DC_RECONFIG(), self.background)

    def _kill(self, spec: ActionSpec) -> None:
        name = spec.daemon or ""
        if name not in getattr(self.client.master, "children", {}):
            self.notes.append(f"{spec.label}: no {name} to kill (the master runs inside "
                              "the replay and cannot be killed)")
            return
        self.client.master.kill(name)  # type: ignore[attr-defined]

    async def _restart(self, spec: ActionSpec) -> None:
        name = spec.daemon or ""
        if name not in getattr(self.client.master, "children", {}):
            self.notes.append(f"{spec.label}: no {name} to restart")
            return
        await self.client.master.restart(name)  # type: ignore[attr-defined]

    async def _site(self, spec: ActionSpec) -> None:
        """A simulated site goes down or comes back: the gridmanager runs the sites."""
        if "gridmanager" not in getattr(self.client.master, "children", {}):
            self.notes.append(f"{spec.label}: no gridmanager is running to take "
                              f"{spec.do} of \"{spec.site}\"")
            return
        msg: Message = (m.SIM_SITE_DOWN if spec.do == "site_down" else m.SIM_SITE_UP)(
            resource=spec.site or "")
        reply = await self.client.ask("gridmanager", msg)
        if isinstance(reply, m.FAILED):
            self.notes.append(f"{spec.label}: the gridmanager refused it: {reply.reason}")

    def _when(self) -> str:
        return f"t={int(trio.current_time()) - self.scenario.start}s"
