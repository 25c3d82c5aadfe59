"""The message codec: frozen dataclass messages <-> msgpack payload bytes.

How this works
--------------
This is the only module that knows the payload layout. A message is a msgpack map whose
first key is ``"cmd"`` (HTCondor's command name) followed by one key per dataclass field,
in declaration order::

    {"cmd": "QUERY_STARTD_ADS", "constraint": "Cpus > 1", "projection": ["Name"]}

A message class is declared once, with :func:`message`::

    @message("ALIVE")
    class ALIVE(Message):
        claim_id: str

The decorator makes the class a frozen, slotted, keyword-only dataclass (cheaply, through
:mod:`condorsim.wire._frozen`: a daemon process makes all of them as it starts) and
registers it under its command. At that moment every field's annotation is turned into a pair of small
functions (an encoder and a decoding validator); ``encode`` and ``decode`` then only run
those, with no reflection per call. Field types: ``int``, ``float``, ``bool``, ``str``,
``bytes``, ``X | None``, ``list[X]``, ``tuple[X, ...]``, ``tuple[X, Y]``, ``dict[str, X]``,
``ClassAd`` (through ``ad_to_wire`` / ``ad_from_wire``), a registered message class (a
nested message map, with its own ``"cmd"``) and ``Message`` (any registered message).

Decoding trusts nothing: any payload that is not valid msgpack within the limits below, not
a map, names an unknown command, misses a field, carries an extra one or a value of the
wrong type raises :class:`ProtocolError` naming the command and the field. Types are
checked exactly: a msgpack boolean is not an integer here, and an integer is accepted for a
``float`` field (it decodes to a float). Encoding checks the same types and raises
``TypeError`` on a mismatch: that is a bug on our side, never a ProtocolError.
"""

from __future__ import annotations

import functools
import math
import re
import sys
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Final, TypeVar, dataclass_transform

import msgpack
import msgspec

from condorsim.classad import (
    ClassAd,
    ClassAdWireError,
    SealedAd,
    StoredAd,
    ad_from_wire,
    ad_from_wire_lazy,
    ad_from_wire_named,
    ad_to_wire,
    sealed_bytes,
)
from condorsim.wire._frozen import frozen_dataclass
from condorsim.wire.errors import ProtocolError

__all__ = ["UNPACK_LIMITS", "Message", "decode", "encode", "message", "registered_messages"]

# Limits for unpacking one payload. A frame is already capped (framing.DEFAULT_MAX_FRAME);
# these bound what one value inside it may claim, so a short payload cannot announce a huge
# array. Sized for ClassAds of a few hundred attributes and query results of thousands of ads.
UNPACK_LIMITS: Final[Mapping[str, int]] = types.MappingProxyType(
    {
        "max_str_len": 1024 * 1024,  # one string value or expression text
        "max_bin_len": 1024 * 1024,  # one bytes field
        "max_ext_len": 1024 * 1024,  # one ClassAd extension value (expression, nested ad)
        "max_array_len": 100_000,  # e.g. the ads of one QUERY_RESULT
        "max_map_len": 10_000,  # attributes of one ClassAd, or fields of a message
    }
)

LAZY_AD_FIELDS: Final = frozenset({"PERMISSION_AND_AD.slot_ad", "SHADOW_START.slot_ad"})
"""The ad fields (``COMMAND.field``) decoded as a :class:`~condorsim.classad.LazyAd`: checked
as any ad, its trees made when first used as a whole. The schedd reads a matched slot ad's
Name and MyAddress, then claims with the startd's own ad (issue 16: 10,000 matches in one
cycle); the shadow reads the slot ad of a job it starts for its Name only (issue 16)."""

STORED_AD_FIELDS: Final = frozenset(
    f"{command}.ad" for command in (
        "UPDATE_STARTD_AD", "UPDATE_SCHEDD_AD", "UPDATE_SUBMITTOR_AD", "UPDATE_NEGOTIATOR_AD",
        "UPDATE_MASTER_AD", "UPDATE_COLLECTOR_AD", "UPDATE_GRID_AD", "UPDATE_AD_GENERIC"))
