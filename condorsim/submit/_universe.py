"""The universe and what comes with it: docker and container toppings, parallel and MPI
machine counts, VM parameters (``SetUniverse``, ``SetParallelParams``, ``SetVMParams``,
``SetContainerSpecial``).

How this works
--------------
``universe`` is a name (any case) or a number (C ``atoi``: ``5 x`` is 5); without it,
config ``DEFAULT_UNIVERSE``, else vanilla. ``docker`` and ``container`` are toppings
on vanilla: the job is vanilla (5) with ``WantDocker``/``WantContainer``. A vanilla or
local job that names a ``container_image`` or ``docker_image`` becomes a container job
too (``docker_image`` also sets ``WantDockerImage``). Standard, PVM and the other
retired universes are refused.

Parallel and MPI jobs (and any with ``WantParallelScheduling = true``) need a machine
count (``machine_count``, ``node_count``), which becomes ``MinHosts`` and ``MaxHosts``;
``$(Node)`` then expands to a placeholder the schedd replaces per node. VM jobs need
``vm_memory`` (it defaults to ``request_memory``); xen and kvm need a ``vm_disk``.
VM jobs always use file transfer: SetUniverse sets ``ShouldTransferFiles = YES`` and
``WhenToTransferOutput`` (``ON_EXIT``, or ``ON_EXIT_OR_EVICT`` with ``vm_checkpoint``)
as submit commands, which win over the user's spellings of those commands.
"""

from __future__ import annotations

from ._commands import bool_command, int_command
from ._job import GRID, JAVA, LOCAL, MPI, PARALLEL, SCHEDULER, VANILLA, VM, Attrs, JobInput
from ._numbers import c_atoi, parse_int64_bytes

UNIVERSE_NAMES = {
    1: "Standard", 2: "Pipe", 3: "Linda", 4: "PVM", 5: "Vanilla", 6: "PVMD", 7: "Scheduler",
    8: "MPI", 9: "Grid", 10: "Java", 11: "Parallel", 12: "Local", 13: "VM",
}  # fmt: skip
_BY_NAME = {name.lower(): number for number, name in UNIVERSE_NAMES.items()}
GRID_TYPES = ("blah", "batch", "pbs", "sge", "lsf", "nqs", "naregi", "condor", "arc", "ec2",
              "gce", "azure")  # fmt: skip


def universe_number(text: str) -> int:
    """``CondorUniverseNumberEx``: a number (C ``atoi``), else a universe name, else 0."""
    number = c_atoi(text)
    if number:
        return number
    return _BY_NAME.get(text.lower(), 0)


def grid_type_of(resource: str) -> tuple[str, bool]:
    """The grid type (the text before the first space) and whether it is known."""
    kind = resource.split(" ", 1)[0]
    return kind, kind.lower() in GRID_TYPES


def set_universe(job: JobInput, ad: Attrs) -> None:
    """``SetUniverse``: JobUniverse, the toppings, the remote universes, and the checks."""
    value = job.param("universe", "JobUniverse")
    if value is None:
        value = job.knob("DEFAULT_UNIVERSE")
    number = VANILLA
    if value is not None:
        number = universe_number(value)
        if not number and value.lower() in ("docker", "container"):
            number = VANILLA
            job.is_docker = value.lower() == "docker"
            job.is_container = value.lower() == "container"
    if number in (VANILLA, LOCAL):
        container = job.param("container_image", "ContainerImage")
        if job.is_docker:
            if container is not None:
                raise job.error("docker universe does not allow use of container_image.\n",
                                "container_image", "ContainerImage")  # fmt: skip
        else:
            docker = job.param("docker_image", "DockerImage")
            if docker is not None and container is not None:
                raise job.error("cannot declare both docker_image and container_image\n",
                                "docker_image", "DockerImage")  # fmt: skip
            if docker is not None or container is not None:
                job.is_container = True
                if docker is not None:
                    ad["WantDockerImage"] = True
    job.universe = number
    ad["JobUniverse"] = number
    for prefix, name in (("Remote_", "Remote_Universe"), ("Remote_Remote_", "Remote_Remote_Universe")):
        remote = job.param(prefix + "universe", prefix + "JobUniverse")
        if remote is not None:
            remote_number = universe_number(remote)
            if not remote_number:
                raise job.error(f"Unknown {name} of '{remote}' specified\n", prefix + "universe")
            ad[prefix + "JobUniverse"] = remote_number
    if bool_command(job, "WantParallelScheduling", None, False):
        ad["WantParallelScheduling"] = True
    if number == JAVA or number in (SCHEDULER, PARALLEL, MPI):
        return
    if number in (VANILLA, LOCAL):
        if job.is_docker:
            ad["WantDocker"] = True
        if job.is_container:
            ad["WantContainer"] = True
        return
    if number == GRID:
        _check_grid(job, ad)
        return
    if number == VM:
        _vm_transfer(job)
        return
    if value is not None and not number:
        raise job.error(f"I don't know about the '{value}' universe.\n", "universe", "JobUniverse")
    name = UNIVERSE_NAMES.get(number, "Unknown")
    raise job.error(f"'{name}' is not a supported universe.\n", "universe", "JobUniverse")


