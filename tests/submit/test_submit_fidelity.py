"""The gaps HTCondor's own condor_submit tests found (issue #12), one check each.

Where the binding reaches, the check compares with ``htcondor.Submit`` (the corpus files
65-81 and errors/e31-e39 cover the universes, grid types, Requirements clauses, $F and
argument/environment forms the same way); the rest is condor_submit's own behaviour
(its file checks, its unused-line warnings, JobSubmitFile and JobSubmitMethod), checked
against its messages.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import classad2
import htcondor
import pytest
from _submit_reference import differences, normalize, reference_jobs

from condorsim.classad import ClassAd
from condorsim.submit import Submit, SubmitError
from condorsim.submit.tool import dry_run, prepare
from daemons.schedd.queue import JobQueue

CORPUS = Path(__file__).parent / "corpus"
EXPIRES = 2426298374  # notAfter of corpus/data/proxy.pem (2046-11-20 03:46:14 UTC)


@pytest.fixture(autouse=True)
def _in_corpus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(CORPUS)


def ad_of(text: str, **kwargs: Any) -> ClassAd:
    submit_kwargs = {k: kwargs.pop(k) for k in ("submit_file", "config") if k in kwargs}
    return next(iter(Submit(text, iwd=str(CORPUS), **submit_kwargs).jobs(**kwargs)))


def error_of(text: str, **kwargs: Any) -> str:
    with pytest.raises(SubmitError) as caught:
        ad_of(text, **kwargs)
    return caught.value.message


def same_as_binding(text: str) -> None:
    theirs, their_error = reference_jobs(text)
    assert their_error is None and theirs is not None
    assert differences(ad_of(text, clusterid=7, qdate=1700000000, owner="alice",
                             config={"FULL_HOSTNAME": htcondor.param["FULL_HOSTNAME"]}),
                       theirs[0]) == []  # fmt: skip


# -- enum-valued commands take HTCondor's synonyms ------------------------------------------


@pytest.mark.parametrize(
    ("line", "attr", "value"),
    [
        ("should_transfer_files = true", "ShouldTransferFiles", "YES"),
        ("should_transfer_files = always", "ShouldTransferFiles", "YES"),
        ("should_transfer_files = false", "ShouldTransferFiles", "NO"),
        ("should_transfer_files = never", "ShouldTransferFiles", "NO"),
        ("should_transfer_files = auto", "ShouldTransferFiles", "IF_NEEDED"),
        ("when_to_transfer_output = on_success", "WhenToTransferOutput", "ON_SUCCESS"),
        ("when_to_transfer_output = onexit", "WhenToTransferOutput", "ON_EXIT"),
    ],
)
def test_enum_commands_take_htcondors_synonyms(line: str, attr: str, value: str) -> None:
    text = f"executable = /bin/sleep\n{line}\nqueue\n"
    assert ad_of(text).evaluate(attr) == value
    same_as_binding(text)


# -- $(SUBMIT_FILE), JobSubmitFile and JobSubmitMethod --------------------------------------


def test_the_submit_file_name_gives_submit_file_and_job_submit_file() -> None:
    ad = ad_of("executable = /bin/sleep\ndescription = from $(SUBMIT_FILE)\nqueue\n",
               submit_file="jobs/a.sub")  # fmt: skip
    assert ad.evaluate("JobSubmitFile") == "jobs/a.sub"
    assert ad.evaluate("JobDescription") == "from jobs/a.sub"
    assert "JobSubmitFile" not in ad_of("executable = /bin/sleep\nqueue\n")


def test_dry_run_and_the_queue_give_the_same_submit_method_and_file(tmp_path: Path) -> None:
    sub = tmp_path / "job.sub"
    sub.write_text("executable = /bin/sleep\nqueue\n")
    out = io.StringIO()
    assert dry_run(sub, out, err=io.StringIO(), owner="alice", qdate=1700000000) == 0
    dry = ClassAd.parse_old(out.getvalue().partition("\n\n")[2])
    queue = JobQueue(tmp_path / "spool")
    queue.open(1700000000)
    [job] = queue.submit("alice", sub.read_text(), str(tmp_path), "job.sub", 1700000000)
    queued = queue.jobs[job]
    assert dry.evaluate("JobSubmitMethod") == queued.evaluate("JobSubmitMethod") == 0
    assert dry.evaluate("JobSubmitFile") == str(sub)
    assert queued.evaluate("JobSubmitFile") == "job.sub"


# -- use template:, include, if/elif/else ---------------------------------------------------


TEMPLATE_CONFIG = """SUBMIT_TEMPLATE_NAMES = Sleeper
SUBMIT_TEMPLATE_Sleeper @=end
executable = /bin/sleep
arguments = $(1:30)
request_memory = $(2:64)
@end
"""
TEMPLATES = {
    "SUBMIT_TEMPLATE_NAMES": "Sleeper",
    "SUBMIT_TEMPLATE_Sleeper": "executable = /bin/sleep\narguments = $(1:30)\n"
    "request_memory = $(2:64)",
}
# The binding reads the templates once, at its first Submit: run it in a fresh process.
BINDING = """
import sys, htcondor
try:
    ad = next(iter(htcondor.Submit(sys.stdin.read()).jobs(clusterid=7, qdate=1700000000,
                                                          owner="alice")))
    print(str(ad))
