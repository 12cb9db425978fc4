"""Shared base for the frozen result objects of :mod:`evaladdon.stats`."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

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

    The class declares, where the two bounds used to be fields, two init-only bounds and the field
    ``ci`` (with :func:`ci_bounds`), and is decorated with :func:`holds_interval`::

        @holds_interval
        @dataclass(frozen=True)
        class MetricEstimate(IntervalResult):
            _ci_of: ClassVar[tuple[str, str]] = ("estimate", "method")
            name: str
            estimate: float
            if TYPE_CHECKING:  # to a type checker the bounds read like fields (they are properties of ``ci``)
                ci_low: float
                ci_high: float
            else:
                ci_low: InitVar[float]
                ci_high: InitVar[float]
            ci: Interval = field(init=False, metadata=ci_bounds())
            level: float
            method: str

    So the constructor takes the bounds by position and by name as before, ``ci_low``/``ci_high``
    read ``ci.low``/``ci.high``, ``dataclasses.replace`` carries them over (or takes new ones),
    and ``to_dict()`` shows ``ci_low``/``ci_high`` where ``ci`` is: the JSON of before, key order
    included.  ``ci`` is ``Interval(estimate, low, high, level, method)`` with the estimate and
    method read from the attributes named by ``_ci_of``.
    """

    _ci_of: ClassVar[tuple[str, str]] = ("estimate", "method")
    level: Any

    def __post_init__(self, *bounds: Any) -> None:
        estimate, method = self._ci_of
        low, high = bounds
        object.__setattr__(self, "ci", Interval(getattr(self, estimate), low, high, self.level,
                                                getattr(self, method)))


def ci_bounds(low: str = "ci_low", high: str = "ci_high") -> dict[str, tuple[str, str]]:
    """Metadata of the field ``ci`` of an :class:`IntervalResult`, made from the init-only bounds ``low``
    and ``high``: ``ci: Interval = field(init=False, metadata=ci_bounds())`` (spelled out so that type
    checkers see ``init=False``)."""
    return {_BOUNDS: (low, high)}


def _bound(end: str) -> property:
    def get(self: Any) -> Any:
        return getattr(self.ci, end)

    get.__doc__ = f"``ci.{end}``"
    return property(get)


def holds_interval(cls: type[R]) -> type[R]:
    """Finish an :class:`IntervalResult` dataclass: its two init-only bounds become properties reading
    ``ci``, and ``dataclasses.replace`` reads them there when not given (it insists on a value for an
    init-only field without a default; the default set here is seen by ``replace`` alone, the
    generated ``__init__`` still requires the bounds)."""
    fields = cls.__dataclass_fields__  # type: ignore[attr-defined]
    (ci,) = [f for f in fields.values() if _BOUNDS in f.metadata]
    for name, end in zip(ci.metadata[_BOUNDS], ("low", "high"), strict=True):
        fields[name].default = None  # an InitVar: replace() now takes getattr(obj, name), the property
        setattr(cls, name, _bound(end))
    return cls
