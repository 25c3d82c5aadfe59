"""condorsim q's output, byte for byte, on a file of job ads (condor_q -jobads).

The expected texts follow HTCondor 24's format definitions in src/condor_q.V6/queue.cpp
(jobDefault_PrintFormat for -nobatch, jobProgress_PrintFormat and reduce_results for the
batch view, jobRuntime_/jobHold_/jobIdle_/jobDAG_PrintFormat, standard_summary2 for the
totals of a file of ads) laid out by AttrListPrintMask (src/condor_utils/ad_printmask.cpp):

* the title is preceded by two newlines (print_full_header) and stamped with the answer's
  ServerTime;
* rows are trimmed of trailing blanks when standard output is not a terminal (condor_q's
  widescreen), headings are not;
* a file of ads has no "all users" counts: standard_summary2's second line is then
  blank fields as wide as their labels (Jobs, Completed, Removed, ...), after the blank
  that separates fields -- the trailing blanks of the "Total for query" line below.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from condorsim.tools.q import main as q_main

DATA = Path(__file__).parent / "data" / "jobs.ads"
NO_ALLUSERS = " " * 4 + " " + " " * 9 + " " + " " * 7 + " " + " " * 4 + " " + " " * 7 + " " \
    + " " * 4 + " " + " " * 9  # the invalid Allusers* fields, each as wide as its label
TITLE = "\n\n-- Jobads: {path} @ 01/01/26 01:02:05\n"


def _total(jobs: int, idle: int, running: int, held: int) -> str:
    return (f"\nTotal for query: {jobs} jobs; 0 completed, 0 removed, {idle} idle, {running} "
            f"running, {held} held, 0 suspended " + NO_ALLUSERS + "\n\n")


CASES = [
    ([], TITLE
     + "OWNER BATCH_NAME    SUBMITTED   DONE   RUN    IDLE   HOLD  TOTAL JOB_IDS\n"
       "alice ID: 1        1/1  00:00      1      1      _      1      3 1.0-2\n"
       "bob   nightly      1/2  00:00      _      _      1      _      1 2.0\n"
     + _total(3, 1, 1, 1)),
    (["-nobatch"], TITLE
     + " ID      OWNER            SUBMITTED     RUN_TIME ST PRI SIZE CMD\n"
       "   1.0   alice           1/1  00:00   0+01:00:25 R  0    3.0 sleep 600\n"
       "   1.2   alice           1/1  00:00   0+00:00:00 H  0    0.0 sleep 600\n"
       "   2.0   bob             1/2  00:00   0+00:00:00 I  5    0.0 analyze --fast 'a b'\n"
     + _total(3, 1, 1, 1)),
    (["-run"], TITLE
     + " ID      OWNER            SUBMITTED     RUN_TIME HOST(S)\n"
       "   1.0   alice           1/1  00:00   0+01:00:25 slot1@exec1\n"),
    (["-hold"], TITLE
     + " ID      OWNER          HELD_SINCE  HOLD_REASON\n"
       "   1.2   alice           1/1  00:10 via condor_hold (by user alice)\n"
     + _total(1, 0, 0, 1)),
    (["-totals"], TITLE + _total(3, 1, 1, 1)[1:]),
    (["-idle"], TITLE
     + " ID      OWNER          UNIVERSE  CPUS MEMORY STARTS LAST_HOST\n"
       "   2.0   bob            Vanilla                    0 undefined\n"),
    (["-cputime", "-nob"], TITLE
     + " ID      OWNER            SUBMITTED     CPU_TIME ST PRI SIZE CMD\n"
       "   1.0   alice           1/1  00:00   0+00:00:12 R  0    3.0 sleep 600\n"
       "   1.2   alice           1/1  00:00   0+00:00:00 H  0    0.0 sleep 600\n"
       "   2.0   bob             1/2  00:00   0+00:00:00 I  5    0.0 analyze --fast 'a b'\n"
     + _total(3, 1, 1, 1)),
    # a short owner name widens the batch view's OWNER column to 8 (fnFixupWidthsForProgress)
    (["bob"], TITLE
     + "OWNER    BATCH_NAME    SUBMITTED   DONE   RUN    IDLE  TOTAL JOB_IDS\n"
       "bob      nightly      1/2  00:00      _      _      1      1 2.0\n"
     + _total(1, 1, 0, 0)),
    (["-dag", "-nobatch"], TITLE
     + " ID      OWNER/NODENAME      SUBMITTED     RUN_TIME ST PRI SIZE CMD\n"
       "   1.0   alice              1/1  00:00   0+01:00:25 R  0    3.0 sleep 600\n"
       "   1.2   alice              1/1  00:00   0+00:00:00 H  0    0.0 sleep 600\n"
       "   2.0   bob                1/2  00:00   0+00:00:00 I  5    0.0 analyze --fast 'a b'\n"
     + _total(3, 1, 1, 1)),
    (["-af", "ClusterId", "Owner", "JobPrio + 1"], "1 alice 1\n1 alice 1\n2 bob 6\n"),
    (["-af:j", "Owner"], "1.0 alice\n1.2 alice\n2.0 bob\n"),
    (["-af:h", "Owner", "JobPrio"], "Owner JobPrio\nalice 0      \nalice 0      \nbob   5      \n"),
    (["-af:jh", "Owner"], " ID      Owner\n   1.0   alice\n   1.2   alice\n   2.0   bob  \n"),
    (["-af:l", "Owner"], "Owner = alice\nOwner = alice\nOwner = bob\n"),
    (["-af:,V", "Owner", "JobStatus"], '"alice", 2\n"alice", 5\n"bob", 1\n'),
    (["-af:r", "Owner", "Missing", "1+2"], '"alice" undefined 1 + 2\n' * 2 + '"bob" undefined 1 + 2\n'),
    (["-af:t", "ProcId", "Owner"], "0\talice\n2\talice\n0\tbob\n"),
    (["-format", "%d.", "ClusterId", "-format", "%-3d", "ProcId", "-format", "%s\\n", "Owner"],
     "1.0  alice\n1.2  alice\n2.0  bob\n"),
    # %s of a missing attribute is invalid: nothing at all is printed, not even its "\n"
    (["-format", "%s\\n", "Missing"], ""),
    (["-hold", "-af", "ClusterId", "ProcId", "HoldReason"],
     "1 2 via condor_hold (by user alice)\n"),
    (["-l", "-attributes", "Owner,ClusterId", "2.0"], 'ClusterId = 2\nOwner = "bob"\n\n'),
    (["-json", "-attributes", "Owner", "2"], '[\n{\n  "Owner": "bob"\n}\n]\n'),
    (["-global", "-constraint", "false"], ""),
]


@pytest.mark.parametrize(("args", "expected"), CASES, ids=[" ".join(a) or "default" for a, _ in CASES])
def test_condor_q_formats_byte_for_byte(args: list[str], expected: str, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("CONDORSIM_HOME", str(tmp_path))
    monkeypatch.setenv("TZ", "UTC")
    assert q_main(["-jobads", str(DATA), *args]) == 0
    assert capsys.readouterr().out == expected.replace("{path}", str(DATA))


def test_q_on_a_terminal_cuts_rows_at_its_width_less_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """-wide:N sets the width condor_q fits its rows to (N-1 columns, blanks kept)."""
    monkeypatch.setenv("CONDORSIM_HOME", str(tmp_path))
    monkeypatch.setenv("TZ", "UTC")
    assert q_main(["-jobads", str(DATA), "-nobatch", "-wide:60", "2"]) == 0
    rows = capsys.readouterr().out.split("\n")
    assert rows[3] == " ID      OWNER            SUBMITTED     RUN_TIME ST PRI SIZE "[:59]
    assert rows[4] == "   2.0   bob             1/2  00:00   0+00:00:00 I  5    0.0 "[:59]


def test_q_abbreviations_and_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("CONDORSIM_HOME", str(tmp_path))
    monkeypatch.setenv("TZ", "UTC")
    assert q_main(["-jobads", str(DATA), "-const", "JobStatus == 5", "-nob", "-af", "ProcId"]) == 0
    assert capsys.readouterr().out == "2\n"
    assert q_main(["-jobads", str(DATA), "-tot"]) == 0
    assert "Total for query: 3 jobs" in capsys.readouterr().out
    assert q_main(["-bogus"]) == 1
    captured = capsys.readouterr()
    assert captured.err == "Error: unrecognized argument -bogus\n"
    assert captured.out.startswith("Usage: condorsim q")
    assert q_main(["-h"]) == 0
    assert "-better-analyze" in capsys.readouterr().out
    assert q_main(["-jobads", str(DATA), "-constraint", "JobStatus =="]) == 1
    assert "not a valid constraint" in capsys.readouterr().err
    assert q_main(["-run", "-hold"]) == 1
    capsys.readouterr()
    # condor_q names the option given second
    assert q_main(["-jobads", str(DATA), "-currentrun", "-cumulative-time"]) == 1
    assert capsys.readouterr().err == "Error: -cumulative-time can't be used with -currentrun\n"
    assert q_main(["-jobads", str(DATA), "-cum", "-cur"]) == 1
    assert capsys.readouterr().err == "Error: -currentrun can't be used with -cumulative-time\n"


def test_q_io_shows_only_jobs_moving_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """jobIO_PrintFormat: WHERE JobUniverse==1 || TransferQueued || TransferringOutput ||
    TransferringInput; RUNS is NumJobStarts, ST ``<`` for a job receiving its input,
    INPUT/OUTPUT/RATE readable bytes, MISC render_buffer_io_misc's " transfer=in" (the
    column widens to it; the heading keeps its blanks)."""
    monkeypatch.setenv("CONDORSIM_HOME", str(tmp_path))
    monkeypatch.setenv("TZ", "UTC")
    ads = tmp_path / "io.ads"
    ads.write_text(DATA.read_text() + "\n" + 'ClusterId = 3\nProcId = 0\nOwner = "carol"\n'
                   "JobStatus = 2\nJobUniverse = 5\nServerTime = 1767229325\n"
                   "TransferringInput = true\nNumJobStarts = 1\nBytesRecvd = 2048.0\n"
                   "BytesSent = 0.0\nQDate = 1767225600\n")
    assert q_main(["-jobads", str(ads), "-io"]) == 0
    out = capsys.readouterr().out
    assert out.split("\n")[3:6] == [
        " ID      OWNER          RUNS ST  INPUT  OUTPUT  RATE      MISC        ",
        "   3.0   carol             1 <  2.0 KB 0.0 B       2.0 KB  transfer=in",
        "",
    ]


def test_q_userlog_rebuilds_the_jobs_of_an_event_log(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """userlog_to_classads: SUBMIT makes an Idle job (Owner = the caller, Cmd = "???"),
    EXECUTE a Running one on the execute host, JOB_TERMINATED a Completed one."""
    log = tmp_path / "job.log"
    log.write_text(
        "000 (007.000.000) 2026-01-01T00:00:00Z Job submitted from host: <127.0.0.1:1>\n...\n"
        "000 (007.001.000) 2026-01-01T00:00:00Z Job submitted from host: <127.0.0.1:1>\n...\n"
        "001 (007.000.000) 2026-01-01T00:01:00Z Job executing on host: <127.0.0.1:2>\n...\n"
        "005 (007.000.000) 2026-01-01T00:11:00Z Job terminated.\n"
        "\t(1) Normal termination (return value 0)\n"
        "\t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Run Remote Usage\n"
        "\t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Run Local Usage\n"
        "\t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Total Remote Usage\n"
        "\t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Total Local Usage\n"
        "\t0  -  Run Bytes Sent By Job\n\t0  -  Run Bytes Received By Job\n"
        "\t0  -  Total Bytes Sent By Job\n\t0  -  Total Bytes Received By Job\n...\n")
    monkeypatch.setenv("CONDORSIM_HOME", str(tmp_path))
    monkeypatch.setattr("condorsim.tools.userlogads.my_user_name", lambda: "carol")
    assert q_main(["-userlog", str(log), "-af", "ClusterId", "ProcId", "JobStatus", "Owner",
                   "Cmd", "CompletionDate", "RemoteWallClockTime"]) == 0
    assert capsys.readouterr().out == \
        "7 0 4 carol ??? 1767226260 600.0\n7 1 1 carol ??? 0 0.0\n"


def test_q_reads_ads_on_standard_input(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("CONDORSIM_HOME", str(tmp_path))
    monkeypatch.setattr("sys.stdin", io.StringIO(DATA.read_text()))
    assert q_main(["-jobads", "-", "-af", "Owner"]) == 0
    assert capsys.readouterr().out == "alice\nalice\nbob\n"