"""The ad fields decoded as a :class:`~condorsim.classad.LazyAd` that keeps the map it came
from: the ads of the updates a collector stores, whose stored copy
(:meth:`~condorsim.classad.SealedAd.of`) takes that map as its wire form, so a query
result splices it without the ad being made into trees and encoded again (issue 16: the
collector decoded 72,000 slot ads a day in full, to read a few attributes of each)."""

_COMMAND_RE: Final = re.compile(r"[A-Z][A-Z0-9_]*")
_RESERVED_FIELDS: Final = frozenset({"cmd", "command"})


class Message:
    """Base class of every wire message; ``command`` is its HTCondor command name."""

    __slots__ = ()
    command: ClassVar[str]


M = TypeVar("M", bound=Message)


class _Bad(Exception):
    """A decoded value does not fit its field; ``path`` grows as it bubbles out of containers."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.path: list[str] = []


_Encoder = Callable[[Any], Any]
_Decoder = Callable[[Any], Any]


@dataclass(frozen=True, slots=True)
class _Spec:
    command: str
    cls: type[Message]
    encoders: tuple[tuple[str, _Encoder], ...]
    decoders: tuple[tuple[str, _Decoder], ...]
    map_len: int  # fields + "cmd"
    listed: str | None = None  # the field of a message whose one field is a list[ClassAd]
    head: bytes = b""  # and "cmd", the command and that field's name, packed (see _spliced)


_BY_COMMAND: dict[str, _Spec] = {}
_BY_CLASS: dict[type[Message], _Spec] = {}
_LISTED: dict[bytes, str] = {}  # _Spec.head -> command, of the messages with a listed field


@dataclass_transform(frozen_default=True, kw_only_default=True)
def message(command: str) -> Callable[[type[M]], type[M]]:
    """Class decorator: make ``cls`` a frozen keyword-only dataclass sent as ``command``.

    ``cls`` must derive from :class:`Message`. Registering the same command twice, a field
    named ``cmd``, or a field type the codec does not know is a ``TypeError`` at import.
    """
    if not isinstance(command, str) or not _COMMAND_RE.fullmatch(command):
        raise TypeError(f"command name {command!r} is not an upper-case identifier")

    def register(cls: type[M]) -> type[M]:
        if not (isinstance(cls, type) and issubclass(cls, Message)):
            raise TypeError(f"@message({command!r}) needs a subclass of Message, not {cls!r}")
        if command in _BY_COMMAND:
            raise TypeError(f"command {command} is registered twice")
        made = frozen_dataclass(cls)
        made.command = command
        hints = _field_types(made)
        encoders = []
        decoders = []
        for f in fields(made):  # type: ignore[arg-type]
            if f.name in _RESERVED_FIELDS:
                raise TypeError(f"{command}: a message field may not be named {f.name!r}")
            enc, dec = _converters(hints[f.name], f"{command}.{f.name}")
            encoders.append((f.name, enc))
            decoders.append((f.name, dec))
        listed = None
        if len(encoders) == 1:
            tp = hints[encoders[0][0]]
            if typing.get_origin(tp) is list and typing.get_args(tp) == (ClassAd,):
                listed = encoders[0][0]
        head = b"".join(map(msgpack.packb, ("cmd", command, listed))) if listed else b""
        spec = _Spec(command, made, tuple(encoders), tuple(decoders), len(encoders) + 1,
                     listed, head)
        if listed is not None:
            _LISTED[head] = command
        _BY_COMMAND[command] = spec
        _BY_CLASS[made] = spec
        return made

    return register


_IDENTIFIER: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TYPES: dict[tuple[str, str], Any] = {}  # (module, annotation text) -> the type it names


def _field_types(cls: type) -> dict[str, Any]:
    """``typing.get_type_hints(cls)`` for the fields of ``cls``, each annotation text of a
    module evaluated once (a hundred message classes share a dozen texts).

    get_type_hints looks a name up in the module, then in the class, then in builtins; a text
    naming something the class itself defines (a field called ``str``) is left to it."""
    module = sys.modules.get(cls.__module__)
    own = cls.__dict__
    texts: list[tuple[str, str]] = []
    for f in fields(cls):
        if not isinstance(f.type, str) or any(n in own for n in _IDENTIFIER.findall(f.type)):
            return typing.get_type_hints(cls)
        texts.append((f.name, f.type))
    if module is None:
        return typing.get_type_hints(cls)
    found = {}
    for name, text in texts:
        key = (cls.__module__, text)
        if key not in _TYPES:
            value = eval(text, module.__dict__)
            if value is None or isinstance(value, str):
                return typing.get_type_hints(cls)
            _TYPES[key] = value
        found[name] = _TYPES[key]
    return found


def registered_messages() -> Mapping[str, type[Message]]:
    """Every registered message class by command name (a read-only snapshot)."""
    return types.MappingProxyType({name: spec.cls for name, spec in _BY_COMMAND.items()})


STAMP_KEY: Final = "@"
"""The payload key of a message's virtual-time stamp: ``[time, round, channel]``
(docs/runtime.md). Messages of a pool on virtual time carry it; it is no field of theirs."""

Stamp = tuple[float, int, str]


def encode(msg: Message, stamp: Stamp | None = None) -> bytes:
    """Return the msgpack payload of ``msg`` (no frame header), with ``stamp`` if given.

    Raises ``TypeError`` if ``msg`` is not a registered message or a field holds a value
    of the wrong type (our bug).
    """
    spec = _BY_CLASS.get(type(msg))
    if spec is not None and spec.listed is not None:
        spliced = _spliced(msg, spec, stamp)
        if spliced is not None:
            return spliced
    obj = _encode_map(msg)
    if stamp is not None:
        obj[STAMP_KEY] = stamp
    payload: bytes = msgpack.packb(obj, use_bin_type=True)
    return payload


def decode(payload: bytes) -> Message:
    """Decode and validate one payload; raise :class:`ProtocolError` if it is not a message."""
    return decode_stamped(payload)[0]


# ---- unpacking: msgspec's decoder where it gives what msgpack's would --------------------
#
# msgspec decodes msgpack into the same Python values as msgpack's own unpackb (raw=False)
# in half the time (docs/performance.md, "the ninth session": 3.5 against 7.4 us a payload
# of the bench day's, the same objects for all 9,600 sampled). It differs from msgpack's
# call above only where a payload is out of the ordinary, so it is used only where it
# cannot differ, and msgpack decides everything else:
#
# * a payload of at most FAST_MAX_BYTES cannot exceed UNPACK_LIMITS (a map of 10,001
#   entries takes 20,002 bytes at least; every other limit is larger), which msgspec does
#   not know of;
# * msgpack's timestamp extension (-1) is a Timestamp for msgpack, a datetime for msgspec:
#   a payload holding its marks (0xd6/0xd7 then 0xff, or 0xc7 0x0c 0xff; they may also be
#   bytes of a string or a number, then msgpack just decodes it) goes to msgpack;
# * anything msgspec refuses goes to msgpack, which refuses it in its own words (the error
#   a peer is told), or takes it;
# * a message map with a key that is not a string goes to msgpack (strict_map_key). A map
#   nested in it with such keys is refused further on (an ad's attribute name must be a
#   string, a field's keys are checked), in other words than msgpack's.

FAST_MAX_BYTES: Final = 20_000
"""The largest payload msgspec decodes (see above: no limit of UNPACK_LIMITS can be passed)."""

_STR_ONLY: Final = {str}

_TIMESTAMP_MARKS: Final = (b"\xd6\xff", b"\xd7\xff", b"\xc7\x0c\xff")


def _ext(code: int, data: memoryview) -> msgpack.ExtType:
    return msgpack.ExtType(code, bytes(data))


_fast_decode = msgspec.msgpack.Decoder(ext_hook=_ext).decode


def _unpack(payload: bytes) -> Any:
    """``msgpack.unpackb(payload, raw=False, strict_map_key=True, **UNPACK_LIMITS)``: the same
    value, or the same error."""
    if len(payload) <= FAST_MAX_BYTES and _TIMESTAMP_MARKS[0] not in payload and \
            _TIMESTAMP_MARKS[1] not in payload and _TIMESTAMP_MARKS[2] not in payload:
        try:
            obj = _fast_decode(payload)
        except Exception:  # msgspec's refusal, or its recursion limit: msgpack's answer
            pass
        else:
            if type(obj) is not dict or not obj or set(map(type, obj)) == _STR_ONLY:
                return obj
    return msgpack.unpackb(payload, raw=False, strict_map_key=True, **UNPACK_LIMITS)


def decode_stamped(payload: bytes) -> tuple[Message, Stamp | None]:
    """:func:`decode`, and the message's stamp (None if it has none)."""
    try:
        obj = _split_unpack(payload) if len(payload) >= SPLIT_MIN_BYTES else None
        if obj is None:
            obj = _unpack(payload)
    except (ValueError, msgpack.UnpackException) as e:
        # ValueError covers truncated input, extra data, bad UTF-8, limits, bad map keys.
        raise ProtocolError(f"payload is not a valid msgpack value: {_short(str(e))}") from None
    if type(obj) is not dict:
        raise ProtocolError(f"a message must be a msgpack map, not {_kind(obj)}")
    raw = obj.pop(STAMP_KEY, None)
    stamp: Stamp | None = None
    if raw is not None:
        if not (
            type(raw) is list and len(raw) == 3
            and type(raw[0]) in (int, float) and math.isfinite(raw[0])
            and type(raw[1]) is int and type(raw[2]) is str
        ):
            raise ProtocolError(f"a message's stamp must be [time, round, channel], not "
                                f"{_short(repr(raw))}")
        stamp = (float(raw[0]), raw[1], raw[2])
    return _decode_map(obj, None), stamp


