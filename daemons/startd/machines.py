"""The simulated machines one startd process hosts, read from the configuration.

How this works
--------------
``SIM_MACHINES`` names the machines (a comma or space separated list). Unset, the startd
hosts one machine, "localhost", with NUM_CPUS static slots. Each machine's knobs are
``SIM_MACHINE_<name>_<KNOB>`` (SLOTS, CPUS, MEMORY, DISK, START, RANK, ATTRS,
CLOCK_OFFSET); the machine's cpus, memory and disk are split evenly over its slots.
Policy expressions (START, RANK, SUSPEND, ...) fall back to the pool-wide knobs. A bad
value raises :class:`MachineConfigError` naming the knob. docs/startd.md lists the knobs.

HTCondor's STARTD_ATTRS (and its old name STARTD_EXPRS) names knobs whose values are
put in every slot ad; FetchWorkDelay and the hook keywords (``SLOT<N>_JOB_HOOK_KEYWORD``,
else ``STARTD_JOB_HOOK_KEYWORD``) are read here too. These knobs may be set for one
machine as ``SIM_MACHINE_<name>_<KNOB>`` (docs/hooks.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from condorsim.classad import ClassAd, ClassAdError, ExprTree, parse_expr
from condorsim.config import Config, ConfigError, split_list
from condorsim.hooks import Lookup, machine_lookup

DEFAULT_MEMORY_MB = 2048
DEFAULT_DISK_KB = 10_000_000

POLICY_KNOBS = ("START", "RANK", "SUSPEND", "CONTINUE", "PREEMPT", "KILL", "WANT_SUSPEND",
                "WANT_VACATE", "MAXJOBRETIREMENTTIME", "MachineMaxVacateTime", "CLAIM_WORKLIFE")
_POLICY_DEFAULTS = {"START": "True", "RANK": "0", "SUSPEND": "False", "CONTINUE": "True",
                    "PREEMPT": "False", "KILL": "False", "WANT_SUSPEND": "False",
                    "WANT_VACATE": "True", "MAXJOBRETIREMENTTIME": "0",
                    "MachineMaxVacateTime": "600", "CLAIM_WORKLIFE": "1200"}


class MachineConfigError(Exception):
    """A simulated machine's configuration is unusable; the message names the knob."""


@dataclass(frozen=True)
class MachineSpec:
    """One simulated machine: its name, slot count, resources and policy."""

    name: str
    slots: int
    cpus: int
    memory: int  # MB
    disk: int  # KB
    clock_offset: int = 0
    killing_timeout: int = 30  # KILLING_TIMEOUT: a starter that ignores a kill is given up
    policy: dict[str, ExprTree] = field(default_factory=dict)
    extra_attrs: ClassAd = field(default_factory=ClassAd)
    fetch_delay: ExprTree | None = None  # FetchWorkDelay
    hook_keywords: tuple[str | None, ...] = ()  # each slot's fetch-work keyword

    def slot_share(self) -> tuple[int, int, int]:
        """(cpus, memory, disk) of each slot: the machine's resources split evenly."""
        return (max(1, self.cpus // self.slots), self.memory // self.slots,
                self.disk // self.slots)


def _int(config: Config, knob: str, default: int) -> int:
    try:
        return config.get_int(knob, default)
    except ConfigError as e:
        raise MachineConfigError(str(e)) from None


def _expr(config: Config, knob: str, fallback_knob: str | None, default: str) -> ExprTree:
    text = config.get(knob)
    used = knob
    if text is None and fallback_knob is not None:
        text = config.get(fallback_knob)
        used = fallback_knob
    if text is None:
        text = default
    try:
        return parse_expr(text)
    except ClassAdError as e:
        raise MachineConfigError(f"{used} = {text!r} is not a ClassAd expression: {e}") from None


def machine_names(config: Config) -> list[str]:
    """The names in SIM_MACHINES, or ["localhost"] when it is unset."""
    names = split_list(config.get("SIM_MACHINES") or "")
    return names or ["localhost"]


def read_machine(config: Config, name: str) -> MachineSpec:
    """The :class:`MachineSpec` of machine ``name`` from its SIM_MACHINE_<name>_* knobs."""
    prefix = f"SIM_MACHINE_{name}_"
    num_cpus = _int(config, "NUM_CPUS", 1)
    cpus = _int(config, prefix + "CPUS", num_cpus)
    slots = _int(config, prefix + "SLOTS", cpus)
    if slots < 1:
        raise MachineConfigError(f"{prefix}SLOTS = {slots}: a machine needs at least one slot")
    if cpus < 1:
        raise MachineConfigError(f"{prefix}CPUS = {cpus}: a machine needs at least one cpu")
    memory = _int(config, prefix + "MEMORY", _int(config, "MEMORY", DEFAULT_MEMORY_MB))
    disk = _int(config, prefix + "DISK", DEFAULT_DISK_KB)
    offset = _int(config, prefix + "CLOCK_OFFSET", 0)
    policy = {
        knob: _expr(config, prefix + knob.upper(), knob, _POLICY_DEFAULTS[knob])
        for knob in POLICY_KNOBS
    }
    lookup = machine_lookup(config, name)
    extra = _startd_attrs(lookup)
    attrs_text = config.get(prefix + "ATTRS")
    if attrs_text:
        try:
            extra.update(ClassAd.parse(attrs_text))
        except ClassAdError as e:
            raise MachineConfigError(f"{prefix}ATTRS = {attrs_text!r} is not a ClassAd: {e}") \
                from None
    delay_text = lookup("FetchWorkDelay")
    try:
        delay = parse_expr(delay_text) if delay_text else None
    except ClassAdError as e:
        raise MachineConfigError(f"FetchWorkDelay = {delay_text!r} is not a ClassAd "
                                 f"expression: {e}") from None
    keywords = tuple(_keyword(lookup, n) for n in range(1, slots + 1))
    return MachineSpec(name=name, slots=slots, cpus=cpus, memory=memory, disk=disk,
                       clock_offset=offset, killing_timeout=_int(config, "KILLING_TIMEOUT", 30),
                       policy=policy, extra_attrs=extra, fetch_delay=delay,
                       hook_keywords=keywords)


def _keyword(lookup: Lookup, slot_id: int) -> str | None:
    """The slot's fetch-work hook keyword (``Resource::getHookKeyword``)."""
    value = lookup(f"SLOT{slot_id}_JOB_HOOK_KEYWORD") or lookup("STARTD_JOB_HOOK_KEYWORD")
    return value.strip() if value and value.strip() else None


def _startd_attrs(lookup: Lookup) -> ClassAd:
    """The knobs STARTD_ATTRS / STARTD_EXPRS name, as slot attributes."""
    ad = ClassAd()
    for list_knob in ("STARTD_EXPRS", "STARTD_ATTRS"):
        for attr in split_list(lookup(list_knob) or ""):
            text = lookup(attr)
            if text is None:
                continue
            try:
                ad[attr] = parse_expr(text)
            except ClassAdError as e:
                raise MachineConfigError(f"{attr} = {text!r} (named by {list_knob}) is not a "
                                         f"ClassAd expression: {e}") from None
    return ad


def read_machines(config: Config) -> list[MachineSpec]:
    """Every machine this startd hosts, in SIM_MACHINES order."""
    return [read_machine(config, name) for name in machine_names(config)]
