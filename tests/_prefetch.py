"""Work a test module can have done in the session's background thread (tests/conftest.py):
a module that defines ``PREFETCH = Once(function)`` gets ``function(directory)`` called there
after the library's replays, while pytest runs the tests before it; its fixture calls the
same ``Once`` and gets the outcome (waiting for it if under way, making it if not begun)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

T = TypeVar("T")


class Once(Generic[T]):
    """``function(directory)`` called once, by whoever asks first; an exception it raised is
    raised again to every caller (the test that asks for it fails with it)."""

    def __init__(self, function: Callable[[Path], T]) -> None:
        self._function = function
        self._lock = threading.Lock()
        self._done = False
        self._value: T | None = None
        self._error: BaseException | None = None

    def __call__(self, directory: Path) -> T:
        with self._lock:
            if not self._done:
                try:
                    self._value = self._function(directory)
                except BaseException as e:  # kept for the test that asks
                    self._error = e
                self._done = True
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]

    def prefetch(self, directory: Path) -> None:
        """Called by the background thread: make it now unless a test is making it."""
        if not self._lock.acquire(blocking=False):
            return
        self._lock.release()
        try:
            self(directory)
        except BaseException:
            pass  # the test raises it
