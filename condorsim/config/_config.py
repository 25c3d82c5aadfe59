"""The :class:`Config` object: load a configuration the way condor_config does, then look knobs up.

How this works
--------------
Loading follows ``real_config`` in condor_config.cpp:

1. values detected at start-up: ``SUBSYSTEM``, ``LOCALNAME``, ``TILDE`` (condorsim's
   home, ``$CONDORSIM_HOME`` or ``~/.condorsim``) and ``CONFIG_ROOT``;
2. the main file (or text), with its includes;
3. the files in ``LOCAL_CONFIG_DIR`` (sorted, minus those matching
   ``LOCAL_CONFIG_DIR_EXCLUDE_REGEXP``), then the files in ``LOCAL_CONFIG_FILE``
   (re-read if a local file changes the list), then ``LOCAL_CONFIG_DIR`` again if
   it changed.  A missing local file is an error unless ``REQUIRE_LOCAL_CONFIG_FILE``
   is false.  Relative names are taken relative to the file that set the list;
4. ``_CONDOR_<NAME>`` environment variables (prefix in any case);
5. the ``overrides`` mapping (scenario ``[config]`` tables, the command line).

Values stay raw; :meth:`Config.get` expands them when asked (lazily, as HTCondor
does), so ``A = $(B)`` followed later by ``B = 1`` gives ``A`` the value 1.  The
typed getters read values as HTCondor's ``param_integer`` / ``param_boolean`` /
``param_double`` do, including ClassAd expressions and the table's ranges.

A Config is immutable.  :meth:`Config.with_subsystem` reads the same sources again
for another subsystem, because HTCondor's parser itself depends on the subsystem
(``SCHEDD.X = $(X) more`` appends only when read by the schedd).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from ._errors import DEFAULT, ENVIRONMENT, OVERRIDES, ConfigError, ExpandError, Origin
from ._expand import Expander
from ._knobs import KNOBS
from ._lines import WHITESPACE
from ._locals import read_local_sources, split_list
from ._macros import MacroSet, Resolved, is_valid_name
from ._parser import Parser
from ._typed import InvalidValue, parse_boolean, parse_double, parse_long

__all__ = ["Config", "find_config_file"]

_ENV_PREFIX = "_CONDOR_"


def _condorsim_home(env: Mapping[str, str]) -> Path:
    home = env.get("CONDORSIM_HOME")
    if home:
        return Path(home)
    user_home = env.get("HOME") or os.path.expanduser("~")
    return Path(user_home) / ".condorsim"


def find_config_file(env: Mapping[str, str] = os.environ) -> Path | None:
    """The configuration file to read: ``$CONDORSIM_CONFIG`` if set, else
    ``$CONDORSIM_HOME/condor_config`` (``~/.condorsim/condor_config``) if it exists, else None."""
    explicit = env.get("CONDORSIM_CONFIG")
    if explicit:
        return Path(explicit)
    candidate = _condorsim_home(env) / "condor_config"
    return candidate if candidate.is_file() else None


def _override_text(name: str, value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    raise ConfigError(f"{name}: a configuration value must be a string, number or boolean", OVERRIDES)


@dataclass(frozen=True, slots=True)
class _Recipe:
    """Everything needed to read a configuration again (for :meth:`Config.with_subsystem`)."""

    path: Path | None
    text: str | None
    text_name: str
    base_dir: Path | None
    subsystem: str | None
    local_name: str | None
    overrides: tuple[tuple[str, object], ...]
    env: tuple[tuple[str, str], ...]


class Config:
    """A loaded HTCondor configuration.  Build one with :meth:`load` or :meth:`from_text`."""

    def __init__(self, recipe: _Recipe) -> None:
        self._recipe = recipe
        env = dict(recipe.env)
        self._sources: list[str] = []
        self._warnings: list[str] = []
        detected = {"TILDE": str(_condorsim_home(env))}
        if recipe.subsystem:
            detected["SUBSYSTEM"] = recipe.subsystem.upper()
        if recipe.local_name:
            detected["LOCALNAME"] = recipe.local_name
        if recipe.path is not None:
            detected["CONFIG_ROOT"] = str(recipe.path.parent)
        self._macros = MacroSet(
            subsystem=recipe.subsystem, local_name=recipe.local_name, env=env, detected=detected
        )
        self._expander = Expander(self._macros)
        self._cache: dict[tuple[str, bool], str] = {}
        parser = Parser(self._macros, sources=self._sources, warnings=self._warnings)
        base = recipe.base_dir or Path.cwd()
        if recipe.path is not None:
            parser.parse_file(recipe.path, depth=0)
            read_local_sources(parser, recipe.path.parent)
        elif recipe.text is not None:
            parser.parse_text(recipe.text, recipe.text_name, base, 0)
            read_local_sources(parser, base)
        for key, value in env.items():
            if key[: len(_ENV_PREFIX)].upper() != _ENV_PREFIX:
                continue
            name, value = key[len(_ENV_PREFIX) :].rstrip(WHITESPACE), value.lstrip(WHITESPACE)
            if name == "START_owner":  # HTCondor's glide-in special case
                parser.set_value("START", f'Owner == "{value}"', ENVIRONMENT)
            elif is_valid_name(name):
                parser.set_value(name, value, ENVIRONMENT)
            elif name:
                self._warnings.append(f"<environment>: ignoring {key}: {name!r} is not a knob name")
        for knob, setting in recipe.overrides:
            if not isinstance(knob, str) or not is_valid_name(knob):
                raise ConfigError(f"illegal name {knob!r}", OVERRIDES)
            parser.set_value(knob, _override_text(knob, setting), OVERRIDES)

    # -- construction ----------------------------------------------------------------------

    @classmethod
    def load(
        cls,
        path: str | Path | None,
        subsystem: str | None = None,
        overrides: Mapping[str, str] | None = None,
        env: Mapping[str, str] | None = None,
        *,
        local_name: str | None = None,
    ) -> Config:
        """Read the configuration file ``path`` (None: defaults only) for ``subsystem``.

        ``env`` (default ``os.environ``) gives ``_CONDOR_`` overrides and ``$ENV()``
        values; ``overrides`` are applied last, as if from a final file ``<overrides>``.
        """
        return cls(
            _Recipe(
                path=Path(path) if path is not None else None,
                text=None,
                text_name="",
                base_dir=None,
                subsystem=subsystem,
                local_name=local_name,
                overrides=tuple((overrides or {}).items()),
                env=tuple((os.environ if env is None else env).items()),
            )
        )

    @classmethod
    def from_text(
        cls,
        text: str,
        name: str = "<string>",
        subsystem: str | None = None,
        *,
        overrides: Mapping[str, str] | None = None,
        env: Mapping[str, str] | None = None,
        local_name: str | None = None,
        base_dir: str | Path | None = None,
    ) -> Config:
        """Parse configuration ``text`` named ``name`` in messages.

        Unlike :meth:`load`, the process environment is not read unless ``env`` is
        given, so tests and scenarios see the same values everywhere.  Relative
        includes are taken relative to ``base_dir`` (default: the current directory).
        """
        return cls(
            _Recipe(
                path=None,
                text=text,
                text_name=name,
                base_dir=Path(base_dir) if base_dir is not None else None,
                subsystem=subsystem,
                local_name=local_name,
                overrides=tuple((overrides or {}).items()),
                env=tuple((env or {}).items()),
            )
        )

    def with_subsystem(self, subsystem: str | None) -> Config:
        """The same sources read again for another subsystem."""
        return Config(replace(self._recipe, subsystem=subsystem))

    # -- lookups -------------------------------------------------------------------------

    def _expanded(self, found: Resolved) -> str:
        cache_key = (found.key, found.origin is DEFAULT)
        cached = self._cache.get(cache_key)
        if cached is None:
            try:
                cached = self._expander.expand(found.raw, (found.key,))
            except ExpandError as exc:
                raise ConfigError(f"{found.name}: {exc}", found.origin) from None
            self._cache[cache_key] = cached
        return cached

    def get(self, name: str) -> str | None:
        """The fully expanded value of ``name`` (set, else the table default), or None.

        As HTCondor's ``param()``, a value that expands to nothing counts as undefined.
        """
        found = self._macros.lookup(name)
        if found is None:
            return None
        return self._expanded(found) or None

    def get_raw(self, name: str) -> str | None:
        """The unexpanded value ``get`` would expand, or None."""
        found = self._macros.lookup(name)
        return found.raw if found is not None else None

    def where(self, name: str) -> str:
        """Where the value of ``name`` comes from: ``"pool.conf, line 12"``, ``"<default>"``,
        ``"<environment>"``, ``"<overrides>"``, ``"<detected>"`` or ``"<undefined>"``."""
        found = self._macros.lookup(name)
        return str(found.origin) if found is not None else "<undefined>"

    def names(self) -> list[str]:
        """Every name set by the files, the environment or the overrides (not defaults)."""
        return sorted((m.name for m in self._macros.items.values()), key=str.upper)

    def _typed_text(self, name: str) -> tuple[str, Resolved] | None:
        found = self._macros.lookup(name)
        if found is None:
            return None
        value = self._expanded(found)
        if value.strip(WHITESPACE):
            return value, found
        knob = KNOBS.get(name)
        if knob is not None and knob.default and found.origin is not DEFAULT:
            fallback = Resolved(knob.name.upper(), knob.name, knob.default, DEFAULT)
            value = self._expanded(fallback)
            if value.strip(WHITESPACE):
                return value, fallback
        return None

    def _typed(self, name: str, default: object, kind: str) -> tuple[str, Resolved] | None:
        source = self._typed_text(name)
        if source is None and default is None:
            raise ConfigError(f"{name.upper()} is not defined and has no default ({kind} wanted)")
        return source

    @staticmethod
    def _invalid(found: Resolved, text: str, kind: str, reason: str) -> ConfigError:
        shown = repr(found.raw) if found.raw == text else f"{found.raw!r} (expands to {text!r})"
        return ConfigError(f"{found.name} = {shown} is not a valid {kind}: {reason}", found.origin)

    def _check_range(self, name: str, value: float, found: Resolved, text: str) -> None:
        knob = KNOBS.get(name)
        if knob is None:
            return
        for bound, low in ((knob.minimum, True), (knob.maximum, False)):
            if bound is not None and (value < bound if low else value > bound):
                shown = int(bound) if bound == int(bound) else bound
                word = "low: it must be at least" if low else "high: it must be at most"
                raise ConfigError(f"{found.name} = {text!r} is too {word} {shown}", found.origin)

    def get_int(self, name: str, default: int | None = None) -> int:
        """``name`` as an integer (param_integer); ``default`` when not defined at all."""
        source = self._typed(name, default, "an integer")
        if source is None:
            assert default is not None
            return default
        text, found = source
        try:
            value = parse_long(text)
        except InvalidValue as exc:
            raise self._invalid(found, text, "integer", exc.reason) from None
        self._check_range(name, value, found, text)
        return value

    def get_float(self, name: str, default: float | None = None) -> float:
        """``name`` as a real number (param_double); ``default`` when not defined at all."""
        source = self._typed(name, default, "a number")
        if source is None:
            assert default is not None
            return default
        text, found = source
        try:
            value = parse_double(text)
        except InvalidValue as exc:
            raise self._invalid(found, text, "number", exc.reason) from None
        self._check_range(name, value, found, text)
        return value

    def get_bool(self, name: str, default: bool | None = None) -> bool:
        """``name`` as a boolean (param_boolean); ``default`` when not defined at all."""
        source = self._typed(name, default, "a boolean")
        if source is None:
            assert default is not None
            return default
        text, found = source
        try:
            return parse_boolean(text)
        except InvalidValue as exc:
            raise self._invalid(found, text, "boolean", exc.reason) from None

    def get_list(self, name: str) -> list[str]:
        """``name`` split on commas and white space; empty when not defined."""
        value = self.get(name)
        return split_list(value) if value is not None else []

    # -- facts about the load -----------------------------------------------------------

    @property
    def subsystem(self) -> str | None:
        return self._recipe.subsystem.upper() if self._recipe.subsystem else None

    @property
    def config_source(self) -> str | None:
        """The main file read (None for text or defaults only)."""
        return str(self._recipe.path) if self._recipe.path is not None else None

    @property
    def local_sources(self) -> tuple[str, ...]:
        """Files read after the main file: includes and local configuration files, in order."""
        return tuple(self._sources[1:] if self._recipe.path is not None else self._sources)

    @property
    def warnings(self) -> tuple[str, ...]:
        """Warnings met while reading (``warning :`` lines, obsolete ``:`` assignments...)."""
        return tuple(self._warnings)

    def name_used(self, name: str) -> str | None:
        """The name whose value ``get`` uses (``SCHEDD.X`` for ``X`` read by the schedd), or None."""
        found = self._macros.lookup(name)
        return found.name if found is not None else None

    def entries(self) -> list[tuple[str, str, Origin]]:
        """Every set name with its raw value and origin, sorted by name."""
        return sorted(
            ((m.name, m.raw, m.origin) for m in self._macros.items.values()),
            key=lambda entry: entry[0].upper(),
        )

    def expand(self, text: str) -> str:
        """Expand the macros in ``text`` against this configuration."""
        try:
            return self._expander.expand(text)
        except ExpandError as exc:
            raise ConfigError(f"{text!r}: {exc}") from None

    def origin(self, name: str) -> Origin | None:
        """The :class:`Origin` of the value ``get`` uses, or None."""
        found = self._macros.lookup(name)
        return found.origin if found is not None else None
