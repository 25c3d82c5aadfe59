"""Transforms named in the configuration: the schedd's ``JOB_TRANSFORM_NAMES``.

How this works
--------------
:meth:`JobTransforms.from_config` reads ``JOB_TRANSFORM_NAMES`` as HTCondor's schedd does
(``JobTransforms::initAndReconfig``): for each name (``NAMES`` skipped) the knob
``JOB_TRANSFORM_<name>`` is read unexpanded and parsed; a value that starts with ``[`` is
the old ClassAd syntax: it is expanded and converted. A knob that is missing, empty or
does not parse is left out, with its error kept (the schedd logs it).

:meth:`JobTransforms.apply` transforms one submitted job (cluster and proc attributes
together): each transform whose REQUIREMENTS match the job as transformed so far, in
order, one macro table per job. As the schedd writes every changed attribute into the
job, an attribute a transform deleted is set to ``undefined``. A failure refuses the
submission ("Failed to apply a required job transform.").
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from condorsim.classad import UNDEFINED, ClassAd

from ._apply import Result, apply_all
from ._convert import convert_route_ad, split_route_ads
from ._errors import TransformError
from ._macros import TransformMacros
from ._parse import parse_transform
from ._program import Transform

__all__ = ["FAILED_TRANSFORM", "JobTransforms", "load_named_transform"]

FAILED_TRANSFORM = "Failed to apply a required job transform."


class _Config(Protocol):
    def get(self, name: str) -> str | None: ...
    def get_raw(self, name: str) -> str | None: ...
    def get_list(self, name: str) -> list[str]: ...
    def expand(self, text: str) -> str: ...


def load_named_transform(
    raw: str, knob: str, name: str, expand: Callable[[str], str]
) -> Transform:
    """The transform in knob ``knob`` (raw value ``raw``): the transform language, or the old
    ClassAd syntax (``[ ... ]``, expanded with ``expand`` and converted). TransformError
    when it cannot be read."""
    if raw.lstrip().startswith("["):
        ads = split_route_ads(expand(raw), knob)
        if not ads:
            raise TransformError("no ClassAd found", knob)
        converted = convert_route_ad(ads[0], name)
        return parse_transform(converted.text, source=knob, name=converted.name or name)
    return parse_transform(raw, source=knob, name=name)


@dataclass
class JobTransforms:
    """The schedd's submit transforms (see the module comment)."""

    transforms: list[Transform] = field(default_factory=list)
    errors: list[TransformError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    config: Callable[[str], str | None] = field(default=lambda name: None, repr=False)

    @classmethod
    def from_config(cls, config: _Config) -> JobTransforms:
        out = cls(config=config.get_raw)
        try:
            names = config.get_list("JOB_TRANSFORM_NAMES")
        except Exception as exc:  # a ConfigError: the list cannot be expanded
            out.errors.append(TransformError(str(exc), "JOB_TRANSFORM_NAMES"))
            return out
        for name in names:
            if name.upper() == "NAMES":
                continue
            knob = f"JOB_TRANSFORM_{name}"
            raw = config.get_raw(knob)
            if raw is None:
                out.notes.append(f"{knob} not defined, ignoring.")
                continue
            if not raw.strip():
                out.notes.append(f"{knob} definition is empty, ignoring.")
                continue
            try:
                out.transforms.append(load_named_transform(raw, knob, name, config.expand))
            except TransformError as exc:
                out.errors.append(exc)
            except Exception as exc:  # a ConfigError while expanding an old-syntax value
                out.errors.append(TransformError(str(exc), knob))
        return out

    def __bool__(self) -> bool:
        return bool(self.transforms)

    def apply(self, job: ClassAd, *, now: int = 0, rng: random.Random | None = None) -> Result:
        """``job`` transformed (``Result.ok`` false: the submission must be refused)."""
        macros = TransformMacros.create(config=self.config, rng=rng)
        result = apply_all(self.transforms, job, macros=macros, now=now)
        for name in job:
            if name not in result.ad:
                result.ad[name] = UNDEFINED
        return result
