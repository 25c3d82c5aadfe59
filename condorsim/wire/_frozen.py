"""Frozen, slotted, keyword-only dataclasses made cheaply: the message classes' machinery.

How this works
--------------
``dataclass(frozen=True, slots=True, kw_only=True)`` compiles six or seven small functions
from source text for every class (``__init__``, ``__repr__``, ``__eq__``, ``__hash__``,
``__setattr__``, ``__delattr__``) and asks :mod:`inspect` for a docstring; for the 100-odd
message classes that was a fifth of every daemon process's start. :func:`frozen_dataclass`
makes the same class for much less:

* :func:`dataclasses.dataclass` still runs, with ``init``, ``repr`` and ``eq`` off and not
  frozen: it builds the fields (``dataclasses.fields``, ``replace``, ``asdict`` work as
  before), ``__match_args__`` and the slotted class, and compiles nothing.
* ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``, ``__delattr__``, ``__getstate__``
  and ``__setstate__`` are shared functions (closures for the two that name the class) doing
  exactly what dataclasses' generated ones do: the same text, the same tuple comparison and
  hash, the same ``FrozenInstanceError``.
* ``__init__`` is compiled from the same source dataclasses would write (so its signature,
  annotations and ``TypeError`` texts are the same), once per tuple of field names and
  module, and reused by every class with those fields.
* ``__doc__`` and ``__dataclass_params__`` are what dataclasses would set.

A class with anything else (a default, a ``ClassVar``, its own ``__eq__``, a dataclass base)
goes through :func:`dataclasses.dataclass` as it is; ``tests/wire`` compares the two.
"""

from __future__ import annotations

import _thread
import dataclasses
import inspect
import sys
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["frozen_dataclass"]

T = TypeVar("T")

# What dataclasses would define, and a class must not define itself to take the cheap path.
_MADE = frozenset({
    "__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__",
    "__getstate__", "__setstate__", "__slots__", "__post_init__", "__match_args__",
})
# Annotation texts the cheap path leaves to dataclasses (pseudo-fields and markers).
_SPECIAL = ("ClassVar", "InitVar", "KW_ONLY")


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class _Prototype:
    """A class made by dataclasses itself: its ``__dataclass_params__`` are the ones to copy."""


_PARAMS = _Prototype.__dataclass_params__  # type: ignore[attr-defined]

# (module, field names) -> the compiled maker of an __init__ for those fields
_INIT_MAKERS: dict[tuple[str, tuple[str, ...]], Callable[..., Any]] = {}


def frozen_dataclass(cls: type[T]) -> type[T]:
    """``dataclass(frozen=True, slots=True, kw_only=True)(cls)``, made without compiling
    more than an ``__init__`` per set of field names."""
    if not _plain(cls):
        return dataclasses.dataclass(frozen=True, slots=True, kw_only=True)(cls)
    if not cls.__doc__:
        cls.__doc__ = cls.__name__ + _signature_text(inspect.get_annotations(cls))
    # dataclasses' __setattr__ and __delattr__ name the class as it was before the slotted
    # copy was made (so setting an attribute that is not a field is a TypeError from super())
    original = cls
    made: Any = dataclasses.dataclass(
        init=False, repr=False, eq=False, slots=True, kw_only=True,
    )(cls)
    made.__dataclass_params__ = _PARAMS
    flds = dataclasses.fields(made)
    names = tuple(f.name for f in flds)
    _install(made, "__init__", _init_fn(made, flds))
    _install(made, "__repr__", _repr_fn(names))
    _install(made, "__eq__", _eq_fn(names))
    _install(made, "__hash__", _hash_fn(names))
    setattr_fn, delattr_fn = _frozen_fns(original, names)
    _install(made, "__setattr__", setattr_fn)
    _install(made, "__delattr__", delattr_fn)
    made.__getstate__ = _dataclass_getstate
    made.__setstate__ = _dataclass_setstate
    return made  # type: ignore[no-any-return]


def _plain(cls: type) -> bool:
    """Whether ``cls`` is a class the cheap path makes exactly as dataclasses would: only
    plain annotated fields without defaults, no dunder of its own, no dataclass base."""
    annotations = inspect.get_annotations(cls)
    for name, annotation in annotations.items():
        if not isinstance(annotation, str) or any(s in annotation for s in _SPECIAL):
            return False
        if name in cls.__dict__:  # a default or a field() spec
            return False
    if _MADE & cls.__dict__.keys():
        return False
    return not any(hasattr(base, "__dataclass_fields__") for base in cls.__mro__[1:])


