"""The schedd's fast paths (issue 16) against the plain way they stand for: a job's leaving
destroys its cluster ad with its last proc, as the set difference did; a compacted
job_queue.log is the text format_record gives record by record; the host attributes of the
schedd ad are read once per configuration; the update loop is woken by a poke only when the
poke can move its deadline, and sends its ads at the same instants as when every poke woke it."""

from __future__ import annotations

import contextlib
import random
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import trio
import trio.testing
from hypothesis import given, settings
from hypothesis import strategies as st

from condorsim.config import Config
from condorsim.jobqueue.records import NewAd, SetAttr, format_record
from condorsim.jobqueue.state import QueueAd, QueueState
from condorsim.jobqueue.writer import state_records
from daemons.schedd.daemon import Schedd
from daemons.schedd.queue import JobQueue

T0 = 1_767_225_600


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=4), st.randoms(use_true_random=False))
def test_a_cluster_ad_goes_with_its_last_proc(sizes: list[int], rnd: random.Random) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        q = JobQueue(Path(tmp) / "spool")
        q.open(T0)
        for n in sizes:
            q.submit("alice", f"executable = /bin/sleep\nqueue {n}\n", tmp, "", T0)
        jobs = sorted(q.jobs)
        rnd.shuffle(jobs)
        store = q.store
        for job in jobs:
            # the plain way: the cluster's other procs, a copy of its set less this job
            rest = store.by_cluster.get(job[0], set()) - {job}
            key = f"0{job[0]}.-1"
            had_cluster_ad = key in store.log.state
            store.destroy(job, durable=False)
            assert (key in store.log.state) == (had_cluster_ad and bool(rest))
        assert not any(k.endswith(".-1") for k in store.log.state)
        store.close()


names = st.text("abcXYZ", min_size=1, max_size=4)
texts = st.text("0123456789 \"abc=+", min_size=1, max_size=8).filter(lambda t: t.strip() != "")


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(-1, 3),
                          st.lists(st.tuples(names, texts), max_size=6)), max_size=6),
       st.integers(1, 9), st.integers(0, 2_000_000_000))
def test_a_compacted_log_is_the_records_one_by_one(
        ads: list[tuple[int, int, list[tuple[str, str]]]], seq: int, born: int) -> None:
    state = QueueState(seq, born)
    for cluster, proc, attrs in ads:
        ad = state.ads.setdefault(f"0{cluster}.{proc}", QueueAd("Job", ""))
        for name, text in attrs:  # names differing in case only: the first spelling stays
            ad[name] = text
    # the plain way (the text before the fast path): format_record of every record
    from condorsim.jobqueue.records import HistoricalSequenceNumber
    plain = [format_record(HistoricalSequenceNumber(seq, born))]
    for key, ad in state.ads.items():
        plain.append(format_record(NewAd(key, ad.mytype, ad.targettype)))
        plain.extend(format_record(SetAttr(key, name, text)) for name, text in ad.items())
    assert state_records(state, seq) == "".join(plain)


def _schedd_with(config: Config) -> Schedd:
    schedd = Schedd()
    schedd.ctx = SimpleNamespace(config=config)  # type: ignore[assignment]
    return schedd


def _plain_host(cfg: Config) -> dict[str, Any]:
    return {"Arch": cfg.get("ARCH") or "X86_64", "OpSys": cfg.get("OPSYS") or "LINUX",
            "Memory": cfg.get_int("MEMORY", 16384) if cfg.get("MEMORY") else 16384,
            "Disk": 100_000_000, "Cpus": max(1, cfg.get_int("NUM_CPUS", 1))}


def test_the_host_attributes_follow_the_configuration() -> None:
    first = Config.from_text("ARCH = ARM\nMEMORY = 2048\nNUM_CPUS = 4\n")
    schedd = _schedd_with(first)
    assert schedd.host_ad_attrs() == _plain_host(first)
    assert schedd.host_ad_attrs() is schedd.host_ad_attrs()  # read once
    for text in ("", "OPSYS = WINDOWS\nNUM_CPUS = 0\n", "MEMORY = 512\n"):
        cfg = Config.from_text(text)
        schedd.ctx.config = cfg
        assert schedd.host_ad_attrs() == _plain_host(cfg)


class _Loop(Schedd):
    """The update loop alone: its ad sends recorded as the times they happen at (a
    RESCHEDULE after them as minus its time)."""

    def __init__(self, cfg: Config) -> None:
        super().__init__()
        self.ctx = SimpleNamespace(config=cfg)  # type: ignore[assignment]
        self.queue = SimpleNamespace()  # type: ignore[assignment]
        self.grid = SimpleNamespace(check=lambda: None)  # type: ignore[assignment]
        self.sent: list[float] = []

    def _cron_all(self, now: int) -> None:
        pass

    def start_local_jobs(self, now: int) -> None:
        pass

    async def _send_ads(self) -> None:
        self.sent.append(trio.current_time())
        await trio.sleep(0)

    async def _reschedule(self) -> None:
        self.sent.append(-trio.current_time())


