"""Every kind of file a user writes, mutated at random, through the real command in-process.

The valid examples of the repository (scenarios, submit descriptions, configuration files,
job router routes) are mutated by a seeded random (lines deleted, duplicated, cut short,
characters swapped, garbage, unicode, NUL and huge numbers put in) and each mutant is given
to the command a user runs on it, through ``condorsim.cli.main`` in this process:

* a scenario: ``condorsim replay --check FILE`` -- exit 0 or 2;
* a submit description: ``condorsim submit -dry-run OUT FILE`` -- 0 or 1 (condor_submit's);
* a configuration file: ``condorsim config_val -dump`` with ``CONDOR_CONFIG=FILE`` (0 or 1)
  and the check ``condorsim up`` makes before it starts anything (``check_pool_config``);
* routes: ``condorsim job_router_info -config`` on the configuration holding them, and each
  route's body as ``condorsim transform_ads -rules FILE`` (0 or 1).

Whatever the mutant, the command returns one of its documented exit codes, nothing escapes
it (no traceback, no uncaught exception), and a refusal names the file (or, for a route,
its knob). docs/reliability.md ("Bad input") reports the counts.
"""

from __future__ import annotations

import contextlib
import io
import random
import re
import shutil
import sys
import traceback
from collections.abc import Callable
from pathlib import Path

import pytest

from condorsim.cli import check_pool_config
from condorsim.cli import main as cli_main

ROOT = Path(__file__).resolve().parents[2]
SEED = 15
CASES = {"scenario": 160, "submit": 160, "config": 120, "route": 120}
"""Mutants per kind: together they run in well under 20 s on a busy 2-core machine."""

GARBAGE = ["\x00", "\u00e9", "\u202e", "\ufeff", "\U0001f600", "\udc80"[:0] + "\u2028", "{",
           "}", "[", "]", "[[", "]]", '"', "'", "'''", '"""', "$(", "$(FOO", ")", "(", "=",
           "\\", "\n", "\t", "#", "@=end\n", "@end\n", "99999999999999999999999999", "-1",
           "1e999", "nan", "inf", "0x7fffffffffffffff", "-9223372036854775809",
           "\nqueue 100000000\n", "\nif\n", "\nendif\n", "\nelse\n", "$INT(", "$CHOICE(",
           "\ncount = 100000000\n", "\r\n", "\\\n", "9" * 5000, "[[machine]]\n", "[config]\n",
           "SET", "EVALSET", "REQUIREMENTS", "TRANSFORM", "\x7f", "\x1b[2J", "%s%s%n"]
_NUMBER = re.compile(r"\d+")
_UNSAFE = re.compile(r"\|\s*$|include\s+command|^\s*(?:run|exec)", re.IGNORECASE | re.MULTILINE)
"""A mutant that could make a command run (``include : cmd |``) is not tried."""


def mutate(text: str, rng: random.Random) -> str:
    """``text`` with one to three random mutations."""
    for _ in range(rng.randint(1, 3)):
        lines = text.splitlines(keepends=True) or [""]
        i = rng.randrange(len(lines))
        op = rng.randrange(8)
        if op == 0:
            del lines[i]
        elif op == 1:
            lines.insert(i, lines[i])
        elif op == 2:
            lines = [text[: rng.randrange(len(text) + 1)]]
        elif op == 3 and len(text) > 1:
            j = rng.randrange(len(text) - 1)
            lines = [text[:j] + text[j + 1] + text[j] + text[j + 2:]]
        elif op == 4:
            pos = rng.randrange(len(text) + 1)
            lines = [text[:pos] + rng.choice(GARBAGE) + text[pos:]]
        elif op == 5:
            numbers = list(_NUMBER.finditer(text))
            if numbers:
                found = rng.choice(numbers)
                huge = rng.choice(["9" * rng.randint(10, 40), "0", "-1", "2147483648",
                                   "100000000", "18446744073709551616", "9" * 5000,
                                   "1e999", "[" * 2000 + "]" * 2000])
                lines = [text[:found.start()] + huge + text[found.end():]]
        elif op == 6:
            lines[i] = "".join(chr(rng.randrange(1, 0x3000)) for _ in range(rng.randint(1, 30)))
        else:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        text = "".join(lines)
    return text


