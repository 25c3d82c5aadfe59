"""The Requirements expression condor_submit makes (``SubmitHash::SetRequirements``).

How this works
--------------
Requirements is the user's expression in parentheses (``requirements``; config
``APPEND_REQ_VANILLA``/``APPEND_REQ_VM``/``APPEND_REQUIREMENTS`` is joined to it),
followed by the clauses submit adds, in HTCondor's order and spelling. A clause is left
out when the user's expression already refers to the machine attribute it tests
(``TARGET.X`` or an unscoped ``X``), or when the request it checks is a constant too
small to matter. ``MY.Requirements``/``+Requirements`` replace all of it; grid jobs other
than ``condor`` get the user's expression alone (or ``true``).

The clauses: the universe's (Arch and OpSys; ``HasJava``; ``HasVM`` and the VM
attributes; ``HasDocker``; ``HasContainer`` with the image kind ``HasDockerURL``,
``HasSIF`` or ``HasSandboxImage``), Disk, Memory, Cpus, each custom resource
(``TARGET.X >= RequestX``, ``countMatches`` with a ``RequireX``, ``regexp`` for a string
request), ``HasTDP``, ``HasEncryptExecuteDirectory``, ``HasMPI``, the file transfer
clause (with ``HasPerFileEncryption`` for per-file encryption, ``HasJobTransferPlugins``
for jobs bringing their own plugins, a version test for features of 8.9.7, and
``stringListIMember("SCHEME", TARGET.HasFileTransferPluginMethods)`` for every URL
scheme the job's files use, listed in ``WantTransferPluginMethods``), the deferral
clause, ``HasSelfCheckpointTransfers`` and the CUDA version.
"""

from __future__ import annotations

from collections.abc import Callable

from condorsim.classad import UNDEFINED, ClassAd

from ._commands import parse_expr_command
from ._exprs import Expr, literal_number, parse, split_references
from ._job import GRID, JAVA, LOCAL, MPI, PARALLEL, VANILLA, VM, Attrs, AttrValue, JobInput
from ._transfer import STF, STF_IF_NEEDED, STF_NO, url_scheme

_MIGHT_TRANSFER = (VANILLA, MPI, PARALLEL, JAVA, VM)
_OPSYS_REFS = frozenset({"opsys", "opsysandver", "opsyslongname", "opsysshortname", "opsysname",
                         "opsyslegacy"})  # fmt: skip
_DEFERRAL = (
    "(((time() + ScheddInterval) >= (DeferralTime - DeferralPrepTime)) && "
    "(time() < (DeferralTime + DeferralWindow)))"
)
_CRON = ("CronMinute", "CronHour", "CronDayOfMonth", "CronMonth", "CronDayOfWeek")
Add = Callable[..., None]
_ENCRYPTION = ("EncryptInputFiles", "EncryptOutputFiles", "DontEncryptInputFiles",
               "DontEncryptOutputFiles")  # fmt: skip


def needs_deferral(job: JobInput, ad: Attrs) -> str | None:
    """``NeedsJobDeferral``: the first Cron* or DeferralTime attribute the job has."""
    for attr in (*_CRON, "DeferralTime"):
        if job.lookup(ad, attr) is not None:
            return attr
    return None


def _number(value: AttrValue | None) -> float | None:
    if isinstance(value, Expr):
        return literal_number(value.text)
    if isinstance(value, (bool, int, float)):
        return float(value)
    return None


def _more_than(value: AttrValue | None, limit: float) -> bool:
    """The request is not a constant, or a constant above ``limit``."""
    number = _number(value)
    return number is None or number > limit


