"""The collector's ad types and the key each stored ad is filed under.

How this works
--------------
HTCondor's collector keeps one table per ad type and files every ad under a *hash key*
made from a few of its attributes (``src/condor_utils/hashkey.cpp``); an update whose key
matches a stored ad replaces it. This module holds those rules and nothing else:

* :data:`AD_TYPES` -- the known types by their ``MyType`` spelling ("Machine",
  "Scheduler", "Submitter", "DaemonMaster", "Negotiator", "Collector", "Accounting",
  "Grid"). Any other ``MyType`` is a *generic* type keyed by ``Name`` alone.
* :func:`make_key` -- the key of an ad, or :class:`CollectorError` naming the missing
  attribute (HTCondor logs "Could not make hashkey --- ignoring ad").
* the command tables (``UPDATE_STARTD_AD`` -> "Machine", ...) a runner uses to turn a
  command into an ad type.

A key is ``(name, host)``: ``host`` is the host part of ``MyAddress`` (HTCondor's
``ip_addr`` half of ``AdNameHashKey``) or "" where the type's key has no address. Keys
compare case-sensitively, as HTCondor's do. docs/collector.md lists every type's key.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final, TypeAlias

from condorsim.classad import ClassAd

AdKey: TypeAlias = tuple[str, str]
"""(name, host): the collector's hash key of one ad."""

ANY_ADTYPE: Final = "Any"


class CollectorError(Exception):
    """An update, query or invalidation the collector refuses; the message says why."""


def _lookup_string(ad: ClassAd, attr: str) -> str | None:
    """The string value of ``attr`` (evaluated), or None if it is absent or not a string."""
    if attr not in ad:
        return None
    value = ad.evaluate(attr)
    return value if type(value) is str else None


def _lookup_int(ad: ClassAd, attr: str) -> int | None:
    if attr not in ad:
        return None
    value = ad.evaluate(attr)
    return value if type(value) is int else None


def _require(adtype: str, ad: ClassAd, attr: str, fallback: str | None = None) -> str:
    value = _lookup_string(ad, attr)
    if value is None and fallback is not None:
        value = _lookup_string(ad, fallback)
    if value is None:
        if fallback is not None:
            raise CollectorError(f"{adtype} ad: neither '{attr}' nor '{fallback}' found in ad")
        raise CollectorError(f"{adtype} ad: '{attr}' not found in ad")
    return value


def host_of_address(address: str) -> str:
    """The host part of a sinful string: ``"<127.0.0.1:9618?addrs=...>"`` -> ``"127.0.0.1"``.

    Returns "" when there is no host to take (HTCondor's getHostFromAddr fails).
    """
    text = address.strip()
    if text.startswith("<"):
        text = text[1:]
    for stop in "?>":
        text = text.split(stop, 1)[0]
    if text.startswith("["):
        return text[1:].split("]", 1)[0]
    return text.split(":", 1)[0]


def _address_host(adtype: str, ad: ClassAd, old_attr: str, required: bool) -> str:
    address = _lookup_string(ad, "MyAddress")
    if address is None:
        address = _lookup_string(ad, old_attr)
    host = host_of_address(address) if address is not None else ""
    if required and not host:
        if address is None:
            raise CollectorError(f"{adtype} ad: neither 'MyAddress' nor '{old_attr}' found in ad")
        raise CollectorError(f"{adtype} ad: invalid IP address in MyAddress {address!r}")
    return host


def _startd_key(ad: ClassAd) -> AdKey:
    # Name, else Machine with ":<SlotID>"; the address is optional.
    name = _lookup_string(ad, "Name")
    if name is None:
        machine = _lookup_string(ad, "Machine")
        if machine is None:
            raise CollectorError("Machine ad: neither 'Name' nor 'Machine' found in ad")
        slot = _lookup_int(ad, "SlotID")
        name = machine if slot is None else f"{machine}:{slot}"
    return name, _address_host("Machine", ad, "StartdIpAddr", required=False)


def _schedd_key(adtype: str) -> Callable[[ClassAd], AdKey]:
    # Scheduler and Submitter ads: Name (or Machine) + ScheddName, and the address is required.
    def key(ad: ClassAd) -> AdKey:
        name = _require(adtype, ad, "Name", "Machine")
        name += _lookup_string(ad, "ScheddName") or ""
        return name, _address_host(adtype, ad, "ScheddIpAddr", required=True)

    return key


def _name_or_machine(adtype: str) -> Callable[[ClassAd], AdKey]:
    return lambda ad: (_require(adtype, ad, "Name", "Machine"), "")


def _name_only(adtype: str) -> Callable[[ClassAd], AdKey]:
    return lambda ad: (_require(adtype, ad, "Name"), "")


def _accounting_key(ad: ClassAd) -> AdKey:
    return _require("Accounting", ad, "Name") + (_lookup_string(ad, "NegotiatorName") or ""), ""


