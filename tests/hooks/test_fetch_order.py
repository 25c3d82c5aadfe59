"""Fetch hooks of one instant run in slot order, whatever order the starters reported in.

Three slots' jobs end at the same simulated second; their starters are processes of their
own, so the startd hears of them in any order. Fetch hooks sharing one work queue must still
run slot1 first (hooks.py waits for the end of the instant, then runs every due slot in
slot order), or which slot gets the next job would depend on the machine's load."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import trio
import trio.testing

from condorsim.runtime.participant import Participant, run_instant_driver
from daemons.startd.fetch import FetchState
from daemons.startd.hooks import StartdHooks
from daemons.startd.states import Activity, State


def _hooks(participant: Participant, names: list[str], ran: list[str],
           all_ran: trio.Event) -> StartdHooks:
    """A StartdHooks on fake slots whose fetch only records the slot (and stays running)."""
    hooks = StartdHooks.__new__(StartdHooks)
    slots = [SimpleNamespace(name=n, state=State.CLAIMED, activity=Activity.BUSY)
             for n in names]
    hooks.ctx = SimpleNamespace(  # type: ignore[assignment]
        at_end_of_instant=participant.at_end_of_instant)
    hooks.startd = SimpleNamespace(  # type: ignore[assignment]
        state=SimpleNamespace(slots=slots))
    hooks._fetching = slots  # type: ignore[assignment]
    hooks.fetch = {n: FetchState("DB", "/fetch", start=0.0, poll=1e9) for n in names}
    hooks._now = set()
    hooks._wakeup = trio.Event()

    async def fetch(slot: Any) -> None:
        ran.append(slot.name)
        if len(ran) == len(names):
            all_ran.set()
        hooks.fetch[slot.name].fetching = True

    hooks._fetch = fetch  # type: ignore[method-assign]
    hooks.refresh = lambda slot: None  # type: ignore[method-assign]
    hooks._delay = lambda slot, now: 0  # type: ignore[method-assign]
    return hooks


async def test_starters_reporting_out_of_order_fetch_in_slot_order() -> None:
    participant = Participant()
    ran: list[str] = []
    all_ran = trio.Event()
    hooks = _hooks(participant, ["slot1@exec", "slot2@exec", "slot3@exec"], ran, all_ran)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(run_instant_driver, participant)
        nursery.start_soon(hooks.fetch_loop)
        await trio.testing.wait_all_tasks_blocked()
        for name in ("slot3@exec", "slot1@exec", "slot2@exec"):  # the order they reported
            hooks._now.add(name)
            hooks.wake()
            for _ in range(5):  # the fetch loop sees each report before the next one comes
                await trio.lowlevel.checkpoint()
        with trio.fail_after(5):
            await all_ran.wait()
        nursery.cancel_scope.cancel()
    assert ran == ["slot1@exec", "slot2@exec", "slot3@exec"]
