"""File transfer and the sizes submit measures (``SetTransferFiles``, ``SetImageSize``).

How this works
--------------
``should_transfer_files`` and ``when_to_transfer_output`` take HTCondor's names and
their synonyms (``enum_utils.cpp``): YES/TRUE/ALWAYS, NO/FALSE/NEVER, IF_NEEDED/AUTO;
ON_EXIT/ONEXIT, ON_EXIT_OR_EVICT/ALWAYS, ON_SUCCESS/ONSUCCESS, NONE. The attribute
names of the two (``ShouldTransferFiles``, ``WhenToTransferOutput``) are looked up
*first*, the command names after, as condor_submit does. The defaults (IF_NEEDED,
ON_EXIT), the contradictions refused and the conveniences (NO alone means NEVER;
ON_EXIT_OR_EVICT alone means YES) follow ``SetTransferFiles``.

The input sandbox's size (``DiskUsage``, ``TransferInputSizeMB``) is the executable's
plus the input files', stdin's and the container image's, all relative to Iwd. Java
jobs transfer their class file and jar files and run ``java``; container images that
are files are transferred and named by their base name in the job.
"""

from __future__ import annotations

from ._commands import bool_command
from ._files import pseudo_executable
from ._job import GRID, JAVA, VM, Attrs, JobInput
from ._numbers import parse_int64_bytes
from ._paths import is_url, join_path, size_kb

STF = {"YES": 2, "TRUE": 2, "ALWAYS": 2, "NO": 1, "FALSE": 1, "NEVER": 1, "IF_NEEDED": 3,
       "AUTO": 3, "NULL": 0}  # fmt: skip
STF_NAMES = {2: "YES", 1: "NO", 3: "IF_NEEDED", 0: "NULL"}
FTO = {"ON_EXIT_OR_EVICT": 2, "ALWAYS": 2, "ON_EXIT": 1, "ONEXIT": 1, "NONE": 0, "NULL": 0,
       "ON_SUCCESS": 3, "ONSUCCESS": 3}  # fmt: skip
FTO_NAMES = {2: "ON_EXIT_OR_EVICT", 1: "ON_EXIT", 0: "NONE", 3: "ON_SUCCESS"}
STF_YES, STF_NO, STF_IF_NEEDED = 2, 1, 3
FTO_NONE, FTO_ON_EXIT, FTO_ON_EXIT_OR_EVICT, FTO_ON_SUCCESS = 0, 1, 2, 3


def split_list(value: str) -> list[str]:
    """HTCondor's ``split(value, ",")``: items trimmed, empty ones dropped."""
    return [item.strip(" \t\r\n") for item in value.split(",") if item.strip(" \t\r\n")]


def set_image_size(job: JobInput, ad: Attrs) -> None:
    """``SetImageSize``: ExecutableSize (of the first proc) and ImageSize."""
    if job.universe != VM:
        if job.cluster_ad is None:
            cmd = ad.get("Cmd")
            size = 0
            if isinstance(cmd, str) and cmd and not (
                job.universe == GRID and pseudo_executable(job)
            ):
                size = size_kb(join_path(job.iwd, cmd))
            ad["ExecutableSize"] = size
        else:
            ad["ExecutableSize"] = job.cluster_ad.get("ExecutableSize") or 0
    image = job.param("image_size", "ImageSize")
    if image is not None:
        kb = parse_int64_bytes(image, 1024)
        if kb is None or kb < 1:
            raise job.error("Image Size must be positive\n", "image_size", "ImageSize")
        ad["ImageSize"] = kb
    elif job.lookup(ad, "ImageSize") is None:
        exe = ad.get("ExecutableSize")
        ad["ImageSize"] = exe if isinstance(exe, int) else 0


def _container_inputs(job: JobInput, ad: Attrs, inputs: list[str]) -> tuple[bool, int]:
    """``process_container_input_files``: (the image is transferred, its size)."""
    image = job.param("container_image", "ContainerImage")
    wanted = job.lookup(ad, "TransferContainer")
    if wanted is False:
        ad["ContainerImageSource"] = "local"
        return False, 0
    if image is None:
        return False, 0
    for base in split_list(job.conf("CONTAINER_SHARED_FS", "")):
        if image.startswith(base):
            ad["ContainerImageSource"] = "local"
            return False, 0
    for prefix in ("docker://", "oras://"):
        if image.startswith(prefix):
            ad["ContainerImageSource"] = prefix[:-3]
            return False, 0
    inputs.append(image)
    size = size_kb(join_path(job.iwd, image))
    trimmed = image[:-1] if image.endswith("/") else image
    ad["ContainerImage"] = trimmed[trimmed.rfind("/") + 1 :]
    colon = trimmed.find(":")
    ad["ContainerImageSource"] = "cedar" if colon < 0 else trimmed[:colon]
    return True, size