def set_requirements(job: JobInput, ad: Attrs) -> None:
    user = job.param("requirements")
    answer = f"({user})" if user else ""
    if job.param("MY.Requirements") is not None:
        if user:
            job.warn("Use of MY.Requirements or +Requirements  overrides requirements. You "
                     "should remove one of these statements from your submit file.")  # fmt: skip
        return
    append = None
    if job.universe == VANILLA:
        append = job.knob("APPEND_REQ_VANILLA")
    elif job.universe == VM:
        append = job.knob("APPEND_REQ_VM")
    append = append or job.knob("APPEND_REQUIREMENTS")
    if append:
        answer = f"{answer} && ({append})" if answer else f"({append})"
    if job.universe == GRID and (
        job.grid_type.lower() != "condor"
        or not job.knob_bool("SUBMIT_GENERATE_CONDOR_C_REQUIREMENTS", True)
    ):
        ad["Requirements"] = parse_expr_command(job, "Requirements", answer or "TRUE",
                                                "requirements")  # fmt: skip
        return
    mine, machine = split_references(answer, frozenset({"requestmemory", "vm_ckptmac"}))
    parts = [answer] if answer else []

    def add(clause: str, joiner: str = " && ") -> None:
        parts.append(joiner + clause if parts else clause)

    _universe_clauses(job, ad, machine, mine, add)
    _request_clauses(job, ad, machine, add)
    if "hastdp" not in machine and job.lookup(ad, "ToolDaemonCmd") is not None:
        add("TARGET.HasTDP")
    if "encryptexecutedirectory" not in machine and job.lookup(ad, "EncryptExecuteDirectory") is True:
        add("TARGET.HasEncryptExecuteDirectory")
    if job.universe == MPI and "hasmpi" not in machine:
        add("TARGET.HasMPI")
    if job.universe in _MIGHT_TRANSFER:
        _transfer_clause(job, ad, machine, add)
    if needs_deferral(job, ad):
        if job.universe != LOCAL:
            add("TARGET.HasJobDeferral")
        if job.lookup(ad, "ScheddInterval") is None:
            ad["ScheddInterval"] = Expr(job.conf("SCHEDD_INTERVAL", "300"))
        add(_DEFERRAL)
    if job.lookup(ad, "WantFTOnCheckpoint") is True and "hasselfcheckpointtransfers" not in machine:
        add("TARGET.HasSelfCheckpointTransfers")
    cuda = job.lookup(ad, "CUDAVersion")
    if isinstance(cuda, str):
        version = _cuda_version(cuda)
        if version is None:
            raise job.error("cuda_version must be of the form 'x' or 'x.y', where x and y are "
                            "positive integers.\n", "cuda_version")  # fmt: skip
        ad["CUDAVersion"] = version
        add("CUDAVersion <= TARGET.CUDAMaxSupportedVersion", "&& ")
    ad["Requirements"] = parse_expr_command(job, "Requirements", "".join(parts), "requirements")


def _cuda_version(text: str) -> int | None:
    major, dot, minor = text.partition(".")
    if not (major.isascii() and major.isdigit()):
        return None
    if dot:
        if not (minor.isascii() and minor.isdigit()):
            return None
        return int(major) * 1000 + int(minor) % 100
    return int(major) * 1000 if int(major) < 1000 else int(major)


def _arch(job: JobInput, machine: set[str], add: Add) -> None:
    if "arch" not in machine:
        add(f'(TARGET.Arch == "{job.conf("ARCH", "X86_64")}")')


def _universe_clauses(job: JobInput, ad: Attrs, machine: set[str], mine: set[str],
                      add: Add) -> None:  # fmt: skip
    if job.universe == JAVA:
        add("TARGET.HasJava")
    elif job.universe == VM:
        _arch(job, machine, add)
        if "hasvm" not in machine:
            add("(TARGET.HasVM =?= true)", "&& ")
        if "vm_type" not in machine:
            add("(TARGET.VM_Type == MY.JobVMType)")
        if "vm_availnum" not in machine:
            add("(TARGET.VM_AvailNum > 0)")
        if job.lookup(ad, "JobVMCheckpoint") is True and "vm_ckptmac" not in mine:
            add("((MY.VM_CkptMac =?= UNDEFINED) || (TARGET.VM_All_Guest_Macs =?= UNDEFINED) || "
                '(stringListIMember(MY.VM_CkptMac, TARGET.VM_All_Guest_Macs, ",") == FALSE))')
    elif job.is_docker:
        _arch(job, machine, add)
        add("TARGET.HasDocker")
        network = job.lookup(ad, "DockerNetworkType")
        if isinstance(network, str) and network and network not in ("host", "none", "nat"):
            add("StringListMember(My.DockerNetworkType, TARGET.DockerNetworks)", "&& ")
    elif job.is_container:
        _arch(job, machine, add)
        add("TARGET.HasContainer")
        image = job.lookup(ad, "ContainerImage")
        if job.lookup(ad, "DockerImage") is not None:
            add("TARGET.HasDockerURL", "&& ")
        elif isinstance(image, str):
            kind = image.strip()
            if kind.startswith("docker:"):
                add("TARGET.HasDockerURL", "&& ")
            elif kind.endswith(".sif"):
                add("TARGET.HasSIF", "&& ")
            else:
                add("TARGET.HasSandboxImage", "&& ")
    else:
        _arch(job, machine, add)
        if not machine & _OPSYS_REFS:
            add(f'(TARGET.OpSys == "{job.conf("OPSYS", "LINUX")}")')