# ---- a listed message's ads, as bytes --------------------------------------------------
#
# A message whose one field is a list[ClassAd] (QUERY_RESULT, RESOURCE_REQUEST_LIST) carries
# the same ads again and again: the collector answers every negotiation cycle's query with
# every slot ad, most of them unchanged since the last cycle (a slot updates every few
# minutes, the negotiator asks every minute). msgpack packs a map as its entries one after
# the other and an array as its items, so such a payload is the bytes of its head ("cmd",
# the command, the field's name), an array header, each ad's own packed bytes, and the
# stamp. The sender splices the packed bytes the collector's stored ads keep
# (sealed_bytes); the receiver cuts the payload into those pieces and unpacks only an ad
# whose bytes it has not seen, taking the map it made of those bytes before otherwise.
# Either way the payload, and the map unpacked, are the same as msgpack's own.

SPLIT_MIN_BYTES: Final = 16 * 1024
"""The smallest payload :func:`decode_stamped` cuts into its ads (a small one is unpacked
whole: the cut would cost more than it saves)."""

_SEEN: dict[str, list[dict[bytes, Any]]] = {}
"""For each listed command, the ads of the last two payloads :func:`_split_unpack` cut (the
negotiator's every cycle: the slot ads, then the submitter ads), each ad's packed bytes to
the map made of them; so no more than two payloads' worth is kept. The maps are shared
between messages: the ads decoded from them only read them (a negotiator's ad of a query
result keeps its map as its wire form anyway)."""

