"""Writing a user job event log in HTCondor's format.

How this works: each event method formats one event exactly as HTCondor's
`ULogEvent::formatHeader` and the event's `formatBody` do (condor_event.cpp) --
the header `%03d (%03d.%03d.%03d) <date> `, the body, then the `...` line -- and
appends it with a single `write` on a file opened with O_APPEND, so a reader never
sees half an event (a write the disk refuses part of is cut off again and raises
`EventLogError` naming the file and the errno). Times are simulated epoch seconds passed in
by the caller.
Text that would break the line structure (a newline in a host name or an
attribute) is refused with `EventLogError`; reasons have their newlines turned
into `|`, as HTCondor's `set_reason_member` does.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Mapping, Sequence

from condorsim.eventlog.dates import format_time, parse_format, zone
from condorsim.eventlog.events import EVENT_NUMBERS, EventLogError, ResourceUsage, Rusage, ToE
from condorsim.eventlog.usage import format_resources

NO_USAGE = Rusage()


def _one_line(what: str, text: str) -> str:
    if "\n" in text or "\r" in text:
        raise EventLogError(f"{what} must be one line: {text!r}")
    return text


def _attribute(name: str, text: str) -> str:
    """One `Name = expression` line's content, refusing what would not read back."""
    if not name or any(ch.isspace() or ch in "=[]" for ch in name):
        raise EventLogError(f"bad attribute name {name!r}")
    if not text.strip():
        raise EventLogError(f"attribute {name} has an empty value")
    return f"{name} = {_one_line(name, text)}"


def _reason(text: str) -> str:
    return text.replace("\n", "|").replace("\r", " ")


def _termination(return_value: int | None, signal: int | None, core_file: str | None) -> str:
    if (return_value is None) == (signal is None):
        raise EventLogError("give exactly one of return_value and signal")
    if return_value is not None:
        return f"\t(1) Normal termination (return value {return_value})\n"
    if core_file:
        core = f"\t(1) Corefile in: {_one_line('core_file', core_file)}\n"
    else:
        core = "\t(0) No core file\n"
    return f"\t(0) Abnormal termination (signal {signal})\n{core}"


def _usage_line(usage: Rusage, label: str) -> str:
    return f"\t\t{usage}  -  {label}\n"


disk_write = os.write
"""What writes an event's bytes (a test makes it fail as a full disk would)."""


def _append_whole(fd: int, data: bytes) -> None:
    """Append ``data`` to the file open (O_APPEND) at ``fd``; if the disk takes only part
    of it, cut that part off again, so that a reader never meets half an event. Should
    another writer have appended meanwhile (the shadow and the schedd share a log), the
    file is left alone rather than cut at a guess."""
    start = os.fstat(fd).st_size
    done = 0
    try:
        while done < len(data):
            n = disk_write(fd, data[done:])
            if n <= 0:
                raise OSError(errno.EIO, "short write: the disk took no more bytes")
            done += n
    except OSError:
        if done:
            with contextlib.suppress(OSError):
                if os.fstat(fd).st_size == start + done:
                    os.ftruncate(fd, start)
        raise


