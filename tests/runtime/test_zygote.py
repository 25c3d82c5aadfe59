"""The fork server the master starts daemons from: a forked daemon starts as the exec'd one
would (argv, environment, cwd, its stdout line, fresh random state, its names in `ps`), its
exit status and death by signal reach the master, and a killed zygote loses nothing."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest
import trio

from condorsim.runtime import zygote as zmod
from condorsim.runtime.zygote import (
    SHARED_ENV,
    ForkedProcess,
    Zygote,
    ZygoteUnavailable,
    zygote_for,
)

PROBE = """
import json, os, random, sys, time
import trio._core._run as r
print(json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd(), "probe": os.environ.get("PROBE"),
                  "sid": os.getsid(0) == os.getpid(), "random": random.random(),
                  "trio": r._r.random()}), flush=True)
what = sys.argv[1]
if what == "exit":
    sys.exit(int(sys.argv[2]))
if what == "fail":
    raise RuntimeError("the probe could not go on")
time.sleep(60)
"""


@pytest.fixture
def probe_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "probe.py").write_text(PROBE)
    monkeypatch.chdir(tmp_path)  # python -m probe finds it in the cwd, as exec would
    return tmp_path


def _env(**extra: str) -> dict[str, str]:
    return dict(os.environ, **extra)


async def _start(z: Zygote, stderr: Path, *args: str) -> tuple[ForkedProcess, dict[str, object]]:
    with open(stderr, "ab") as err:
        proc = await z.spawn([sys.executable, "-m", "probe", *args], _env(PROBE="yes"),
                             stderr=err.fileno(), comm="condor_probe")
    line = b""
    while not line.endswith(b"\n"):
        chunk = await proc.stdout.receive_some(4096)
        if not chunk:
            break
        line += chunk
    return proc, json.loads(line) if line else {}


def test_a_forked_process_starts_as_the_exec_path_would_and_reports_its_exit(
    probe_dir: Path,
) -> None:
    z = Zygote(sys.executable, _env(), str(probe_dir), [])
    err = probe_dir / "probe.stderr"

    async def main() -> None:
        proc, seen = await _start(z, err, "sleep")
        assert seen["argv"] == ["sleep"]
        assert seen["cwd"] == str(probe_dir)
        assert seen["probe"] == "yes"
        assert seen["sid"] is True  # a session of its own, as start_new_session
        assert Path(f"/proc/{proc.pid}/comm").read_text().strip() == "condor_probe"
        cmdline = Path(f"/proc/{proc.pid}/cmdline").read_bytes().split(b"\0")
        assert cmdline[:4] == [sys.executable.encode(), b"-m", b"probe", b"sleep"]
        other, seen2 = await _start(z, err, "sleep")
        # every child has random state of its own, as a fresh interpreter
        assert seen2["random"] != seen["random"] and seen2["trio"] != seen["trio"]
        assert proc.returncode is None
        proc.send_signal(signal.SIGTERM)
        other.kill()
        assert await proc.wait() == -signal.SIGTERM
        assert await other.wait() == -signal.SIGKILL
        proc.kill()  # a signal to a process that has exited is nothing
        done, _ = await _start(z, err, "exit", "3")
        assert await done.wait() == 3
        failed, _ = await _start(z, err, "fail")
        assert await failed.wait() == 1  # an uncaught exception, as python -m exits
        assert err.read_text().rstrip().splitlines()[-1] == \
            "RuntimeError: the probe could not go on"

    try:
        trio.run(main)
    finally:
        z.close()


def test_a_killed_zygote_loses_no_daemon_and_the_next_start_is_an_exec(
    probe_dir: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(zmod, "_zygotes", {})
    monkeypatch.setattr(zmod, "_failed_starts", 0)
    monkeypatch.delenv(SHARED_ENV, raising=False)
    err = probe_dir / "probe.stderr"

    async def main() -> None:
        z = zygote_for(sys.executable, _env(), [])
        assert zygote_for(sys.executable, _env(), []) is z  # one per process
        proc, _ = await _start(z, err, "sleep")
        z.process.kill()
        z.process.wait()
        assert proc.returncode is None  # the daemon runs on without its zygote
        with pytest.raises(ZygoteUnavailable):
            await _start(z, err, "sleep")
        with pytest.raises(ZygoteUnavailable, match="died"):
            zygote_for(sys.executable, _env(), [])  # the master execs this one
        proc.kill()
        assert await proc.wait() == -signal.SIGKILL  # its death is still seen
        fresh = zygote_for(sys.executable, _env(), [])  # and the next start forks again
        assert fresh is not z
        again, seen = await _start(fresh, err, "exit", "0")
        assert seen["argv"] == ["exit", "0"] and await again.wait() == 0
        fresh.close()

    trio.run(main)


def test_interpreter_settings_that_differ_get_a_zygote_of_their_own(
    probe_dir: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(zmod, "_zygotes", {})
    monkeypatch.delenv(SHARED_ENV, raising=False)
    a = zygote_for(sys.executable, _env(PYTHONHASHSEED="1"), [])
    b = zygote_for(sys.executable, _env(PYTHONHASHSEED="2"), [])
    c = zygote_for(sys.executable, _env(PYTHONHASHSEED="1", PROBE="other"), [])
    try:
        assert a is not b and c is a
    finally:
        a.close()
        b.close()


def test_a_shared_zygote_serves_the_processes_that_connect_with_its_settings(
    probe_dir: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import socket

    path = str(probe_dir / "zygote.socket")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(path)
    listener.listen(4)
    owner = Zygote(sys.executable, _env(), str(probe_dir), [], listener)
    listener.close()
    monkeypatch.setattr(zmod, "_zygotes", {})
    monkeypatch.setattr(zmod, "_failed_starts", 0)
    monkeypatch.setenv(SHARED_ENV, path)
    err = probe_dir / "probe.stderr"

    async def main() -> None:
        shared = zygote_for(sys.executable, _env(), [])
        assert shared.process is None  # not started here: connected to
        proc, seen = await _start(shared, err, "exit", "4")
        assert seen["argv"] == ["exit", "4"] and await proc.wait() == 4
        sleeper, _ = await _start(shared, err, "sleep")
        assert owner.process is not None and _parent(sleeper.pid) == owner.process.pid
        sleeper.kill()
        assert await sleeper.wait() == -signal.SIGKILL
        # other interpreter settings are refused: such a master starts its own zygote
        assert Zygote.connect(path, sys.executable, _env(PYTHONHASHSEED="7")) is None
        own = zygote_for(sys.executable, _env(PYTHONHASHSEED="7"), [])
        assert own.process is not None
        own.close()
        shared.close()

    try:
        trio.run(main)
    finally:
        owner.close()


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[1])


def test_a_broken_request_is_refused_and_the_zygote_serves_on(probe_dir: Path) -> None:
    import socket

    z = Zygote(sys.executable, _env(), str(probe_dir), [])
    err = probe_dir / "probe.stderr"
    try:
        for body in (b"not json", b"[1, 2]"):  # with the four descriptors: an error answer
            answer, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            with open(os.devnull, "rb") as null:
                socket.send_fds(z._control, [body], [theirs.fileno(), null.fileno(),
                                                     null.fileno(), null.fileno()])
            theirs.close()
            answer.settimeout(10)
            assert answer.recv(256).startswith(b"error ")
            answer.close()
        with open(os.devnull, "rb") as null:  # a descriptor that is no socket: dropped
            socket.send_fds(z._control, [b"{}"], [null.fileno()] * 4)
        z._control.send(b"{}")  # no descriptors at all: dropped
        assert z.alive()

        async def main() -> None:
            proc, seen = await _start(z, err, "exit", "3")
            assert seen["probe"] == "yes" and await proc.wait() == 3

        trio.run(main)
    finally:
        z.close()


def test_a_module_that_is_not_a_package_is_preloaded_as_it_is(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # what a forked `python -m condorsim.cli replay` imports (tests/conftest.py's replay
    # zygote); a package's __main__ is imported and forgotten (runpy runs it in the child)
    (tmp_path / "zygote_plain.py").write_text("LOADED = True\n")
    (tmp_path / "zygote_pkg").mkdir()
    (tmp_path / "zygote_pkg" / "__init__.py").write_text("")
    (tmp_path / "zygote_pkg" / "__main__.py").write_text("from zygote_pkg import helper\n")
    (tmp_path / "zygote_pkg" / "helper.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    names = ("zygote_plain", "zygote_pkg", "zygote_pkg.helper", "zygote_pkg.__main__")
    try:
        zmod._preload("zygote_plain")
        zmod._preload("zygote_pkg")
        assert sys.modules["zygote_plain"].LOADED
        assert "zygote_pkg.helper" in sys.modules and "zygote_pkg.__main__" not in sys.modules
    finally:
        for name in names:
            sys.modules.pop(name, None)
