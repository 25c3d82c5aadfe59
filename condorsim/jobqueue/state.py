"""The job queue as the log describes it: ads of attribute texts, and how records change it.

How this works: a `QueueState` maps each key to a `QueueAd`, a case-insensitive
mapping of attribute name -> ClassAd expression text that keeps the spelling an
attribute was first set with (as a ClassAd does). `QueueState.apply` plays one
record the way HTCondor's `LogRecord::Play` does: a record naming an ad that does
not exist changes nothing and yields a warning instead of an error, because
HTCondor ignores the failure of `Play` while loading a log.

A proc ad is chained to its cluster ad: `job_attrs` merges the two, the proc's own
attributes overriding the cluster's.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, MutableMapping

from condorsim.jobqueue.records import (
    BeginTransaction,
    DeleteAttr,
    DestroyAd,
    EndTransaction,
    HistoricalSequenceNumber,
    JobQueueLogError,
    LogRecord,
    NewAd,
    SetAttr,
    cluster_key,
    parse_key,
    proc_key,
)


class QueueAd(MutableMapping[str, str]):
    """One ad of the queue: attribute name -> expression text, names case-insensitive."""

    __slots__ = ("_attrs", "mytype", "targettype")

    def __init__(
        self,
        mytype: str = "Job",
        targettype: str = "Machine",
        attrs: Mapping[str, str] | Iterable[tuple[str, str]] = (),
    ) -> None:
        self.mytype = mytype
        self.targettype = targettype
        self._attrs: dict[str, tuple[str, str]] = {}
        items = attrs.items() if isinstance(attrs, Mapping) else attrs
        for name, text in items:
            self[name] = text

    def __getitem__(self, name: str) -> str:
        return self._attrs[name.lower()][1]

    def __setitem__(self, name: str, text: str) -> None:
        folded = name.lower()
        old = self._attrs.get(folded)
        self._attrs[folded] = (old[0] if old else name, text)

    def __delitem__(self, name: str) -> None:
        del self._attrs[name.lower()]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._attrs

    def __iter__(self) -> Iterator[str]:
        return (spelled for spelled, _ in self._attrs.values())

    def __len__(self) -> int:
        return len(self._attrs)

    def spelled_items(self) -> Iterable[tuple[str, str]]:
        """(name as first spelled, text) of each attribute: ``items()`` without a lookup
        per name (what a compaction writes, every attribute of every ad)."""
        return self._attrs.values()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, QueueAd):
            return NotImplemented
        return (
            self.mytype == other.mytype
            and self.targettype == other.targettype
            and self._attrs == other._attrs
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"QueueAd({self.mytype!r}, {self.targettype!r}, {dict(self.items())!r})"

    def copy(self) -> QueueAd:
        """An independent copy of this ad."""
        return QueueAd(self.mytype, self.targettype, self.items())


class QueueState(Mapping[str, QueueAd]):
    """Every ad of a job queue log by key, plus the log's sequence number and birth time."""

    def __init__(self, sequence_number: int = 1, creation_timestamp: int = 0) -> None:
        self.ads: dict[str, QueueAd] = {}
        self.sequence_number = sequence_number
        self.creation_timestamp = creation_timestamp

    def __getitem__(self, key: str) -> QueueAd:
        return self.ads[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.ads)

    def __len__(self) -> int:
        return len(self.ads)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, QueueState):
            return NotImplemented
        return (
            self.ads == other.ads
            and self.sequence_number == other.sequence_number
            and self.creation_timestamp == other.creation_timestamp
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"QueueState(sequence_number={self.sequence_number}, "
            f"creation_timestamp={self.creation_timestamp}, ads={self.ads!r})"
        )

    def copy(self) -> QueueState:
        """A deep copy: changing the copy never changes this state."""
        new = QueueState(self.sequence_number, self.creation_timestamp)
        new.ads = {key: ad.copy() for key, ad in self.ads.items()}
        return new

    def apply(self, record: LogRecord, *, chain_procs: bool = False) -> str | None:
        """Play one record; return a warning if it named an ad that is not there.

        With `chain_procs` (the job router's mirror), a new proc ad whose cluster ad
        does not exist yet creates an empty cluster ad first, and a NewClassAd for a
        cluster ad created that way reuses it, as `NewClassAdJobLogConsumer` does.
        """
        if isinstance(record, NewAd):
            return self._new_ad(record, chain_procs)
        if isinstance(record, DestroyAd):
            if self.ads.pop(record.key, None) is None:
                return f"DestroyClassAd of missing ad {record.key}"
            return None
        if isinstance(record, SetAttr | DeleteAttr):
            ad = self.ads.get(record.key)
            if ad is None:
                return f"{type(record).__name__} {record.name} in missing ad {record.key}"
            if isinstance(record, SetAttr):
                ad[record.name] = record.text
            else:
                ad.pop(record.name, None)
            return None
        if isinstance(record, HistoricalSequenceNumber):
            self.sequence_number = record.sequence_number
            self.creation_timestamp = record.creation_timestamp
            return None
        if isinstance(record, BeginTransaction | EndTransaction):
            return None
        raise JobQueueLogError(f"not a job queue log record: {record!r}")

    def _new_ad(self, record: NewAd, chain_procs: bool) -> str | None:
        if chain_procs:
            try:
                cluster, proc = parse_key(record.key)
            except JobQueueLogError:
                cluster, proc = 0, -1
            if cluster > 0 and proc >= 0:  # "0.0" is the header ad, not a job
                self.ads.setdefault(cluster_key(cluster), QueueAd("", ""))
        existing = self.ads.get(record.key)
        if existing is None:
            self.ads[record.key] = QueueAd(record.mytype, record.targettype)
            return None
        if chain_procs and not existing:
            existing.mytype, existing.targettype = record.mytype, record.targettype
            return None
        return f"NewClassAd of existing ad {record.key}"


def job_attrs(state: Mapping[str, QueueAd], cluster: int, proc: int) -> QueueAd | None:
    """The attributes of job `cluster.proc`: its cluster ad's, overridden by its own.

    None if there is no proc ad for that job.
    """
    own = state.get(proc_key(cluster, proc))
    if own is None:
        return None
    merged = QueueAd(own.mytype, own.targettype)
    parent = state.get(cluster_key(cluster))
    if parent is not None:
        merged.update(parent)
    for name, text in own.items():
        merged.pop(name, None)  # the proc's own spelling wins, too
        merged[name] = text
    return merged
