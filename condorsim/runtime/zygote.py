"""Starting daemons by ``fork`` from a process that has already imported them (a "zygote").

How this works
--------------
A daemon started as ``python -m daemons.<name>`` spends ~0.3-0.5 CPU s importing the
package before it does anything, and the test suite starts thousands of daemons. The
master therefore asks a fork server instead (``SIM_DAEMON_SPAWN = fork``, the default):
``python -m condorsim.runtime.zygote``, started once per master process at its first daemon
start, imports every daemon's modules (never trio's run loop: nothing runs in it but this
module's loop) and waits on a unix socket. A request carries the argv, environment, working
directory and umask the exec'd process would have had, and as file descriptors
(``SCM_RIGHTS``) a socket for the answer, stdin, the pipe the master reads the daemon's
address line from, and its stderr file. The zygote forks; the child does what a fresh
interpreter would have been given or done (:func:`_become`): its own session (``setsid``),
the descriptors on 0-2 and no others, the environment, cwd, umask, time zone, fresh
``sys.std*`` objects, reseeded random generators (``random``, trio's scheduler), the signal
dispositions the zygote was started with, the process name (``comm``: ``condor_schedd``, as
HTCondor's, shown by ``ps -o comm`` and ``top``) and command line (``/proc/PID/cmdline``:
the ``python -m daemons.schedd ...`` line of the exec path, written over the zygote's own
argv area), and it runs the daemon's ``__main__`` with runpy, exiting as that process would.

The zygote answers ``pid N`` with a pidfd of the child, and when it reaps the child
``exit S`` (S as ``Popen.returncode``: negative for a signal). :class:`ForkedProcess` is the
master's handle: the surface of ``trio.Process`` the master uses (``pid``, ``stdout``,
``returncode``, ``poll``, ``wait``, ``send_signal``, ``terminate``, ``kill``); signals go
through the pidfd, so a reused pid is never signalled. If the zygote dies, the daemons it
forked keep running and their handles fall back on the pidfd to see them exit (the status
is then unknown and reported as -9, ``SIGKILL``); a start that finds the zygote gone or
unable to serve raises :class:`ZygoteUnavailable` and the master starts that daemon the old
way (exec), the next start trying a new zygote. A request whose interpreter settings differ
from the zygote's (``PYTHON*`` variables, locale, the executable) gets a zygote of its own.

One zygote serves every master of a process (the test suite's replays all run in one
process); it exits when that process closes its end of the socket. Started with a listening
socket, it also serves the processes of its own uid that find its path in
``CONDORSIM_ZYGOTE_SOCKET`` and have its interpreter settings (``tests/conftest.py`` starts
one per session for the suite's ``condorsim replay`` and ``up`` subprocesses).
"""

from __future__ import annotations

import gc
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
from typing import Any

from condorsim.runtime.sched import ORIGINAL, SCHED_ENV, restore_from_env

SPAWN_KNOB = "SIM_DAEMON_SPAWN"  # fork (default) or exec
# A zygote shared by every process that inherits this variable (the test session's): the
# path of its listening socket, in a directory only its owner can enter.
SHARED_ENV = "CONDORSIM_ZYGOTE_SOCKET"
_MAX_REQUEST = 1 << 20
# Settings read as the interpreter starts (not as a daemon runs): a zygote serves only
# requests that agree with its own on these.
_STARTUP_ENV = ("LANG", "LC_ALL", "LC_CTYPE")
_MAX_FAILED_STARTS = 3


class ZygoteUnavailable(RuntimeError):
    """The zygote cannot start this daemon (it is gone, or refused); exec it instead."""


# -- the master's side ---------------------------------------------------------------------------


