"""condor_q's views: the tables, the batch rows, the totals lines and the header.

How this works
--------------
Each view is the list of columns of HTCondor 24's print formats in
``src/condor_q.V6/queue.cpp`` (``jobDefault_PrintFormat`` for ``-nobatch``,
``jobRuntime_``, ``jobHold_``, ``jobIdle_``, ``jobIO_``, ``jobDAG_``,
``jobProgress_PrintFormat`` for the default batch view), stated here as
:class:`~.printmask.Column` lists with the same headings, widths, renderers and ``OR``
texts. :func:`table` renders the rows (jobs in id order) and applies condor_q's width
fix-ups (wider id columns for cluster ids past 9999 or proc ids past 999);
:func:`batch_rows` folds jobs into one row per cluster or per ``JobBatchName`` (counting
done, running, idle, held and total jobs; the HOLD column only when a job is held) as
``reduce_results`` does. :func:`summary` prints the "Total for query/<user>/all users"
lines (``standard_summary3``/``2``) and :func:`title` the ``-- Schedd: ...`` line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from condorsim.classad import ClassAd, EvalContext

from . import qrender as r
from .fmt import format_date, local_time
from .printmask import Column, PrintMask

ViewName = str  # "normal", "run", "hold", "idle", "io", "dag", "batch", "totals"


def _id_columns() -> list[Column]:
    return [Column("ClusterId", " ID", 5, fmt="%4d.", nosuffix=True),
            Column("ProcId", " ", 3, fmt="%-3d", noprefix=True)]


def _owner(alt: str = "??") -> Column:
    return Column("Owner", "OWNER", -14, fmt=None, render=r.render_owner, alt=alt)


def _date(attr: str, heading: str, width: int, tz: str, alt: str = "") -> Column:
    return Column(attr, heading, width, fmt=None, format=lambda t: format_date(t, tz),
                  format_type="int", alt=alt)


def _label(attr: str, heading: str, **kw: object) -> Column:
    """A column whose width comes from its heading (the print format gave no WIDTH)."""
    return Column(attr, heading, -len(heading), autowidth=True, notruncate=True, **kw)  # type: ignore[arg-type]


def columns(view: ViewName, tz: str, run_time: r.RunTime) -> list[Column]:
    """The columns of ``view`` (see the module comment for their source)."""
    time_heading = "    CPU_TIME" if run_time.cpu else "    RUN_TIME"
    if view in ("normal", "dag"):
        owner = Column("Owner", "OWNER/NODENAME", -17, fmt=None, render=r.render_dag_owner) \
            if view == "dag" else _owner()
        if view == "dag":
            owner.alt = ""
        return [*_id_columns(), owner, _date("QDate", "  SUBMITTED", 11, tz),
                Column("RemoteUserCpu", time_heading, 12, fmt="%T", render=run_time),
                _label("JobStatus", "ST", fmt=None, render=r.render_job_status),
                _label("JobPrio", "PRI"),
                Column("ImageSize", "SIZE", 4, fmt="%.1f", render=r.render_memory_usage),
                Column("Cmd", "CMD", 0, fmt=None, render=r.render_job_description)]
    if view == "run":
        return [*_id_columns(), _owner(), _date("QDate", "  SUBMITTED", 11, tz, "??"),
                Column("RemoteUserCpu", time_heading, 12, fmt="%T", render=run_time, alt="??"),
                Column("Owner", "HOST(S)", 0, fmt=None, render=r.render_remote_host, alt="??")]
    if view == "hold":
        return [*_id_columns(), _owner(), _date("EnteredCurrentStatus", "HELD_SINCE", 11, tz, "??"),
                Column("HoldReason", "HOLD_REASON", 0)]
    if view == "idle":
        return [*_id_columns(), _owner(),
                _label("JobUniverse", "UNIVERSE ", fmt=None, format=r.format_universe,
                       format_type="int"),
                _label("RequestCpus", "CPUS", fmt="%4d"), _label("RequestMemory", "MEMORY", fmt="%6d"),
                _label("NumShadowStarts?:0", "STARTS", fmt="%6d"),
                Column("LastRemoteHost", "LAST_HOST", 0)]
    if view == "io":
        def bytes_col(expr: str, heading: str, width: int = 0) -> Column:
            col = _label(expr, heading, fmt=None, format=r.format_readable_bytes, alt="??")
            if width:
                col.width, col.autowidth, col.notruncate, col.left = width, False, False, False
            return col
        return [*_id_columns(), _owner(),
                _label("IfThenElse(JobUniverse==1,NumCkpts_RAW,NumJobStarts)", "RUNS",
                       fmt="%4d", alt="?"),
                _label("JobStatus", "ST", fmt=None, render=r.render_job_status),
                bytes_col("IfThenElse(JobUniverse==1,FileReadBytes,BytesRecvd)", " INPUT"),
                bytes_col("IfThenElse(JobUniverse==1,FileWriteBytes,BytesSent)", " OUTPUT"),
                bytes_col("IfThenElse(JobUniverse==1,FileReadBytes+FileWriteBytes,"
                          "BytesRecvd+BytesSent)", " RATE", 10),
                _label("JobUniverse", "MISC", fmt=None, render=r.render_buffer_io_misc)]
    if view == "batch":
        counter = dict(fmt="%6d", alt="_")
        return [_label("Owner", "OWNER", fmt=None, render=r.render_dag_owner, alt="??"),
                Column("Cmd", "BATCH_NAME", -12, fmt=None, render=r.render_batch_name),
                _date("QDate", "   SUBMITTED", 12, tz),
                Column("JobStatus", "  DONE", 6, **counter),  # type: ignore[arg-type]
                Column("JobUniverse", "  RUN ", 6, **counter),  # type: ignore[arg-type]
                Column("DAG_NodesQueued", "  IDLE", 6, **counter),  # type: ignore[arg-type]
                Column("DAG_NodesDone", "  HOLD", 6, **counter),  # type: ignore[arg-type]
                Column("DAG_NodesTotal?:TotalSubmitProcs", " TOTAL", 6, **counter),  # type: ignore[arg-type]
                Column("JobStatus?:JobMaterializeNextProcId", "JOB_IDS", 0, fmt=None,
                       render=r.render_job_status)]
    raise ValueError(f"unknown condor_q view {view!r}")


IO_WHERE = ("JobUniverse==1 || TransferQueued=?=true || TransferringOutput=?=true || "
            "TransferringInput=?=true")
HAS_SUMMARY = {"normal": True, "dag": True, "batch": True, "hold": True, "io": True,
               "totals": True, "run": False, "idle": False}


def _jid(ad: ClassAd) -> tuple[int, int]:
    return r.lookup_int(ad, "ClusterId") or 0, r.lookup_int(ad, "ProcId") or 0


def table(ads: Sequence[ClassAd], view: ViewName, tz: str, run_time: r.RunTime,
          ctx: EvalContext, overall_width: int = 0, trim: bool = False) -> tuple[str, str]:
    """(headings, rows) of a table view, the jobs in id order."""
    mask = PrintMask(columns(view, tz, run_time), overall_width=overall_width)
    ordered = sorted(ads, key=_jid)
    if view == "dag":
        ordered = _dag_order(ordered)
    rows = [mask.render(ad, ctx) for ad in ordered]
    if view != "batch" and ordered:
        _fix_id_widths(mask, ordered)
    if view == "dag":
        _indent_nodes(mask, ordered, rows)
    lines = [mask.display(row) for row in rows]
    head = mask.headings()
    if trim:
        from .printmask import trim_before_newline
        lines = [trim_before_newline(line) for line in lines]
    return head, "".join(lines)


def _fix_id_widths(mask: PrintMask, ads: Sequence[ClassAd]) -> None:
    """``fixup_std_column_widths``: ids wider than 4 / 3 digits widen the id columns."""
    cluster = max(_jid(ad)[0] for ad in ads)
    proc = max(_jid(ad)[1] for ad in ads)
    if cluster < 9999 and proc < 999:
        return
    cw, pw = len(str(cluster)), len(str(proc))
    first, second = mask.columns[0], mask.columns[1]
    if 4 < cw <= 9:
        first.fmt, first.width = f"%{cw}d.", cw + 1
        first.__post_init__()
    if 3 < pw <= 9:
        second.fmt, second.width = f"%-{pw}d", -pw
        second.__post_init__()


def _dag_order(ads: list[ClassAd]) -> list[ClassAd]:
    """DAG node jobs right after their DAGMan job (``print_results`` with -dag)."""
    by_cluster = {_jid(ad)[0]: ad for ad in ads if _jid(ad)[1] == 0}
    children: dict[int, list[ClassAd]] = {}
    top: list[ClassAd] = []
    for ad in ads:
        parent = r.lookup_int(ad, "DAGManJobId")
        if parent is not None and parent in by_cluster and parent != _jid(ad)[0]:
            children.setdefault(parent, []).append(ad)
        else:
            top.append(ad)
    out: list[ClassAd] = []

    def walk(ad: ClassAd) -> None:
        out.append(ad)
        for child in children.get(_jid(ad)[0], []) if _jid(ad)[1] == 0 else []:
            walk(child)

    for ad in top:
        walk(ad)
    return out


def _indent_nodes(mask: PrintMask, ads: Sequence[ClassAd], rows: list[list[tuple[bool, object]]]) -> None:
    """``format_name_column_for_dag_nodes``: `` |-name`` for a node of a shown DAG."""
    present = {_jid(ad)[0] for ad in ads}
    width = mask.columns[2].width
    for ad, row in zip(ads, rows, strict=True):
        parent = r.lookup_int(ad, "DAGManJobId")
        if parent is None or parent not in present or not row[2][0]:
            continue
        depth = 1
        text = " " * depth + "|-"
        name = str(row[2][1])
        row[2] = (True, text + name[: max(0, width - len(text))])


# -------------------------------------------------------------------- the batch view
@dataclass
class _Batch:
    first: ClassAd
    jobs: list[ClassAd]


def batch_rows(ads: Sequence[ClassAd], tz: str, ctx: EvalContext, *, partial: bool,
               show_held_column: bool = False) -> tuple[str, str]:
    """(headings, rows) of condor_q's default view: one row per batch (``reduce_results``).

    ``partial``: the query may have left out jobs of a cluster (a constraint, -run ...),
    so the DONE column cannot be worked out (condor_q's ``querying_partial_clusters``).
    """
    mask = PrintMask(columns("batch", tz, r.RunTime()))
    ordered = sorted(ads, key=_jid)
    batches: dict[object, _Batch] = {}
    for ad in ordered:
        name = r.lookup_str(ad, "JobBatchName")
        key: object = ("name", name, r.lookup_str(ad, "Owner")) if name is not None \
            else ("cluster", _jid(ad)[0])
        if key in batches:
            batches[key].jobs.append(ad)
        else:
            batches[key] = _Batch(ad, [ad])
    rows = []
    any_held = False
    for batch in batches.values():
        row = mask.render(batch.first, ctx)
        counts = {1: 0, 2: 0, 5: 0, 6: 0, 7: 0}
        done = total = 0
        unknown = False
        clusters: dict[int, list[ClassAd]] = {}
        for ad in batch.jobs:
            status = r.lookup_int(ad, "JobStatus") or 0
            counts[status] = counts.get(status, 0) + 1
            clusters.setdefault(_jid(ad)[0], []).append(ad)
        for members in clusters.values():
            submitted = r.lookup_int(members[0], "TotalSubmitProcs")
            if submitted:
                total += submitted
                if not partial:
                    done += submitted - len(members)
            else:
                unknown = True
        if unknown:
            done = total = 0
        idle, running, held = counts[1] + counts[7], counts[2] + counts[6], counts[5]
        any_held = any_held or held > 0
        for i, number in zip(range(3, 8), (done, running, idle, held, total), strict=True):
            row[i] = (number > 0, number)
        if not row[1][0]:
            row[1] = (True, f"ID: {_jid(batch.first)[0]}")
        ids = sorted(_jid(ad) for ad in batch.jobs)
        low, high = ids[0], ids[-1]
        text = f"{low[0]}.{low[1]}" if low == high else (
            f"{low[0]}.{low[1]}-{high[1]}" if low[0] == high[0]
            else f"{low[0]}.{low[1]} ... {high[0]}.{high[1]}")
        row[8] = (True, text)
        rows.append(row)
    owner_width = max((len(str(row[0][1])) for row in rows if row[0][0]), default=0)
    owner = mask.columns[0]
    if owner_width < owner.width:
        owner.width = max(8, owner_width)
        owner.autowidth = owner.notruncate = False
    else:
        owner.width = owner_width
    batch_name = mask.columns[1]
    batch_name.width = max(10, max((len(str(row[1][1])) for row in rows), default=0))
    mask.columns[6].hidden = not (any_held or show_held_column)
    return mask.headings(), "".join(mask.display(row) for row in rows)


# -------------------------------------------------------------------- totals and title
_STATES = (("Jobs", "jobs;"), ("Completed", "completed,"), ("Removed", "removed,"),
           ("Idle", "idle,"), ("Running", "running,"), ("Held", "held,"),
           ("Suspended", "suspended"))


def summary_ad(query: Sequence[ClassAd], everyone: Sequence[ClassAd] | None,
               me: str | None) -> ClassAd:
    """The schedd's summary ad (``sendDone``): counts of the query, of ``me``'s jobs and of
    every job (scheduler-universe jobs counted apart, as the schedd does)."""
    ad = ClassAd()
    ad["MyType"] = "Summary"

    def publish(prefix: str, jobs: Sequence[ClassAd]) -> None:
        n = {1: 0, 2: 0, 3: 0, 4: 0, 5: 0, 7: 0}
        sched = {1: 0, 2: 0, 3: 0, 4: 0, 5: 0}
        for job in jobs:
            status = r.lookup_int(job, "JobStatus") or 0
            status = 2 if status == 6 else status
            if r.lookup_int(job, "JobUniverse") == 7:
                if status in sched:
                    sched[status] += 1
            elif status in n:
                n[status] += 1
        ad[prefix + "Jobs"] = n[1] + n[2] + n[5] + n[3] + n[4] + n[7]
        for word, status in (("Idle", 1), ("Running", 2), ("Removed", 3), ("Completed", 4),
                             ("Held", 5), ("Suspended", 7)):
            ad[prefix + word] = n[status]
        ad[prefix + "SchedulerJobs"] = sum(sched.values())
        for word, status in (("Idle", 1), ("Running", 2), ("Removed", 3), ("Completed", 4),
                             ("Held", 5)):
            ad[prefix + "Scheduler" + word] = sched[status]

    if everyone is not None:
        publish("Allusers", everyone)
    publish("", query)
    if me is not None and everyone is not None:
        publish("My", [job for job in everyone if r.lookup_str(job, "Owner") == me])
        ad["MyName"] = me
    return ad


def summary(ad: ClassAd) -> str:
    """The totals lines condor_q prints under a table (``standard_summary3``/``2``)."""
    groups = [("", "Total for query: ")]
    me = r.lookup_str(ad, "MyName")
    if me is not None:
        groups.append(("My", f"\nTotal for {me}: "))
    groups.append(("Allusers", "\nTotal for all users: "))
    cols = []
    for prefix, lead in groups:
        for i, (word, text) in enumerate(_STATES):
            fmt = (lead + "%d " + text) if i == 0 else ("%d " + text)
            cols.append(Column(prefix + word, word, -len(word), fmt=fmt, autowidth=True,
                               notruncate=True))
    mask = PrintMask(cols)
    return mask.display_ad(ad, EvalContext(now=0))


def title(source: str, when: int | None, tz: str) -> str:
    """``\\n\\n-- Schedd: name : <addr> @ 01/05/24 11:45:00``."""
    stamp = ""
    if when is not None:
        stamp = f" @ {local_time(when, tz):%m/%d/%y %H:%M:%S}"
    return f"\n\n-- {source}{stamp}\n"
