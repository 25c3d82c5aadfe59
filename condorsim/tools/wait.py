"""``condorsim wait``: condor_wait, watching a user job event log.

How this works
--------------
As condor_wait: the log is read from the start, each event of the job asked for (a
cluster, ``cluster.proc``, or every job) is counted: SUBMIT adds the job to a table,
JOB_TERMINATED and JOB_ABORTED take it out. The tool ends with ``All jobs done.`` (exit 0)
when the table empties after the first job was seen (at once if, once the log as it is
has been read, no job is left waiting), with ``Specifed number of jobs (N) done.`` (sic, HTCondor's spelling)
when ``-num N`` jobs ended, and with ``Time expired.`` (exit 1) after ``-wait`` seconds
(real seconds, as condor_wait counts them, whatever the pool's SIM_SPEED). ``-status``
prints ``C.P.S submitted``, ``... executing on host ...``, ``... completed`` /
``aborted`` as events come; ``-echo`` prints the events themselves. The log is read
again every 0.2 s; only complete events count (an event whose ``...`` line is not
written yet waits).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path

from condorsim.eventlog.events import Event, EventLogError
from condorsim.eventlog.reader import parse_events

USAGE = """
Use: condorsim wait [options] <log-file> [job-number]
Where options are:
    -help             Display options
    -version          Display Condor version
    -status           Show job start and terminate info
    -echo             Echo log events relevant to [job-number]
    -num <number>     Wait for this many jobs to end
                       (default is all jobs)
    -wait <seconds>   Wait no more than this time
                       (default is unlimited)
This command watches a log file, and indicates when
a specific job (or all jobs mentioned in the log)
have completed or aborted. It returns success if
all such jobs have completed or aborted, and returns
failure otherwise.
Examples:
    condorsim wait logfile
    condorsim wait logfile 35
    condorsim wait logfile 1406.35
    condorsim wait -wait 60 logfile 13.25.3
    condorsim wait -num 2 logfile
"""

POLL = 0.2  # real seconds between two reads of the log


class _Usage(Exception):
    pass


def _job(text: str) -> tuple[int, int, int]:
    parts = text.split(".")
    try:
        numbers = [int(p) for p in parts]
    except ValueError:
        raise _Usage(f"Couldn't understand job number: {text}") from None
    if not 1 <= len(numbers) <= 3:
        raise _Usage(f"Couldn't understand job number: {text}")
    padded = [*numbers, -1, -1]
    return padded[0], padded[1], padded[2]


def _matches(event: Event, job: tuple[int, int, int]) -> bool:
    cluster, proc, sub = job
    return (cluster in (-1, event.cluster) and proc in (-1, event.proc)
            and sub in (-1, event.subproc))


def _blocks(text: str) -> list[str]:
    """The text of each complete event (up to, not including, its ``...`` line)."""
    blocks: list[str] = []
    current: list[str] = []
    for line in text.split("\n")[:-1]:  # the last piece has no newline yet
        if line in ("...", "...\r"):
            blocks.append("\n".join(current) + "\n")
            current = []
        else:
            current.append(line)
    return blocks


def main(argv: Sequence[str]) -> int:
    """Entry point of ``condorsim wait``."""
    try:
        options = _parse(list(argv))
    except _Usage as e:
        if str(e):
            print(str(e), file=sys.stderr)
        sys.stderr.write(USAGE)
        return 1
    if options is None:
        return 0
    path, job, num, wait, status, echo = options
    stop = time.monotonic() + wait if wait else None
    seen = 0
    table: set[str] = set()
    submitted = ended = 0
    first = True
    while True:
        try:
            text = Path(path).read_text(encoding="utf-8", errors="replace")
        except OSError as e:
            print(f"Couldn't open {path}: {e.strerror}", file=sys.stderr)
            return 1
        try:
            events = parse_events(text, name=path)
        except EventLogError as e:
            print(f"condorsim wait: {e}", file=sys.stderr)
            return 1
        blocks = _blocks(text)
        for index in range(seen, len(events)):
            event = events[index]
            if not _matches(event, job):
                continue
            key = f"{event.cluster}.{event.proc}.{event.subproc}"
            if echo and index < len(blocks):
                sys.stdout.write(blocks[index] + "...\n")
            if event.type == "SUBMIT":
                table.add(key)
                submitted += 1
                if status:
                    print(f"{key} submitted")
            elif event.type in ("JOB_TERMINATED", "JOB_ABORTED"):
                table.discard(key)
                ended += 1
                if status:
                    print(f"{key} {'completed' if event.type == 'JOB_TERMINATED' else 'aborted'}")
            elif event.type == "EXECUTE" and status:
                print(f"{key} executing on host {event.fields.get('ExecuteHost', '')}")
            if num and ended >= num:
                print(f"Specifed number of jobs ({num}) done.")
                return 0
            if not table and submitted and not num and not first:
                print("All jobs done.")
                return 0
        seen = len(events)
        if first:
            first = False
            if not table and not num:
                print("All jobs done.")
                return 0
        elif not table and not submitted:
            print("This log does not mention any jobs!" if job[0] == -1
                  else "This log does not mention that job!", file=sys.stderr)
            return 1
        if stop is not None and time.monotonic() > stop:
            print("Time expired.")
            return 1
        sys.stdout.flush()
        time.sleep(POLL)


def _parse(argv: list[str]) -> tuple[str, tuple[int, int, int], int, float, bool, bool] | None:
    path: str | None = None
    job_text: str | None = None
    num, wait, status, echo = 0, 0.0, False, False
    it = iter(argv)
    for arg in it:
        if arg in ("-help", "-h", "--help"):
            sys.stderr.write(USAGE)
            return None
        if arg == "-version":
            from .version import version_lines
            sys.stdout.write(version_lines())
            return None
        if arg == "-status":
            status = True
        elif arg.startswith("-echo"):
            echo = True
        elif arg in ("-wait", "-num"):
            value = next(it, None)
            if value is None:
                raise _Usage(f"{arg} requires an argument")
            try:
                number = int(value)
            except ValueError:
                raise _Usage(f"{arg} requires a number, not {value!r}") from None
            if arg == "-num":
                if number < 1:
                    raise _Usage("-num must be greater than zero")
                num = number
            else:
                wait = float(number)
        elif arg == "-log":
            path = next(it, None)
        elif path is not None and job_text is None and arg == "-1":
            job_text = arg
        elif not arg.startswith("-"):
            if path is None:
                path = arg
            elif job_text is None:
                job_text = arg
            else:
                raise _Usage(f"Extra argument: {arg}\n")
        else:
            raise _Usage("")
    if path is None:
        raise _Usage("")
    job = (-1, -1, -1) if job_text in (None, "-1") else _job(job_text or "")
    return path, job, num, wait, status, echo