_PACKER: Final = msgpack.Packer(use_bin_type=True)
_STAMP_PACKED: Final = msgpack.packb(STAMP_KEY)


def _spliced(msg: Message, spec: _Spec, stamp: Stamp | None) -> bytes | None:
    """The payload :func:`encode` makes of a listed message whose ads are all
    :class:`SealedAd`-s or :class:`StoredAd`-s (a collector's answer), spliced from their kept bytes; None for any
    other (encode packs it whole)."""
    ads = getattr(msg, spec.listed)  # type: ignore[arg-type]
    if type(ads) is not list or not ads:
        return None
    for ad in ads:
        if type(ad) is not SealedAd and type(ad) is not StoredAd:
            return None
    parts = [b"\x83" if stamp is not None else b"\x82", spec.head,
             _PACKER.pack_array_header(len(ads))]
    parts.extend(map(sealed_bytes, ads))
    if stamp is not None:
        parts.append(_STAMP_PACKED)
        parts.append(msgpack.packb(stamp, use_bin_type=True))
    return b"".join(parts)


def _split_unpack(payload: bytes) -> dict[Any, Any] | None:
    """``msgpack.unpackb(payload, ...)`` of a listed message's payload, with each ad's map
    taken from :data:`_SEEN` when its bytes were unpacked before; None when the payload is
    not a listed message's, or is anything but plain (the whole payload is then unpacked as
    any other, and raises what msgpack raises)."""
    first = payload[:1]
    if first != b"\x82" and first != b"\x83":
        return None
    command = next((c for head, c in _LISTED.items() if payload.startswith(head, 1)), None)
    if command is None:
        return None
    obj: dict[Any, Any] = {"cmd": command}
    try:
        unpacker = msgpack.Unpacker(raw=False, strict_map_key=True,
                                    max_buffer_size=len(payload), **UNPACK_LIMITS)
        unpacker.feed(payload)
        unpacker.read_map_header()
        unpacker.skip()  # "cmd" and the command: the head matched
        unpacker.skip()
        field = unpacker.unpack()
        count = unpacker.read_array_header()
        if count > UNPACK_LIMITS["max_array_len"]:
            return None
        before = _SEEN.get(command, [])
        seen: dict[bytes, Any] = {}
        maps: list[Any] = []
        tell, skip = unpacker.tell, unpacker.skip
        start = tell()
        for _ in range(count):
            skip()
            end = tell()
            blob = payload[start:end]
            start = end
            for kept in reversed(before):  # the last payload's first
                mapping = kept.get(blob)
                if mapping is not None:
                    break
            else:
                mapping = seen.get(blob)
                if mapping is None:
                    mapping = _unpack(blob)
            seen[blob] = mapping
            maps.append(mapping)
        obj[field] = maps
        if first == b"\x83":
            key = unpacker.unpack()
            if type(key) is not str:  # strict_map_key: msgpack refuses any other key
                return None
            obj[key] = unpacker.unpack()
        if tell() != len(payload):
            return None
    except Exception:  # msgpack raises several unrelated types: unpacked whole, it says why
        return None
    _SEEN[command] = [*before[-1:], seen]
    return obj


