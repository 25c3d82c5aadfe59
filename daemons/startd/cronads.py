"""The startd's named ads from its cron jobs and benchmarks, and how they enter slot ads
(sans-I/O; HTCondor's ``StartdNamedClassAd`` and ``StartdNamedClassAdList``).

How this works
--------------
Each cron job owns an ad named after it; a block whose separator names a tag (``-s1``)
is kept apart as ``<Job>.<tag>``, so one job can publish several ads and replace each one
later by its tag. A new block *replaces* the ad of its name. Ads are kept in the order
they were first registered: every job's own name when the job is set up (startd cron
jobs first, then benchmarks), tagged ads when they first appear.

When a slot ad is built, every ad is merged into it in that order (a later ad wins),
except the ads that do not target the slot, by the first of these the ad has:

1. ``SlotMergeConstraint``: an expression, evaluated with the ad as MY and the slot ad as
   TARGET, that must be true;
2. ``SlotName`` or ``Name``: a string the slot's Name must start with;
3. ``SlotTypeId``: the slot's SlotTypeId (condorsim's static slots have none);
4. ``SlotId``: the slot's SlotID;

and a job's SLOTS list, when it has one, must name the slot. These targeting attributes
themselves (and ``SlotID``) are never merged. The startd-cron example of the docs
(``Value=1 / SlotId=1 / -s1 / Value=2 / SlotId=2 / -s2 / Value=10 / - update:true``)
therefore gives slot1 Value 1, slot2 Value 2 and every other slot Value 10.

:meth:`NamedAds.publish` also says whether the collector gets the slots' ads at once:
the block's ``update:`` flag when it has one, else STARTD_CRON_AUTOPUBLISH (``Never``,
``Always``, ``If_Changed`` -- a change other than ``<prefix>LastUpdate``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from condorsim.classad import ClassAd, EvalContext
from condorsim.daemoncron import CronJobParams, OutputBlock

DONT_MERGE = frozenset(a.lower() for a in (
    "Name", "SlotID", "SlotMergeConstraint", "SlotName", "SlotTypeId"))
_TARGETING = DONT_MERGE
AUTOPUBLISH = ("never", "always", "if_changed")


@dataclass
class _Named:
    name: str
    job: CronJobParams
    ad: ClassAd | None = None


@dataclass
class NamedAds:
    """One machine's named ads (see the module doc)."""

    autopublish: str = "never"
    _ads: dict[str, _Named] = field(default_factory=dict)
    # what merge() gives each slot id while no ad targets by the slot ad's attributes
    # (slot ads are built often: policy evaluation)
    _cache: dict[int, ClassAd] = field(default_factory=dict)
    _targeted: bool = False

    def _changed(self) -> None:
        self._cache.clear()
        self._targeted = any(
            named.ad is not None and any(a.lower() in _TARGETING for a in named.ad.keys())
            for named in self._ads.values())

    def register(self, job: CronJobParams) -> None:
        """A job exists: its own name takes its place in the order (with no ad yet)."""
        self._cache.clear()
        named = self._ads.get(job.name.lower())
        if named is None:
            self._ads[job.name.lower()] = _Named(job.name, job)
        else:
            named.job = job
            for other in self._ads.values():
                if other.name.lower().startswith(job.name.lower() + "."):
                    other.job = job

    def drop_job(self, name: str) -> None:
        """A job left the job list: its ads go too."""
        low = name.lower()
        for key in [k for k in self._ads if k == low or k.startswith(low + ".")]:
            del self._ads[key]
        self._changed()

    def publish(self, job: CronJobParams, block: OutputBlock, *, tagged: bool = True) -> bool:
        """Replace the ad the block names; True when the slots' ads should go to the
        collector now. ``tagged`` false: the tag is ignored (benchmarks)."""
        name = f"{job.name}.{block.tag}" if tagged and block.tag else job.name
        named = self._ads.setdefault(name.lower(), _Named(name, job))
        before = named.ad
        named.ad = block.ad
        self._changed()
        if block.update is not None:
            return block.update
        if self.autopublish == "always":
            return True
        if self.autopublish == "if_changed":
            return before is None or _without(before, job.prefix) != _without(block.ad,
                                                                               job.prefix)
        return False

    def merge(self, slot_ad: ClassAd, slot_id: int) -> ClassAd:
        """What the named ads add to this slot's ad."""
        if not self._targeted:
            cached = self._cache.get(slot_id)
            if cached is None:
                cached = self._cache[slot_id] = self._merge(slot_ad, slot_id)
            return cached
        return self._merge(slot_ad, slot_id)

    def _merge(self, slot_ad: ClassAd, slot_id: int) -> ClassAd:
        out = ClassAd()
        for named in self._ads.values():
            if named.ad is None or not named.job.in_slot_list(slot_id):
                continue
            if not targets(named.ad, slot_ad):
                continue
            for attr, tree in named.ad.pairs():
                if attr.lower() not in DONT_MERGE:
                    out[attr] = tree
        return out

    def __len__(self) -> int:
        return sum(1 for n in self._ads.values() if n.ad is not None)


def _without(ad: ClassAd, prefix: str) -> ClassAd:
    out = ad.copy()
    key = f"{prefix}LastUpdate"
    if key in out:
        del out[key]
    return out


def targets(ad: ClassAd, slot_ad: ClassAd) -> bool:
    """Whether a named ad is merged into the slot ad (``ShouldMergeInto``)."""
    if ad.lookup("SlotMergeConstraint") is not None:
        value = ad.evaluate("SlotMergeConstraint", target=slot_ad, ctx=EvalContext())
        return value is True
    for attr in ("SlotName", "Name"):
        wanted = ad.evaluate(attr)
        if isinstance(wanted, str):
            name = slot_ad.evaluate("Name")
            if isinstance(name, str) and wanted:
                return name.startswith(wanted)
            break
    for attr in ("SlotTypeId", "SlotID"):
        wanted = ad.evaluate(attr)
        if type(wanted) is int:
            have = slot_ad.evaluate(attr)
            if type(have) is int:
                return wanted == have
    return True
