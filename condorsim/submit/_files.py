"""Setters for the job's files: Iwd, Cmd, the user log, stdin/stdout/stderr, file
transfer and the sizes submit measures.

How this works
--------------
These follow HTCondor's ``SetIWD``, ``SetExecutable``, ``SetUserLog``, ``SetStdin``...,
``SetTransferFiles`` and ``SetImageSize``. Paths are joined HTCondor's way: the
initial directory and the executable are relative to the directory condor_submit runs
in (``JobInput.cwd``); the user log and the files whose size is measured are relative
to the job's Iwd. Submit reads the file system for three things only, as condor_submit
does: that Iwd exists, and the sizes of the executable and the input files (a missing
file counts as 0 KiB).
"""

from __future__ import annotations

import os

from ._exprs import eval_bool
from ._job import GRID, Attrs, JobInput

NULL_FILE = "/dev/null"


def join_path(cwd: str, name: str) -> str:
    """``name`` relative to ``cwd``, repeated slashes squeezed (HTCondor's ``full_path``)."""
    path = name if name.startswith("/") else f"{cwd}/{name}"
    while "//" in path:
        path = path.replace("//", "/")
    return path


def _iwd(job: JobInput) -> str:
    value = job.param("initialdir", "Iwd") or job.param("initial_dir", "job_iwd")
    return join_path(job.cwd, value) if value else job.cwd


def set_iwd(job: JobInput, ad: Attrs) -> None:
    iwd = _iwd(job)
    if "\0" in iwd or not (os.path.isdir(iwd) and os.access(iwd, os.X_OK)):
        raise job.error(f"No such directory: {iwd}", "initialdir", "Iwd")
    ad["Iwd"] = iwd


def _bool(job: JobInput, key: str, alt: str | None, default: bool) -> bool:
    value = job.param(key, alt)
    if value is None:
        return default
    result = eval_bool(value)
    if result is None:
        used = job.key_used(key, alt)
        raise job.error(f"{used}={value} is invalid, must eval to a boolean.", key, alt)
    return result


def size_kb(path: str) -> int:
    """KiB (rounded up) of a file, or of the regular files under a directory; 0 if absent."""
    if "://" in path or "\0" in path:
        return 0
    try:
        if os.path.isdir(path):
            total = 0
            for root, _dirs, files in os.walk(path):
                for name in files:
                    try:
                        total += os.stat(os.path.join(root, name)).st_size
                    except OSError:
                        pass
            return (total + 1023) // 1024
        return (os.stat(path).st_size + 1023) // 1024
    except OSError:
        return 0


def set_executable(job: JobInput, ad: Attrs) -> None:
    name = job.param("executable", "Cmd")
    if name is None:
        if job.universe == GRID:
            return
        raise job.error("No 'executable' parameter was provided", "executable")
    transfer = _bool(job, "transfer_executable", "TransferExecutable", True)
    if transfer and "$$" not in name:
        ad["Cmd"] = join_path(job.cwd, name)
    else:
        ad["Cmd"] = name
        if not transfer:
            ad["TransferExecutable"] = False
    str_cmd = ad["Cmd"]
    assert isinstance(str_cmd, str)
    job_iwd = ad["Iwd"]
    assert isinstance(job_iwd, str)
    ad["ExecutableSize"] = 0 if "$$" in str_cmd else size_kb(join_path(job_iwd, str_cmd))


def set_user_log(job: JobInput, ad: Attrs) -> None:
    iwd = ad["Iwd"]
    assert isinstance(iwd, str)
    log = job.param("log", "UserLog")
    if log is not None:
        ad["UserLog"] = join_path(iwd, log)
    dagman_log = job.param("dagman_log", "DAGManNodesLog")
    if dagman_log is not None:
        ad["DAGManNodesLog"] = join_path(iwd, dagman_log)
    if job.has("log_xml", "UserLogUseXML"):
        ad["UserLogUseXML"] = _bool(job, "log_xml", "UserLogUseXML", False)


_STD = (
    ("input", "stdin", "transfer_input", "TransferIn", "stream_input", "StreamIn", "In"),
    ("output", "stdout", "transfer_output", "TransferOut", "stream_output", "StreamOut", "Out"),
    ("error", "stderr", "transfer_error", "TransferErr", "stream_error", "StreamErr", "Err"),
)


def set_std_files(job: JobInput, ad: Attrs) -> None:
    for key, alt, t_key, t_attr, s_key, s_attr, attr in _STD:
        transfer = _bool(job, t_key, t_attr, True)
        stream = _bool(job, s_key, s_attr, False)
        name = job.param(key, alt)
        if name is None or name == NULL_FILE:
            name, transfer = NULL_FILE, False
        ad[attr] = name
        if transfer:
            ad[s_attr] = stream
        else:
            ad[t_attr] = False