# ---- encoding and decoding of one message map -------------------------------------------


def _encode_map(msg: Message) -> dict[str, Any]:
    spec = _BY_CLASS.get(type(msg))
    if spec is None:
        raise TypeError(f"{type(msg).__name__} is not a registered message")
    out: dict[str, Any] = {"cmd": spec.command}
    for name, enc in spec.encoders:
        try:
            out[name] = enc(getattr(msg, name))
        except _Bad as b:
            raise TypeError(f"{spec.command}: field {name}{''.join(b.path)}: {b.reason}") from None
    return out


def _decode_map(obj: dict[Any, Any], expected: _Spec | None) -> Message:
    cmd = obj.get("cmd")
    if type(cmd) is not str:
        raise ProtocolError(f"message has no 'cmd' string (got {_kind(cmd)})")
    spec = _BY_COMMAND.get(cmd)
    if spec is None:
        raise ProtocolError(f"unknown command {_short(repr(cmd))}", command=_short(cmd))
    if expected is not None and spec is not expected:
        raise _Bad(f"expected a {expected.command} message, got {cmd}")
    if len(obj) != spec.map_len:
        _raise_wrong_keys(spec, obj)
    kwargs = {}
    for name, dec in spec.decoders:
        try:
            value = obj[name]
        except KeyError:
            _raise_wrong_keys(spec, obj)
        try:
            kwargs[name] = dec(value)
        except _Bad as b:
            where = name + "".join(b.path)
            raise ProtocolError(
                f"{cmd}: field {where}: {b.reason}", command=cmd, field=name
            ) from None
        except ProtocolError as e:  # from a nested message map
            raise ProtocolError(
                f"{cmd}: field {name}: {e.reason}", command=cmd, field=name
            ) from None
    return spec.cls(**kwargs)


def _raise_wrong_keys(spec: _Spec, obj: dict[Any, Any]) -> typing.NoReturn:
    wanted = {name for name, _ in spec.decoders}
    missing = sorted(wanted - obj.keys())
    extra = sorted(_short(repr(k)) for k in obj.keys() - wanted - {"cmd"})
    parts = []
    if missing:
        parts.append("missing field(s) " + ", ".join(missing))
    if extra:
        parts.append("unknown field(s) " + ", ".join(extra[:10]))
    field = missing[0] if missing else None
    raise ProtocolError(f"{spec.command}: {'; '.join(parts)}", command=spec.command, field=field)


# ---- per-annotation converters, built once at registration ------------------------------


