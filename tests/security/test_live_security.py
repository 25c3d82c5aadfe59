"""Security on a real pool (`condorsim up`), tried as a second OS user: `nobody` (through
`setpriv`) reads the queue and runs its own jobs, and cannot touch root's -- not even with
USER=root in its environment; the owner and root can. A process without the pool key
cannot talk to the schedd as a daemon; one with a forged key is refused and logged."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from _pool_cli import run_cli

from condorsim.pool import ensure_home

pytestmark = [
    pytest.mark.pool,
    pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                       reason="needs root and setpriv to act as a second user"),
]

AS_NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]


def as_nobody(home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` as nobody, claiming to be root in every variable that could say so."""
    env = dict(os.environ, CONDORSIM_HOME=str(home), USER="root", LOGNAME="root",
               USERNAME="root", HOME="/tmp")
    return subprocess.run([*AS_NOBODY, *argv], env=env, cwd=home, capture_output=True,
                          text=True, timeout=90)


def tool(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return as_nobody(home, sys.executable, "-m", "condorsim.cli", *args)


def jobs(home: Path) -> dict[str, tuple[str, str]]:
    out = run_cli(home, "q", "-allusers", "-af", "ClusterId", "ProcId", "Owner", "JobStatus")
    rows = [line.split() for line in out.stdout.splitlines() if line.strip()]
    return {f"{c}.{p}": (owner, status) for c, p, owner, status in rows}


@pytest.fixture
def pool() -> Iterator[Path]:
    home = Path(tempfile.mkdtemp(prefix="condorsim-security-", dir="/tmp"))
    os.chmod(home, 0o755)  # nobody reaches the pool's config and address files
    config = ensure_home(home)
    config.write_text(config.read_text() + "SIM_SPEED = 30\n")
    (home / "job.sub").write_text("executable = /bin/sleep\narguments = 3600\nqueue\n")
    up = subprocess.run([str(Path(sys.executable).parent / "condorsim"), "up"], cwd=home,
                        env=dict(os.environ, CONDORSIM_HOME=str(home)), capture_output=True,
                        text=True, timeout=90)
    assert up.returncode == 0, up.stderr
    try:
        yield home
    finally:
        run_cli(home, "down")
        shutil.rmtree(home, ignore_errors=True)


SCRIPT = """
import sys, trio
from condorsim import pool
from condorsim.runtime.network import Endpoint, TcpNetwork
from condorsim.security import Security
from condorsim.classad import ClassAd
from condorsim.wire import messages as m

async def main():
    key = None if sys.argv[1] == "none" else Security(key=b"guessed")  # noqa
    ep = Endpoint(name="job_router", network=TcpNetwork(), security=key)
    address = pool.read_address(pool.pool_home(), "schedd")
    try:
        async with await ep.connect(address, "schedd") as conn:
            ad = ClassAd()
            ad["JobStatus"] = 3
            print(await conn.request(m.QMGMT_SET_ATTRIBUTES(job="1.0", ad=ad, delete=[])))
    except Exception as e:
        print(type(e).__name__, e)

trio.run(main)
"""


def test_a_second_user_is_who_the_os_says(pool: Path) -> None:
    home = pool
    key = home / "passwords.d" / "POOL"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert stat.S_IMODE(key.parent.stat().st_mode) == 0o700
    assert as_nobody(home, "cat", str(key)).returncode != 0

    assert run_cli(home, "submit", "job.sub", cwd=home).returncode == 0  # root's: 1.0
    # nobody reads the queue, and submits its own job: its Owner is nobody, whatever $USER says
    seen = tool(home, "q", "-allusers", "-af", "ClusterId", "Owner")
    assert seen.returncode == 0 and "1 condor" in seen.stdout, seen
    submitted = tool(home, "submit", "job.sub")
    assert submitted.returncode == 0, submitted.stderr
    assert {job: owner for job, (owner, _) in jobs(home).items()} == {
        "1.0": "condor", "2.0": "nobody"}  # root is the condor user

    # nobody cannot touch root's job (USER=root in its environment changes nothing)
    rm = tool(home, "rm", "1.0")
    assert (rm.returncode, rm.stderr) == (1, "Permission denied to remove job 1.0\n")
    hold = tool(home, "hold", "1")
    assert (hold.returncode, hold.stderr) == (1, "Couldn't find/hold all jobs in cluster 1\n")
    edit = tool(home, "qedit", "1.0", "Foo", "1")
    assert edit.returncode == 1 and "Permission denied to edit job 1.0" in edit.stderr
    assert jobs(home)["1.0"][0] == "condor" and jobs(home)["1.0"][1] in ("1", "2")
    assert run_cli(home, "q", "1.0", "-af", "Foo").stdout.strip() == "undefined"
    off = tool(home, "off")
    assert off.returncode == 1 and "PERMISSION DENIED to nobody@" in off.stderr
    assert "access level ADMINISTRATOR" in off.stderr

    # ... nor talk to the schedd as a daemon: without the key (FS: nobody), or with a guess
    no_key = as_nobody(home, sys.executable, "-c", SCRIPT, "none")
    assert "PERMISSION DENIED to nobody@" in no_key.stdout, no_key
    assert "command QMGMT_SET_ATTRIBUTES, access level DAEMON" in no_key.stdout
    forged = as_nobody(home, sys.executable, "-c", SCRIPT, "forged")
    assert "ConnectionClosed" in forged.stdout or "closed" in forged.stdout, forged
    log = [json.loads(line) for line in (home / "log" / "SchedLog.json").read_text().splitlines()]
    assert any(r["event"] == "authentication_failed" and r["method"] == "TOKEN" for r in log)
    assert any(r["event"] == "permission_denied" and r.get("identity", "").startswith("nobody@")
               for r in log)
    assert jobs(home)["1.0"][1] in ("1", "2")  # still not held

    # the owner and root can
    held = tool(home, "hold", "2.0")
    assert (held.returncode, held.stdout) == (0, "Job 2.0 held\n"), held.stderr
    released = run_cli(home, "release", "2.0")
    assert (released.returncode, released.stdout) == (0, "Job 2.0 released\n")
    removed = run_cli(home, "rm", "1.0")
    assert removed.returncode == 0, removed.stderr