def run(command: list[str] | Callable[[], int]) -> tuple[int, str]:
    """(exit status, stderr) of ``condorsim COMMAND`` (or of the callable) run here; an
    escaping exception is a failure of the test, reported with its traceback."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = command() if callable(command) else cli_main(command)
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
    return code, err.getvalue()


class Findings:
    """The mutants a command mishandled (kept to report several at once)."""

    def __init__(self) -> None:
        self.bad: list[str] = []
        self.tried = 0

    def check(self, kind: str, text: str, argv: list[str] | Callable[[], int],
              allowed: set[int], names: tuple[str, ...]) -> None:
        self.tried += 1
        try:
            code, err = run(argv)
        except Exception:  # what the test is looking for
            self.bad.append(f"{kind}: {argv}: uncaught\n{traceback.format_exc()}\n"
                            f"--- mutant ---\n{text[:2000]!r}")
            return
        problem = ""
        if code not in allowed:
            problem = f"exit {code}, expected one of {sorted(allowed)}"
        elif "Traceback (most recent call last)" in err:
            problem = "a traceback on stderr"
        elif code != 0 and not any(name in err for name in names):
            problem = f"the refusal names none of {names}"
        if problem:
            self.bad.append(f"{kind}: {argv}: {problem}\n--- stderr ---\n{err[:2000]}\n"
                            f"--- mutant ---\n{text[:2000]!r}")

    def assert_none(self) -> None:
        assert not self.bad, f"{len(self.bad)} of {self.tried} mutants mishandled:\n\n" + \
            "\n\n".join(self.bad[:5])


def _mutants(paths: list[Path], count: int, rng: random.Random) -> list[tuple[Path, str]]:
    out: list[tuple[Path, str]] = []
    while len(out) < count:
        path = rng.choice(paths)
        text = mutate(path.read_text(encoding="utf-8"), rng)
        if not _UNSAFE.search(text):
            out.append((path, text))
    return out


@pytest.fixture
def pool_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CONDORSIM_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CONDORSIM_CONFIG", raising=False)
    monkeypatch.setenv("CONDOR_CONFIG", "/dev/null")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_mutated_scenarios(pool_env: Path) -> None:
    work = pool_env / "scenarios"
    shutil.copytree(ROOT / "scenarios", work)
    sources = sorted(work.glob("*.toml")) + sorted(work.glob("examples/*.toml"))
    findings = Findings()
    for path, text in _mutants(sources, CASES["scenario"], random.Random(SEED)):
        mutant = path.with_name("mutant-" + path.name)
        mutant.write_text(text, encoding="utf-8", errors="surrogatepass")
        findings.check("scenario", text, ["replay", "--check", str(mutant)], {0, 2},
                       (str(mutant),))
    findings.assert_none()


def test_mutated_submit_descriptions(pool_env: Path) -> None:
    work = pool_env / "corpus"
    shutil.copytree(ROOT / "tests" / "submit" / "corpus", work)
    shutil.copy(ROOT / "scenarios" / "examples" / "minimal-bob.sub", work)
    sources = sorted(work.glob("*.sub"))
    findings = Findings()
    for path, text in _mutants(sources, CASES["submit"], random.Random(SEED + 1)):
        mutant = path.with_name("mutant-" + path.name)
        mutant.write_text(text, encoding="utf-8", errors="surrogatepass")
        with contextlib.chdir(work):
            findings.check("submit", text, ["submit", "-dry-run", "out.ads", mutant.name],
                           {0, 1}, (mutant.name,))
    findings.assert_none()


def _config_sources(work: Path) -> list[Path]:
    shutil.copytree(ROOT / "config" / "examples", work)
    for path in sorted((ROOT / "tests" / "routing" / "data").glob("*.conf")):
        shutil.copy(path, work)
    return sorted(work.glob("*.conf"))


def _pool_check(path: Path) -> Callable[[], int]:
    """``condorsim up``'s check before it starts anything: exit 2 and the message."""
    def check() -> int:
        problem = check_pool_config(path)
        if problem is not None:
            print(f"condorsim up: {problem}", file=sys.stderr)
            return 2
        return 0
    return check


