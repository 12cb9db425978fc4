"""Shared base for the frozen result objects of :mod:`evaladdon.stats`."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar, dataclass_transform

import numpy as np

__all__ = ["Interval", "IntervalResult", "Result", "ci_bounds", "holds_interval", "json_safe"]

_BOUNDS = "evaladdon.bounds"
"""Metadata key of the field ``ci``: the names of the two bounds it stands for in ``to_dict()``."""


def _plain(value: Any) -> Any:
    """Convert numpy scalars/arrays and nested containers to plain Python objects."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {}
        for f in dataclasses.fields(value):
            bounds = f.metadata.get(_BOUNDS)
            if bounds is None:
                out[f.name] = _plain(getattr(value, f.name))
            else:  # the held Interval shows as its two bounds, in its place (the JSON of before)
                ci = getattr(value, f.name)
                out[bounds[0]], out[bounds[1]] = _plain(ci.low), _plain(ci.high)
        return out
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


class Result:
    """Mixin for frozen dataclasses: ``to_dict()`` gives plain, JSON-ready values.

    Floats that are NaN stay NaN here; :func:`json_safe` turns them into ``None``
    for writing JSON (NaN is not valid JSON).
    """

    def to_dict(self) -> dict[str, Any]:
        return _plain(self)  # type: ignore[no-any-return]


def json_safe(value: Any) -> Any:
    """Recursively replace non-finite floats by ``None`` so ``json.dumps`` is strict-valid."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


@dataclass(frozen=True)
class Interval(Result):
    """A two-sided confidence interval ``[low, high]`` at ``level`` made by ``method``."""

    estimate: float
    low: float
    high: float
    level: float
    method: str


R = TypeVar("R", bound="IntervalResult")


class IntervalResult(Result):
    """Mixin for a frozen result that holds its confidence interval as the field ``ci``, an :class:`Interval`.

    Declared with :func:`holds_interval` instead of ``@dataclass(frozen=True)``; in the place of the
    bounds it has them and ``ci``: ``ci_low: float``, ``ci_high: float``, ``ci: Interval =
    field(init=False, metadata=ci_bounds())`` (see :class:`~evaladdon.stats.families.estimates.MetricEstimate`),
    and ``_ci_of = ("estimate", "method")`` names the attributes ``ci`` takes its estimate and method from.

    The bounds become init-only (``InitVar``): the constructor takes them by position and by name as
    before, ``__post_init__`` makes ``ci = Interval(estimate, low, high, level, method)``, and they
    read ``ci.low``/``ci.high`` as properties.  ``dataclasses.replace`` carries them over (or takes new
    ones), and ``to_dict()`` shows the bounds where ``ci`` is: the JSON of before, key order included.
    """

    _ci_of: ClassVar[tuple[str, str]] = ("estimate", "method")
    level: Any

    def __post_init__(self, *bounds: Any) -> None:
        estimate, method = self._ci_of
        low, high = bounds
        object.__setattr__(self, "ci", Interval(getattr(self, estimate), low, high, self.level,
                                                getattr(self, method)))


def ci_bounds(low: str = "ci_low", high: str = "ci_high") -> dict[str, tuple[str, str]]:
    """Metadata of the field ``ci`` of an :class:`IntervalResult`: the names of its two bounds."""
    return {_BOUNDS: (low, high)}


def _bound(end: str) -> property:
    def get(self: Any) -> Any:
        return getattr(self.ci, end)

    get.__doc__ = f"``ci.{end}``"
    return property(get)


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field,))
def holds_interval(cls: type[R]) -> type[R]:
    """``@dataclass(frozen=True)`` for an :class:`IntervalResult`: the two bounds named by the metadata of
    ``ci`` become init-only, then properties reading ``ci``.  To a type checker they stay fields (so
    construction, reading and ``replace`` check as before).  ``dataclasses.replace`` insists on a value
    for an init-only field without a default: the default set here after the class is made is seen by
    ``replace`` alone (it then reads the property); the generated ``__init__`` still requires the bounds."""
    annotations = cls.__dict__["__annotations__"]
    bounds = cls.__dict__["ci"].metadata[_BOUNDS]
    for name in bounds:
        annotations[name] = dataclasses.InitVar(annotations[name])  # type: ignore[call-arg]
    made = dataclass(frozen=True)(cls)
    fields = made.__dataclass_fields__  # type: ignore[attr-defined]
    for name, end in zip(bounds, ("low", "high"), strict=True):
        fields[name].default = None
        setattr(made, name, _bound(end))
    return made
