"""Waiting on simulated time from inside the pool: "this instant is over", "time moved".

How this works
--------------
On virtual time the replay process hosts the coordinator. :meth:`Instants.settle` registers
an end-of-instant callback and waits for it: the coordinator runs end-of-instant work only
once the whole pool is quiescent at the current instant. Daemons have end-of-instant work
of their own (a negotiation cycle, the choice of a job for a freed claim) that runs in the
same round and sends messages; so ``settle`` waits again until a round comes in which no
other participant had any (:class:`ReplayCoordinator` keeps what each reported). When it
returns, every daemon has done everything it does at this simulated second, and what the
driver does next cannot race a daemon's decision of the same second. :class:`ReplayHost` is the
coordinator's host with one addition: :meth:`ReplayHost.wait_moved` returns when the
coordinator next moves the clock (or finishes).

On wall time there is no instant to wait for: ``settle`` only yields, and ``wait_moved``
sleeps :data:`WALL_POLL` simulated seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import trio

from condorsim.runtime.coordination import CoordinatorHost
from condorsim.runtime.coordinator import Action, Advance, Coordinator, EndOfInstant, Finished
from condorsim.runtime.participant import Participant

WALL_POLL = 5.0  # simulated seconds between looks at the pool on wall time


@dataclass
class ReplayCoordinator(Coordinator):
    """The coordinator, remembering whether each participant had end-of-instant work."""

    eoi_reported: dict[str, bool] = field(default_factory=dict)

    def report(self, name: str, round: int, sent: int, received: int,
               next_deadline: float | None, eoi_pending: bool,
               channels: dict[str, int] | None = None, runs: int | None = None,
               ) -> list[Action]:
        if round == self.round:
            self.eoi_reported[name] = eoi_pending
        return super().report(name, round, sent, received, next_deadline, eoi_pending,
                              channels, runs)


@dataclass
class ReplayHost(CoordinatorHost):
    """The coordinator's host, telling the replay driver when the clock moves and whether
    the last end-of-instant round had work of other participants."""

    moved: trio.Event = field(default_factory=trio.Event)
    others_had_eoi: bool = False

    def __post_init__(self) -> None:
        # a task waiting for the clock to move (wait_moved) runs as soon as it has: the
        # coordinator then runs this process at the jump, so that task acts thawed, at
        # that instant (a frozen process runs no code: see condorsim.runtime.coordinator)
        self.coordinator.local_waits_for_jumps = self._someone_waits_for_a_jump

    def _someone_waits_for_a_jump(self) -> bool:
        return self.moved.statistics().tasks_waiting > 0

    def _apply(self, actions: list[Action]) -> None:
        if not actions:  # most reports decide nothing (someone is still running)
            super()._apply(actions)
            return
        kinds = {type(a) for a in actions}
        if EndOfInstant in kinds and isinstance(self.coordinator, ReplayCoordinator):
            self.others_had_eoi = any(
                pending for name, pending in self.coordinator.eoi_reported.items()
                if name != self.local_name and name in self.coordinator.participants)
        super()._apply(actions)
        if Advance in kinds or Finished in kinds:
            self.moved.set()
            self.moved = trio.Event()


@dataclass
class Instants:
    """The driver's view of simulated time (``host`` is None on wall time)."""

    participant: Participant | None
    host: ReplayHost | None

    async def settle(self) -> None:
        """Return once the pool has done everything it does at the current instant."""
        if self.participant is None or self.host is None or self.host.finished.is_set():
            await trio.lowlevel.checkpoint()
            return
        while True:
            done = trio.Event()
            self.participant.at_end_of_instant((0, "replay"), done.set)
            with trio.CancelScope():
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(_cancel_when, self.host.finished, nursery.cancel_scope)
                    await done.wait()
                    nursery.cancel_scope.cancel()
            if self.host.finished.is_set() or not self.host.others_had_eoi:
                return

    async def wait_moved(self) -> None:
        """Return once simulated time has moved on (or the run is over)."""
        if self.host is None:
            await trio.sleep(WALL_POLL)
            return
        if not self.host.finished.is_set():
            await self.host.moved.wait()

    @property
    def finished(self) -> bool:
        return self.host is not None and self.host.finished.is_set()


async def _cancel_when(event: trio.Event, scope: trio.CancelScope) -> None:
    await event.wait()
    scope.cancel()
