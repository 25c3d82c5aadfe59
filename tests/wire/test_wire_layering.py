"""The wire's layering: only stream.py does I/O; the catalogue's table names real commands."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import condorsim.wire
from condorsim.wire import messages, registered_messages

WIRE = Path(condorsim.wire.__file__).parent
NO_IO = ["errors.py", "framing.py", "codec.py", "messages.py"]


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_framing_and_codec_do_no_io() -> None:
    for name in NO_IO:
        found = imported_modules(WIRE / name) & {"trio", "socket", "time", "asyncio", "daemons"}
        assert not found, f"{name} imports {sorted(found)}"


def test_every_command_in_the_catalogue_table_is_registered() -> None:
    doc = messages.__doc__ or ""
    rows = re.findall(r"^([A-Z][A-Z0-9_]+)\s{2,}", doc, flags=re.MULTILINE)
    assert len(rows) >= 50
    assert set(rows) <= set(registered_messages())
