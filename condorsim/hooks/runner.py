"""Running one hook executable: arguments, standard input, environment, a timeout.

How this works
--------------
A :class:`HookCall` says what to run: the path, the arguments after it, the text written
to its standard input (none: the hook's stdin is ``/dev/null``, as HTCondor gives no pipe
for empty input), extra environment variables (added to the daemon's own environment, as
DaemonCore merges a hook's ``Env`` into the inherited one), the working directory and a
timeout in *real* seconds. :func:`run_hook` runs it and returns a :class:`HookResult`:
the exit code or the signal, stdout and stderr (each kept up to :data:`OUTPUT_CAP`
bytes), whether it timed out, or why it could not start.

Hooks and simulated time. A hook takes no simulated time: while it runs, the calling
process is marked *busy* (``busy``, usually ``DaemonContext.busy``), so a virtual clock
cannot jump past it, and its result is handled at the instant it was started. The
process runs in a worker thread (``trio.to_thread``) that the clock cannot see, which is
exactly why the busy mark is needed: ``wait_all_tasks_blocked`` would otherwise call the
process idle while the thread works. Outside the runtime's own clocks (an in-process
pool on ``MockClock``, whose autojump would also not see the thread) the hook runs inline,
blocking the event loop, so no simulated time passes either. An advisory hook (nobody
waits for it: ``busy`` is None) holds no simulated time up (lane.py).

The hook gets a session (process group) of its own. When it exits, whatever it left
running is killed (HTCondor's ``Kill_Family`` in the hook reaper); when it outlives its
timeout, or its caller is cancelled, the whole group gets SIGKILL and the result says
``timed_out``.
"""

from __future__ import annotations

import contextlib
import functools
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field

import trio

from condorsim.runtime.clock import VirtualClock, WallClock

OUTPUT_CAP = 1 << 20
"""Bytes of stdout (and of stderr) kept from one hook run; the rest is read and dropped."""

DEFAULT_TIMEOUT = 60.0
"""SIM_HOOK_TIMEOUT's default: real seconds a hook may run before it is killed."""

_POLL = 0.05


@dataclass(frozen=True)
class HookCall:
    """One hook to run. ``name`` is how logs call it (a knob such as
    ``DATABASE_HOOK_FETCH_WORK``, or a cron job's name)."""

    name: str
    path: str
    args: tuple[str, ...] = ()
    stdin: str = ""
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    timeout: float = DEFAULT_TIMEOUT


@dataclass(frozen=True)
class HookResult:
    """What became of a :class:`HookCall`."""

    call: HookCall
    exit_code: int | None = None  # set when it exited normally
    signal: int | None = None  # set when a signal killed it (SIGKILL after a timeout)
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    truncated: bool = False
    error: str | None = None  # it could not be started at all
    pid: int | None = None

    @property
    def started(self) -> bool:
        return self.error is None

    @property
    def succeeded(self) -> bool:
        """Exited with status 0 (not killed, not timed out)."""
        return self.exit_code == 0 and not self.timed_out

    def status_text(self) -> str:
        """HTCondor's ``statusString``: "exited with status N" or "died with signal N"."""
        if self.error is not None:
            return f"could not be started: {self.error}"
        if self.signal is not None:
            return f"died with signal {self.signal}"
        return f"exited with status {self.exit_code}"

    def status(self) -> int:
        """The exit status as HTCondor's hook clients use it: the code, or -signal."""
        if self.signal is not None:
            return -self.signal
        return self.exit_code if self.exit_code is not None else -1


BusyFactory = Callable[[], AbstractContextManager[None]]


def _runtime_clock() -> bool:
    return isinstance(trio.lowlevel.current_clock(), VirtualClock | WallClock)


async def run_hook(call: HookCall, busy: BusyFactory | None = None,
                   on_start: Callable[[int], None] | None = None) -> HookResult:
    """Run ``call``; the calling process stays busy (no simulated time passes) meanwhile.

    ``on_start`` is told the hook's pid once it runs (to signal it, e.g. SIGHUP).
    """
    if not _runtime_clock():
        return _run_blocking(call, [], on_start)
    started: list[subprocess.Popen[bytes]] = []
    with busy() if busy is not None else nullcontext():
        try:
            return await trio.to_thread.run_sync(
                functools.partial(_run_blocking, call, started, on_start),
                abandon_on_cancel=True)
        except trio.Cancelled:
            for proc in started:
                _kill_group(proc)
            raise


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        os.killpg(proc.pid, signal.SIGKILL)


