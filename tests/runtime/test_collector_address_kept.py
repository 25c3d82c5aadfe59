"""DaemonContext.collector_address keeps the address read from its configuration, and reads
it again from a configuration put in its place; an unset COLLECTOR_HOST raises every time."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from condorsim.config import Config
from condorsim.runtime.daemon import DaemonContext, collector_address


def _ctx(config: Config) -> DaemonContext:
    endpoint: Any = None
    return DaemonContext(name="startd", config=config, endpoint=endpoint, log=None,
                         rng=random.Random(1), run_dir=Path("."))


def test_the_address_follows_the_configuration() -> None:
    first = Config.from_text("COLLECTOR_HOST = cm.example:9700\n")
    ctx = _ctx(first)
    assert ctx.collector_address() == collector_address(first) == "<cm.example:9700>"
    assert ctx.collector_address() == "<cm.example:9700>"
    ctx.config = Config.from_text("COLLECTOR_HOST = other\n")
    assert ctx.collector_address() == "<other:9618>"
    ctx.config = Config.from_text("X = 1\n")
    for _ in range(2):
        with pytest.raises(LookupError):
            ctx.collector_address()
    ctx.config = first
    assert ctx.collector_address() == "<cm.example:9700>"
