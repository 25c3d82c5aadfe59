"""The collector's state machine: the ads it holds, their expiry, queries and invalidations.

How this works
--------------
:class:`CollectorState` is sans-I/O: the runner feeds it what arrived (an update, a
query, an invalidation) with the simulated time ``now`` and sends back what it returns.
It never reads a clock; it exposes :meth:`CollectorState.next_expiry` so the runner can
set one timer.

* Ads live in one table per ad type (keys.py says how each type is keyed); an update
  with the key of a stored ad replaces it. The collector stamps ``LastHeardFrom = now``
  on every ad it stores (and ``MyType`` when the ad has none).
* An ad is *stale* once ``now - LastHeardFrom > lifetime`` (strictly greater, as
  HTCondor's housekeeper tests), where lifetime is the ad's ``ClassAdLifetime`` or else
  ``CLASSAD_LIFETIME``. A heap ordered by ``LastHeardFrom + lifetime`` finds the next
  one without scanning; replaced ads leave dead heap entries that are skipped.
* By default an ad is dropped exactly when it goes stale. With
  ``housekeeping_interval`` set, expiry happens only on HTCondor's housekeeping ticks
  (``start_time + k * interval``; HTCondor runs its housekeeper every
  ``CLASSAD_LIFETIME`` seconds), so an ad can outlive its lifetime by up to one interval.
* Queries and invalidations evaluate a constraint with the stored ad as MY and
  ``time()`` = now; a constraint matches when it is true or a non-zero number.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterable
from dataclasses import dataclass

from condorsim.classad import (
    ClassAd,
    ClassAdSyntaxError,
    EvalContext,
    ExprTree,
    SealedAd,
    parse_expr,
)
from condorsim.classad._classad import to_tree

from .keys import ANY_ADTYPE, AdKey, CollectorError, canonical_adtype, make_key

DEFAULT_CLASSAD_LIFETIME = 900

__all__ = ["DEFAULT_CLASSAD_LIFETIME", "CollectorError", "CollectorState", "compile_constraint",
           "matches", "project"]


@dataclass(eq=False)
class _Entry:
    ad: ClassAd
    adtype: str
    key: AdKey
    deadline: int  # LastHeardFrom + lifetime: stale at any time after this
    seq: int  # which update stored it (heap entries of replaced ads are dead)


def _literal(value: int | str) -> ExprTree:
    if type(value) is int:  # LastHeardFrom of every update: the kept literal tree, not a parse
        return to_tree(value)
    text = str(value) if isinstance(value, int) else '"' + value.replace("\\", "\\\\").replace(
        '"', '\\"'
    ) + '"'
    return parse_expr(text)


def _is_true(value: object) -> bool:
    """HTCondor's IsBooleanValueEquiv: true, or a non-zero number."""
    if type(value) is bool:
        return value
    if type(value) is int or type(value) is float:
        return value != 0
    return False


def compile_constraint(constraint: str | ExprTree | None) -> ExprTree | None:
    """Parse a constraint once; a syntax error becomes :class:`CollectorError`."""
    if constraint is None or isinstance(constraint, ExprTree):
        return constraint
    if not constraint.strip():
        return None
    try:
        return parse_expr(constraint)
    except ClassAdSyntaxError as err:
        raise CollectorError(f"bad constraint {constraint!r}: {err}") from None


def matches(ad: ClassAd, constraint: ExprTree | None, now: int) -> bool:
    """Whether ``constraint`` holds for ``ad`` (the ad as MY, ``time()`` = now)."""
    if constraint is None:
        return True
    return _is_true(constraint.evaluate(my=ad, target=None, ctx=EvalContext(now=now)))


def project(ad: ClassAd, projection: Iterable[str]) -> ClassAd:
    """A copy of ``ad`` with only the projected attributes it has (matched case-insensitively,
    named as the ad names them), plus the attributes of the ad that projected expressions
    refer to, transitively -- as HTCondor's putClassAd expands a whitelist, so the
    receiver can still evaluate what it asked for."""
    wanted: set[str] = set()
    todo = [attr.lower() for attr in projection]
    while todo:
        attr = todo.pop()
        if attr in wanted:
            continue
        wanted.add(attr)
        if attr in ad and not ad[attr].is_literal:
            todo.extend(name.lower() for scope, name in ad[attr].references()
                        if scope in (None, "MY") and name in ad)
    out = ClassAd()
    for attr in ad:
        if attr.lower() in wanted:
            out[attr] = ad[attr]
    return out


