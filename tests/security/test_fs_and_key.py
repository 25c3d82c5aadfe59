"""The proofs of identity: HTCondor's FS method (a directory the client makes, mode 0700,
owned by its uid) and the pool key daemons prove they hold; both checked alone and through
the connection handshake every daemon serves."""

from __future__ import annotations

import os
import pwd
import stat
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from condorsim.config import Config
from condorsim.runtime.daemon import DaemonContext
from condorsim.runtime.inproc import open_inprocess_pool
from condorsim.runtime.network import AuthenticationError, Conn, Endpoint
from condorsim.security import FSAuthError, Policy, Security, create_key, fs_check, load_key
from condorsim.security.identity import fs_challenge_dir, my_user_name
from condorsim.security.poolkey import PoolKeyError, ProofChecker, proof
from condorsim.wire import ConnectionClosed, Message
from condorsim.wire import messages as m

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="chown needs root")


def _dir(tmp_path: Path, mode: int = 0o700) -> str:
    path = fs_challenge_dir(str(tmp_path), "<127.0.0.1:9618>")
    os.mkdir(path)
    os.chmod(path, mode)
    return path


def test_a_directory_of_mode_0700_names_its_owner(tmp_path: Path) -> None:
    path = _dir(tmp_path)
    assert os.path.basename(path).startswith("FS_127.0.0.1_9618_")
    assert fs_check(path) == my_user_name()
    if os.geteuid() == 0:
        assert fs_check(path) == "condor"  # root is the condor user


@needs_root
def test_the_owner_decides_not_the_caller(tmp_path: Path) -> None:
    path = _dir(tmp_path)
    nobody = pwd.getpwnam("nobody")
    os.chown(path, nobody.pw_uid, nobody.pw_gid)
    assert fs_check(path) == "nobody"


@pytest.mark.parametrize("mode", [0o755, 0o750, 0o701, 0o1700, 0o600])
def test_any_other_mode_is_refused(tmp_path: Path, mode: int) -> None:
    with pytest.raises(FSAuthError, match=r"Bad attributes on \("):
        fs_check(_dir(tmp_path, mode))


def test_a_symbolic_link_to_a_good_directory_is_refused(tmp_path: Path) -> None:
    target = _dir(tmp_path)
    link = fs_challenge_dir(str(tmp_path), "<127.0.0.1:9618>")
    os.symlink(target, link)
    with pytest.raises(FSAuthError, match="Bad attributes"):
        fs_check(link)


def test_a_directory_with_subdirectories_is_refused(tmp_path: Path) -> None:
    path = _dir(tmp_path)
    os.mkdir(os.path.join(path, "a"))  # link count 3: not a fresh directory
    with pytest.raises(FSAuthError, match="Bad attributes"):
        fs_check(path)


def test_a_plain_file_only_with_fs_allow_unsafe(tmp_path: Path) -> None:
    path = fs_challenge_dir(str(tmp_path), "<127.0.0.1:9618>")
    Path(path).write_text("")
    with pytest.raises(FSAuthError):
        fs_check(path)
    assert fs_check(path, allow_unsafe=True) == my_user_name()


def test_a_missing_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FSAuthError, match="Unable to lstat"):
        fs_check(str(tmp_path / "FS_never_made_"))