class ForkedProcess:
    """A daemon forked by the zygote, seen as the master sees a ``trio.Process``."""

    def __init__(self, pid: int, pidfd: int | None, status: socket.socket, stdout: Any,
                 args: list[str]) -> None:
        self.pid = pid
        self.args = args
        self.stdout = stdout
        self._returncode: int | None = None
        self._wait_lock: Any = None
        self._pidfd = pidfd
        self._status = status
        self._orphan = False  # the zygote died: only the pidfd can tell the exit

    @property
    def returncode(self) -> int | None:
        """The exit status (negative: the signal), None while it runs; kept up to date
        without a wait, as trio's."""
        return self.poll()

    def poll(self) -> int | None:
        if self._returncode is None:
            self._check()
        return self._returncode

    def _check(self) -> None:
        if not self._orphan:
            try:
                data = self._status.recv(64)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if data.startswith(b"exit "):
                self._done(int(data[5:]))
                return
            self._orphan = True  # the zygote is gone without telling
        if self._pidfd is None or select.select([self._pidfd], [], [], 0)[0]:
            self._done(-signal.SIGKILL)

    def _done(self, code: int) -> None:
        self._returncode = code
        _close(self._status)
        if self._pidfd is not None:
            _close(self._pidfd)
            self._pidfd = None

    async def wait(self) -> int:
        import trio

        if self._wait_lock is None:
            self._wait_lock = trio.Lock()
        async with self._wait_lock:  # one task waits on the descriptor, the rest on it
            while self.poll() is None:
                fd = self._pidfd if self._orphan else self._status.fileno()
                assert fd is not None
                try:
                    await trio.lowlevel.wait_readable(fd)
                except trio.ClosedResourceError:
                    pass  # another task's poll() saw the exit and closed it
        await trio.lowlevel.checkpoint()
        assert self._returncode is not None
        return self._returncode

    def send_signal(self, sig: int) -> None:
        if self.poll() is not None:
            return
        try:
            if self._pidfd is not None:
                signal.pidfd_send_signal(self._pidfd, sig)
            elif not self._orphan:  # no pidfd (an old kernel): the zygote has not reaped it
                os.kill(self.pid, sig)
        except ProcessLookupError:
            pass

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class Zygote:
    """The master's handle on one fork server."""

    process: subprocess.Popen[bytes] | None = None  # None: another process's (shared)

    def __init__(self, python: str, env: dict[str, str], cwd: str, modules: list[str],
                 listener: socket.socket | None = None) -> None:
        """Start a zygote; with ``listener`` (a listening unix socket) it also serves
        whoever connects there as its own uid (:meth:`connect`)."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._lock = threading.Lock()
        self._broken = False
        fds = [theirs.fileno()] + ([listener.fileno()] if listener is not None else [])
        try:
            # The last argument is room for a daemon's command line (written over it in
            # each child, so `ps` shows what the exec path would have shown).
            if ORIGINAL is not None:  # not the batch policy of a coordinator's thread
                env = {**env, SCHED_ENV: str(ORIGINAL)}
            self.process = subprocess.Popen(
                [python, "-m", "condorsim.runtime.zygote", ",".join(map(str, fds)),
                 *modules, " " * 2048],
                pass_fds=fds, env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self._control = ours

    @classmethod
    def connect(cls, path: str, python: str, env: dict[str, str]) -> Zygote | None:
        """The shared zygote listening at ``path``, if it is there, lets this process in
        and has the same interpreter settings; else None."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            sock.settimeout(30)
            sock.connect(path)
            sock.send(b"hello " + json.dumps(_startup_key(python, env)).encode())
            answer = sock.recv(64)
            sock.settimeout(None)
        except OSError:
            sock.close()
            return None
        if answer != b"ok":
            sock.close()
            return None
        zygote = cls.__new__(cls)
        zygote._lock = threading.Lock()
        zygote._broken = False
        zygote._control = sock
        return zygote

    def alive(self) -> bool:
        if self.process is None:
            return not self._broken
        return self.process.poll() is None

    def close(self) -> None:
        """The zygote exits (its children keep running); a shared one is left."""
        self._control.close()
        if self.process is not None:
            self.process.wait()

    async def spawn(self, argv: list[str], env: dict[str, str], *, stderr: int,
                    comm: str, cwd: str | None = None) -> ForkedProcess:
        """Fork ``python -m MODULE ARGS`` (``argv``) with ``env`` in ``cwd`` (this
        process's cwd if None); its stdout is a pipe (the handle's ``stdout``), its stderr
        the file ``stderr``."""
        import trio

        answer, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        read_end, write_end = os.pipe()
        umask = os.umask(0o022)
        os.umask(umask)
        request = json.dumps({"argv": argv, "env": env, "cwd": cwd or os.getcwd(),
                              "umask": umask, "comm": comm}).encode()
        try:
            with self._lock:
                socket.send_fds(self._control, [request],
                                [theirs.fileno(), _stdin(), write_end, stderr])
        except OSError as e:
            self._broken = True
            answer.close()
            os.close(read_end)
            raise ZygoteUnavailable(f"the zygote died ({e})") from None
        finally:
            theirs.close()
            os.close(write_end)
        answer.setblocking(False)
        try:
            while True:
                try:
                    msg, fds, _, _ = socket.recv_fds(answer, 4096, 1)
                    break
                except BlockingIOError:
                    await trio.lowlevel.wait_readable(answer)
        except BaseException:
            answer.close()
            os.close(read_end)
            raise
        if not msg.startswith(b"pid "):
            self._broken = self._broken or not msg
            answer.close()
            os.close(read_end)
            for fd in fds:
                os.close(fd)
            why = msg.decode(errors="replace") or "it exited"
            raise ZygoteUnavailable(f"the zygote did not start the daemon: {why}")
        return ForkedProcess(int(msg[4:]), fds[0] if fds else None, answer,
                             trio.lowlevel.FdStream(read_end), argv)

    def serves(self, python: str, env: dict[str, str]) -> bool:
        return _startup_key(python, env) == self.key

    key: tuple[object, ...] = ()