def test_mutated_config_files(pool_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sources = _config_sources(pool_env / "config")
    findings = Findings()
    for path, text in _mutants(sources, CASES["config"], random.Random(SEED + 2)):
        mutant = path.with_name("mutant-" + path.name)
        mutant.write_text(text, encoding="utf-8", errors="surrogatepass")
        monkeypatch.setenv("CONDOR_CONFIG", str(mutant))
        findings.check("config", text, ["config_val", "-dump"], {0, 1}, (str(mutant),))
        # what `condorsim up` checks before it starts any daemon: exit 2 naming the file
        findings.check("config (up)", text, _pool_check(mutant), {0, 2}, (str(mutant),))
    findings.assert_none()


_ROUTE = re.compile(r"^(JOB_ROUTER_ROUTE_\w+|JOB_TRANSFORM_\w+|JOB_ROUTER_TRANSFORM_\w+)"
                    r"\s*@=(\w+)\n(.*?)^@\2", re.MULTILINE | re.DOTALL)


_ROUTE_NAME = re.compile(r"^JOB_ROUTER_ROUTE_(\w+)\s*@=", re.MULTILINE)


def test_mutated_routes(pool_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sources = [p for p in _config_sources(pool_env / "config")
               if "JOB_ROUTER" in p.read_text(encoding="utf-8")]
    rules_dir = pool_env / "rules"
    rules_dir.mkdir()
    bodies = [match.group(3) for p in sources
              for match in _ROUTE.finditer(p.read_text(encoding="utf-8"))]
    rule_files = []
    for n, body in enumerate(bodies):
        rule_files.append(rules_dir / f"route{n}.rules")
        rule_files[-1].write_text(body, encoding="utf-8")
    ads = pool_env / "job.ad"
    ads.write_text('ClusterId = 1\nProcId = 0\nOwner = "alice"\nJobUniverse = 5\n'
                   "WantJobRouter = true\nRequestMemory = 1024\n")
    rng = random.Random(SEED + 3)
    findings = Findings()
    half = CASES["route"] // 2
    for path, text in _mutants(sources, half, rng):
        mutant = path.with_name("mutant-" + path.name)
        mutant.write_text(text, encoding="utf-8", errors="surrogatepass")
        monkeypatch.setenv("CONDOR_CONFIG", str(mutant))
        findings.check("routes", text, ["job_router_info", "-config"], {0, 1},
                       (str(mutant), "JOB_ROUTER", "JOB_TRANSFORM"))
        # the same file as a rules file declaring the routes, each applied to a job
        monkeypatch.setenv("CONDOR_CONFIG", "/dev/null")
        names = ",".join(_ROUTE_NAME.findall(path.read_text(encoding="utf-8"))) or "Site1"
        findings.check("routes (transform_ads)", text,
                       ["transform_ads", "-rules", str(mutant), "-jobroute", names, str(ads)],
                       {0, 1}, (str(mutant), "JOB_ROUTER_ROUTE_"))
    for path, text in _mutants(rule_files, half, rng):
        mutant = path.with_name("mutant-" + path.name)
        mutant.write_text(text, encoding="utf-8", errors="surrogatepass")
        findings.check("transform rules", text,
                       ["transform_ads", "-rules", str(mutant), str(ads)], {0, 1},
                       (str(mutant), mutant.name))
    findings.assert_none()


HUGE = "9" * 5000
DEEP = "[" * 3000 + "]" * 3000


@pytest.mark.parametrize(("kind", "text", "allowed", "expected"), [
    ("scenario", f'[scenario]\nname = "x"\nseed = {HUGE}\n', {2},
     "line 3: not valid TOML: a number of more than 4300 digits"),
    ("scenario", f'[scenario]\nname = "x"\nseed = {DEEP}\n', {2},
     "not valid TOML: arrays or tables nested too deeply"),
    ("scenario", f'[scenario]\nname = "x"\n[[machine]]\nattrs = {{ A = "{HUGE}" }}\n', {0}, ""),
    ("scenario", '[scenario]\nname = "x"\nseed = 99999999999999999999\n', {2},
     "(MAX_SIM_SEED)"),
    ("scenario", '[scenario]\nname = "x"\nclock = "wall"\nspeed = 1e300\n', {2},
     "(MAX_SIM_SPEED)"),
    ("submit", f"executable = /bin/sleep\nrequest_memory = {HUGE}\nqueue\n", {0, 1}, ""),
    ("submit", f"executable = /bin/sleep\nqueue {HUGE}\n", {0, 1}, ""),
    ("config", f"DAEMON_LIST = MASTER\nNEGOTIATOR_INTERVAL = {HUGE}\n", {2},
     "line 2: NEGOTIATOR_INTERVAL"),
    ("config", f"DAEMON_LIST = MASTER\nX = $INT({HUGE})\nY = {DEEP}\n", {0}, ""),
], ids=["toml-digits", "toml-deep", "classad-digits", "seed", "speed", "submit-digits",
        "queue-digits", "knob-digits", "config-deep"])
def test_known_nasty_inputs(pool_env: Path, kind: str, text: str, allowed: set[int],
                            expected: str) -> None:
    """Inputs that once escaped as a traceback (Python's 4300-digit int() limit, tomllib's
    recursion): each refused with its file (and line), or accepted."""
    path = pool_env / {"scenario": "s.toml", "submit": "j.sub", "config": "c.conf"}[kind]
    path.write_text(text, encoding="utf-8")
    command: list[str] | Callable[[], int] = {
        "scenario": ["replay", "--check", str(path)],
        "submit": ["submit", "-dry-run", "out.ads", path.name],
        "config": _pool_check(path),
    }[kind]
    code, err = run(command)
    assert code in allowed, err
    assert "Traceback" not in err
    if code:
        assert path.name in err and expected in err, err
