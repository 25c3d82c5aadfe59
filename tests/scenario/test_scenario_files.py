"""[[file]]: files a scenario writes into the run directory before the pool starts."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from condorsim.replay.files import write_files
from condorsim.replay.poolconfig import config_text, make_run_dir
from condorsim.scenario import ScenarioError, parse_scenario

H = '[scenario]\nname = "files"\n'


def test_text_and_file_entries_with_their_modes(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "hook.sh").write_bytes(b"#!/bin/sh\nexit 0\n\xff")
    scenario = parse_scenario(H + '''
[config]
X_HOOK_FETCH_WORK = "$(LOCAL_DIR)/hooks/fetch.sh"

[[file]]
path = "hooks/fetch.sh"
executable = true
text = """#!/bin/sh
cat > /dev/null
"""

[[file]]
path = "./data/../data/queue"
text = ""

[[file]]
path = "bin/hook"
file = "src/hook.sh"
executable = true
''', source="s.toml", base_dir=tmp_path)
    assert [(f.path, f.mode) for f in scenario.files] == [
        ("hooks/fetch.sh", 0o755), ("data/queue", 0o644), ("bin/hook", 0o755)]
    run = tmp_path / "run"
    make_run_dir(scenario, run)
    assert (run / "hooks" / "fetch.sh").read_text() == "#!/bin/sh\ncat > /dev/null\n"
    assert stat.S_IMODE((run / "hooks" / "fetch.sh").stat().st_mode) == 0o755
    assert stat.S_IMODE((run / "data" / "queue").stat().st_mode) == 0o644
    assert (run / "bin" / "hook").read_bytes().endswith(b"\xff")
    assert "X_HOOK_FETCH_WORK = $(LOCAL_DIR)/hooks/fetch.sh" in config_text(scenario, run)
    assert f"LOCAL_DIR = {run}" in config_text(scenario, run)


@pytest.mark.parametrize(("entry", "message"), [
    ('path = "../outside"\ntext = ""', "path: '../outside' leaves the run directory"),
    ('path = "a/../../outside"\ntext = ""', "path: 'a/../../outside' leaves the run directory"),
    ('path = "/etc/passwd"\ntext = ""',
     "path: '/etc/passwd' is absolute: give a path relative to the run directory"),
    ('path = "."\ntext = ""', "path: '.' is the run directory itself: name a file in it"),
    ('path = "condor_config"\ntext = ""', "path: 'condor_config' is written by the replay itself"),
    ('path = "result.json"\ntext = ""', "path: 'result.json' is written by the replay itself"),
    ('text = ""', "path: missing (required: where to write it"),
    ('path = "x"', "missing the content: give text = '''...''' or file = \"name\""),
    ('path = "x"\ntext = ""\nfile = "y"', "text: give either text (the content) or file"),
    ('path = "x"\nfile = "nope"', "file: no such file: {dir}/nope"),
    ('path = "x"\ntext = ""\nexecutable = "yes"', "executable: expected true or false"),
    ('path = "x"\ntext = ""\nmode = 493', "unknown key 'mode'"),
])
def test_a_bad_entry_is_refused_naming_the_file_and_the_field(tmp_path: Path, entry: str,
                                                               message: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(H + "[[file]]\n" + entry + "\n", source="s.toml", base_dir=tmp_path)
    text = str(caught.value)
    assert text.startswith("s.toml, line ") and "[[file]] #1" in text
    assert message.replace("{dir}", str(tmp_path.resolve())) in text


def test_two_entries_may_not_collide(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=r"\[\[file\]\] #1 writes the same path"):
        parse_scenario(H + '[[file]]\npath = "a"\ntext = ""\n[[file]]\npath = "./a"\ntext = ""\n')
    with pytest.raises(ScenarioError, match="'a' is a file of \\[\\[file\\]\\] #1"):
        parse_scenario(H + '[[file]]\npath = "a"\ntext = ""\n[[file]]\npath = "a/b"\ntext = ""\n')


def test_the_writer_refuses_a_symbolic_link_out_of_the_run_directory(tmp_path: Path) -> None:
    scenario = parse_scenario(H + '[[file]]\npath = "out/x"\ntext = "x"\n')
    run = tmp_path / "run"
    run.mkdir()
    os.symlink(tmp_path, run / "out")
    with pytest.raises(ScenarioError, match="leaves the run directory"):
        write_files(scenario, run)
    assert not (tmp_path / "x").exists()


def test_replay_stops_with_exit_2_before_any_daemon(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(H + '[[file]]\npath = "../../etc/evil"\ntext = "x"\n')
    done = subprocess.run([sys.executable, "-m", "condorsim.cli", "replay", str(bad)],
                          capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, CONDOR_CONFIG="/dev/null"))
    assert done.returncode == 2
    assert "[[file]] #1 (path \"../../etc/evil\"): path: '../../etc/evil' leaves the run " \
           "directory" in done.stderr
