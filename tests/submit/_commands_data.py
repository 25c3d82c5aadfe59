"""The submit commands data file (data/submit_commands.txt) and descriptions made from it.

``COMMANDS`` maps each section of the file to its commands: every spelling
(``names``, the first the main one) and the forms of value to try. ``description``
draws a random submit description: a section (a kind of job, with the lines that kind
needs), some of its commands and of the ``[any]`` section's with one of their forms,
and a queue statement. Name patterns in the file (``request_<name>``, ``+<Attr>``...)
become concrete names here. The draws come from a ``random.Random`` so that hypothesis
(through ``st.randoms()``) and throwaway scripts can share them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).parent / "data" / "submit_commands.txt"


@dataclass(frozen=True)
class Command:
    names: tuple[str, ...]
    forms: tuple[str, ...]
    needs: tuple[str, ...] = ()  # lines condor_submit needs before it reads the command


def read_commands(path: Path = DATA) -> dict[str, list[Command]]:
    sections: dict[str, list[Command]] = {}
    current: list[Command] = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[] "), [])
            continue
        names, _, rest = line.partition(": ")
        forms, _, needs = rest.partition("  <- ")
        current.append(
            Command(
                tuple(names.split("/")),
                tuple(f.strip() for f in forms.split(" | ")),
                tuple(n.strip() for n in needs.split(";") if n.strip()),
            )
        )
    return sections


COMMANDS = read_commands()

# Concrete names for the patterns of the data file.
_PATTERNS = {
    "request_<name>": ["request_Boats", "request_foo", "request_x", "request__z", "request_GPUs"],
    "JOBSET.<attr>": ["JOBSET.Priority"],
    "<service>_container_port": ["web_container_port"],
    "<service>_oauth_permissions[_<handle>]": ["box_oauth_permissions", "box_oauth_resource_h"],
    "ec2_parameter_<name>": ["ec2_parameter_Foo", "ec2_parameter_a_b"],
    "ec2_tag_<name>": ["ec2_tag_owner", "ec2_tag_Name"],
    "cloud_label_<name>": ["cloud_label_team"],
    "+<Attr>": ["+Custom", "+lower"],
    "MY.<Attr>": ["MY.Custom"],
    "-<Attr>": ["-Custom"],
}

# The lines each kind of job starts with.
_BASES = {
    "any": ["executable = /bin/sleep"],
    "docker": ["universe = docker", "docker_image = ubuntu"],
    "container": ["universe = container", "container_image = data/image.sif"],
    "java": ["universe = java", "executable = data/Foo.class", "arguments = Foo 1"],
    "parallel": ["universe = parallel", "executable = /bin/sleep", "machine_count = 2"],
    "vm": ["universe = vm", "executable = myvm", "vm_type = kvm", "vm_memory = 128",
           "vm_disk = a.img:sda:w"],
    "grid": ["universe = grid", "executable = /bin/sleep"],
}  # fmt: skip
_GRID = {
    "batch": ["grid_resource = batch slurm"],
    "condor": ["grid_resource = condor schedd.example.org cm.example.org"],
    "ec2": ["grid_resource = ec2 https://ec2.amazonaws.com/", "ec2_access_key_id = keys/id",
            "ec2_secret_access_key = keys/secret", "ec2_ami_id = ami-1"],
    "gce": ["grid_resource = gce https://g/v1 proj zone", "gce_image = img",
            "gce_machine_type = n1"],
    "azure": ["grid_resource = azure sub", "azure_image = img", "azure_location = here",
              "azure_size = small", "azure_admin_username = me", "azure_admin_key = key"],
}  # fmt: skip
QUEUES = ["queue", "queue 2", "queue x in (a, b)", "queue 2 x,y from (\n1 2\n3 4\n)",
          "queue f matching files data/*.dat"]  # fmt: skip


def _name(rng: random.Random, command: Command) -> str:
    name = rng.choice(command.names)
    return rng.choice(_PATTERNS[name]) if name in _PATTERNS else name


def description(rng: random.Random, unsafe: frozenset[str] = frozenset()) -> str:
    """A random submit description from the data file. ``unsafe`` lists the
    ``name = form`` lines known to crash HTCondor's bindings (never drawn)."""
    section = rng.choice(sorted(COMMANDS))
    lines = list(_BASES[section])
    if section == "grid":
        lines += _GRID[rng.choice(sorted(_GRID))]
    pool = COMMANDS[section] + (COMMANDS["any"] if section != "any" else [])
    for command in rng.sample(pool, k=min(len(pool), rng.randint(0, 8))):
        for _ in range(5):
            line = f"{_name(rng, command)} = {rng.choice(command.forms)}".rstrip()
            if not _unsafe(line, unsafe):
                lines += [*command.needs, line]
                break
    lines.append(rng.choice(QUEUES))
    return "\n".join(lines) + "\n"


def _unsafe(line: str, unsafe: frozenset[str]) -> bool:
    return any(line.startswith(prefix) for prefix in unsafe)