def _grid_key(ad: ClassAd) -> AdKey:
    name = _require("Grid", ad, "HashName") + _require("Grid", ad, "Owner")
    host = ""
    schedd = _lookup_string(ad, "ScheddName")
    if schedd is not None:
        name += schedd
    else:
        host = _require("Grid", ad, "ScheddIpAddr")
    name += _lookup_string(ad, "GridmanagerSelectionValue") or ""
    return name, host


AD_TYPES: Final[Mapping[str, Callable[[ClassAd], AdKey]]] = {
    "Machine": _startd_key,
    "Scheduler": _schedd_key("Scheduler"),
    "Submitter": _schedd_key("Submitter"),
    "DaemonMaster": _name_or_machine("DaemonMaster"),
    "Collector": _name_or_machine("Collector"),
    "Negotiator": _name_only("Negotiator"),
    "Accounting": _accounting_key,
    "Grid": _grid_key,
}
"""Known ad types (their MyType) and their key functions; other types key by Name."""

_CANONICAL: Final = {name.lower(): name for name in AD_TYPES}


def canonical_adtype(adtype: str) -> str:
    """HTCondor's spelling of a known type ("machine" -> "Machine"); other types as given.

    MyType comparisons are case-insensitive in HTCondor; "Any" stands for every type.
    """
    if not adtype:
        raise CollectorError("empty ad type")
    if adtype.lower() == ANY_ADTYPE.lower():
        return ANY_ADTYPE
    return _CANONICAL.get(adtype.lower(), adtype)


def make_key(adtype: str, ad: ClassAd) -> AdKey:
    """The hash key of ``ad`` in the table of ``adtype`` (canonical spelling).

    Raises :class:`CollectorError` when the ad lacks what its key needs.
    """
    key_func = AD_TYPES.get(adtype)
    if key_func is None:
        return _require(adtype, ad, "Name"), ""
    return key_func(ad)


UPDATE_COMMANDS: Final[Mapping[str, str]] = {
    "UPDATE_STARTD_AD": "Machine",
    "UPDATE_STARTD_AD_WITH_ACK": "Machine",
    "UPDATE_SCHEDD_AD": "Scheduler",
    "UPDATE_SUBMITTOR_AD": "Submitter",
    "UPDATE_MASTER_AD": "DaemonMaster",
    "UPDATE_NEGOTIATOR_AD": "Negotiator",
    "UPDATE_COLLECTOR_AD": "Collector",
    "UPDATE_ACCOUNTING_AD": "Accounting",
    "UPDATE_GRID_AD": "Grid",
}
QUERY_COMMANDS: Final[Mapping[str, str]] = {
    "QUERY_STARTD_ADS": "Machine",
    "QUERY_SCHEDD_ADS": "Scheduler",
    "QUERY_SUBMITTOR_ADS": "Submitter",
    "QUERY_MASTER_ADS": "DaemonMaster",
    "QUERY_NEGOTIATOR_ADS": "Negotiator",
    "QUERY_COLLECTOR_ADS": "Collector",
    "QUERY_ACCOUNTING_ADS": "Accounting",
    "QUERY_GRID_ADS": "Grid",
    "QUERY_ANY_ADS": ANY_ADTYPE,
}
INVALIDATE_COMMANDS: Final[Mapping[str, str]] = {
    "INVALIDATE_STARTD_ADS": "Machine",
    "INVALIDATE_SCHEDD_ADS": "Scheduler",
    "INVALIDATE_SUBMITTOR_ADS": "Submitter",
    "INVALIDATE_MASTER_ADS": "DaemonMaster",
    "INVALIDATE_NEGOTIATOR_ADS": "Negotiator",
    "INVALIDATE_COLLECTOR_ADS": "Collector",
    "INVALIDATE_ACCOUNTING_ADS": "Accounting",
    "INVALIDATE_GRID_ADS": "Grid",
}
_GENERIC_COMMANDS: Final = {
    # command -> the attribute of the carried ad that names the type
    "UPDATE_AD_GENERIC": "MyType",
    "QUERY_GENERIC_ADS": "TargetType",
    "INVALIDATE_ADS_GENERIC": "TargetType",
}


def adtype_for_command(command: str, ad: ClassAd) -> str:
    """The ad type a collector command acts on.

    ``ad`` is the ad the command carries: the generic commands take the type from it
    (``MyType`` of an update, ``TargetType`` of a query or invalidation).
    Raises :class:`CollectorError` for a command the collector does not handle.
    """
    for table in (UPDATE_COMMANDS, QUERY_COMMANDS, INVALIDATE_COMMANDS):
        if command in table:
            return table[command]
    attr = _GENERIC_COMMANDS.get(command)
    if attr is None:
        raise CollectorError(f"the collector does not handle command {command!r}")
    adtype = _lookup_string(ad, attr)
    if not adtype:
        raise CollectorError(f"{command}: the ad has no string '{attr}' naming its type")
    return canonical_adtype(adtype)
