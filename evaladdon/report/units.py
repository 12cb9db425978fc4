"""Units and number formats, decided once here for every output mode (text, markdown, the
HTML report and its plots, the MDE sentence and the gate line).

The scale rule (:func:`evaladdon.table.scale.shown_in_points`, applied by the pairing loop to the
values it compares and kept on each comparison as ``RunComparison.points``): a metric whose
every compared value lies in [0, 1] -- 0/1 scores and proportions (accuracy, F1, and a BLEU or
ROUGE logged on [0, 1], where a point is a hundredth of the scale, as they are usually quoted)
-- is shown in percentage points; anything else (a 1-5 jury score, a log-likelihood, a BLEU
logged on 0-100) in its own units, never multiplied.  The gate's ``--margin`` is read on the
same scale (:meth:`evaladdon.analysis.options.GateOptions.margin_for`).

Intervals are written one way everywhere: ``-0.660 to -0.589`` (:func:`interval`).  Numbers too
large for a fixed format (``1e300`` would print 300 digits) are written in scientific notation
(:func:`number`).
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

__all__ = ["LARGE", "amount", "column_unit", "describe", "difference", "interval", "level_text", "magnitude", "number",
           "size"]

LARGE = 1e6
"""At or above this magnitude a number is written in scientific notation (``1.23e+300``)."""


def number(value: Any, digits: int = 4, signed: bool = False) -> str:
    """``value`` with ``digits`` decimals; ``-`` for None, ``nan``/``inf`` as such; scientific
    notation from :data:`LARGE` on (``1e300`` is not printed as 301 digits)."""
    if value is None:
        return "-"
    if isinstance(value, np.floating):
        value = float(value)
    if not isinstance(value, float):
        return str(value)  # counts and text as they are
    sign = "+" if signed else ""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return f"{value:{sign}}"
    if abs(value) >= LARGE:
        return f"{value:{sign}.{max(digits - 1, 2)}e}"
    return f"{value:{sign}.{digits}f}"


def difference(value: float | None, points: bool = True) -> str:
    """A difference on the metric's scale, with its sign: ``+1.2`` (points, of a fraction
    ``0.012``) or ``-2.400`` (own units)."""
    if value is None:
        return "-"
    return number(100 * value, 1, signed=True) if points else number(value, 3, signed=True)


def _absent(value: float | None) -> bool:
    return value is None or value != value  # None or NaN


def interval(low: float | None, high: float | None, points: bool | None = None, digits: int = 3) -> str:
    """An interval, the one convention of every output mode: ``low to high``.  ``points``
    True/False: the bounds of a difference (:func:`difference`); None: plain values with
    ``digits`` decimals."""
    if _absent(low) and _absent(high):  # no interval (not computed): one mark, not "nan to nan"
        return "-"
    if points is None:
        return f"{number(low, digits)} to {number(high, digits)}"
    return f"{difference(low, points)} to {difference(high, points)}"


def magnitude(value: float | None, points: bool = True) -> str:
    """A size on the metric's scale, without a sign (an MDE): ``1.9`` (points) or ``0.315``."""
    if value is None:
        return "-"
    return number(100 * value, 1) if points else number(value, 3)


def amount(value: float | None, points: bool = True) -> str:
    """A difference in a sentence: ``+1.2 points`` or ``-2.400`` (the metric's own units)."""
    return difference(value, points) + (" points" if points else "")


def size(value: float | None, points: bool = True) -> str:
    """A size in a sentence: ``1.9 points`` or ``0.315`` (the metric's own units)."""
    return magnitude(value, points) + (" points" if points else "")


def column_unit(points: Sequence[bool]) -> str:
    """The unit of a column of differences, for its title: ``pts``, ``units`` or ``pts/units``."""
    kinds = set(points)
    return "pts" if kinds == {True} else "units" if kinds == {False} else "pts/units"


def level_text(level: float) -> str:
    """A confidence level as a percentage, with the digits a family's level needs: ``95%``,
    ``98.3%`` (0.95 over 3 comparisons)."""
    return f"{100 * level:.3g}%"


def describe(fraction: float, bounded: bool = True) -> str:
    """A value on the metric's scale in both forms: ``2.0 points (0.02)`` (bounded) or ``0.02``."""
    if not bounded:
        return f"{fraction:g}"
    return f"{number(100 * fraction, 1)} points ({fraction:g})"
