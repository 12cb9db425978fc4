"""Shared base for the frozen result objects of :mod:`evaladdon.stats`."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Interval", "Result", "json_safe"]


def _plain(value: Any) -> Any:
    """Convert numpy scalars/arrays and nested containers to plain Python objects."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
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
