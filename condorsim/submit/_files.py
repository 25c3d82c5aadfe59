"""Setters for the job's files: Iwd, Cmd and the container images, stdin/stdout/stderr
(``SetIWD``, ``SetExecutable``, ``SetStdin``...), and the sizes submit measures.

How this works
--------------
Paths are joined HTCondor's way (``full_path``: repeated slashes squeezed, nothing
else normalised): the initial directory and a transferred executable are relative to
the directory condor_submit runs in (``JobInput.cwd``); log files and the files whose
size is measured are relative to the job's Iwd. Submit reads the file system for three
things, as condor_submit does: that Iwd exists, and the sizes of the executable and the
input files (a missing file counts as 0 KiB).

The executable of VM jobs and of ec2/gce/azure grid jobs is only a name; docker and
container jobs may have none (the image's entry point runs). ``transfer_executable`` is
false when its value starts with ``F`` or ``f``, as condor_submit reads it.
"""

from __future__ import annotations

import os

from ._commands import bool_command
from ._exprs import eval_bool
from ._job import GRID, VM, Attrs, JobInput
from ._paths import join_path
from ._simple import strip_quotes, stripped_in_place

NULL_FILE = "/dev/null"


def set_iwd(job: JobInput, ad: Attrs) -> None:
    """``SetIWD``: the initial directory (which must exist) and the submit file's name."""
    value = job.param("initialdir", "Iwd") or job.param("initial_dir", "job_iwd")
    iwd = join_path(job.cwd, value or job.cwd)
    if "\0" in iwd or not (os.path.isdir(iwd) and os.access(iwd, os.X_OK)):
        raise job.error(f"No such directory: {iwd}\n", "initialdir", "Iwd")
    job.iwd = iwd
    job.table.cwd = iwd
    ad["Iwd"] = iwd
    submit_file = job.param("SUBMIT_FILE")
    if submit_file is not None:
        ad["JobSubmitFile"] = submit_file


def pseudo_executable(job: JobInput) -> bool:
    """The executable is only a name (VM jobs, ec2/gce/azure grid jobs)."""
    return job.universe == VM or (
        job.universe == GRID and job.grid_type.lower() in ("ec2", "gce", "azure")
    )


_BAD_IMAGE_PREFIXES = ("instance://", "library://", "shub://")


def _images(job: JobInput, ad: Attrs) -> None:
    if job.is_docker:
        docker = job.param("docker_image", "DockerImage")
        if docker is not None:
            image = strip_quotes(docker)
            if not image:
                raise job.error(f"'{stripped_in_place(docker)}' is not a valid docker_image\n",
                                "docker_image")  # fmt: skip
            ad["DockerImage"] = image
        elif job.lookup(ad, "DockerImage") is None:
            raise job.error("docker jobs require a docker_image\n", "universe")
    if job.is_container:
        docker = job.param("docker_image", "DockerImage")
        if docker is not None:
            image = strip_quotes(docker)
            if not image:
                raise job.error(f"'{stripped_in_place(docker)}' is not a valid docker_image for "
                                "container universe\n", "docker_image")  # fmt: skip
            ad["DockerImage"] = image
        container = job.param("container_image", "ContainerImage")
        if container is not None:
            image = strip_quotes(container)
            if not image or image.startswith(_BAD_IMAGE_PREFIXES):
                raise job.error(f"'{stripped_in_place(container)}' is not a valid container "
                                "image\n", "container_image")  # fmt: skip
            ad["ContainerImage"] = image
            kind = image.strip()
            if kind.startswith("docker:"):
                ad["WantDockerImage"] = True
            elif kind.endswith(".sif"):
                ad["WantSIF"] = True
            else:
                ad["WantSandboxImage"] = True
        elif job.lookup(ad, "ContainerImage") is None and job.lookup(ad, "DockerImage") is None:
            raise job.error("container jobs require a container_image or docker_image\n",
                            "universe")  # fmt: skip


def set_executable(job: JobInput, ad: Attrs) -> None:
    """``SetExecutable``: Cmd, TransferExecutable and the container images."""
    ignore = pseudo_executable(job)
    _images(job, ad)
    name = job.param("executable", "Cmd")
    if name is None:
        if job.lookup(ad, "Cmd") is not None:
            return
        if not (job.is_docker or job.is_container):
            raise job.error("No 'executable' parameter was provided\n", "executable")
        ignore = True
    transfer = True
    flag = job.param("transfer_executable", "TransferExecutable")
    if flag is not None:
        if flag[0] in "Ff":
            ad["TransferExecutable"] = False
            transfer = False
    elif _never_transfer_absolute(job) and (job.is_docker or job.is_container) and (
        name or ""
    ).startswith("/"):
        ad["TransferExecutable"] = False
        transfer, ignore = False, True
    if ignore and transfer:
        ad["TransferExecutable"] = False
        transfer = False
    ad["Cmd"] = join_path(job.cwd, name) if transfer and name is not None else (name or "")
    job.executable = (name, transfer)


def _never_transfer_absolute(job: JobInput) -> bool:
    return eval_bool(job.knob("SUBMIT_CONTAINER_NEVER_XFER_ABSOLUTE_CMD") or "false") is True


_STD = (
    ("input", "stdin", "transfer_input", "TransferIn", "stream_input", "StreamIn", "In"),
    ("output", "stdout", "transfer_output", "TransferOut", "stream_output", "StreamOut", "Out"),
    ("error", "stderr", "transfer_error", "TransferErr", "stream_error", "StreamErr", "Err"),
)


def set_std_files(job: JobInput, ad: Attrs) -> None:
    """``SetStdin``, ``SetStdout``, ``SetStderr``."""
    for key, alt, t_key, t_attr, s_key, s_attr, attr in _STD:
        looked = job.lookup(ad, t_attr)
        transfer = looked if isinstance(looked, bool) else True
        wanted = bool_command(job, t_key, t_attr, transfer)
        must_set = wanted != transfer
        transfer = wanted
        looked = job.lookup(ad, s_attr)
        stream = bool_command(job, s_key, s_attr, looked if isinstance(looked, bool) else False)
        name = job.param(key, alt)
        if name is not None or job.lookup(ad, attr) is None:
            if name is None or name == NULL_FILE:
                name, transfer, stream = NULL_FILE, False, False
            elif job.universe == VM:
                raise job.error("You cannot use input, ouput, and error parameters in the "
                                "submit description file for vm universe\n", key, alt)  # fmt: skip
            ad[attr] = name
        if transfer:
            ad[s_attr] = stream
            if must_set:
                ad[t_attr] = True
        else:
            ad[t_attr] = False