def _close(what: socket.socket | int) -> None:
    """Close a descriptor a trio task may be waiting on (it wakes, not hangs)."""
    import trio

    try:
        trio.lowlevel.notify_closing(what)
    except RuntimeError:
        pass  # not in trio: nobody waits
    if isinstance(what, int):
        os.close(what)
    else:
        what.close()


def _stdin() -> int:
    try:
        os.fstat(0)
        return 0
    except OSError:
        return os.open(os.devnull, os.O_RDONLY)


def _startup_key(python: str, env: dict[str, str]) -> tuple[object, ...]:
    return (python, tuple(sorted((k, v) for k, v in env.items()
                                 if k.startswith("PYTHON") or k in _STARTUP_ENV)))


_zygotes: dict[tuple[object, ...], Zygote] = {}
_failed_starts = 0
_zygotes_lock = threading.Lock()


def zygote_for(python: str, env: dict[str, str], modules: list[str]) -> Zygote:
    """This process's zygote for ``python`` and ``env``'s interpreter settings, started
    now if there is none. A zygote found dead raises ZygoteUnavailable (that daemon is
    exec'd; the next start tries a new zygote), and so does every start once
    ``_MAX_FAILED_STARTS`` zygotes have died or failed to start in this process."""
    global _failed_starts
    key = _startup_key(python, env)
    with _zygotes_lock:
        zygote = _zygotes.get(key)
        if zygote is not None and not zygote.alive():
            del _zygotes[key]
            zygote.close()
            _failed_starts += 1
            raise ZygoteUnavailable(
                "the shared zygote died" if zygote.process is None else
                f"the zygote (pid {zygote.process.pid}) died: exit status "
                f"{zygote.process.returncode}")
        if zygote is None:
            if _failed_starts >= _MAX_FAILED_STARTS:
                raise ZygoteUnavailable(f"{_failed_starts} zygotes died in this process")
            shared = os.environ.get(SHARED_ENV)
            zygote = Zygote.connect(shared, python, env) if shared and not _failed_starts \
                else None
            if zygote is not None:
                zygote.key = key
                _zygotes[key] = zygote
                return zygote
            try:
                zygote = Zygote(python, env, os.getcwd(), modules)
            except OSError as e:
                _failed_starts += 1
                raise ZygoteUnavailable(f"the zygote cannot start ({e})") from None
            zygote.key = key
            _zygotes[key] = zygote
        return zygote


def close_all() -> None:
    """Close this process's zygotes: its own ones exit (their children keep running), its
    connections to a shared one are closed."""
    while _zygotes:
        _, zygote = _zygotes.popitem()
        zygote.close()


