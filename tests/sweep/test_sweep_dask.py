"""`condorsim sweep` on Dask: a LocalCluster, and a `dask scheduler` with a `dask worker`
started here on loopback. The figures in the CSV are those of a direct replay of the same
variant, worked out here from its result.json; a variant that fails is reported and does not
stop the others; `--resume` runs only what is not done."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from condorsim.replay.runner import replay
from condorsim.scenario import load_scenario

pytestmark = pytest.mark.pool

ROOT = Path(__file__).resolve().parents[2]
BASE = '''
[scenario]
name = "tiny"
start = 2026-01-05T09:00:00Z
until = "15m"

[[machine]]
name = "exec"

[[submit]]
owner = "alice"
text = """
executable = /bin/sleep
arguments  = 120
queue 2
"""

[[submit]]
at = "1m"
owner = "bob"
text = """
executable = /bin/sleep
arguments  = 60
log        = bob.log
queue
"""

[[expect]]
constraint = "JobStatus == 4"
count = 3
'''
GOOD_SITES = '[ Resource = "batch"; Slots = 1 ]'
POINTS = [(20, 1, GOOD_SITES), (300, 2, GOOD_SITES), (20, 2, "[ Resource = 1 ]")]


def sweep_text(points: list[tuple[int, int, str]]) -> str:
    text = '''
[sweep]
name = "tiny sweep"
scenario = "tiny.toml"
metrics = ["makespan", "wait", "turnaround", "throughput", "utilization", "holds"]
[[axis]]
knob = "NEGOTIATOR_INTERVAL"
[[axis]]
name = "slots"
machine = "exec"
field = "slots"
[[axis]]
name = "sites"
knob = "SIM_GRID_SITES"
'''
    for interval, slots, sites in points:
        text += f"[[point]]\nNEGOTIATOR_INTERVAL = {interval}\nslots = {slots}\n" \
                f"sites = {json.dumps(sites)}\n"
    return text


def sweep_cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, CONDOR_CONFIG="/dev/null")
    return subprocess.run([sys.executable, "-m", "condorsim.cli", "sweep", *map(str, args)],
                          capture_output=True, text=True, timeout=400, env=env, cwd=ROOT)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("sweep")
    (d / "tiny.toml").write_text(BASE)
    (d / "sweep.toml").write_text(sweep_text(POINTS))
    (d / "good.toml").write_text(sweep_text(POINTS[:2]))
    return d


def sweep_popen(*args: str | Path) -> subprocess.Popen[str]:
    """`condorsim sweep ARGS` started (:func:`finished` waits for it, as :func:`sweep_cli`)."""
    env = dict(os.environ, CONDOR_CONFIG="/dev/null")
    return subprocess.Popen([sys.executable, "-m", "condorsim.cli", "sweep", *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, cwd=ROOT)


def finished(proc: subprocess.Popen[str]) -> subprocess.CompletedProcess[str]:
    try:
        out, err = proc.communicate(timeout=400)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.fixture(scope="module")
def sweeps(files: Path) -> dict[str, tuple[subprocess.CompletedProcess[str], Path]]:
    """The sweep on a LocalCluster and the one on a scheduler and worker started by hand,
    run side by side: each is mostly one busy process at a time (a cluster starting, a
    variant's pool, the page's charts), so together they take the two cores of the
    machine (about a minute less of the suite's wall time than one after the other)."""
    local_out, remote_out = files / "local", files / "remote"
    local = sweep_popen(files / "sweep.toml", "--out", local_out, "--workers", "2")
    try:
        with dask_cluster(files / "cluster") as address:
            remote = finished(sweep_popen(files / "good.toml", "--out", remote_out,
                                          "--scheduler", address, "--no-reports"))
    finally:
        done = finished(local)
    return {"local": (done, local_out), "remote": (remote, remote_out)}


@pytest.fixture(scope="module")
def local_run(sweeps: dict[str, tuple[subprocess.CompletedProcess[str], Path]]
              ) -> tuple[subprocess.CompletedProcess[str], Path]:
    return sweeps["local"]


def literal(text: str) -> Any:
    return json.loads(text) if text.startswith('"') else float(text)


def direct_figures(scenario_file: Path, keep: Path) -> dict[str, float]:
    """Replay the variant's scenario.toml directly and work its figures out by hand."""
    scenario = load_scenario(scenario_file)
    outcome = replay(scenario, keep=keep)
    assert outcome.ok
    result = json.loads((keep / "result.json").read_text())
    ads = [{k: literal(v) for k, v in ad.items() if k in (
        "QDate", "JobStartDate", "CompletionDate", "RemoteWallClockTime", "JobStatus")}
        for ad in result["jobs"].values()]
    assert len(ads) == 3 and all(ad["JobStatus"] == 4 for ad in ads)
    length = result["run"]["end"] - result["run"]["start"]
    slots = scenario.machines[0].slots
    waits = [ad["JobStartDate"] - ad["QDate"] for ad in ads]
    turnarounds = [ad["CompletionDate"] - ad["QDate"] for ad in ads]
    return {
        "makespan": max(ad["CompletionDate"] for ad in ads) - min(ad["QDate"] for ad in ads),
        "wait_mean": sum(waits) / 3, "turnaround_mean": sum(turnarounds) / 3,
        "throughput": 3 * 3600 / length,
        "utilization": sum(ad["RemoteWallClockTime"] for ad in ads) / (slots * length),
    }


def test_a_sweep_on_a_local_cluster(local_run: tuple[subprocess.CompletedProcess[str], Path],
                                    tmp_path: Path) -> None:
    proc, out = local_run
    assert proc.returncode == 1, proc.stderr  # one variant failed
    assert "3 variants: 3 ran, 1 failed" in proc.stdout
    # progress: where it runs and the Dask dashboard's address, then a line per variant
    assert re.search(r"running 3 variants on a LocalCluster of 2 workers; Dask dashboard: "
                     r"http://127\.0\.0\.1:\d+/status", proc.stderr), proc.stderr
    assert proc.stderr.count("\ndone NEGOTIATOR_INTERVAL=") == 2
    assert "FAILED NEGOTIATOR_INTERVAL=20 slots=2 sites=[ Resource = 1 ]: VariantFailed: the " \
           "pool did not start: gridmanager failed to start" in proc.stderr
    frame = pd.read_csv(out / "results.csv")
    assert list(frame["status"]) == ["ok", "ok", "failed"]
    assert list(frame["NEGOTIATOR_INTERVAL"]) == [20, 300, 20]
    assert list(frame["slots"]) == [1, 2, 2]
    assert list(frame.columns[:5]) == ["variant", "NEGOTIATOR_INTERVAL", "slots", "sites",
                                       "status"]
    assert "wait_mean[alice]" in frame.columns and "routed_share" not in frame.columns
    parquet = pd.read_parquet(out / "results.parquet")
    # the same table (the CSV reads an empty text back as missing)
    text = ["variant", "sites", "status", "error", "report", "dir"]
    pd.testing.assert_frame_equal(parquet.drop(columns=text), frame.drop(columns=text),
                                  check_dtype=False)
    assert (parquet[text] == frame[text].fillna("")).all().all()
    for row in frame[frame["status"] == "ok"].itertuples():
        assert (row.passed, row.failed, row.jobs, row.completed) == (1, 0, 3, 3)
        assert (out / row.report).is_file() and row.report.endswith("run/report.html")
        assert row.holds == 0
    failed = frame.iloc[2]
    assert (out / failed["dir"] / "error.txt").read_text().startswith("VariantFailed")
    # the figures are a direct replay's of the same variant
    for i in (0, 1):
        expected = direct_figures(out / frame.iloc[i]["dir"] / "scenario.toml",
                                  tmp_path / f"direct{i}")
        for name, value in expected.items():
            assert frame.iloc[i][name] == pytest.approx(value, abs=1e-6), name
    # the page ties it together, and loads nothing from anywhere
    page = (out / "index.html").read_text()
    for row in frame.itertuples():
        assert f'href="{row.dir}/scenario.toml"' in page
    for report in frame["report"].dropna():
        assert f'href="{report}"' in page
    assert "<script src=" not in page and "Bokeh.embed" in page
    assert "makespan against NEGOTIATOR_INTERVAL" in page


def test_resume_runs_only_what_is_not_done(
        local_run: tuple[subprocess.CompletedProcess[str], Path], files: Path) -> None:
    _, out = local_run
    done = sorted(out.glob("variants/*/row.json"))
    assert len(done) == 2
    stamps = [p.stat().st_mtime_ns for p in done]
    again = sweep_cli(files / "sweep.toml", "--out", out)
    assert again.returncode == 2 and "holds an earlier sweep: give --resume" in again.stderr
    resumed = sweep_cli(files / "sweep.toml", "--out", out, "--resume", "--workers", "1")
    assert resumed.returncode == 1
    assert "3 variants: 1 ran, 1 failed, 2 done before" in resumed.stdout
    assert [p.stat().st_mtime_ns for p in done] == stamps
    assert len(pd.read_csv(out / "results.csv")) == 3


@contextmanager
def dask_cluster(where: Path) -> Iterator[str]:
    """A `dask scheduler` and one `dask worker` on loopback, working in ``where``; the
    scheduler's address."""
    where.mkdir()
    dask = Path(sys.executable).parent / "dask"
    info = where / "scheduler.json"
    env = dict(os.environ, CONDOR_CONFIG="/dev/null")
    procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", "0",
                               "--no-dashboard", "--scheduler-file", info],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                              start_new_session=True)]
    try:
        deadline = time.monotonic() + 60
        while not info.is_file() or not info.read_text().strip():
            assert procs[0].poll() is None, "the dask scheduler exited"
            assert time.monotonic() < deadline, "the dask scheduler wrote no address"
            time.sleep(0.1)
        address = json.loads(info.read_text())["address"]
        procs.append(subprocess.Popen(
            [dask, "worker", address, "--nworkers", "1", "--nthreads", "1", "--no-dashboard",
             "--host", "127.0.0.1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env=env, cwd=where, start_new_session=True))
        yield address
    finally:
        for proc in reversed(procs):
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def test_a_sweep_on_a_scheduler_and_worker_started_by_hand(
        sweeps: dict[str, tuple[subprocess.CompletedProcess[str], Path]],
        local_run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    # `condorsim sweep good.toml --out remote --scheduler ADDRESS --no-reports` (sweeps)
    proc, out = sweeps["remote"]
    assert proc.returncode == 0, proc.stderr
    assert "2 variants: 2 ran, 0 failed" in proc.stdout
    remote = pd.read_csv(out / "results.csv")
    assert list(remote["status"]) == ["ok", "ok"] and remote["report"].isna().all()
    # the same variants, the same figures, whichever cluster ran them
    local = pd.read_csv(local_run[1] / "results.csv").set_index("variant")
    for i, variant in enumerate(remote["variant"]):
        for name in ("makespan", "wait_mean", "wait_p95", "turnaround_p95", "utilization",
                     "wait_mean[bob]"):
            assert remote.loc[i, name] == local.loc[variant, name], name


CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# bokeh draws inside shadow roots: walk them to find every canvas and its size
CANVASES = """() => { const out = []; const walk = (root) => {
  for (const el of root.querySelectorAll('*')) {
    if (el.tagName === 'CANVAS') { const r = el.getBoundingClientRect(); out.push([r.width, r.height]); }
    if (el.shadowRoot) walk(el.shadowRoot);
  } }; walk(document); return out; }"""


def test_the_sweep_page_draws_in_chromium(
        local_run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    """index.html from disk in headless Chromium: every chart drawn, no error, no request.
    With CONDORSIM_SWEEP_SCREENSHOT=FILE, a screenshot goes to FILE."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no {CHROMIUM}: `make test` installs Debian's chromium package")
    from playwright.sync_api import sync_playwright

    out = local_run[1]
    errors: list[str] = []
    requests: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("request", lambda r: requests.append(r.url))
            page.goto((out / "index.html").as_uri(), wait_until="load")
            # the eight metrics asked for x the three axes
            page.wait_for_function(
                f"() => ({CANVASES})().filter(([w, h]) => w > 300 && h > 200).length >= 24",
                timeout=30_000)
            assert page.locator("#failed tr.fail").count() == 1
            assert page.locator("#variants tr").count() == 4  # the header and 3 variants
            shot = os.environ.get("CONDORSIM_SWEEP_SCREENSHOT")
            if shot:
                page.screenshot(path=shot)
        finally:
            browser.close()
    assert errors == []
    assert [u for u in requests if not u.startswith("file:")] == []
