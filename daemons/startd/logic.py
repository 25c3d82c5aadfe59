"""The startd's state: every slot of every simulated machine it hosts (sans-I/O).

How this works
--------------
:class:`StartdState` builds the slots from the machine specs, makes claim ids, finds
the slot of a claim id, and gives each slot the startd-wide attributes (MyAddress, StartdIpAddr,
the OS, the domains, ...) its ad carries -- the same ad the slot's own policy and claim
checks see. The runner feeds it messages and ticks with
``now`` and carries out the actions the slots return. :func:`history_record` renders a
job ad as the startd history file holds it: the ad in long form followed by a banner
line.
"""

from __future__ import annotations

import heapq
import math

from condorsim.classad import ClassAd

from .machines import MachineSpec
from .slot import Slot, literal
from .states import Activity, State

# activities whose slots the policy loop evaluates at every POLLING_INTERVAL
POLLING_ACTIVITIES = (Activity.RETIRING, Activity.VACATING, Activity.KILLING)

STATIC_ATTRS = {
    "Arch": "X86_64", "OpSys": "LINUX", "OpSysAndVer": "AlmaLinux9", "OpSysName": "AlmaLinux",
    "OpSysMajorVer": 9, "HasFileTransfer": True, "HasJobDeferral": True,
    "KFlops": 1_000_000, "Mips": 10_000, "CondorVersion": "$CondorVersion: 24.0.24 condorsim $",
}


class StartdState:
    """All slots of one startd process."""

    def __init__(self, machines: list[MachineSpec], *, now: float, address: str,
                 lease_duration: float, uid_domain: str, filesystem_domain: str) -> None:
        self.address = address
        self.uid_domain = uid_domain
        self.filesystem_domain = filesystem_domain
        self.start_time = int(now)
        self._seq = 0
        common = ClassAd(STATIC_ATTRS)
        common.update({
            "MyAddress": address, "StartdIpAddr": address, "UidDomain": uid_domain,
            "FileSystemDomain": filesystem_domain, "DaemonStartTime": self.start_time,
        })
        self.common = common
        self.slots: list[Slot] = []
        for machine in machines:
            for n in range(1, machine.slots + 1):
                self.slots.append(Slot(machine, n, now, self._claim_id, lease_duration,
                                       common=common))
        self._by_name = {slot.name: slot for slot in self.slots}
        # each machine's slots, in slot order (a slot ad's TotalLoadAvg sums them)
        self._on_machine: dict[int, list[Slot]] = {}
        for slot in self.slots:
            self._on_machine.setdefault(id(slot.machine), []).append(slot)

    def _claim_id(self, slot: Slot) -> str:
        # HTCondor's claim ids look like "<addr>#<startd birthday>#<sequence>#..."
        self._seq += 1
        return f"{self.address}#{self.start_time}#{self._seq}#{slot.name}"

    def slot_for_claim(self, claim_id: str) -> Slot | None:
        """The slot that offers, holds or waits for ``claim_id``; the id names its slot."""
        slot = self._by_name.get(claim_id.rsplit("#", 1)[-1])
        return slot if slot is not None and slot.owns(claim_id) else None

    def slot_ad(self, slot: Slot, now: float, *, sealed: bool = False) -> ClassAd:
        """The full slot ad the collector gets (``sealed``: a SealedAd with its wire form,
        made as it is built: see :meth:`Slot.build_ad`)."""
        # the machine's load, which HTCondor's startd puts in every slot ad
        total: float = 0  # as sum() adds: from the integer 0
        for s in self._on_machine[id(slot.machine)]:
            total += s.load_avg()
        load = literal(total)
        # a simulated machine has no console user: its keyboard and console have been idle
        # since the startd started (HTCondor advertises both in every slot ad)
        idle = literal(max(0, int(now) - self.start_time))
        return slot.build_ad(now, sealed=sealed, tail=(
            ("mycurrenttime", "MyCurrentTime", literal(int(now))),
            ("totalloadavg", "TotalLoadAvg", load), ("totalcondorloadavg", "TotalCondorLoadAvg", load),
            ("keyboardidle", "KeyboardIdle", idle), ("consoleidle", "ConsoleIdle", idle)))

    def next_deadline(self) -> float | None:
        """The earliest claim lease deadline over all slots."""
        times = [t for t in (s.next_deadline() for s in self.slots) if t is not None]
        return min(times) if times else None


class SlotDeadlines:
    """Each slot's :meth:`Slot.next_deadline` and whether its activity needs polling, kept
    so that the policy loop does not ask every slot at every wake-up.

    A slot's deadline changes only when something happens to it (a message, a tick), and
    the runner :meth:`touch`-es it then; :meth:`refresh` asks the touched slots again. A
    slot whose deadline is its idle claim's CLAIM_WORKLIFE (an expression of the slot ad,
    which a cron job can change without an event) is asked at every refresh. The cached
    deadline of an untouched slot is its deadline; an ALIVE only moves a deadline later
    and touches the slot too.
    """

    def __init__(self, slots: list[Slot]) -> None:
        self.slots = slots
        self._index = {id(slot): i for i, slot in enumerate(slots)}
        self._deadline = [math.inf] * len(slots)
        self._touched: set[int] = set(range(len(slots)))
        self._volatile: set[int] = set()  # deadline read from CLAIM_WORKLIFE
        self._polling: set[int] = set()  # in a POLLING_ACTIVITIES activity

    def touch(self, slot: Slot) -> None:
        self._touched.add(self._index[id(slot)])

    def refresh(self) -> list[int]:
        """Ask the touched (and the volatile) slots again; their indexes, ascending."""
        if not self._touched and not self._volatile:
            return []
        asked = sorted(self._touched | self._volatile)
        self._touched.clear()
        for i in asked:
            slot = self.slots[i]
            deadline = slot.next_deadline()
            self._deadline[i] = math.inf if deadline is None else deadline
            claim = slot.claim
            if claim is not None and slot.state == State.CLAIMED and \
                    slot.activity == Activity.IDLE and claim.activations > 0 and \
                    not claim.fetched:
                self._volatile.add(i)
            else:
                self._volatile.discard(i)
            if slot.activity in POLLING_ACTIVITIES:
                self._polling.add(i)
            else:
                self._polling.discard(i)
        return asked

    def earliest(self) -> float | None:
        """The earliest deadline over all slots (:meth:`StartdState.next_deadline`)."""
        if not self._deadline:
            return None
        first = min(self._deadline)
        return None if first == math.inf else first

    def polling(self) -> bool:
        """Some slot is Retiring, Vacating or Killing."""
        return bool(self._polling)

    def due(self, now: float) -> list[int]:
        """The indexes of the slots whose deadline is ``now`` or earlier, as a heap."""
        if not self._deadline or min(self._deadline) > now:
            return []
        out = [i for i, d in enumerate(self._deadline) if d <= now]
        heapq.heapify(out)
        return out

    def deadline(self, i: int) -> float:
        return self._deadline[i]


def history_record(job_ad: ClassAd, offset: int, now: float) -> str:
    """The startd history entry of one job: the ad in long form and HTCondor's banner.

    ``offset`` is where the entry starts in the file (HTCondor's banner records it).
    """
    def value(attr: str) -> str:
        v = job_ad.evaluate(attr)
        return str(v) if type(v) in (int, str) else ""

    banner = (f"*** Offset = {offset} ClusterId = {value('ClusterId')} "
              f"ProcId = {value('ProcId')} Owner = \"{value('Owner')}\" "
              f"CompletionDate = {int(now)}\n")
    return job_ad.to_long() + banner