def _request_clauses(job: JobInput, ad: Attrs, machine: set[str], add: Add) -> None:
    disk = job.lookup(ad, "RequestDisk")
    if "disk" not in machine:
        if disk is not None:
            if _more_than(disk, 0.0):
                add("(TARGET.Disk >= RequestDisk)")
        elif job.universe == VM:
            add("(TARGET.TotalDisk >= DiskUsage)")
        else:
            add("(TARGET.Disk >= DiskUsage)")
    elif job.universe != VM and disk is not None:
        add("(TARGET.Disk >= RequestDisk)")
    if job.universe == VM:
        if job.vm_type != "xen":
            add("(TARGET.TotalMemory >= MY.JobVMMemory)")
        if "vm_memory" not in machine:
            add("(TARGET.VM_Memory >= MY.JobVMMemory)")
        if job.lookup(ad, "JobVMHardwareVT") is True and "vm_hardwarevt" not in machine:
            add("TARGET.VM_HardwareVT")
        if job.lookup(ad, "JobVMNetworking") is True:
            if "vm_networking" not in machine:
                add("TARGET.VM_Networking")
            if job.lookup(ad, "JobVMNetworkingType") is not None:
                add('stringListIMember(JobVMNetworkingType,TARGET.VM_Networking_Types,",")')
    else:
        memory = job.lookup(ad, "RequestMemory")
        if memory is not None and _more_than(memory, 1.0):
            add("(TARGET.Memory >= RequestMemory)")
    if job.universe != GRID and "cpus" not in machine:
        cpus = job.lookup(ad, "RequestCpus")
        if cpus is not None and _more_than(cpus, 1.0):
            add("(TARGET.Cpus >= RequestCpus)")
    _custom_clauses(job, ad, machine, add)


def _custom_clauses(job: JobInput, ad: Attrs, machine: set[str], add: Add) -> None:
    tags: dict[str, str] = {}
    for source in (job.cluster_ad, ad):
        if source is None:
            continue
        for name, _ in source.items():
            if len(name) >= 9 and name.lower().startswith("request") and name[7] != "_":
                tags.setdefault(name.lower(), name)
    for standard in ("requestcpus", "requestdisk", "requestmemory"):
        tags.pop(standard, None)
    if not job.knob_bool("SUBMIT_GENERATE_CUSTOM_RESOURCE_REQUIREMENTS", True):
        tags = {k: v for k, v in tags.items() if k == "requestgpus"}
    if not tags:
        return
    evaluated = _evaluator(job, ad)
    for lower in sorted(tags):
        attr = tags[lower]
        name = attr[7:]
        if name.lower() in machine:
            continue
        value = evaluated.evaluate(attr)
        if value is UNDEFINED or (isinstance(value, (int, float)) and not isinstance(value, bool)):
            if isinstance(value, (int, float)) and value <= 0:
                continue
            require = "Require" + name
            if job.lookup(ad, require) is not None:
                add(f"(countMatches(MY.{require},TARGET.Available{name}) >= {attr})")
            else:
                add(f"(TARGET.{name} >= {attr})")
        elif isinstance(value, str) and value:
            add(f"regexp({attr}, TARGET.{name})")