# -- the zygote's side ---------------------------------------------------------------------------


def _preload(package: str) -> None:
    """Import what ``python -m PACKAGE`` would import, without running its ``__main__``
    (which is forgotten again, so runpy runs it afresh in each child). A module that is
    not a package is imported as it is (one that the children's ``__main__`` imports):
    importing its ``__main__`` imports it, then fails."""
    import importlib

    name = f"{package}.__main__"
    try:
        importlib.import_module(name)
    except Exception:
        return
    sys.modules.pop(name, None)
    parent = sys.modules.get(package)
    if parent is not None and hasattr(parent, "__main__"):
        delattr(parent, "__main__")


def _serve(control: socket.socket, listener: socket.socket | None = None,
           ) -> tuple[dict[str, Any], list[int]] | None:
    """Fork a child per request and report its exit; returns in each child (its request
    and descriptors), or None when the master's end is closed. With ``listener``, processes
    of this uid that connect there and say ``hello`` with the same interpreter settings
    are served too."""
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    old_chld = signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w)
    waiting: dict[int, socket.socket] = {}
    clients: dict[int, socket.socket] = {control.fileno(): control}
    mine = json.dumps(_startup_key(sys.executable, dict(os.environ))).encode()
    while True:
        watched = [wake_r, *clients] + ([listener.fileno()] if listener is not None else [])
        ready: list[Any] = select.select(watched, [], [])[0]
        if wake_r in ready:
            while True:
                try:
                    if not os.read(wake_r, 512):
                        break
                except BlockingIOError:
                    break
            _reap(waiting)
        if listener is not None and listener.fileno() in ready:
            _accept(listener, clients)
        for fd in ready:
            client = clients.get(fd)
            if client is None:
                continue
            try:
                msg, fds, _, _ = socket.recv_fds(client, _MAX_REQUEST, 4)
            except OSError:
                msg, fds = b"", []
            if not msg:
                if client is control:
                    return None
                del clients[fd]
                client.close()
                continue
            if msg.startswith(b"hello "):
                _send(client, b"ok" if msg[6:] == mine else b"no")
                continue
            child = _fork(msg, fds, waiting)
            if child is not None:
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, old_chld)
                for sock in (*clients.values(), *waiting.values()):
                    sock.close()
                if listener is not None:
                    listener.close()
                os.close(wake_r)
                os.close(wake_w)
                return child


def _accept(listener: socket.socket, clients: dict[int, socket.socket]) -> None:
    """A process that connects to the shared zygote is served only if it runs as the
    zygote's own user (its children would run as the zygote's)."""
    import struct

    try:
        conn, _ = listener.accept()
    except OSError:
        return
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _, uid, _ = struct.unpack("3i", creds)
    if uid != os.getuid():
        conn.close()
        return
    clients[conn.fileno()] = conn


def _fork(msg: bytes, fds: list[int], waiting: dict[int, socket.socket],
          ) -> tuple[dict[str, Any], list[int]] | None:
    """Fork for one request: in the child, its request and stdio descriptors; in the
    zygote, None (the pid and a pidfd sent to the requester)."""
    if len(fds) != 4:
        for fd in fds:
            os.close(fd)
        return None
    try:
        answer = socket.socket(fileno=fds[0])
    except OSError:  # not a socket: a broken request, refused without an answer
        for fd in fds:
            os.close(fd)
        return None
    try:
        request = json.loads(msg)
        if not isinstance(request, dict):
            raise ValueError("a request is a JSON object")
        pid = os.fork()
    except (OSError, ValueError) as e:
        _send(answer, f"error {e}".encode())
        answer.close()
        for fd in fds[1:]:
            os.close(fd)
        return None
    if pid == 0:
        answer.close()
        return request, fds[1:]
    for fd in fds[1:]:
        os.close(fd)
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
        _send(answer, f"pid {pid}".encode())
    else:
        try:
            socket.send_fds(answer, [f"pid {pid}".encode()], [pidfd])
        except OSError:
            pass
        os.close(pidfd)
    waiting[pid] = answer
    return None


