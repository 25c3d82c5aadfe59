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

from condorsim.classad import ClassAd

from .machines import MachineSpec
from .slot import Slot

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

    def _claim_id(self, slot: Slot) -> str:
        # HTCondor's claim ids look like "<addr>#<startd birthday>#<sequence>#..."
        self._seq += 1
        return f"{self.address}#{self.start_time}#{self._seq}#{slot.name}"

    def slot_for_claim(self, claim_id: str) -> Slot | None:
        """The slot that offers, holds or waits for ``claim_id``; the id names its slot."""
        slot = self._by_name.get(claim_id.rsplit("#", 1)[-1])
        return slot if slot is not None and slot.owns(claim_id) else None

    def slot_ad(self, slot: Slot, now: float) -> ClassAd:
        """The full slot ad the collector gets."""
        ad = slot.ad(now)
        ad["MyCurrentTime"] = int(now)
        # the machine's load, which HTCondor's startd puts in every slot ad
        load = sum(s.load_avg() for s in self.slots if s.machine is slot.machine)
        ad["TotalLoadAvg"] = ad["TotalCondorLoadAvg"] = load
        # a simulated machine has no console user: its keyboard and console have been idle
        # since the startd started (HTCondor advertises both in every slot ad)
        ad["KeyboardIdle"] = ad["ConsoleIdle"] = max(0, int(now) - self.start_time)
        return ad

    def next_deadline(self) -> float | None:
        """The earliest claim lease deadline over all slots."""
        times = [t for t in (s.next_deadline() for s in self.slots) if t is not None]
        return min(times) if times else None


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