def _evaluator(job: JobInput, ad: Attrs) -> ClassAd:
    """The job ad so far, as a ClassAd to evaluate requests in (cluster values below)."""
    pairs: dict[str, object] = {}
    for source in (job.cluster_ad, ad):
        if source is None:
            continue
        for name, value in source.items():
            if isinstance(value, Expr):
                tree = parse(value.text)
                if tree is not None:
                    pairs[name] = tree
            else:
                pairs[name] = value
    return ClassAd(list(pairs.items()))


def _transfer_clause(job: JobInput, ad: Attrs, machine: set[str], add: Add) -> None:
    domain = "(TARGET.FileSystemDomain == MY.FileSystemDomain)"
    xfer = "TARGET.HasFileTransfer"
    crypt = ""
    if "hasperfileencryption" not in machine and any(
        job.lookup(ad, attr) is not None for attr in _ENCRYPTION
    ):
        crypt = " && TARGET.HasPerFileEncryption"
    looked = job.lookup(ad, "ShouldTransferFiles")
    should = STF.get(looked.upper(), -1) if isinstance(looked, str) else STF_IF_NEEDED
    checks_fsdomain = "filesystemdomain" in machine
    if should == STF_NO:
        if not checks_fsdomain:
            add(domain)
        return
    if "hasfiletransfer" in machine or "hasjobtransferplugins" in machine:
        return
    text = ""
    close = ")"
    join = " && ("
    if should == STF_IF_NEEDED and not checks_fsdomain:
        text += join + domain
        join, close = " || (", "))"
    plugins = job.lookup(ad, "TransferPlugins")
    if isinstance(plugins, str) and plugins:
        xfer = "TARGET.HasJobTransferPlugins"
    text += join + xfer + crypt
    when = job.lookup(ad, "WhenToTransferOutput")
    if (
        isinstance(job.lookup(ad, "TransferCheckpoint"), str)
        or job.lookup(ad, "PreserveRelativePaths") is True
        or (isinstance(when, str) and when.upper() in ("ON_SUCCESS", "ONSUCCESS"))
    ):
        text += ' && versioncmp( split(TARGET.CondorVersion)[1], "8.9.7" ) >= 0'
    text += _plugin_methods(job, ad, plugins if isinstance(plugins, str) else "",
                            "hasfiletransferpluginmethods" in machine)  # fmt: skip
    text += close
    add(text, "")


def _plugin_methods(job: JobInput, ad: Attrs, plugins: str, checked: bool) -> str:
    supplied: set[str] = set()
    for plugin in plugins.split(";"):
        methods, eq, _ = plugin.partition("=")
        if eq:
            supplied.update(m.lower() for m in methods.replace(",", " ").split())
    wanted: dict[str, str] = {}

    def want(name: object) -> None:
        if isinstance(name, str):
            scheme = url_scheme(name)
            if scheme is not None and scheme.lower() not in supplied:
                wanted.setdefault(scheme.lower(), scheme)

    inputs = job.lookup(ad, "TransferInput")
    if isinstance(inputs, str):
        for name in inputs.split(","):
            want(name.strip())
    want(job.lookup(ad, "OutputDestination"))
    remaps = job.lookup(ad, "TransferOutputRemaps")
    if isinstance(remaps, str):
        for remap in remaps.split(";"):
            _, eq, url = remap.partition("=")
            if eq:
                want(url.strip())
    text = ""
    names = [wanted[k] for k in sorted(wanted)]
    for method in names:
        if not checked:
            text += f' && stringListIMember("{method}",TARGET.HasFileTransferPluginMethods)'
        if method.lower() in ("s3", "gs") and job.knob_bool("SIGN_S3_URLS", True):
            messages = []
            if job.lookup(ad, "EC2AccessKeyId") is None:
                messages.append("[s3|gs]:// URLs require [s3|aws|gs]_access_key_id_file to be "
                                "set.\n")  # fmt: skip
            if job.lookup(ad, "EC2SecretAccessKey") is None:
                messages.append("[s3|gs]:// URLS require [s3|aws|gs]_secret_access_key_file to "
                                "be set.\n")  # fmt: skip
            if messages:
                raise job.error(messages[-1], "transfer_input_files")
    if names:
        ad["WantTransferPluginMethods"] = ",".join(names)
    return text