INTERVAL, MIN_INTERVAL = 30, 5


def _run_loop(reschedules: list[float]) -> list[float]:
    cfg = Config.from_text(f"SCHEDD_INTERVAL = {INTERVAL}\nSCHEDD_MIN_INTERVAL = {MIN_INTERVAL}\n")
    loop = _Loop(cfg)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            start = trio.current_time()
            nursery.start_soon(loop._update_loop)
            for at in reschedules:
                await trio.sleep_until(start + at)
                loop.need_reschedule()
            await trio.sleep_until(start + 200)
            nursery.cancel_scope.cancel()
        loop.sent = [round(t - start if t >= 0 else t + start, 6) for t in loop.sent]

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    return loop.sent


def _htcondor_timeouts(reschedules: list[float]) -> list[float]:
    """When HTCondor's Scheduler::timeout would run (schedd.cpp, condor_timeslice.cpp): at
    start, then SCHEDD_INTERVAL after each run; needReschedule resets the timer to now, and
    the expedited Timeslice holds it to SCHEDD_MIN_INTERVAL after the last run."""
    out: list[float] = []
    last, asked = 0.0, None
    out.append(0.0)

    def due() -> float:
        regular = last + INTERVAL
        return regular if asked is None else min(regular, max(asked, last + MIN_INTERVAL))

    for at in [*reschedules, 200.0]:
        while due() <= at:
            last = due()
            out.append(last)
            if asked is not None:
                out.append(-last)
                asked = None
        if at < 200.0 and asked is None:
            asked = at
    return out


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 1500).map(lambda t: t / 10), max_size=30))
def test_the_update_loop_runs_when_htcondor_s_timeout_does(reschedules: list[float]) -> None:
    # each reschedule a little off the whole seconds, by its own irrational amount: none
    # falls on an instant the loop wakes by itself (a run time plus whole seconds), where
    # which of the two goes first is trio's choice. (That a job's start, exit or edit moves
    # no update is shown on a whole schedd: test_schedd_pool.py, the submitter whose jobs
    # are gone.)
    at = sorted(t + (i + 1) * 2 ** 0.5 / 1000 for i, t in enumerate(reschedules))
    assert _run_loop(at) == [round(t, 6) for t in _htcondor_timeouts(at)]


def test_the_update_loop_runs_every_interval_and_a_reschedule_waits_for_the_min_interval(
) -> None:
    assert _run_loop([]) == [0, 30, 60, 90, 120, 150, 180]
    assert _run_loop([2.5, 40.5]) == [0, 5, -5, 35, 40.5, -40.5, 70.5, 100.5, 130.5, 160.5,
                                      190.5]


exprs = st.sampled_from([
    '"/bin/sleep"', '"$$(Name)"', '"a$$(Memory:1)b"', '"$ $"', '"x$$"',
    'strcat("$$(", "Arch)")', "Memory * 2", '"say \\"$$(Arch)\\""', "12", "1.5", "true",
    '"$$(Missing)"', "undefined", '{ "$$(OpSys)", 3 }', "[ a = \"$$(Arch)\" ]",
    'ifThenElse(true, "$$(Arch)", "b")', '"$$OPSYS.$$ARCH"', "MY.x + 1"])
attr_names = st.sampled_from(["Cmd", "Args", "Env", "Match_X", "MATCH_EXP_Y", "Iwd", "In",
                              "Foo", "bar", "Requirements"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(attr_names, exprs), max_size=8), st.booleans())
def test_the_shadow_gets_the_job_ad_expand_dollar_dollar_gives(
        attrs: list[tuple[str, str]], share: bool) -> None:
    from condorsim.classad import ClassAd, DollarDollarError, EvalContext, expand_dollar_dollar
    from condorsim.classad._unparse import unparse
    from daemons.schedd.claims import job_ad_for_shadow, may_hold_dollar_dollar

    slot = ClassAd.parse_new('[ Name = "slot1@h"; Memory = 1024; Cpus = 2; Arch = "X86_64";'
                             ' OpSys = "LINUX" ]')
    job = ClassAd.parse_new("[ " + "; ".join(f"{n} = {e}" for n, e in attrs) + " ]")
    if share:  # a second proc of the cluster: the same trees, seen before
        with contextlib.suppress(DollarDollarError):
            job_ad_for_shadow(job, slot, EvalContext(now=T0))
        job = job.copy()
    assert may_hold_dollar_dollar(job) == any(
        "$$" in unparse(tree, old_syntax=True) for _, tree in job.pairs())

    def outcome(fn: Any) -> Any:
        try:
            return [(n, str(t)) for n, t in fn(job, slot, EvalContext(now=T0)).pairs()]
        except DollarDollarError as e:
            return ("error", str(e))

    assert outcome(job_ad_for_shadow) == outcome(expand_dollar_dollar)
