"""data/submit_commands.txt -- every command of condor_submit -- against the implementation.

condor_submit warns about a command nothing looked at ("the line 'x = 1' was unused by
condor_submit. Is it a typo?"), so a description holding one command with an accepted
value shows whether the implementation reads that command: every spelling of every
command in the data file must be read, except the misspelling kept there on purpose.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _commands_data import _BASES, _PATTERNS, COMMANDS, Command

from condorsim.submit import Submit, SubmitError

CORPUS = Path(__file__).parent / "corpus"
# Names condor_submit must call unused: a misspelling, the common mistakes it warns about
# (and then ignores), and request_ names too short or starting with "_" to be resources.
NOT_COMMANDS = {"reqest_memory", "request_cpu", "request_gpu", "request_x", "request__z"}
# Commands never accepted in a kind of job (the job's own image conflicts).
REFUSED = {("docker", "container_image"), ("docker", "ContainerImage"),
           ("container", "docker_image"), ("container", "DockerImage")}  # fmt: skip
QUEUE = ['MY.Item = "$(f)"', "queue f matching files data/*.dat"]


def spellings() -> list[tuple[str, str, Command]]:
    out = []
    for section, commands in COMMANDS.items():
        for command in commands:
            for name in command.names:
                for concrete in _PATTERNS.get(name, [name]):
                    out.append((section, concrete, command))
    return out


def unused(section: str, name: str, form: str, command: Command) -> list[str] | None:
    """The unused-command warnings of a description with ``name = form``, None if refused."""
    base = [line for line in _BASES[section] if line.split(" =")[0] not in command.names]
    if section == "grid" and "grid_resource" not in command.names:
        base.append("grid_resource = batch slurm")
    text = "\n".join([*base, *command.needs, f"{name} = {form}", *QUEUE]) + "\n"
    sub = Submit(text, iwd=str(CORPUS))
    try:
        list(sub.jobs(iwd=str(CORPUS), qdate=1700000000, checks=True, warn_unused=True))
    except SubmitError:
        return None
    return [w for w in sub.warnings if "was unused" in w]


def test_the_data_file_has_every_section_and_enough_commands() -> None:
    assert set(COMMANDS) == set(_BASES)
    # HTCondor 24.0's keyword table has 244 spellings; the file was checked to hold each
    # of them, with the commands condor_submit's setters read besides (269 commands).
    assert sum(len(commands) for commands in COMMANDS.values()) >= 269
    spelled = {name.lower() for commands in COMMANDS.values() for c in commands for name in c.names}
    assert {"executable", "cmd", "docker_image", "node_count", "starter_log", "max_idle",
            "request_<name>", "gpus_minimum_runtime", "ec2_tag_names"} <= spelled


def test_every_keyword_of_htcondor_24s_table_is_in_the_data_file() -> None:
    """The data file (and so the differential generator and the test below) holds every
    keyword of condor_submit's table in HTCondor 24.0 (data/htcondor24_keywords.txt)."""
    table = Path(__file__).parent / "data" / "htcondor24_keywords.txt"
    keywords = [line.strip() for line in table.read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    assert len(keywords) == 237
    spelled = {name.lower() for commands in COMMANDS.values() for c in commands for name in c.names}
    assert [k for k in keywords if k.lower() not in spelled] == []


@pytest.mark.parametrize(
    ("section", "name", "command"), spellings(), ids=[f"{s}:{n}" for s, n, _ in spellings()]
)
def test_every_command_is_read(section: str, name: str, command: Command) -> None:
    results = [unused(section, name, form, command) for form in command.forms]
    accepted = [warnings for warnings in results if warnings is not None]
    if (section, name) in REFUSED:
        assert not accepted
        return
    assert accepted, f"no form of {name} is accepted in a {section} job"
    mentioned = any(f"'{name} =" in w or f"'{name}'" in w for w in accepted[0])
    assert mentioned == (name in NOT_COMMANDS), accepted[0]