class CollectorState:
    """The collector's ads, keyed, expiring, queryable. Fed events; reads no clock."""

    def __init__(
        self,
        lifetime: int = DEFAULT_CLASSAD_LIFETIME,
        *,
        housekeeping_interval: int | None = None,
        start_time: int = 0,
    ) -> None:
        if housekeeping_interval is not None and housekeeping_interval <= 0:
            raise ValueError("housekeeping_interval must be positive")
        self.lifetime = lifetime
        self.housekeeping_interval = housekeeping_interval
        self.start_time = start_time
        self._tables: dict[str, dict[AdKey, _Entry]] = {}
        self._type_names: dict[str, str] = {}  # lower-case type -> spelling of its first ad
        # each table's keys in query order (by Name, then key), until a key comes or goes
        # or an ad's Name changes
        self._order: dict[str, list[AdKey]] = {}
        self._heap: list[tuple[int, int, str, AdKey]] = []
        self._seq = itertools.count()
        self._updates_total = 0
        self._updates_sequenced = 0
        self._updates_lost = 0

    # ----------------------------------------------------------------- updates
    def update(self, adtype: str, ad: ClassAd, now: int) -> bool:
        """Store ``ad`` (a copy) as an ad of ``adtype``, replacing the one with its key.

        Returns True when the ad is new, False when it replaced one. Raises
        :class:`CollectorError` when the ad lacks what its key needs; nothing changes then.
        """
        adtype = canonical_adtype(adtype)
        if adtype == ANY_ADTYPE:
            raise CollectorError("an ad cannot be stored with type 'Any'")
        key = make_key(adtype, ad)
        stored = SealedAd.of(ad)  # never changed once stored: its wire form is kept
        stored["LastHeardFrom"] = _literal(now)
        if "MyType" not in stored:
            stored["MyType"] = _literal(adtype)
        lifetime = stored.evaluate("ClassAdLifetime")
        if type(lifetime) is float:
            lifetime = int(lifetime)
        if type(lifetime) is not int:
            lifetime = self.lifetime

        table_name = self._type_names.setdefault(adtype.lower(), adtype)
        table = self._tables.setdefault(table_name, {})
        old = table.get(key)
        self._count_update(old.ad if old else None, stored)
        entry = _Entry(stored, table_name, key, now + lifetime, next(self._seq))
        table[key] = entry
        if old is None or _name_of(old) != _name_of(entry):
            self._order.pop(table_name, None)
        heapq.heappush(self._heap, (entry.deadline, entry.seq, table_name, key))
        if len(self._heap) > 2 * len(self) + 64:
            self._compact_heap()
        return old is None

    def _count_update(self, old: ClassAd | None, new: ClassAd) -> None:
        # HTCondor's CollectorStats::update: gaps in UpdateSequenceNumber from one daemon
        # run (same DaemonStartTime) count as lost updates.
        self._updates_total += 1
        if old is None:
            return
        values = [ad.evaluate(a) for ad in (new, old) for a in ("UpdateSequenceNumber",
                                                                "DaemonStartTime")]
        if not all(type(v) is int for v in values):
            return
        new_seq, new_start, old_seq, old_start = values
        self._updates_sequenced += 1
        expected = old_seq + 1
        if new_start == old_start and new_seq != expected:
            self._updates_lost += 1 if new_seq < expected else new_seq - expected

    # ------------------------------------------------------------------ expiry
    def _live(self, item: tuple[int, int, str, AdKey]) -> _Entry | None:
        _, seq, table_name, key = item
        entry = self._tables.get(table_name, {}).get(key)
        return entry if entry is not None and entry.seq == seq else None

    def _compact_heap(self) -> None:
        self._heap = [item for item in self._heap if self._live(item) is not None]
        heapq.heapify(self._heap)

    def _remove(self, entry: _Entry) -> None:
        del self._tables[entry.adtype][entry.key]
        self._order.pop(entry.adtype, None)

    def expire(self, now: int) -> list[ClassAd]:
        """Drop every stale ad (``now - LastHeardFrom > lifetime``); return them, soonest
        deadline first."""
        removed: list[ClassAd] = []
        while self._heap and self._heap[0][0] < now:
            item = heapq.heappop(self._heap)
            entry = self._live(item)
            if entry is not None:
                self._remove(entry)
                removed.append(entry.ad)
        return removed

    def next_expiry(self) -> int | None:
        """When the runner should next call :meth:`expire`, or None if no ad is stored.

        Without a housekeeping interval: the first whole second at which an ad is stale
        (``LastHeardFrom + lifetime + 1``). With one: the first housekeeping tick at or
        after that second.
        """
        while self._heap and self._live(self._heap[0]) is None:
            heapq.heappop(self._heap)
        if not self._heap:
            return None
        stale_at = self._heap[0][0] + 1
        interval = self.housekeeping_interval
        if interval is None:
            return stale_at
        ticks = max(1, -(-(stale_at - self.start_time) // interval))
        return self.start_time + ticks * interval

    # ----------------------------------------------------------------- queries
    def _entries(self, adtype: str) -> list[_Entry]:
        adtype = canonical_adtype(adtype)
        if adtype == ANY_ADTYPE:
            names = sorted(self._tables, key=str.lower)
        else:
            name = self._type_names.get(adtype.lower())
            names = [name] if name is not None else []
        out: list[_Entry] = []
        for name in names:
            table = self._tables[name]
            order = self._order.get(name)
            if order is None:
                order = self._order[name] = sorted(
                    table, key=lambda k: (_name_of(table[k]), k))
            out.extend(table[k] for k in order)
        return out

    def query(
        self,
        adtype: str,
        constraint: str | ExprTree | None = None,
        projection: list[str] | None = None,
        now: int = 0,
        *,
        shared: bool = False,
    ) -> list[ClassAd]:
        """Copies of the stored ads of ``adtype`` ("Any" for all) that satisfy ``constraint``.

        Ordered by type (alphabetically), then Name, then key. With a ``projection`` each ad
        keeps only those attributes. A constraint that does not parse raises
        :class:`CollectorError` with the parser's message. ``shared``: the stored ads
        themselves instead of copies, for a caller that only reads them (and sends them:
        a stored ad keeps its wire form).
        """
        expr = compile_constraint(constraint)
        result: list[ClassAd] = []
        for entry in self._entries(adtype):
            if matches(entry.ad, expr, now):
                result.append(project(entry.ad, projection) if projection else
                              entry.ad if shared else entry.ad.copy())
        return result

    def invalidate(self, adtype: str, target: ClassAd | str | ExprTree, now: int) -> int:
        """Remove ads as INVALIDATE_*_ADS does; return how many matched.

        ``target`` is either a constraint, or the invalidation ad a daemon sends: when that
        ad carries the attributes of a key (e.g. Name and MyAddress of a schedd) the one ad
        with that key goes; otherwise its ``Requirements`` selects the ads. As in HTCondor
        (HOUSEKEEPING_ON_INVALIDATE), a constraint invalidation also drops the stale ads
        of that type.
        """
        adtype = canonical_adtype(adtype)
        if isinstance(target, ClassAd):
            if adtype != ANY_ADTYPE:
                try:
                    key = make_key(adtype, target)
                except CollectorError:
                    key = None
                if key is not None:
                    name = self._type_names.get(adtype.lower())
                    entry = self._tables.get(name, {}).get(key) if name else None
                    if entry is None:
                        return 0
                    self._remove(entry)
                    return 1
            if "Requirements" not in target:
                raise CollectorError("invalidation ad has neither a key nor 'Requirements'")
            expr: ExprTree | None = target["Requirements"]
        else:
            expr = compile_constraint(target)
            if expr is None:
                raise CollectorError("invalidation without a constraint (it would remove every ad)")
        entries = self._entries(adtype)
        doomed = {e.seq for e in entries if matches(e.ad, expr, now)}
        for entry in entries:
            if entry.seq in doomed or now > entry.deadline:
                self._remove(entry)
        return len(doomed)

    # ------------------------------------------------------------------- stats
    def __len__(self) -> int:
        return sum(map(len, self._tables.values()))  # C-level: at every update

    def counts(self) -> dict[str, int]:
        """Number of stored ads per type (types with no ads left out)."""
        return {name: len(t) for name, t in sorted(self._tables.items()) if t}

    def stats(self) -> dict[str, int]:
        """The figures HTCondor's collector publishes in its own ad, by attribute name."""
        hosts = {"C": 0, "U": 0, "O": 0}
        hosts_total = 0
        for entry in self._entries("Machine"):
            state = entry.ad.evaluate("State")
            if type(state) is str:
                hosts_total += 1
                if state[:1] in hosts:
                    hosts[state[:1]] += 1
        running = idle = 0
        submitters = self._entries("Submitter")
        for entry in submitters:
            r, i = entry.ad.evaluate("RunningJobs"), entry.ad.evaluate("IdleJobs")
            if type(r) is int and type(i) is int:
                running += r
                idle += i
        return {
            "RunningJobs": running,
            "IdleJobs": idle,
            "HostsTotal": hosts_total,
            "HostsClaimed": hosts["C"],
            "HostsUnclaimed": hosts["U"],
            "HostsOwner": hosts["O"],
            "MachineAds": len(self._tables.get("Machine", {})),
            "SubmitterAds": len(submitters),
            "UpdatesTotal": self._updates_total,
            "UpdatesSequenced": self._updates_sequenced,
            "UpdatesLost": self._updates_lost,
        }


def _name_of(entry: _Entry) -> str:
    name = entry.ad.evaluate("Name")
    return name if type(name) is str else ""
