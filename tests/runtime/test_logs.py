"""The daemon logger writes what structlog's chain wrote, byte for byte, without importing
structlog (a daemon process does not pay for structlog and rich as it starts)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import structlog
import trio
import trio.testing

from condorsim.runtime.logs import close_daemon_logger, daemon_logger, log_name
from condorsim.runtime.logtext import text_line, zone


class _Sink:
    """The file writer the logger wrapped when it was structlog's."""

    def __init__(self, json_path: Path, text_path: Path, own: str, tz: str | None) -> None:
        self.json = open(json_path, "a", encoding="utf-8")
        self.text = open(text_path, "a", encoding="utf-8")
        self.own, self.zone = own, zone(tz)

    def text_processor(self, _logger: Any, _method: str, event: dict[str, Any]) -> Any:
        import os

        self.text.write(text_line(event, self.own, os.getpid(), self.zone))
        return event

    def msg(self, message: str) -> None:
        self.json.write(message + "\n")

    log = debug = info = warning = error = critical = exception = msg


def _add_times(_logger: Any, _method: str, event: dict[str, Any]) -> dict[str, Any]:
    try:
        event["sim_time"] = trio.current_time()
    except RuntimeError:
        event["sim_time"] = None
    event["wall_time"] = round(time.time(), 6)
    return event


def _structlog_logger(daemon: str, log_dir: Path, tz: str | None) -> tuple[Any, _Sink]:
    """The logger as it was built with structlog before."""
    name = log_name(daemon)
    sink = _Sink(log_dir / f"{name}.json", log_dir / name, daemon, tz)
    logger = structlog.wrap_logger(
        sink,
        processors=[structlog.processors.add_log_level, _add_times, sink.text_processor,
                    structlog.processors.JSONRenderer()],
        wrapper_class=structlog.make_filtering_bound_logger(0),
        context_class=dict,
        cache_logger_on_first_use=True,
    ).bind(daemon=daemon)
    return logger, sink


class _Custom:
    def __structlog__(self) -> str:
        return "custom form"

    def __repr__(self) -> str:
        return "<custom>"


def _calls(log: Any) -> None:
    log.info("daemon_started", address="127.0.0.1:9618", pid=42)
    log.warning("claim_lost", claim_id="<c1>", reason="the startd went away", job="1.0")
    log.error("bad_frame", error=ValueError("too long"), peer=("127.0.0.1", 1))
    log.debug("tick", n=1, ratio=0.5, ok=True, nothing=None, items=[1, "a"], m={"k": 2})
    log.critical("fatal_thing", path=Path("/tmp/x"), custom=_Custom())
    log.warn("old_name", event_count=3)
    log.msg("plain")
    log.fatal("over")
    log.exception("failed_hook", hook="prepare")
    log.info("formatted %s of %d", "two", 2, extra="x")
    log.info("mapped %(a)s", {"a": "value"})
    log.log(20, "numeric", level_name="info")
    log.log(40, "numeric_error")
    log.info("overrides", level="mine", sim_time="mine", wall_time="mine")
    bound = log.bind(job="3.1", attempt=2)
    bound.info("bound_event", extra=1)
    bound.try_unbind("attempt", "nothing").info("unbound_event")
    bound.unbind("job").warning("unbound_job")
    log.info("schedd_negotiate", submitter="alice@pool", matches=3, rejections=0)


@pytest.mark.parametrize("inside_trio", [False, True])
def test_the_records_are_the_ones_structlog_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, inside_trio: bool
) -> None:
    monkeypatch.setattr(time, "time", lambda: 1_772_463_600.1234567)
    (tmp_path / "old").mkdir()
    old, sink = _structlog_logger("schedd", tmp_path / "old", "America/Chicago")
    new = daemon_logger("schedd", tmp_path / "new", tz="America/Chicago")

    async def both() -> None:
        await trio.sleep(12.5)
        _calls(old)
        _calls(new)

    if inside_trio:
        trio.run(both, clock=trio.testing.MockClock(autojump_threshold=0))
    else:
        _calls(old)
        _calls(new)
    sink.json.close()
    sink.text.close()
    close_daemon_logger(new)
    for name in ("SchedLog.json", "SchedLog"):
        wrote = (tmp_path / "new" / name).read_text()
        assert wrote == (tmp_path / "old" / name).read_text(), name
        assert len(wrote.splitlines()) == 18
    first = json.loads((tmp_path / "new" / "SchedLog.json").read_text().splitlines()[0])
    assert first["event"] == "daemon_started" and first["daemon"] == "schedd"
    assert first["sim_time"] == (12.5 if inside_trio else None)


def test_the_loggers_behave_as_structlogs(tmp_path: Path) -> None:
    old, sink = _structlog_logger("startd", tmp_path, None)
    new = daemon_logger("startd", None)
    assert new.is_enabled_for(10) == old.is_enabled_for(10)
    assert new.get_effective_level() == old.get_effective_level()
    with pytest.raises(KeyError):
        old.unbind("absent")
    with pytest.raises(KeyError):
        new.unbind("absent")
    assert new.bind(a=1) == new.bind(a=1) and new.bind(a=1) != new.bind(a=2)
    assert new.new(b=2)._context == {"b": 2} == old.new(b=2)._context
    sink.json.close()
    sink.text.close()


def test_a_daemon_process_does_not_import_structlog_or_rich() -> None:
    code = ("import sys, daemons.schedd.__main__, daemons.startd.__main__, "
            "daemons.master.__main__; "
            "print(sorted(m for m in ('structlog', 'rich') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"