def _file_list(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def set_transfer(job: JobInput, ad: Attrs) -> None:
    should = job.param("should_transfer_files", "ShouldTransferFiles")
    when = job.param("when_to_transfer_output", "WhenToTransferOutput")
    should_v = None if should is None else should.strip().upper()
    when_v = None if when is None else when.strip().upper()
    if should_v is not None and should_v not in ("YES", "NO", "IF_NEEDED"):
        raise job.error(
            f"invalid value ({should}) for ShouldTransferFiles. Please either specify YES, "
            "NO, or IF_NEEDED and try again.",
            "should_transfer_files",
        )
    if when_v is not None and when_v not in ("ON_EXIT", "ON_EXIT_OR_EVICT"):
        raise job.error(
            f"invalid value ({when}) for WhenToTransferOutput. Please either specify "
            "ON_EXIT, or ON_EXIT_OR_EVICT and try again.",
            "when_to_transfer_output",
        )
    if should_v is None:
        should_v = "YES" if when_v == "ON_EXIT_OR_EVICT" else "IF_NEEDED"
    if should_v == "IF_NEEDED" and when_v == "ON_EXIT_OR_EVICT":
        raise job.error(
            '"when_to_transfer_output = ON_EXIT_OR_EVICT" and "should_transfer_files = '
            'IF_NEEDED" are incompatible. The behavior of these two settings together would '
            "produce incorrect file access in some cases. Please decide which one of those "
            'two settings you\'re more interested in. If you really want "IF_NEEDED", set '
            '"when_to_transfer_output = ON_EXIT". If you really want "ON_EXIT_OR_EVICT", '
            'please set "should_transfer_files = YES". After you have corrected this '
            "incompatibility, please try running condor_submit again.",
            "when_to_transfer_output",
        )
    if should_v == "NO" and job.has("transfer_executable", "TransferExecutable"):
        if _bool(job, "transfer_executable", "TransferExecutable", False):
            raise job.error(
                "You explicitly requested that the executable be transfered, but for this to "
                "work, you must enable Condor's file transfer functionality. You need to "
                'define either: "when_to_transfer_output = ON_EXIT" or '
                '"when_to_transfer_output = ON_EXIT_OR_EVICT". Optionally, you can define '
                '"should_transfer_files = IF_NEEDED" if you do not want any files to be '
                "transfered if the job executes on a machine in the same FileSystemDomain. "
                "See the Condor manual for more details.",
                "transfer_executable",
            )
    if should_v == "NO" and when_v is not None:
        raise job.error(
            f"WhenToTransferOutput specified as {when_v} yet ShouldTransferFiles defined as "
            "NO. Please remove this contradiction from your submit file and try again.",
            "when_to_transfer_output",
        )
    inputs = job.param("transfer_input_files", "TransferInput")
    outputs = job.param("transfer_output_files", "TransferOutput")
    for key, value in (("transfer_input_files", inputs), ("transfer_output_files", outputs)):
        if value is not None and should_v == "NO":
            raise job.error(
                f'you specified files you want Condor to transfer via "{key}", '
                "but you disabled should_transfer_files.",
                key,
            )
    ad["ShouldTransferFiles"] = should_v
    if should_v != "NO":
        ad["WhenToTransferOutput"] = when_v or "ON_EXIT"
    if should_v != "YES":
        ad["FileSystemDomain"] = job.conf("FILESYSTEM_DOMAIN", "localhost")
    if inputs is not None:
        ad["TransferInput"] = ",".join(_file_list(inputs))
    if outputs is not None:
        ad["TransferOutput"] = ",".join(_file_list(outputs))


def set_image_size(job: JobInput, ad: Attrs) -> None:
    iwd = ad["Iwd"]
    assert isinstance(iwd, str)
    exe_kb = ad.get("ExecutableSize")
    exe_kb = exe_kb if isinstance(exe_kb, int) else 0
    input_kb = 0
    names: list[str] = []
    stdin = ad.get("In")
    if isinstance(stdin, str) and stdin != NULL_FILE and ad.get("TransferIn") is not False:
        names.append(stdin)
    inputs = ad.get("TransferInput")
    if isinstance(inputs, str):
        names.extend(_file_list(inputs))
    for name in names:
        input_kb += size_kb(join_path(iwd, name))
    ad["ImageSize"] = exe_kb
    ad["DiskUsage"] = exe_kb + input_kb
    ad["TransferInputSizeMB"] = (exe_kb + input_kb) // 1024