def _contradiction(job: JobInput, key: str, message: str) -> None:
    raise job.error(message, key)


def set_transfer(job: JobInput, ad: Attrs) -> None:
    """``SetTransferFiles``."""
    inputs: list[str] = []
    value = job.param("transfer_input_files", "TransferInputFiles")
    if value is not None and value != '""':
        inputs = split_list(value)
    input_kb = sum(size_kb(join_path(job.iwd, name)) for name in inputs)
    in_specified = bool(inputs)
    if job.is_container:
        transferred, kb = _container_inputs(job, ad, inputs)
        input_kb += kb
        in_specified = in_specified or transferred
    stdin = ad.get("In")
    if job.lookup(ad, "TransferIn") is not False and isinstance(stdin, str) and stdin:
        input_kb += size_kb(join_path(job.iwd, stdin))
    outputs: list[str] = []
    value = job.param("transfer_output_files", "TransferOutputFiles")
    out_specified = False
    if value is not None:
        out_specified = True if value == '""' else bool(split_list(value))
        if value != '""':
            outputs = split_list(value)
    should, should_text, default_should = _should(job, ad)
    if should == STF_NO and (in_specified or out_specified):
        which = (
            '"transfer_input_files" and "transfer_output_files",'
            if in_specified and out_specified
            else '"transfer_input_files",'
            if in_specified
            else '"transfer_output_files",'
        )
        _contradiction(job, "should_transfer_files", f"you specified files you want Condor to "
                       f"transfer via {which} but you disabled should_transfer_files.")  # fmt: skip
    when_text = job.param("WhenToTransferOutput", "when_to_transfer_output")
    if when_text is None:
        looked = job.lookup(ad, "WhenToTransferOutput")
        when_text = looked if isinstance(looked, str) else None
    if when_text is None:
        when, when_text, default_when = FTO_ON_EXIT, "ON_EXIT", True
    else:
        found = FTO.get(when_text.upper())
        if found is None:
            _contradiction(job, "when_to_transfer_output", f"invalid value ({when_text}) for "
                           "WhenToTransferOutput.  Please either specify ON_EXIT, or "
                           "ON_EXIT_OR_EVICT and try again.")  # fmt: skip
        when, default_when = found or 0, False
    if not default_should and default_when and should == STF_NO:
        when, when_text = FTO_NONE, "NEVER"
    if (should == STF_NO) != (when == FTO_NONE):
        _contradiction(job, "when_to_transfer_output", f"WhenToTransferOutput specified as "
                       f"{when_text} yet ShouldTransferFiles defined as {should_text}.  Please "
                       "remove this contradiction from your submit file and try again.")  # fmt: skip
    if default_should and when == FTO_ON_EXIT_OR_EVICT and should == STF_IF_NEEDED:
        should = STF_YES
    if when == FTO_ON_EXIT_OR_EVICT and should == STF_IF_NEEDED:
        _contradiction(job, "when_to_transfer_output", _INCOMPATIBLE)
    ad["ShouldTransferFiles"] = STF_NAMES[should]
    if should != STF_NO:
        ad["WhenToTransferOutput"] = FTO_NAMES[when]
    if should != STF_YES and job.lookup(ad, "FileSystemDomain") is None:
        domain = job.knob("FILESYSTEM_DOMAIN")
        if domain is not None:
            ad["FileSystemDomain"] = domain
    if should != STF_NO:
        input_kb += _tool_and_java_inputs(job, ad, inputs)
    _disk_usage(job, ad, input_kb)
    if should != STF_NO:
        if in_specified:
            ad["TransferInput"] = ",".join(inputs)
        if out_specified:
            ad["TransferOutput"] = ",".join(outputs)
    if should == STF_NO and job.universe not in (GRID, JAVA, VM):
        if bool_command(job, "transfer_executable", "TransferExecutable", False):
            _contradiction(job, "transfer_executable", _EXPLICIT_EXECUTABLE)
    remaps = job.param("transfer_output_remaps", "TransferOutputRemaps")
    if remaps is not None:
        if not (remaps.startswith('"') and len(remaps) > 1 and remaps.endswith('"')):
            raise job.error(f"transfer_output_remaps must be a quoted string, not: {remaps}\n",
                            "transfer_output_remaps")  # fmt: skip
        ad["TransferOutputRemaps"] = remaps[1:-1]