def _install(cls: type, name: str, fn: Callable[..., Any]) -> None:
    """Set ``fn`` on ``cls`` named as dataclasses names it; only ``__init__`` keeps
    annotations (dataclasses' other functions have none)."""
    fn.__qualname__ = f"{cls.__qualname__}.{fn.__name__}"
    if name != "__init__":
        fn.__annotations__ = {}
    setattr(cls, name, fn)


def _signature_text(annotations: dict[str, str]) -> str:
    """``str(inspect.signature(cls))`` without ``-> None``, as dataclasses' docstring has it."""
    if not annotations:
        return "()"
    return "(*, " + ", ".join(f"{name}: {text!r}" for name, text in annotations.items()) + ")"


def _init_fn(cls: type, flds: tuple[dataclasses.Field[Any], ...]) -> Callable[..., Any]:
    """The ``__init__`` dataclasses would compile for a frozen class of keyword-only ``flds``."""
    names = tuple(f.name for f in flds)
    key = (cls.__module__, names)
    maker = _INIT_MAKERS.get(key)
    if maker is None:
        # dataclasses' own text (_init_fn / _create_fn, frozen, kw_only, no defaults)
        self_name = "__dataclass_self__" if "self" in names else "self"
        params = [self_name, *(["*"] if names else []),
                  *(f"{n}:_type_{n}" for n in names)]
        body = [f"__dataclass_builtins_object__.__setattr__({self_name},{n!r},{n})"
                for n in names] or ["pass"]
        local_vars = ", ".join([*(f"_type_{n}" for n in names),
                                "__dataclass_builtins_object__", "_return_type"])
        text = (f"def __create_fn__({local_vars}):\n"
                f" def __init__({','.join(params)})->_return_type:\n"
                + "\n".join(f"  {line}" for line in body)
                + "\n return __init__")
        module = sys.modules.get(cls.__module__)
        namespace: dict[str, Any] = {}
        # compiled as dataclasses.py compiles it: without this module's future imports
        code = compile(text, "<string>", "exec", dont_inherit=True)
        exec(code, module.__dict__ if module is not None else {}, namespace)
        maker = namespace["__create_fn__"]
        _INIT_MAKERS[key] = maker
    types = {f"_type_{f.name}": f.type for f in flds}
    fn: Callable[..., Any] = maker(**types, __dataclass_builtins_object__=object,
                                   _return_type=None)
    return fn


def _repr_fn(names: tuple[str, ...]) -> Callable[[Any], str]:
    running: set[tuple[int, int]] = set()

    def __repr__(self: Any) -> str:
        key = id(self), _thread.get_ident()
        if key in running:
            return "..."
        running.add(key)
        try:
            qualname: str = self.__class__.__qualname__
            return qualname + "(" + ", ".join([f"{n}={getattr(self, n)!r}" for n in names]) + ")"
        finally:
            running.discard(key)

    return __repr__


def _eq_fn(names: tuple[str, ...]) -> Callable[[Any, Any], Any]:
    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return (tuple([getattr(self, n) for n in names])
                    == tuple([getattr(other, n) for n in names]))
        return NotImplemented

    return __eq__


def _hash_fn(names: tuple[str, ...]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(tuple([getattr(self, n) for n in names]))

    return __hash__


def _frozen_fns(
    cls: type, names: tuple[str, ...],
) -> tuple[Callable[[Any, str, Any], None], Callable[[Any, str], None]]:
    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)  # type: ignore[arg-type]

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)  # type: ignore[arg-type]

    return __setattr__, __delattr__


def _dataclass_getstate(self: Any) -> list[Any]:
    return [getattr(self, f.name) for f in dataclasses.fields(self)]


def _dataclass_setstate(self: Any, state: list[Any]) -> None:
    for field, value in zip(dataclasses.fields(self), state, strict=False):
        object.__setattr__(self, field.name, value)


_dataclass_getstate.__annotations__ = {}
_dataclass_setstate.__annotations__ = {}