except Exception as exc:
    print("ERROR", type(exc).__name__)
"""


def binding_with_templates(text: str, tmp_path: Path) -> str:
    config = tmp_path / "condor_config"
    config.write_text(TEMPLATE_CONFIG)
    env = dict(os.environ, CONDOR_CONFIG=str(config))
    done = subprocess.run([sys.executable, "-c", BINDING], input=text, env=env,
                          capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
    return done.stdout


def test_use_template_reads_the_config_templates(tmp_path: Path) -> None:
    text = "use template : Sleeper(5)\nqueue\n"
    theirs = classad2.ClassAd(binding_with_templates(text, tmp_path))
    ad = ad_of(text, clusterid=7, qdate=1700000000, owner="alice",
               config={**TEMPLATES, "FULL_HOSTNAME": htcondor.param["FULL_HOSTNAME"]})
    assert (ad.evaluate("Args"), ad.evaluate("RequestMemory")) == ("5", 64)
    assert differences(ad, theirs) == []
    with pytest.raises(SubmitError, match="use template: does not recognise Nope"):
        Submit("use template : Nope\nqueue\n", config=TEMPLATES)
    assert binding_with_templates("use template : Nope\nqueue\n", tmp_path).startswith("ERROR")


def test_include_and_if_elif_else() -> None:
    text = (CORPUS / "76_language_if_include.sub").read_text()
    ad = ad_of(text)
    assert ad.evaluate("Args") == "from include"
    assert ad.evaluate("RequestMemory") == 2048
    same_as_binding(text)


# -- what condor_submit refuses -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x509userproxy = data/bad_proxy.pem", "unable to read proxy file"),
        ("x509userproxy = data/cert_only.pem", "unable to read proxy file"),
        ("x509userproxy = no_such.pem", "unable to read proxy file"),
        ("docker_image = ubuntu\ncontainer_image = data/image.sif",
         "cannot declare both docker_image and container_image"),
        ("universe = docker\ncontainer_image = data/image.sif",
         "docker universe does not allow use of container_image."),
    ],
)  # fmt: skip
def test_refusals_as_condor_submit(text: str, message: str) -> None:
    full = f"executable = /bin/sleep\n{text}\nqueue\n"
    assert normalize(error_of(full)) == message
    theirs, their_error = reference_jobs(full)
    assert theirs is None and normalize(their_error or message) == message


def test_an_expired_or_nearly_expired_proxy_is_refused() -> None:
    text = "executable = /bin/sleep\nx509userproxy = data/proxy.pem\nqueue\n"
    assert ad_of(text, qdate=EXPIRES - 121).evaluate("x509userproxy") == str(
        CORPUS / "data/proxy.pem"
    )
    assert error_of(text, qdate=EXPIRES - 60) == "proxy lifetime too short"
    assert error_of(text, qdate=EXPIRES + 1) == "proxy has expired"


def test_a_nul_character_is_a_submit_error() -> None:
    with pytest.raises(SubmitError):
        ad_of("executable = \x00\nqueue\n")


# -- condor_submit's own checks: the executable, unused lines -------------------------------


def run_tool(text: str, *args: str, config: dict[str, str] | None = None) -> tuple[int, str]:
    err = io.StringIO()
    prepared = prepare(text, err=err, owner="alice", qdate=1700000000, config=config,
                       toggle_unused="-unused" in args)  # fmt: skip
    return (0 if prepared else 1), err.getvalue()


@pytest.mark.parametrize(
    ("executable", "message"),
    [
        ("/no/such/program", "ERROR: Executable file /no/such/program does not exist"),
        ("data/empty.sh", "ERROR: Executable file data/empty.sh has zero length"),
        ("data/crlf.sh", "ERROR: Executable file data/crlf.sh is a script with CRLF"),
    ],
)
def test_condor_submit_checks_the_executable(executable: str, message: str) -> None:
    code, err = run_tool(f"executable = {executable}\nqueue\n")
    assert code == 1 and err.startswith(message)
    # The binding (and so a scenario's [[submit]]) does not look at the file.
    assert ad_of(f"executable = {executable}\nqueue\n").evaluate("Cmd").endswith(executable)


def test_skip_filechecks_warn_makes_the_check_a_warning() -> None:
    code, err = run_tool("executable = /no/such/program\nskip_filechecks = warn\nqueue\n")
    assert code == 0
    assert err.startswith("WARNING: Executable file /no/such/program does not exist")


def test_an_executable_that_is_not_transferred_is_not_checked() -> None:
    assert run_tool("executable = /no/such\ntransfer_executable = false\nqueue\n")[0] == 0


UNUSED = "WARNING: the line 'requst_memory = 100' was unused by condor_submit. Is it a typo?\n"


def test_unused_lines_warn_unless_turned_off() -> None:
    text = "executable = /bin/sleep\nrequst_memory = 100\n+Custom = 1\nMY.Other = 2\nqueue\n"
    assert run_tool(text) == (0, UNUSED)
    assert run_tool(text, "-unused") == (0, "")
    off = {"WARN_ON_UNUSED_SUBMIT_FILE_MACROS": "false"}
    assert run_tool(text, config=off) == (0, "")
    assert run_tool(text, "-unused", config=off) == (0, UNUSED)


def test_a_request_name_is_a_custom_resource_not_a_typo() -> None:
    # request_memroy asks for a resource named "memroy": used, so no warning.
    code, err = run_tool("executable = /bin/sleep\nrequest_memroy = 100\nqueue\n")
    assert (code, err) == (0, "")
    assert ad_of("executable = /bin/sleep\nrequest_memroy = 100\nqueue\n").evaluate(
        "RequestMemroy"
    ) == 100


def test_queue_variables_that_are_unused_warn() -> None:
    code, err = run_tool("executable = /bin/sleep\nqueue x in (a, b)\n")
    assert code == 0
    assert err == "WARNING: the Queue variable 'x' was unused by condor_submit. Is it a typo?\n"


def test_the_simulator_runs_without_the_submitters_files() -> None:
    # Scenario submits go straight to the schedd, like the binding: no file checks.
    assert os.path.exists("/no/such/program") is False
    ad = ad_of("executable = /no/such/program\nqueue\n")
    assert ad.evaluate("Cmd") == "/no/such/program"
