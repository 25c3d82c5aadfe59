"""``dry_run``: what ``condorsim submit -dry-run -`` prints."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from condorsim.classad import ClassAd
from condorsim.cli import main
from condorsim.submit.tool import dry_run


def run(arg: str | Path, **kwargs: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = dry_run(arg, out, err=err, owner="alice", qdate=1700000000, **kwargs)  # type: ignore[arg-type]
    return code, out.getvalue(), err.getvalue()


def test_prints_a_summary_then_each_ad_in_long_form(tmp_path: Path) -> None:
    sub = tmp_path / "job.sub"
    sub.write_text("executable = /bin/sleep\narguments = $(Process)\nqueue 2\n")
    code, out, err = run(sub, clusterid=4)
    assert (code, err) == (0, "")
    head, _, body = out.partition("\n\n")
    assert head == "Dry-Run job(s)..\n2 job(s) dry-run to cluster 4."
    ads = [ClassAd.parse_old(block) for block in body.split("\n\n")]
    assert [(ad.evaluate("ProcId"), ad.evaluate("Args")) for ad in ads] == [(0, "0"), (1, "1")]
    assert all(ad.evaluate("JobSubmitMethod") == 0 for ad in ads)
    lines = body.split("\n\n")[0].splitlines()
    names = [line.split(" = ")[0] for line in lines]
    assert names == sorted(names, key=str.lower)


def test_one_summary_line_per_cluster() -> None:
    text = "executable = /bin/sleep\nqueue\nexecutable = /bin/echo\nqueue 2\n"
    code, out, _ = run(text)
    assert code == 0
    assert out.startswith(
        "Dry-Run job(s)...\n1 job(s) dry-run to cluster 1.\n2 job(s) dry-run to cluster 2.\n\n"
    )


def test_errors_name_the_file_and_line(tmp_path: Path) -> None:
    sub = tmp_path / "bad.sub"
    sub.write_text("executable = /bin/sleep\nuniverse = scheduler\ndeferral_time = 5\nqueue\n")
    code, out, err = run(sub)
    assert (code, out) == (1, "")
    assert err == (
        "ERROR: DeferralTime does not work for scheduler universe jobs.\n"
        f"Consider submitting this job using the local universe, instead\n({sub}, line 3)\n"
    )


def test_a_file_without_queue_statement_is_refused() -> None:
    code, _, err = run("executable = /bin/sleep\n")
    assert code == 1
    assert err.startswith('ERROR: "<submit>" doesn\'t contain any "queue" commands -- no jobs queued')


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    code, _, err = run(tmp_path / "none.sub")
    assert code == 1
    # condor_submit says "Failed to open command file (No such file or directory)"; we name
    # the file too (issue #15: the user must see which file)
    assert err == f"ERROR: Failed to open command file {tmp_path / 'none.sub'} " \
        "(No such file or directory)\n"


def test_the_cli_reads_the_pools_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # condorsim submit (and -dry-run) read what the schedd builds the jobs with: the pool's
    # templates, its WARN_ON_UNUSED_SUBMIT_FILE_MACROS, its UID_DOMAIN.
    config = tmp_path / "condor_config"
    config.write_text(
        "UID_DOMAIN = pool.example\nWARN_ON_UNUSED_SUBMIT_FILE_MACROS = false\n"
        "SUBMIT_TEMPLATE_NAMES = Sleeper\nSUBMIT_TEMPLATE_Sleeper @=end\n"
        "executable = /bin/sleep\narguments = $(1)\n@end\n"
    )
    monkeypatch.setenv("CONDORSIM_CONFIG", str(config))
    sub = tmp_path / "job.sub"
    sub.write_text("use template : Sleeper(30)\nrequst_memory = 1\nqueue\n")
    assert main(["submit", str(sub), "-dry-run", "-"]) == 0
    out, err = capsys.readouterr()
    ad = ClassAd.parse_old(out.partition("\n\n")[2])
    assert ad.evaluate("Args") == "30"
    assert str(ad.evaluate("User")).endswith("@pool.example")
    assert err == ""
    assert main(["submit", str(sub), "-dry-run", "-", "-unused"]) == 0
    assert "was unused" in capsys.readouterr().err
