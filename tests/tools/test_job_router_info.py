"""``condorsim job_router_info``: -config, -match-jobs and -route-jobs on the manual's and the
seed's configurations (htcondor-facts.md §3.5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from condorsim.cli import main as cli

DATA = Path(__file__).parents[1] / "routing" / "data"
JOBS = """\
-- Schedd: submit.example.org : <127.0.0.1:9618?...>
ClusterId = 12
ProcId = 0
JobStatus = 1
Owner = "alice"
WantJobRouter = true
JobUniverse = 5
Cmd = "/bin/sleep"
QDate = 1700000000
UserLog = "/home/alice/job.log"

ClusterId = 12
ProcId = 1
JobStatus = 2
Owner = "alice"
WantJobRouter = true
JobUniverse = 5

ClusterId = 12
ProcId = 2
JobStatus = 1
Owner = "bob"
JobUniverse = 5

Owner = "noid"
"""


@pytest.fixture()
def pool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "jobs.ads").write_text(JOBS)
    return tmp_path


def use(monkeypatch: pytest.MonkeyPatch, path: Path, text: str) -> None:
    path.write_text(text)
    monkeypatch.setenv("CONDORSIM_CONFIG", str(path))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli(["job_router_info", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_config_prints_the_routes_in_order(
    pool: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    use(monkeypatch, pool / "c.conf", (DATA / "manual-new-syntax.conf").read_text())
    status, out, err = run(capsys, "-config")
    assert (status, err) == (0, "")
    assert out.startswith("\n\nPre-Route Transform : Defaults\n\tNAME Defaults\n\tSET PeriodicRemove")
    assert (
        'Route 1\nName         : "Site1"\nSource       : Site1\nUniverse     : 9\n'
        "MaxJobs      : 200\nMaxIdleJobs  : 10\nGridResource : batch slurm\nRequirements : \n"
        "Route        : uses Pre/Post-Route Transforms\n\tNAME Site1\n\tUNIVERSE GRID\n"
        '\tGridResource = "batch slurm"\n\n'
    ) in out
    assert out.index("Route 2\n") < out.index("Route 3\n") and '"CondorSite"' in out


def test_route_jobs_writes_the_routed_copies(
    pool: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    use(monkeypatch, pool / "c.conf", (DATA / "manual-new-syntax.conf").read_text())
    status, out, err = run(capsys, "-route-jobs", "routed.ads", "-jobads", "jobs.ads")
    assert status == 0
    assert "Skipping ad because it doesn't have a ClusterId and/or ProcId attribute" in err
    assert out.splitlines()[1:] == [
        "Matching jobs against routes to find candidate jobs.",
        "Job 12.0: route Site1",
        "ERROR: SET PeriodicRemove invalid expression : JobStatus == 5 || (JobStatus == 1 && "
        "(time() - QDate) > 3600*6))",
        "submit_job as alice@ to local pool:local:",
        "Job 12.1: not a candidate",
        "Job 12.2: not a candidate",
        "1 candidate jobs found",
    ]
    routed = (pool / "routed.ads").read_text()
    lines = routed.splitlines()
    assert lines == [*sorted(lines[:-1], key=str.lower), ""]
    for expected in ("JobUniverse = 9", "Remote_JobUniverse = 5", 'GridResource = "batch slurm"',
                     'RouteName = "Site1"', 'RoutedBy = "jobrouter"', 'RoutedFromJobId = "12.0"',
                     "Requirements = true"):  # fmt: skip
        assert expected in lines
    for absent in ("ClusterId", "ProcId", "QDate", "UserLog", "WantJobRouter", "PeriodicRemove",
                   "Managed", "ManagedManager"):  # fmt: skip
        assert not any(line.startswith(absent + " ") for line in lines), absent


def test_log_steps_and_ignore_prior_routing(
    pool: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    use(monkeypatch, pool / "c.conf", (DATA / "manual-new-syntax.conf").read_text())
    status, out, _ = run(capsys, "-route-jobs", "-", "-jobads", "jobs.ads", "-log-steps",
                         "-ignore-prior-routing")
    assert status == 0
    assert "\tApplying pre-route transform: Defaults\n\tSET PeriodicRemove to" in out
    assert "\tApplying route: Site1\n" in out
    assert "Job 12.1: route Site1" in out  # running, but -ignore-prior-routing made it idle
    assert "2 candidate jobs found" in out


def test_routes_fill_up_as_the_router_counts_them(
    pool: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    use(monkeypatch, pool / "c.conf",
        "JOB_ROUTER_ROUTE_NAMES = One Two\n"
        "JOB_ROUTER_ROUTE_One = REQUIREMENTS true\nMaxJobs = 1\n"
        "JOB_ROUTER_ROUTE_Two @=end\n  REQUIREMENTS true\n  MaxIdleJobs = 1\n@end\n")
    _, out, _ = run(capsys, "-match-jobs", "-jobads", "jobs.ads", "-ignore-prior-routing")
    assert "Job 12.0: route One\nJob 12.1: route Two\nall routes are full.\n" in out


def test_the_old_syntax_needs_its_knob(
    pool: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = (DATA / "seed-old-syntax.conf").read_text()
    use(monkeypatch, pool / "c.conf", text.replace("JOB_ROUTER_USE_DEPRECATED_ROUTER_ENTRIES = true", ""))
    status, out, err = run(capsys, "-config")
    assert status == 0 and "JobRouter is disabled.\n" in err
    assert "WARNING: JOB_ROUTER_DEFAULTS, JOB_ROUTER_ENTRIES are deprecated" in out
    use(monkeypatch, pool / "c.conf", text)
    status, out, err = run(capsys, "-route-jobs", "-", "-jobads", "jobs.ads")
    assert status == 0 and err.count("Skipping ad") == 1
    assert "Job 12.0: route Site_1" in out and "JobUniverse = 9" in out
    assert 'GridResource = "batch slurm"' in out and "WantJobRouter" not in out


def test_errors_and_help(
    pool: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    use(monkeypatch, pool / "c.conf",
        "JOB_ROUTER_ROUTE_NAMES = A\nJOB_ROUTER_ROUTE_A = GridResource = \"x\"\n")
    status, _, err = run(capsys, "-config")
    assert status == 0
    assert err.startswith("ERROR: JOB_ROUTER_ROUTE_A: JobRouter CONFIGURATION ERROR: Missing "
                          "Requirements in job route.\n")
    status, out, err = run(capsys, "-help")
    assert status == 0 and out == "" and err.startswith("Usage: condorsim job_router_info")
    status, _, err = run(capsys, "-bogus")
    assert status == 1 and err.startswith("ERROR: -bogus is not a valid argument")
    status, _, err = run(capsys, "-route-jobs")
    assert status == 1 and "-route-jobs requires an argument" in err