def _send(sock: socket.socket, data: bytes) -> None:
    try:
        sock.send(data)
    except OSError:
        pass  # the master's end is gone: nobody to tell


def _reap(waiting: dict[int, socket.socket]) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        answer = waiting.pop(pid, None)
        if answer is not None:
            _send(answer, f"exit {os.waitstatus_to_exitcode(status)}".encode())
            answer.close()


def _become(request: dict[str, Any], fds: list[int]) -> None:
    """In the forked child: become ``python -m MODULE ARGS`` as the exec path starts it."""
    import io
    import random
    import runpy
    import time

    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    os.setsid()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    for fd in set(fds):
        if fd > 2:
            os.close(fd)
    cwd = request["cwd"]
    os.chdir(cwd)
    os.umask(request["umask"])
    os.environ.clear()
    os.environ.update(request["env"])
    time.tzset()
    argv: list[str] = request["argv"]
    _set_names(request["comm"], argv)
    if sys.path and sys.path[0] == _ZYGOTE_CWD:  # python -m puts the cwd first
        sys.path[0] = cwd

    def stream(fd: int, old: Any, write: bool, errors: str | None,
               line: bool) -> io.TextIOWrapper:
        raw = io.FileIO(fd, "wb" if write else "rb", closefd=False)
        buffered: Any = (io.BufferedWriter(raw) if write else io.BufferedReader(raw))
        return io.TextIOWrapper(buffered, encoding=old.encoding, errors=errors,
                                newline="\n" if write else None, line_buffering=line,
                                write_through=bool(getattr(old, "write_through", False)))

    tty = os.isatty(1)
    old_in, old_out = sys.__stdin__, sys.__stdout__
    fresh = {"stdin": stream(0, old_in, False, getattr(old_in, "errors", None), False),
             "stdout": stream(1, old_out, True, getattr(old_out, "errors", None), tty),
             "stderr": stream(2, sys.__stderr__, True, "backslashreplace", True)}
    for name, value in fresh.items():
        setattr(sys, name, value)
        setattr(sys, f"__{name}__", value)
    random.seed()
    trio_run = sys.modules.get("trio._core._run")
    if trio_run is not None and isinstance(getattr(trio_run, "_r", None), random.Random):
        trio_run._r.seed()
    sys.orig_argv = list(argv)
    # python -m MODULE ARGS: argv[0] is "-m" until runpy puts the module's file there
    sys.argv = ["-m", *argv[3:]]
    runpy.run_module(argv[2], run_name="__main__", alter_sys=True)


def _set_names(comm: str, argv: list[str]) -> None:
    """The child's ``comm`` (PR_SET_NAME, 15 bytes) and, in the room the zygote's own
    command line left, the exec path's command line."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(15, comm.encode()[:15], 0, 0, 0)  # PR_SET_NAME
        with open("/proc/self/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        start, end = int(fields[45]), int(fields[46])  # arg_start, arg_end (fields 48, 49)
        text = b"\0".join(os.fsencode(a) for a in argv)[: end - start - 1]
        ctypes.memmove(start, text + b"\0" * (end - start - len(text)), end - start)
    except (OSError, ValueError, IndexError, AttributeError):
        pass


_ZYGOTE_CWD = ""


def main() -> None:
    global _ZYGOTE_CWD
    restore_from_env()  # the starting process's policy, whatever thread started us
    _ZYGOTE_CWD = os.getcwd()
    fds = [int(fd) for fd in sys.argv[1].split(",")]
    control = socket.socket(fileno=fds[0])
    listener = socket.socket(fileno=fds[1]) if len(fds) > 1 else None
    import ctypes  # noqa: F401 -- imported once here, not in every child

    for package in sys.argv[2:-1]:
        _preload(package)
    # The preloaded modules are never garbage: out of the cyclic collector's reach in the
    # zygote and in every child (which settles its own heap again as its daemon starts,
    # process.settle_heap), so no collection writes to the pages they share.
    gc.freeze()
    child = _serve(control, listener)
    if child is not None:
        _become(*child)


if __name__ == "__main__":
    main()