def _check_grid(job: JobInput, ad: Attrs) -> None:
    resource = job.param("grid_resource", "GridResource")
    if resource is None:
        looked = job.lookup(ad, "GridResource")
        resource = looked if isinstance(looked, str) else None
    if resource is None:
        raise job.error("grid_resource attribute not defined for grid universe job\n",
                        "universe", "JobUniverse")  # fmt: skip
    kind, known = grid_type_of(resource)
    if not known:
        raise job.error(
            f"Invalid value '{kind}' for grid type\n"
            "Must be one of: condor, batch, arc, ec2, gce, or azure\n",
            "grid_resource",
            "GridResource",
        )
    job.grid_type = kind


def _vm_transfer(job: JobInput) -> None:
    checkpoint = bool_command(job, "vm_checkpoint", "JobVMCheckpoint", False)
    if checkpoint:
        if bool_command(job, "vm_networking", "JobVMNetworking", False):
            when = job.param("WhenToTransferOutput", "when_to_transfer_output")
            if when is None or when.upper() not in ("ON_EXIT_OR_EVICT", "ALWAYS"):
                raise job.error(
                    "You explicitly requested both VM checkpoint and VM networking. However, "
                    "VM networking is currently conflict with VM checkpoint. If you still want "
                    "to use both VM networking and VM checkpoint, you explicitly must define "
                    '"when_to_transfer_output = ON_EXIT_OR_EVICT"',
                    "vm_networking",
                )
        job.table.set("ShouldTransferFiles", "YES")
        job.table.set("WhenToTransferOutput", "ON_EXIT_OR_EVICT")
    else:
        job.table.set("ShouldTransferFiles", "YES")
        job.table.set("WhenToTransferOutput", "ON_EXIT")


def set_parallel(job: JobInput, ad: Attrs) -> None:
    """``SetParallelParams``: machine counts of parallel and MPI jobs."""
    if job.universe in (MPI, PARALLEL) or ad.get("WantParallelScheduling") is True:
        count = job.param("machine_count", "MachineCount") or job.param("node_count", "NodeCount")
        if count is not None:
            ad["MinHosts"] = c_atoi(count)
            ad["MaxHosts"] = c_atoi(count)
        elif job.lookup(ad, "MaxHosts") is None:
            raise job.error("No machine_count specified!\n", "machine_count", "MachineCount")
        ad["RequestCpus"] = 1
    if job.universe == PARALLEL:
        ad["WantIOProxy"] = True
        ad["JobRequiresSandbox"] = True


def _vm_bool(job: JobInput, ad: Attrs, key: str, attr: str) -> bool:
    if job.has(key, attr):
        value = bool_command(job, key, attr, False)
        ad[attr] = value
        return value
    looked = job.lookup(ad, attr)
    if isinstance(looked, bool):
        return looked
    ad[attr] = False
    return False


def _valid_disks(text: str, low: int, high: int) -> bool:
    """``validate_disk_param``: comma-separated items of ``low`` to ``high`` colon fields."""
    items = [item for item in text.lstrip(" ").split(",") if item.strip()]
    return bool(items) and all(low <= item.count(":") + 1 <= high for item in items)


