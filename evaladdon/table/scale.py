"""A metric's scale, decided once on the table: scores all in [0, 1] (a proportion, shown in
points; effect sizes such as ``2pt`` read as points of it) or anything else (its own units)."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["bounded_metric", "shown_in_points", "unit_interval"]


def unit_interval(values: np.ndarray) -> bool:
    """Whether every finite value lies in [0, 1] (effect sizes such as ``2pt`` then read as
    points of a proportion)."""
    v = values[np.isfinite(values)]
    return bool(v.size == 0 or (v.min() >= 0 and v.max() <= 1))


def bounded_metric(df: Any) -> bool:
    """Whether every usable score of ``df`` lies in [0, 1] (effect sizes then read as fractions/points)."""
    return unit_interval(df["value"].to_numpy(dtype=float))


def shown_in_points(*values: np.ndarray) -> bool:
    """The one rule of a comparison's units: in (percentage) points when every finite value
    compared lies in [0, 1] (0/1 scores, proportions, a BLEU or ROUGE logged on [0, 1]), else in
    the metric's own units (a 1-5 score is never points).  Every output mode and the gate's
    margin read it from the comparison (``RunComparison.points``)."""
    return all(unit_interval(np.asarray(v, dtype=float)) for v in values)
