"""File names as condor_submit handles them: joining, URLs, sizes.

How this works
--------------
``join_path`` is HTCondor's ``full_path``: a relative name is joined to a directory and
repeated slashes are squeezed; nothing else (``.``, ``..``) is normalised. ``is_url`` is
``IsUrl``: a scheme (a letter, then letters, digits, ``+ - .``), ``://`` and at least
one more character. ``size_kb`` is ``calc_image_size_kb``: the KiB a file, or the
regular files below a directory, take (rounded up); URLs and missing files count 0.
"""

from __future__ import annotations

import os


def join_path(cwd: str, name: str) -> str:
    """``name`` relative to ``cwd``, repeated slashes squeezed (HTCondor's ``full_path``)."""
    path = name if name.startswith("/") else f"{cwd}/{name}"
    while "//" in path:
        path = path.replace("//", "/")
    return path


def is_url(name: str) -> bool:
    """HTCondor's ``IsUrl``: a scheme of letters, digits, ``+ - .`` then ``://``."""
    colon = name.find("://")
    if colon <= 0 or len(name) <= colon + 3:
        return False
    scheme = name[:colon]
    return scheme[0].isascii() and scheme[0].isalpha() and all(
        ch.isascii() and (ch.isalnum() or ch in "+-.") for ch in scheme
    )


def size_kb(path: str) -> int:
    """KiB (rounded up) of a file, or of the regular files under a directory; 0 if absent."""
    if is_url(path) or "\0" in path:
        return 0
    try:
        if os.path.isdir(path):
            total = 0
            for root, _dirs, files in os.walk(path):
                for name in files:
                    try:
                        total += os.stat(os.path.join(root, name)).st_size
                    except OSError:
                        pass
            return (total + 1023) // 1024
        return (os.stat(path).st_size + 1023) // 1024
    except (OSError, ValueError):
        return 0