def _converters(tp: Any, where: str) -> tuple[_Encoder, _Decoder]:
    """Return (encoder, decoder) for annotation ``tp``; ``where`` names it in errors."""
    if tp in _SCALARS:
        return _SCALARS[tp]
    if tp is ClassAd:
        if where in STORED_AD_FIELDS:
            return _encode_ad, _decode_stored_ad
        return _encode_ad, _decode_lazy_ad if where in LAZY_AD_FIELDS else _decode_ad
    if tp is Message:
        return _encode_nested, _decode_any_nested
    if isinstance(tp, type) and tp in _BY_CLASS:
        return _nested_converters(_BY_CLASS[tp])
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (types.UnionType, typing.Union):
        others = [a for a in args if a is not type(None)]
        if len(others) == 1 and len(args) == 2:
            return _optional_converters(*_converters(others[0], where))
    elif origin is list and len(args) == 1:
        if args[0] is ClassAd:  # a query result: the same named ads come again and again
            return _list_converters(_encode_ad, _decode_listed_ad)
        return _list_converters(*_converters(args[0], where))
    elif origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return _tuple_converters(*_converters(args[0], where))
    elif origin is tuple and args and Ellipsis not in args:
        return _fixed_tuple_converters([_converters(a, where) for a in args])
    elif origin is dict and len(args) == 2 and args[0] is str:
        return _dict_converters(*_converters(args[1], where))
    raise TypeError(f"{where}: the wire cannot carry a field of type {tp!r}")


def _exact(tp: type, what: str) -> tuple[_Encoder, _Decoder]:
    def check(v: Any) -> Any:
        if type(v) is not tp:
            raise _Bad(f"expected {what}, got {_kind(v)}")
        return v

    return check, check


def _encode_float(v: Any) -> Any:
    t = type(v)
    if t is float:
        return v
    if t is int:
        return float(v)
    raise _Bad(f"expected a float, got {_kind(v)}")


_SCALARS: Final[dict[Any, tuple[_Encoder, _Decoder]]] = {
    int: _exact(int, "an integer"),
    bool: _exact(bool, "a boolean"),
    str: _exact(str, "a string"),
    bytes: _exact(bytes, "bytes"),
    float: (_encode_float, _encode_float),
}


def _encode_ad(v: Any) -> Any:
    if not isinstance(v, ClassAd):
        raise _Bad(f"expected a ClassAd, got {_kind(v)}")
    return ad_to_wire(v)


def _ad_decoder(from_wire: Callable[[Any], ClassAd]) -> _Decoder:
    def decode_ad(w: Any) -> Any:
        if type(w) is not dict:
            raise _Bad(f"expected a ClassAd map, got {_kind(w)}")
        try:
            return from_wire(w)
        except ClassAdWireError as e:
            raise _Bad(f"bad ClassAd: {_short(str(e))}") from None

    return decode_ad


_decode_ad = _ad_decoder(ad_from_wire)
# the ads of LAZY_AD_FIELDS: checked in full, their trees made at first use
_decode_lazy_ad = _ad_decoder(ad_from_wire_lazy)
# the ads of STORED_AD_FIELDS: lazy, keeping the map msgpack made (it is no one else's)
_decode_stored_ad = _ad_decoder(functools.partial(ad_from_wire_lazy, kept=True))
# the ads of a list (a query result): the same named ads come again and again
_decode_listed_ad = _ad_decoder(ad_from_wire_named)


def _encode_nested(v: Any) -> Any:
    if not isinstance(v, Message):
        raise _Bad(f"expected a message, got {_kind(v)}")
    return _encode_map(v)


def _decode_any_nested(w: Any) -> Any:
    if type(w) is not dict:
        raise _Bad(f"expected a message map, got {_kind(w)}")
    return _decode_map(w, None)


def _nested_converters(spec: _Spec) -> tuple[_Encoder, _Decoder]:
    def enc(v: Any) -> Any:
        if type(v) is not spec.cls:
            raise _Bad(f"expected a {spec.command} message, got {_kind(v)}")
        return _encode_map(v)

    def dec(w: Any) -> Any:
        if type(w) is not dict:
            raise _Bad(f"expected a {spec.command} message map, got {_kind(w)}")
        return _decode_map(w, spec)

    return enc, dec