class EventLogWriter:
    """Appends events to the user job event log at `path`.

    `tz` is the pool's local time zone (an IANA name); `fmt` the date format:
    `iso` (HTCondor's default), `utc`, `legacy`, or HTCondor's option words
    (see `condorsim.eventlog.dates.parse_format`).
    """

    def __init__(self, path: str | os.PathLike[str], tz: str = "UTC", fmt: str = "iso") -> None:
        self.path = os.fspath(path)
        self.tz = zone(tz)
        self.options = parse_format(fmt)

    def check_open(self) -> None:
        """Open the log for appending (created if missing) and close it again, as
        HTCondor's ``WriteUserLog::initialize`` opens it before any event: raises
        EventLogError naming the file and the errno when it cannot be."""
        try:
            os.close(os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644))
        except OSError as exc:
            code = exc.errno or errno.EIO
            raise EventLogError(f"cannot open the user log {self.path}: errno = {code} "
                                f"({exc.strerror or os.strerror(code)})") from None

    # -- the frame every event shares

    def write_event(self, event_type: str, cluster: int, proc: int, t: float, body: str) -> str:
        """Append one event whose body text (ending in a newline) is `body`; return its text."""
        number = EVENT_NUMBERS.get(event_type)
        if number is None:
            raise EventLogError(f"unknown event type {event_type!r}")
        date = format_time(t, self.tz, self.options)
        text = f"{number:03d} ({cluster:03d}.{proc:03d}.{0:03d}) {date} {body}...\n"
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                _append_whole(fd, text.encode("utf-8"))
            finally:
                os.close(fd)
        except OSError as exc:
            code = exc.errno or errno.EIO
            raise EventLogError(f"cannot write ULOG_{event_type} to {self.path}: errno = {code} "
                                f"({exc.strerror or os.strerror(code)})") from None
        return text

    # -- the events

    def submit(
        self,
        cluster: int,
        proc: int,
        t: float,
        host: str,
        *,
        log_notes: str | None = None,
        user_notes: str | None = None,
    ) -> str:
        """000: `Job submitted from host: <host>`, then the optional notes lines."""
        body = f"Job submitted from host: {_one_line('host', host)}\n"
        for what, notes in (("log_notes", log_notes), ("user_notes", user_notes)):
            if notes:
                body += f"    {_one_line(what, notes)}\n"
        return self.write_event("SUBMIT", cluster, proc, t, body)

    def execute(
        self,
        cluster: int,
        proc: int,
        t: float,
        host: str,
        *,
        slot_name: str | None = None,
        props: Mapping[str, str] | None = None,
    ) -> str:
        """001: `Job executing on host: <host>`, the slot name, then `Attr = expr` lines."""
        body = f"Job executing on host: {_one_line('host', host)}\n"
        if slot_name:
            body += f"\tSlotName: {_one_line('slot_name', slot_name)}\n"
        props = props or {}
        for name in sorted(props, key=str.lower):
            body += f"\t{_attribute(name, props[name])}\n"
        return self.write_event("EXECUTE", cluster, proc, t, body)

    def image_size(
        self,
        cluster: int,
        proc: int,
        t: float,
        size_kb: int,
        *,
        memory_usage_mb: int | None = None,
        rss_kb: int | None = None,
        pss_kb: int | None = None,
    ) -> str:
        """006: `Image size of job updated: <size>`, then the memory lines that are known."""
        body = f"Image size of job updated: {size_kb}\n"
        if memory_usage_mb is not None:
            body += f"\t{memory_usage_mb}  -  MemoryUsage of job (MB)\n"
        if rss_kb is not None:
            body += f"\t{rss_kb}  -  ResidentSetSize of job (KB)\n"
        if pss_kb is not None:
            body += f"\t{pss_kb}  -  ProportionalSetSize of job (KB)\n"
        return self.write_event("IMAGE_SIZE", cluster, proc, t, body)

    def evicted(
        self,
        cluster: int,
        proc: int,
        t: float,
        *,
        checkpointed: bool = False,
        terminated_and_requeued: bool = False,
        return_value: int | None = None,
        signal: int | None = None,
        core_file: str | None = None,
        reason: str | None = None,
        reason_code: int = 0,
        reason_subcode: int = 0,
        run_remote_usage: Rusage = NO_USAGE,
        run_local_usage: Rusage = NO_USAGE,
        sent_bytes: float = 0,
        received_bytes: float = 0,
        resources: Sequence[ResourceUsage] | None = None,
    ) -> str:
        """004: `Job was evicted.`, plain or `terminated and was requeued`.

        The requeued form needs exactly one of `return_value` and `signal`.
        """
        if reason_code:
            body = f"Job was evicted. Code {reason_code} Subcode {reason_subcode}\n"
        else:
            body = "Job was evicted.\n"
        if terminated_and_requeued:
            body += "\t(0) Job terminated and was requeued\n"
        elif checkpointed:
            body += "\t(1) Job was checkpointed.\n"
        else:
            body += "\t(0) CPU times\n"
        body += _usage_line(run_remote_usage, "Run Remote Usage")
        body += _usage_line(run_local_usage, "Run Local Usage")
        body += f"\t{sent_bytes:.0f}  -  Run Bytes Sent By Job\n"
        body += f"\t{received_bytes:.0f}  -  Run Bytes Received By Job\n"
        if terminated_and_requeued:
            body += _termination(return_value, signal, core_file)
        if reason:
            prefix = "" if terminated_and_requeued else "Reason: "
            body += f"\t{prefix}{_reason(reason)}\n"
        body += format_resources(resources or ())
        return self.write_event("JOB_EVICTED", cluster, proc, t, body)

    def terminated(
        self,
        cluster: int,
        proc: int,
        t: float,
        *,
        return_value: int | None = None,
        signal: int | None = None,
        core_file: str | None = None,
        run_remote_usage: Rusage = NO_USAGE,
        run_local_usage: Rusage = NO_USAGE,
        total_remote_usage: Rusage = NO_USAGE,
        total_local_usage: Rusage = NO_USAGE,
        sent_bytes: float = 0,
        received_bytes: float = 0,
        total_sent_bytes: float = 0,
        total_received_bytes: float = 0,
        resources: Sequence[ResourceUsage] | None = None,
        toe: ToE | None = None,
    ) -> str:
        """005: `Job terminated.` with exactly one of `return_value` and `signal`; with the
        job's ToE tag it ends, as HTCondor 24's does, with an empty line and
        `Job terminated of its own accord at <UTC time> with exit-code N.`"""
        body = "Job terminated.\n" + _termination(return_value, signal, core_file)
        body += _usage_line(run_remote_usage, "Run Remote Usage")
        body += _usage_line(run_local_usage, "Run Local Usage")
        body += _usage_line(total_remote_usage, "Total Remote Usage")
        body += _usage_line(total_local_usage, "Total Local Usage")
        body += f"\t{sent_bytes:.0f}  -  Run Bytes Sent By Job\n"
        body += f"\t{received_bytes:.0f}  -  Run Bytes Received By Job\n"
        body += f"\t{total_sent_bytes:.0f}  -  Total Bytes Sent By Job\n"
        body += f"\t{total_received_bytes:.0f}  -  Total Bytes Received By Job\n"
        body += format_resources(resources or ())
        if toe is not None:
            body += f"\n\t{_one_line('toe', toe.line())}\n"
        return self.write_event("JOB_TERMINATED", cluster, proc, t, body)

    def remote_error(self, cluster: int, proc: int, t: float, *, daemon: str, host: str,
                     text: str, critical: bool = True, code: int = 0, subcode: int = 0) -> str:
        """021: `Error from <daemon> on <host>:` (`Message from ...` when not critical), each
        line of the text indented by a tab, then `Code C Subcode S` when there is a code."""
        body = f"{'Error' if critical else 'Message'} from {daemon} on {host}:\n"
        body += "".join(f"\t{line}\n" for line in text.split("\n"))
        if code:
            body += f"\tCode {code} Subcode {subcode}\n"
        return self.write_event("REMOTE_ERROR", cluster, proc, t, body)

    def shadow_exception(self, cluster: int, proc: int, t: float, message: str) -> str:
        """007: `Shadow exception!` and the message (newlines become `|`, as setMessage)."""
        text = message.replace("\n", "|").replace("\r", " ")
        body = (f"Shadow exception!\n\t{text}\n\t0  -  Run Bytes Sent By Job\n"
                "\t0  -  Run Bytes Received By Job\n")
        return self.write_event("SHADOW_EXCEPTION", cluster, proc, t, body)

    def aborted(self, cluster: int, proc: int, t: float, reason: str | None = None) -> str:
        """009: `Job was aborted.` then the reason, if any."""
        body = "Job was aborted.\n" + (f"\t{_reason(reason)}\n" if reason else "")
        return self.write_event("JOB_ABORTED", cluster, proc, t, body)

    def suspended(self, cluster: int, proc: int, t: float, n_pids: int) -> str:
        """010: `Job was suspended.` and how many processes were."""
        body = f"Job was suspended.\n\tNumber of processes actually suspended: {n_pids}\n"
        return self.write_event("JOB_SUSPENDED", cluster, proc, t, body)

    def unsuspended(self, cluster: int, proc: int, t: float) -> str:
        """011: `Job was unsuspended.`"""
        return self.write_event("JOB_UNSUSPENDED", cluster, proc, t, "Job was unsuspended.\n")

    def held(
        self,
        cluster: int,
        proc: int,
        t: float,
        reason: str | None,
        code: int = 0,
        subcode: int = 0,
    ) -> str:
        """012: `Job was held.`, the reason (or `Reason unspecified`), `Code C Subcode S`."""
        text = _reason(reason) if reason else "Reason unspecified"
        body = f"Job was held.\n\t{text}\n\tCode {code} Subcode {subcode}\n"
        return self.write_event("JOB_HELD", cluster, proc, t, body)

    def released(self, cluster: int, proc: int, t: float, reason: str | None = None) -> str:
        """013: `Job was released.` then the reason, if any."""
        body = "Job was released.\n" + (f"\t{_reason(reason)}\n" if reason else "")
        return self.write_event("JOB_RELEASED", cluster, proc, t, body)

    def grid_submit(self, cluster: int, proc: int, t: float, resource: str, job_id: str) -> str:
        """027: `Job submitted to grid resource` with its GridResource and GridJobId."""
        body = (
            "Job submitted to grid resource\n"
            f"    GridResource: {_one_line('resource', resource) or 'UNKNOWN'}\n"
            f"    GridJobId: {_one_line('job_id', job_id) or 'UNKNOWN'}\n"
        )
        return self.write_event("GRID_SUBMIT", cluster, proc, t, body)

    def grid_resource_up(self, cluster: int, proc: int, t: float, resource: str) -> str:
        """025: `Grid Resource Back Up` with the job's GridResource."""
        body = ("Grid Resource Back Up\n"
                f"    GridResource: {_one_line('resource', resource) or 'UNKNOWN'}\n")
        return self.write_event("GRID_RESOURCE_UP", cluster, proc, t, body)

    def grid_resource_down(self, cluster: int, proc: int, t: float, resource: str) -> str:
        """026: `Detected Down Grid Resource` with the job's GridResource."""
        body = ("Detected Down Grid Resource\n"
                f"    GridResource: {_one_line('resource', resource) or 'UNKNOWN'}\n")
        return self.write_event("GRID_RESOURCE_DOWN", cluster, proc, t, body)

    def job_ad_information(
        self, cluster: int, proc: int, t: float, attrs: Mapping[str, str]
    ) -> str:
        """028: `Job ad information event triggered.` then one `Attr = expr` line each."""
        if not attrs:
            raise EventLogError("a job ad information event needs at least one attribute")
        body = "Job ad information event triggered.\n"
        for name, text in attrs.items():
            body += f"{_attribute(name, text)}\n"
        return self.write_event("JOB_AD_INFORMATION", cluster, proc, t, body)