def _spawn(call: HookCall) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    env.update(call.env)
    return subprocess.Popen(
        [call.path, *call.args],
        stdin=subprocess.PIPE if call.stdin else subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        cwd=call.cwd or None, env=env, start_new_session=True, close_fds=True)


def _run_blocking(call: HookCall, started: list[subprocess.Popen[bytes]],
                  on_start: Callable[[int], None] | None) -> HookResult:
    try:
        proc = _spawn(call)
    except (OSError, ValueError, subprocess.SubprocessError) as e:
        text = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        return HookResult(call, error=text)
    started.append(proc)
    try:
        if on_start is not None:
            on_start(proc.pid)
        out, err, truncated, timed_out = _communicate(proc, call.stdin.encode(), call.timeout)
    except Exception as e:  # a broken pipe must not take the daemon down
        _kill_group(proc)
        proc.wait()
        return HookResult(call, error=f"reading the hook's output failed: {e}", pid=proc.pid)
    code = proc.wait()
    return HookResult(
        call,
        exit_code=code if code >= 0 else None,
        signal=-code if code < 0 else None,
        stdout=out.decode("utf-8", "replace"), stderr=err.decode("utf-8", "replace"),
        timed_out=timed_out, truncated=truncated, pid=proc.pid)


def _communicate(proc: subprocess.Popen[bytes], data: bytes,
                 timeout: float) -> tuple[bytes, bytes, bool, bool]:
    """Feed stdin, read stdout and stderr (capped) until both close; kill on timeout."""
    assert proc.stdout is not None and proc.stderr is not None
    out, err = bytearray(), bytearray()
    buffers = {proc.stdout.fileno(): out, proc.stderr.fileno(): err}
    truncated = timed_out = exited = False
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as sel:
        for reader in (proc.stdout, proc.stderr):
            os.set_blocking(reader.fileno(), False)
            sel.register(reader.fileno(), selectors.EVENT_READ)
        stdin_fd = -1
        if proc.stdin is not None:
            stdin_fd = proc.stdin.fileno()
            os.set_blocking(stdin_fd, False)
            sel.register(stdin_fd, selectors.EVENT_WRITE)
        view = memoryview(data)
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0 and not timed_out:
                timed_out = True
                _kill_group(proc)
                deadline = time.monotonic() + 5.0  # the pipes close once the group is dead
                continue
            if left <= 0:
                break  # something outside the group holds a pipe open: give up on it
            if not exited and _exited_by(proc, 0.0):
                exited = True
                _kill_group(proc)  # what the hook left behind (HTCondor's Kill_Family)
            for key, _mask in sel.select(min(left, _POLL)):
                fd = key.fd
                if fd == stdin_fd:
                    try:
                        sent = os.write(fd, view[:65536])
                    except BlockingIOError:
                        continue
                    except OSError:  # the hook does not read its input (EPIPE)
                        sent = len(view)
                    view = view[sent:]
                    if not view:
                        sel.unregister(fd)
                        if proc.stdin is not None:
                            proc.stdin.close()
                    continue
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                if not chunk:
                    sel.unregister(fd)
                    continue
                buf = buffers[fd]
                room = OUTPUT_CAP - len(buf)
                if len(chunk) > room:
                    truncated = True
                buf += chunk[:max(room, 0)]
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
    if not _exited_by(proc, deadline):
        timed_out = True  # its pipes closed, but it went on running past its timeout
    _kill_group(proc)  # the leader is a zombie (not reaped) or dead: its pid is still its own
    return bytes(out), bytes(err), truncated, timed_out


def _exited_by(proc: subprocess.Popen[bytes], deadline: float) -> bool:
    """Wait (without reaping it) until the hook has exited, at most until ``deadline``."""
    while True:
        try:
            info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return True  # already reaped
        if info is not None:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(_POLL / 5)