def test_the_pool_key_is_private_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "pool" / "passwords.d" / "POOL"
    assert create_key(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    key = load_key(path)
    assert len(key) == 32
    assert not create_key(path) and load_key(path) == key  # a second `up` keeps it
    os.chmod(path, 0o644)
    with pytest.raises(PoolKeyError, match="mode 0644: it must be readable by its owner only"):
        load_key(path)


class Log:
    def __init__(self) -> None:
        self.records: list[tuple[str, dict[str, Any]]] = []

    def warning(self, event: str, **kw: Any) -> None:
        self.records.append((event, kw))

    info = error = warning


class Who:
    """Answers every command with who the peer authenticated as."""

    async def run(self, ctx: DaemonContext, task_status: trio.TaskStatus[str]) -> None:
        await ctx.serve(self._handle, task_status=task_status)

    async def _handle(self, msg: Message, conn: Conn) -> None:
        await conn.send(m.FAILED(reason=f"{conn.identity} {conn.method}"))


async def _ask(endpoint: Endpoint, address: str, msg: Message) -> Message:
    async with await endpoint.connect(address, "who") as conn:
        return await conn.request(msg)


async def test_a_daemon_proves_the_pool_key_and_a_tool_its_user(
        tmp_path: Path, autojump_clock: trio.testing.MockClock) -> None:
    config = Config.from_text(f"UID_DOMAIN = example.org\nFS_LOCAL_DIR = {tmp_path}\n")
    async with open_inprocess_pool(config, tmp_path, [("who", Who)]) as pool:
        address = pool.addresses["who"]
        daemon = await _ask(pool.endpoint("schedd"), address, m.ALIVE(claim_id="c"))
        assert daemon == m.FAILED(reason="condor@example.org TOKEN")
        tool = await _ask(pool.endpoint("tool", with_key=False), address,
                          m.QUERY_JOB_ADS(constraint="", projection=[]))
        assert tool == m.FAILED(reason=f"{my_user_name()}@example.org FS")
        assert not list(tmp_path.glob("FS_*"))  # every proof directory is gone


async def test_a_wrong_key_is_refused_and_logged(
        tmp_path: Path, autojump_clock: trio.testing.MockClock) -> None:
    log = Log()
    async with open_inprocess_pool(Config.from_text(""), tmp_path, [("who", Who)]) as pool:
        server = Endpoint(name="who", network=pool.network, log=log,
                          security=Security(key=pool.key, policy=Policy()))
        async with trio.open_nursery() as nursery:
            address = await nursery.start(lambda task_status: server.serve(
                Who()._handle, task_status=task_status))
            thief = Endpoint(name="schedd", network=pool.network,
                             security=Security(key=b"not the pool key"))
            with pytest.raises(ConnectionClosed):
                await _ask(thief, address, m.ALIVE(claim_id="c"))
            nursery.cancel_scope.cancel()
    assert log.records == [("authentication_failed", {
        "peer": "schedd", "method": "TOKEN",
        "error": "the peer does not hold the pool key (its proof does not match)"})]


async def test_a_tool_that_does_not_make_the_directory_is_refused(
        tmp_path: Path, autojump_clock: trio.testing.MockClock,
        monkeypatch: pytest.MonkeyPatch) -> None:
    import condorsim.runtime.network as network

    def symlink_instead(path: str) -> None:  # someone else's directory, linked
        target = tmp_path / "elsewhere"
        target.mkdir(mode=0o700, exist_ok=True)
        os.symlink(target, path)

    monkeypatch.setattr(network, "fs_make_dir", symlink_instead)
    config = Config.from_text(f"FS_LOCAL_DIR = {tmp_path}\n")
    async with open_inprocess_pool(config, tmp_path, [("who", Who)]) as pool:
        with pytest.raises(AuthenticationError, match=r"using FS: Bad attributes on \("):
            await _ask(pool.endpoint("tool", with_key=False), pool.addresses["who"],
                       m.QUERY_JOB_ADS(constraint="", projection=[]))


def test_a_proof_is_for_one_daemon_once_and_fresh() -> None:
    key, schedd = b"k" * 32, "<127.0.0.1:9618>"
    checker = ProofChecker(key, schedd)
    good = proof(key, schedd, "negotiator", now=1000.0)
    assert checker.check("negotiator", good, now=1001.0) == ""
    assert checker.check("negotiator", good, now=1001.0) == \
        "the peer's proof was used before (a replay)"
    assert "does not hold the pool key" in checker.check(
        "shadow", proof(key, schedd, "negotiator", now=1000.0), now=1001.0)  # another name
    assert "does not hold the pool key" in checker.check(
        "negotiator", proof(key, "<127.0.0.1:1>", "negotiator", now=1000.0), now=1001.0)
    assert "does not hold the pool key" in checker.check(
        "negotiator", proof(b"x" * 32, schedd, "negotiator", now=1000.0), now=1001.0)
    assert checker.check("negotiator", proof(key, schedd, "negotiator", now=700.0),
                         now=1001.0) == "the peer's proof is 301 s old (more than 120 s)"
    assert checker.check("negotiator", "garbage", now=1001.0) == "the peer's proof is malformed"


def test_a_busy_daemon_remembers_only_the_nonces_of_fresh_proofs() -> None:
    key, schedd = b"k" * 32, "<127.0.0.1:9618>"
    checker = ProofChecker(key, schedd)
    # 20,000 connections over ten wall minutes, each proof checked once, a replay refused
    for i in range(20_000):
        t = 1000.0 + i * 0.03
        good = proof(key, schedd, "startd", now=t, nonce=f"n{i}")
        assert checker.check("startd", good, now=t) == ""
    assert checker.check("startd", proof(key, schedd, "startd", now=t, nonce=f"n{i}"),
                         now=t) == "the peer's proof was used before (a replay)"
    # what it keeps: the last FRESH_SECONDS' worth (120 s / 0.03 s), not all 20,000
    assert len(checker._seen) <= 120 / 0.03 + 2


def test_a_busy_daemon_remembers_every_fresh_proof_and_forgets_stale_ones() -> None:
    from condorsim.security.poolkey import FRESH_SECONDS, ProofChecker, proof

    key, server = b"k" * 32, "<127.0.0.1:9618>"
    checker = ProofChecker(key, server)
    first = proof(key, server, "startd", now=1000.0)
    assert checker.check("startd", first, now=1000.0) == ""
    for i in range(10_000):  # more than the first pruning point, all fresh
        assert checker.check("schedd", proof(key, server, "schedd", now=1001.0),
                             now=1001.0 + i / 1000) == ""
    assert "used before" in checker.check("startd", first, now=1011.0)
    later = 1000.0 + FRESH_SECONDS + 50
    for _ in range(10_000):
        assert checker.check("schedd", proof(key, server, "schedd", now=later), now=later) == ""
    assert len(checker._seen) <= 12_000  # the first 10,001 are stale: some were dropped
    assert "old" in checker.check("startd", first, now=later)
