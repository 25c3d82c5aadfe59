"""Resource requests: CPUs, memory, disk, GPUs and custom resources, and the GPU
property constraints (``SetRequestResources``, ``SetRequest*``,
``SetResourceRequirements``).

How this works
--------------
``request_memory`` and ``request_disk`` take a size (``2.5G``, ``512 MB``; MiB and KiB
without a unit) or an expression; ``request_cpus`` and ``request_gpus`` an expression;
``undefined`` means no request at all. Unset requests get the config's
``JOB_DEFAULT_REQUEST*`` (not for batch grid jobs); a VM job's memory request is its
``JobVMMemory``. Every other ``request_<name>`` command (``<name>`` at least two
characters, not starting with ``_``) becomes ``Request<name>``: a custom resource the
Requirements then ask the slot for (``_requirements``).

A GPU request brings the GPU property constraints: ``require_gpus`` (an expression
over GPU properties), ``gpus_minimum_capability``, ``gpus_maximum_capability``,
``gpus_minimum_memory`` (a size in MiB) and ``gpus_minimum_runtime`` (``x.y`` becomes
``x*1000 + y*10``). After the forced ``+attributes``, the constraints not already
tested by ``RequireGPUs`` are joined to it (``Capability >= GPUsMinCapability`` ...).
"""

from __future__ import annotations

from ._commands import parse_expr_command
from ._exprs import Expr, split_references, wrap_for
from ._job import Attrs, JobInput
from ._numbers import leading_digits, parse_bytes

_SPECIAL = ("request_cpus", "request_cpu", "request_gpus", "request_gpu", "request_disk",
            "request_memory")  # fmt: skip
_DISALLOWED = ("request_gpu_memory", "request_gpus_memory")


def _units_check(job: JobInput, key: str, value: str, unit: str, unit_name: str) -> None:
    missing = job.knob("SUBMIT_REQUEST_MISSING_UNITS")
    if missing is None or unit:
        return
    must = "must" if missing.lower() == "error" else "should"
    text = (
        f"{key}={value} defaults to {unit_name}, but {must} contain a units suffix "
        "(i.e K, M, or B)"
    )
    if key == "request_disk":
        text = text.replace(", but ", ", ")
    if missing.lower() == "error":
        raise job.error(text + "\n", key)
    job.warn(text)


def _size_request(job: JobInput, ad: Attrs, key: str, attr: str, base: int, default: str | None,
                  unit_name: str) -> None:  # fmt: skip
    value = job.param(key, attr)
    if value is None:
        if job.lookup(ad, attr) is not None:
            return
        if attr == "RequestMemory" and job.lookup(ad, "JobVMMemory") is not None:
            job.warn("request_memory was NOT specified.  Using RequestMemory = MY.JobVMMemory")
            ad[attr] = Expr("MY.JobVMMemory")
            return
        if not job.use_default_resources or default is None:
            return
        value = default
    parsed = parse_bytes(value, base)
    if parsed is not None:
        _units_check(job, key, value, parsed[1], unit_name)
        ad[attr] = parsed[0]
    elif value.lower() != "undefined":
        ad[attr] = parse_expr_command(job, attr, value, key, attr)


def _expr_request(job: JobInput, ad: Attrs, key: str, attr: str, default: str | None) -> None:
    value = job.param(key, attr)
    if value is None:
        if job.lookup(ad, attr) is not None or not job.use_default_resources:
            return
        value = default
    if value is not None and value.lower() != "undefined":
        ad[attr] = parse_expr_command(job, attr, value, key, attr)


def _gpu_properties(job: JobInput, ad: Attrs) -> None:
    value = job.param("require_gpus", "RequireGPUs")
    if value is not None:
        ad["RequireGPUs"] = parse_expr_command(job, "RequireGPUs", value, "require_gpus")
    for key, attr in (("gpus_minimum_capability", "GPUsMinCapability"),
                      ("gpus_maximum_capability", "GPUsMaxCapability")):  # fmt: skip
        value = job.param(key, attr)
        if value is not None:
            ad[attr] = parse_expr_command(job, attr, value, key, attr)
    value = job.param("gpus_minimum_memory", "GPUsMinMemory")
    if value is not None:
        parsed = parse_bytes(value, 1024 * 1024)
        if parsed is not None:
            _units_check(job, "gpus_minimum_memory", value, parsed[1], "megabytes")
            ad["GPUsMinMemory"] = parsed[0]
        else:
            ad["GPUsMinMemory"] = parse_expr_command(job, "GPUsMinMemory", value,
                                                     "gpus_minimum_memory")  # fmt: skip
    elif job.param("request_gpu_memory", "request_gpus_memory") is not None:
        job.warn("request_gpu_memory is not a submit command, did you mean gpus_minimum_memory?")
    value = job.param("gpus_minimum_runtime", "GPUsMinRuntime")
    if value is not None:
        version = _runtime_version(value)
        if version is not None:
            ad["GPUsMinRuntime"] = version
        else:
            ad["GPUsMinRuntime"] = parse_expr_command(job, "GPUsMinRuntime", value,
                                                      "gpus_minimum_runtime")  # fmt: skip