def _optional_converters(enc: _Encoder, dec: _Decoder) -> tuple[_Encoder, _Decoder]:
    def enc_opt(v: Any) -> Any:
        return None if v is None else enc(v)

    def dec_opt(w: Any) -> Any:
        return None if w is None else dec(w)

    return enc_opt, dec_opt


def _each(conv: Callable[[Any], Any], items: Any) -> list[Any]:
    out = []
    for i, item in enumerate(items):
        try:
            out.append(conv(item))
        except _Bad as b:
            b.path.insert(0, f"[{i}]")
            raise
    return out


def _list_converters(enc: _Encoder, dec: _Decoder) -> tuple[_Encoder, _Decoder]:
    def enc_list(v: Any) -> Any:
        if type(v) is not list:
            raise _Bad(f"expected a list, got {_kind(v)}")
        return _each(enc, v)

    def dec_list(w: Any) -> Any:
        if type(w) is not list:
            raise _Bad(f"expected an array, got {_kind(w)}")
        return _each(dec, w)

    return enc_list, dec_list


def _tuple_converters(enc: _Encoder, dec: _Decoder) -> tuple[_Encoder, _Decoder]:
    def enc_tuple(v: Any) -> Any:
        if type(v) is not tuple:
            raise _Bad(f"expected a tuple, got {_kind(v)}")
        return _each(enc, v)

    def dec_tuple(w: Any) -> Any:
        if type(w) is not list:
            raise _Bad(f"expected an array, got {_kind(w)}")
        return tuple(_each(dec, w))

    return enc_tuple, dec_tuple


def _fixed_tuple_converters(
    convs: list[tuple[_Encoder, _Decoder]],
) -> tuple[_Encoder, _Decoder]:
    n = len(convs)
    encs = [c[0] for c in convs]
    decs = [c[1] for c in convs]

    def apply(funcs: list[Callable[[Any], Any]], items: Any) -> list[Any]:
        out = []
        for i, (conv, item) in enumerate(zip(funcs, items, strict=True)):
            try:
                out.append(conv(item))
            except _Bad as b:
                b.path.insert(0, f"[{i}]")
                raise
        return out

    def enc_fixed(v: Any) -> Any:
        if type(v) is not tuple or len(v) != n:
            raise _Bad(f"expected a tuple of {n}, got {_kind(v)}")
        return apply(encs, v)

    def dec_fixed(w: Any) -> Any:
        if type(w) is not list or len(w) != n:
            raise _Bad(f"expected an array of {n}, got {_kind(w)}")
        return tuple(apply(decs, w))

    return enc_fixed, dec_fixed


def _dict_converters(enc: _Encoder, dec: _Decoder) -> tuple[_Encoder, _Decoder]:
    def convert(conv: Callable[[Any], Any], what: str, v: Any) -> Any:
        if type(v) is not dict:
            raise _Bad(f"expected {what}, got {_kind(v)}")
        out = {}
        for key, item in v.items():
            if type(key) is not str:
                raise _Bad(f"expected string keys, got {_kind(key)}")
            try:
                out[key] = conv(item)
            except _Bad as b:
                b.path.insert(0, f"[{_short(repr(key))}]")
                raise
        return out

    def enc_dict(v: Any) -> Any:
        return convert(enc, "a dict", v)

    def dec_dict(w: Any) -> Any:
        return convert(dec, "a map", w)

    return enc_dict, dec_dict


# ---- error text helpers ------------------------------------------------------------------

_KIND_NAMES: Final = {
    type(None): "nil",
    bool: "a boolean",
    int: "an integer",
    float: "a float",
    str: "a string",
    bytes: "bytes",
    list: "an array",
    tuple: "a tuple",
    dict: "a map",
}


def _kind(v: Any) -> str:
    """Name the type of a (decoded) value for an error message."""
    name = _KIND_NAMES.get(type(v))
    if name is not None:
        return name
    if isinstance(v, msgpack.ExtType):
        return f"msgpack extension type {v.code}"
    return type(v).__name__


def _short(text: str, limit: int = 80) -> str:
    """Cut peer-supplied text that goes into an error message to a readable length."""
    return text if len(text) <= limit else text[: limit - 3] + "..."
