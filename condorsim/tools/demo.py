"""``condorsim demo`` (``make demo``): the tour when the pool can run it, else a matchmaking show.

The tour replays ``scenarios/tour.toml`` with the narrated timeline, keeps the run
directory and ends with the path of the run's HTML report (``condorsim report``). Without it, the demo shows the ClassAd language doing the negotiator's work:
a job ad matched symmetrically against slot ads, ranked, and explained clause by clause.
"""

from __future__ import annotations

from pathlib import Path

from condorsim.classad import ClassAd, EvalContext, rank, symmetric_match

REPO = Path(__file__).resolve().parents[2]

JOB = """\
MyType = "Job"
Owner = "alice"
RequestMemory = 2048
RequestCpus = 1
Requirements = (TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX") && (TARGET.Memory >= RequestMemory) && (TARGET.Cpus >= RequestCpus)
Rank = TARGET.Memory + ifThenElse(TARGET.HasGPU, 10000, 0)
"""

SLOTS = [
    '[ Name = "slot1@exec1"; Arch = "X86_64"; OpSys = "LINUX"; Memory = 1024; Cpus = 1;'
    ' HasGPU = false; START = TRUE; Requirements = START ]',
    '[ Name = "slot1@exec2"; Arch = "X86_64"; OpSys = "LINUX"; Memory = 4096; Cpus = 2;'
    ' HasGPU = false; START = TARGET.Owner != "bob"; Requirements = START ]',
    '[ Name = "slot1@gpu1"; Arch = "X86_64"; OpSys = "LINUX"; Memory = 4096; Cpus = 2;'
    ' HasGPU = true; START = TARGET.RequestMemory <= 4096; Requirements = START ]',
    '[ Name = "slot1@arm1"; Arch = "aarch64"; OpSys = "LINUX"; Memory = 8192; Cpus = 8;'
    ' HasGPU = false; START = TRUE; Requirements = START ]',
]


def matchmaking_show() -> int:
    ctx = EvalContext(now=1_767_225_600)
    job = ClassAd.parse(JOB)
    print("A job ad, as condor_q -l shows it:\n")
    print(job.to_long())
    print("\nThe negotiator matches it against each slot, both ways, then ranks the matches:\n")
    best: tuple[float, str] | None = None
    for text in SLOTS:
        slot = ClassAd.parse(text)
        name = slot.evaluate("Name")
        job_side = job.evaluate("Requirements", target=slot, ctx=ctx)
        slot_side = slot.evaluate("Requirements", target=job, ctx=ctx)
        if symmetric_match(job, slot, ctx):
            score = rank(job, slot, ctx)
            print(f"  {name:<12} match      job Rank = {score:g}")
            if best is None or score > best[0]:
                best = (score, str(name))
        else:
            why = []
            if job_side is not True:
                failing = [str(c) for c in job.lookup("Requirements").conjuncts()  # type: ignore[union-attr]
                           if c.evaluate(my=job, target=slot, ctx=ctx) is not True]
                why.append("job Requirements fail on " + " && ".join(failing))
            if slot_side is not True:
                why.append("the slot's START rejects the job")
            print(f"  {name:<12} no match   ({'; '.join(why)})")
    if best is not None:
        print(f"\nThe negotiator picks {best[1]} (highest job Rank, {best[0]:g}).")
    print("\nTry it yourself:  .venv/bin/condorsim classad_eval "
          "'[a = 1; b = a + 1]' 'b * 10'")
    return 0


def _shown(report: Path) -> str:
    """The report's path (relative to the working directory when it is below it) and the
    address a browser opens."""
    try:
        path = report.relative_to(Path.cwd())
    except ValueError:
        path = report
    return f"{path}\n  {report.as_uri()}"


def main(argv: list[str]) -> int:
    tour = REPO / "scenarios" / "tour.toml"
    if tour.exists():
        from condorsim.tools.replay import main as replay_main

        run_dir = REPO / "runs" / "tour"
        report = run_dir / "report.html"
        status = replay_main([str(tour), "--explain", "--keep", str(run_dir),
                              "--report", str(report)])
        print(f"""
The run directory is kept at {run_dir}:
  log/             each daemon's log in HTCondor's text form (SchedLog, StartLog, ...)
                   and its records as JSON lines (SchedLog.json, ...)
  spool/           the schedd's job_queue.log and history
  trace.jsonl      every message between the daemons
  tour.log         the jobs' user event log, as HTCondor writes it
  result.json      the expectations' results and each job's final ad
  report.html      the whole run on one page: open it in a browser

What to try next:
  .venv/bin/condorsim trace 2.0 --run {run_dir}             the deferred job's ClassAd flow
  .venv/bin/condorsim trace 2.0 --run {run_dir} --mermaid   ... as a sequence diagram
  .venv/bin/condorsim replay scenarios/deferral.toml        deferral: wait, window, missed
  .venv/bin/condorsim up                                    a live mini-pool; then submit, q,
                                                            status, hold, release, rm, down

The tour's report (Gantt chart, the pool over time, each job's ClassAd flow):
  {_shown(report) if report.exists() else "(not written: see the error above)"}""")
        return status
    return matchmaking_show()