def _runtime_version(text: str) -> int | None:
    """``x`` or ``x.y`` (HTCondor reads it as a job id) as ``x*1000 + y*10``; a bare number
    over 1000 is taken as already in that form."""
    s = text.lstrip(" \t\n\r\v\f")
    sign = -1 if s[:1] == "-" else 1
    digits = s[1:] if s[:1] in "+-" else s
    major_text = leading_digits(digits)
    if not major_text:
        return None
    major = sign * int(major_text)
    rest = digits[len(major_text) :]
    minor = -1
    if rest.startswith("."):
        rest = rest[1:]
        negative = rest.startswith("-")
        rest = rest[1:] if negative else rest
        minor_text = leading_digits(rest)
        if rest and not minor_text:
            return None
        if minor_text:
            minor = -int(minor_text) if negative else int(minor_text)
            rest = rest[len(minor_text) :]
    elif major < 0:
        return None
    if rest or not -1 <= minor < 100:
        return None
    if minor == -1 and major > 1000:
        return major
    return major * 1000 + (minor * 10 if minor > 0 else 0)


def set_request_resources(job: JobInput, ad: Attrs) -> None:
    """``SetRequestResources``: the four standard requests and every custom one."""
    for lower, (key, _value) in sorted(job.table.user.items()):
        if not lower.startswith("request_") or lower in _SPECIAL:
            if lower in ("request_cpu", "request_gpu"):
                job.warn(f"{key} is not a valid submit keyword, did you mean {lower}s?")
            continue
        name = key[len("request_") :]
        if len(name) < 2 or name.startswith("_") or lower in _DISALLOWED:
            continue
        value = job.param(key)
        if value is None:
            raise job.error(f"{key} has no value: a custom resource request needs one "
                            "(HTCondor's condor_submit crashes on it)", key)  # fmt: skip
        attr = "Request" + name
        ad[attr] = parse_expr_command(job, attr, value, key)
    _expr_request(job, ad, "request_cpus", "RequestCpus", job.knob("JOB_DEFAULT_REQUESTCPUS"))
    _expr_request(job, ad, "request_gpus", "RequestGPUs", job.knob("JOB_DEFAULT_REQUESTGPUS"))
    if job.lookup(ad, "RequestGPUs") is not None:
        _gpu_properties(job, ad)
    _size_request(job, ad, "request_disk", "RequestDisk", 1024, job.knob("JOB_DEFAULT_REQUESTDISK"),
                  "kilobytes")  # fmt: skip
    _size_request(job, ad, "request_memory", "RequestMemory", 1024 * 1024,
                  job.knob("JOB_DEFAULT_REQUESTMEMORY"), "megabytes")  # fmt: skip


_GPU_PROPERTIES = frozenset({"capability", "globalmemorymb", "driverversion", "maxsupportedversion"})


def set_resource_requirements(job: JobInput, ad: Attrs) -> None:
    """``SetResourceRequirements``: join the GPU property limits to ``RequireGPUs``."""
    if job.lookup(ad, "RequestGPUs") is None:
        return
    require = job.lookup(ad, "RequireGPUs")
    text = require.text if isinstance(require, Expr) else None
    refs = split_references(text, _GPU_PROPERTIES)[0] if text else set()
    clauses = []
    for attr, prop, clause in (
        ("GPUsMinCapability", "capability", "Capability >= GPUsMinCapability"),
        ("GPUsMaxCapability", "capability", "Capability <= GPUsMaxCapability"),
        ("GPUsMinMemory", "globalmemorymb", "GlobalMemoryMb >= GPUsMinMemory"),
        ("GPUsMinRuntime", "maxsupportedversion", "MaxSupportedVersion >= GPUsMinRuntime"),
    ):
        if job.lookup(ad, attr) is not None and prop not in refs:
            clauses.append(clause)
    if clauses:
        joined = " && ".join(clauses)
        ad["RequireGPUs"] = Expr(f"{wrap_for(text, '&&')} && {joined}" if text else joined)
