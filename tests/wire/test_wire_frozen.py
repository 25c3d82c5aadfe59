"""The message classes are made cheaply (condorsim.wire._frozen) but must behave exactly as
``dataclass(frozen=True, slots=True, kw_only=True)`` makes them: the same fields,
signature, docstring, repr, equality, hash, immutability, errors and pickling."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
import typing
from typing import Any, ClassVar  # noqa: F401 (a string annotation below names it)

import pytest

from condorsim.classad import ClassAd
from condorsim.wire import messages
from condorsim.wire._frozen import frozen_dataclass
from condorsim.wire.codec import Message, registered_messages


def _pair(body: dict[str, str], doc: str | None = None) -> tuple[Any, Any]:
    """The same class made twice: by dataclasses and by frozen_dataclass."""
    made: list[Any] = []
    for make in (dataclasses.dataclass(frozen=True, slots=True, kw_only=True), frozen_dataclass):
        ns: dict[str, Any] = {"__annotations__": dict(body), "__module__": __name__,
                              "__qualname__": "Sample", "__doc__": doc}
        made.append(make(type("Sample", (Message,), ns)))
    return made[0], made[1]


def _outcome(f: Any) -> tuple[str, str]:
    try:
        return "ok", repr(f())
    except Exception as e:
        return type(e).__name__, str(e)


def _behaviour(cls: Any, values: dict[str, Any]) -> list[Any]:
    a, b = cls(**values), cls(**copy.deepcopy(values))
    names = [f.name for f in dataclasses.fields(cls)]
    first = names[0] if names else "nothing"
    return [
        [(f.name, f.type, f.kw_only, f.init, f.repr, f.compare, f.hash,
          f.default is dataclasses.MISSING) for f in dataclasses.fields(cls)],
        cls.__doc__, cls.__slots__, cls.__match_args__, str(inspect.signature(cls)),
        cls.__init__.__annotations__, cls.__init__.__qualname__, cls.__repr__.__qualname__,
        repr(cls.__dataclass_params__), sorted(vars(cls)),
        repr(a), a == b, a != b, a == 1, a.__eq__(1), _outcome(lambda: hash(a) == hash(b)),
        _outcome(lambda: setattr(a, first, 1)), _outcome(lambda: delattr(a, first)),
        _outcome(lambda: setattr(a, "other", 1)), _outcome(lambda: delattr(a, "other")),
        _outcome(lambda: cls(*values.values())), _outcome(lambda: cls(other=1, **values)),
        _outcome(lambda: cls(**dict(list(values.items())[1:]))),
        _outcome(lambda: pickle.loads(pickle.dumps(a)) == a), _outcome(a.__getstate__),
        _outcome(lambda: copy.deepcopy(a) == a), repr(dataclasses.asdict(a)),
        # (_outcome: under CPython 3.11.2 the class dataclasses makes here has a __weakref__
        # descriptor that raises TypeError for its own instances -- 3.11.7 does not; ours
        # must do whatever the running interpreter's dataclasses do)
        repr(dataclasses.replace(a)), _outcome(lambda: hasattr(a, "__dict__")),
        _outcome(lambda: hasattr(a, "__weakref__")),
    ]


@pytest.mark.parametrize(
    ("body", "values"),
    [
        ({}, {}),
        ({"claim_id": "str"}, {"claim_id": "c1"}),
        ({"round": "int", "next_deadline": "float | None", "eoi_pending": "bool"},
         {"round": 3, "next_deadline": None, "eoi_pending": True}),
        ({"job": "str", "ad": "ClassAd"}, {"job": "1.0", "ad": ClassAd({"A": 1})}),
        ({"self": "str", "ids": "list[str]"}, {"self": "x", "ids": ["1.0"]}),
    ],
)
def test_cheap_class_behaves_as_dataclasses_makes_it(
    body: dict[str, str], values: dict[str, Any]
) -> None:
    real, cheap = _pair(body)
    assert _behaviour(cheap, values) == _behaviour(real, values)


def test_a_docstring_is_kept() -> None:
    real, cheap = _pair({"job": "str"}, doc="The job's exit.")
    assert cheap.__doc__ == real.__doc__ == "The job's exit."


def test_a_recursive_repr_ends_in_an_ellipsis() -> None:
    real, cheap = _pair({"items": "list[Any]"})
    loop_real, loop_cheap = real(items=[]), cheap(items=[])
    loop_real.items.append(loop_real)
    loop_cheap.items.append(loop_cheap)
    assert repr(loop_cheap) == repr(loop_real) == "Sample(items=[...])"


def test_anything_unusual_goes_through_dataclasses() -> None:
    """A default, a ClassVar or a method dataclasses would write is dataclasses' own work."""
    ns = {"__annotations__": {"a": "int", "n": "ClassVar[int]"}, "__module__": __name__,
          "a": 1, "n": 2}
    cls: Any = frozen_dataclass(type("WithDefault", (Message,), ns))
    assert cls().a == 1 and [f.name for f in dataclasses.fields(cls)] == ["a"]
    assert cls.__init__.__qualname__ == "WithDefault.__init__"


def test_every_message_class_is_a_frozen_dataclass_with_its_fields() -> None:
    for command, cls in registered_messages().items():
        assert dataclasses.is_dataclass(cls), command
        assert cls.__dataclass_params__.frozen, command
        names = [f.name for f in dataclasses.fields(cls)]
        assert names == list(inspect.get_annotations(cls)), command
        assert cls.__match_args__ == (), command
    msg = messages.ALIVE(claim_id="c1")
    with pytest.raises(dataclasses.FrozenInstanceError):
        msg.claim_id = "c2"  # type: ignore[misc]
    assert repr(msg) == "ALIVE(claim_id='c1')"
    other: Message = messages.RELEASE_CLAIM(claim_id="c1")
    assert msg == messages.ALIVE(claim_id="c1") and msg != other


def test_the_field_types_are_the_ones_typing_finds() -> None:
    """The codec evaluates each annotation text once per module; the types must be those
    typing.get_type_hints gives, class by class."""
    from condorsim.wire.codec import _field_types

    for command, cls in registered_messages().items():
        hints = typing.get_type_hints(cls)
        assert _field_types(cls) == {f.name: hints[f.name] for f in dataclasses.fields(cls)}, \
            command
    # a field named like a builtin the annotations use: typing's own lookup is used
    ns = {"__annotations__": {"str": "int", "name": "str"}, "__module__": __name__}
    odd: Any = frozen_dataclass(type("Odd", (Message,), ns))
    assert _field_types(odd) == typing.get_type_hints(odd)