def set_vm(job: JobInput, ad: Attrs) -> None:
    """``SetVMParams``: the VM universe's attributes."""
    if job.universe != VM:
        return
    vm_type = job.param("vm_type", "JobVMType")
    if vm_type is not None:
        job.vm_type = vm_type.lower()
        ad["JobVMType"] = job.vm_type
    _vm_bool(job, ad, "vm_checkpoint", "JobVMCheckpoint")
    if _vm_bool(job, ad, "vm_networking", "JobVMNetworking"):
        kind = job.param("vm_networking_type", "JobVMNetworkingType")
        if kind is not None:
            ad["JobVMNetworkingType"] = kind
    _vm_bool(job, ad, "vm_vnc", "JobVMVNCConsole")
    memory = job.param("vm_memory", "JobVMMemory")
    if memory is not None:
        mem = parse_int64_bytes(memory, 1024 * 1024) or 0
        if mem <= 0:
            raise job.error(
                "vm_memory is incorrectly specified\nFor example, for vm memroy of 128 "
                "Megabytes,\nyou need to use 128 in your submit description file.\n",
                "vm_memory",
            )
        ad["JobVMMemory"] = mem
    else:
        looked = job.lookup(ad, "JobVMMemory")
        if not isinstance(looked, int):
            raise job.error(
                "vm_memory cannot be found.\nPlease specify vm_memory for vm universe in your "
                "submit description file.\n",
                "universe",
            )
        mem = looked
    ad["ExecutableSize"] = mem * 1024
    vcpus = job.param("vm_vcpus", "JobVM_VCPUS")
    if vcpus is not None:
        ad["JobVM_VCPUS"] = max(c_atoi(vcpus), 1)
    elif not isinstance(job.lookup(ad, "JobVM_VCPUS"), int):
        ad["JobVM_VCPUS"] = 1
    mac = job.param("vm_macaddr", "JobVM_MACADDR")
    if mac is not None:
        ad["JobVM_MACADDR"] = mac
    if job.has("vm_no_output_vm"):
        ad["VMPARAM_No_Output_VM"] = bool_command(job, "vm_no_output_vm", None, False)
    if job.vm_type == "xen":
        _xen(job, ad)
    if job.vm_type in ("xen", "kvm"):
        disk = job.param("vm_disk")
        if disk is not None:
            if not _valid_disks(disk, 3, 4):
                raise job.error(
                    "'vm_disk' has incorrect format.\nThe format shoud be like "
                    '"<filename>:<devicename>:<permission>"\ne.g.> For single disk: <vm>_disk '
                    "= filename1:hda1:w\n      For multiple disks: <vm>_disk = "
                    "filename1:hda1:w,filename2:hda2:w\n",
                    "vm_disk",
                )
            ad["VMPARAM_vm_Disk"] = disk
        elif job.lookup(ad, "VMPARAM_vm_Disk") is None:
            raise job.error(
                "'<vm>_disk' cannot be found.\nPlease specify '<vm>_disk' for the virtual "
                "machine in your submit description file.\n",
                "vm_type",
            )
    elif job.vm_type == "vmware":
        raise job.error("A vm_type of 'vmware' is no longer supported\n", "vm_type")


def _xen(job: JobInput, ad: Attrs) -> None:
    kernel = job.param("xen_kernel", "VMPARAM_Xen_Kernel")
    if kernel is not None:
        ad["VMPARAM_Xen_Kernel"] = kernel
    else:
        looked = job.lookup(ad, "VMPARAM_Xen_Kernel")
        if not isinstance(looked, str):
            raise job.error(
                "'xen_kernel' cannot be found.\nPlease specify 'xen_kernel' for the xen virtual "
                "machine in your submit description file.\nxen_kernel must be one of "
                '"included", "vmx", <file-name>.\n',
                "vm_type",
            )
        kernel = looked
    real_kernel = kernel.lower() not in ("included", "vmx")
    if kernel.lower() == "vmx":
        ad["JobVMHardwareVT"] = True
    initrd = job.param("xen_initrd")
    if initrd is not None:
        if not real_kernel:
            raise job.error("To use xen_initrd, xen_kernel should be a real kernel file.\n",
                            "xen_initrd")  # fmt: skip
        ad["VMPARAM_Xen_Initrd"] = initrd
    if real_kernel:
        root = job.param("xen_root")
        if root is None:
            raise job.error(
                "'xen_root' cannot be found.\nPlease specify 'xen_root' for the xen virtual "
                "machine in your submit description file.\n",
                "xen_kernel",
            )
        ad["VMPARAM_Xen_Root"] = root
    params = job.param("xen_kernel_params", "VMPARAM_Xen_Kernel_Params")
    if params is not None:
        ad["VMPARAM_Xen_Kernel_Params"] = params.strip("\"'")


def set_container_special(job: JobInput, ad: Attrs) -> None:
    """``SetContainerSpecial``: the ports of a container job's services."""
    if not (job.is_docker or job.is_container):
        return
    services = job.param("container_service_names", "ContainerServiceNames")
    if services is None:
        return
    ad["ContainerServiceNames"] = services
    for service in services.replace(",", " ").split():
        key = f"{service}_container_port"
        port = int_command(job, key, None, int_range=True)
        if port is None or not 0 <= port <= 65535:
            raise job.error(
                f"Requested container service '{service}' was not assigned a port, or the "
                "assigned port was not valid.\n",
                "container_service_names",
            )
        ad[f"{service}_ContainerPort"] = port