def _should(job: JobInput, ad: Attrs) -> tuple[int, str, bool]:
    """(the ShouldTransferFiles value, its text for messages, whether it is a default)."""
    text = job.param("ShouldTransferFiles", "should_transfer_files")
    default = False
    if text is None:
        looked = job.lookup(ad, "ShouldTransferFiles")
        if isinstance(looked, str):
            text = looked
        else:
            admin = job.knob("SUBMIT_DEFAULT_SHOULD_TRANSFER_FILES")
            if admin is not None and admin.upper() in STF:
                text, default = admin, True
    if text is None:
        return STF_IF_NEEDED, "IF_NEEDED", True
    found = STF.get(text.upper())
    if found is None:
        raise job.error(f"invalid value ({text}) for ShouldTransferFiles.  Please either specify "
                        "YES, NO, or IF_NEEDED and try again.", "should_transfer_files")  # fmt: skip
    return found, text, default


def _tool_and_java_inputs(job: JobInput, ad: Attrs, inputs: list[str]) -> int:
    """The tool daemon's files and a Java job's class and jar files join the inputs."""
    kb = 0
    cmd = job.lookup(ad, "ToolDaemonCmd")
    if isinstance(cmd, str):
        for name in (cmd, job.lookup(ad, "ToolDaemonInput")):
            if isinstance(name, str) and name not in inputs:
                inputs.append(name)
                kb += size_kb(join_path(job.iwd, name))
    if job.universe == JAVA:
        cmd = job.lookup(ad, "Cmd")
        if isinstance(cmd, str) and cmd != "java" and cmd not in inputs:
            inputs.append(cmd)
            kb += size_kb(join_path(job.iwd, cmd))
        jars = job.lookup(ad, "JarFiles")
        if isinstance(jars, str):
            for name in (item.strip(" \t") for item in jars.split(",")):
                if name:
                    inputs.append(name)
                    kb += size_kb(join_path(job.iwd, name))
        ad["Cmd"] = "java"
        ad["TransferExecutable"] = False
    return kb


def _disk_usage(job: JobInput, ad: Attrs, input_kb: int) -> None:
    value = job.param("disk_usage", "DiskUsage")
    if value is not None:
        kb = parse_int64_bytes(value, 1024)
        if kb is None or kb < 1:
            raise job.error(f"'{value}' is not valid for disk_usage. It must be >= 1\n",
                            "disk_usage", "DiskUsage")  # fmt: skip
        ad["DiskUsage"] = kb
        return
    exe = ad.get("ExecutableSize")
    exe_kb = exe if isinstance(exe, int) else 0
    ad["TransferInputSizeMB"] = (exe_kb + input_kb) // 1024
    ad["DiskUsage"] = exe_kb + input_kb


_INCOMPATIBLE = (
    '"when_to_transfer_output = ON_EXIT_OR_EVICT" and "should_transfer_files = IF_NEEDED" '
    "are incompatible.  The behavior of these two settings together would produce incorrect "
    "file access in some cases.  Please decide which one of those two settings you're more "
    'interested in. If you really want "IF_NEEDED", set "when_to_transfer_output = ON_EXIT".  '
    'If you really want "ON_EXIT_OR_EVICT", please set "should_transfer_files = YES".  After '
    "you have corrected this incompatibility, please try running condor_submit again.\n"
)
_EXPLICIT_EXECUTABLE = (
    "You explicitly requested that the executable be transfered, but for this to work, you "
    "must enable Condor's file transfer functionality.  You need to define either: "
    '"when_to_transfer_output = ON_EXIT" or "when_to_transfer_output = ON_EXIT_OR_EVICT".  '
    'Optionally, you can define "should_transfer_files = IF_NEEDED" if you do not want any '
    "files to be transfered if the job executes on a machine in the same FileSystemDomain.  "
    "See the Condor manual for more details."
)


def url_scheme(name: str) -> str | None:
    """``getURLType(name, true)``: the URL's scheme after its last ``+ - .``, else None."""
    if not is_url(name):
        return None
    scheme = name[: name.find("://")]
    for i in range(len(scheme) - 1, 0, -1):
        if scheme[i] in "+-.":
            return scheme[i + 1 :]
    return scheme
