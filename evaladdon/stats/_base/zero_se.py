"""What to do when an estimated standard error is zero, or zero up to round-off.

An estimated SE of 0 (every item, or every cluster mean, the same) does not mean the mean is
known exactly: with 40 correct answers out of 40 the Wilson interval is [0.912, 1], not
[1, 1].  A t interval ``mean +- t * 0`` has width 0 and a t test p = 0, both false.

Rule (documented in ``docs/statistics.md``):

- the SE counts as zero when ``se <= 1e-12 * max|x|`` (relative to the data's scale, so a
  difference ``0.7 - 0.5`` repeated, whose SE is ``1e-17`` from round-off, is caught);
- interval: for values bounded in ``[lo, hi]`` (``[0, 1]`` for scores, ``[-1, 1]`` for
  paired differences of them) the Wilson score interval (Wilson 1927) of the mean mapped to
  ``[0, 1]``, on the number of independent units (clusters, else items).  A Bernoulli
  variable has the largest variance of any variable in ``[0, 1]`` with the same mean
  (Bhatia & Davis 2000), so the interval is valid, conservative for non-0/1 values and exact
  in form for 0/1 values;  unbounded values get no interval (NaN) and a note;
- test of a paired difference: the exact two-sided sign test on the units' total differences
  (units with total 0 left out): ``p = min(1, 2 * Binom.cdf(min(pos, neg); pos + neg, 1/2))``,
  which for 0/1 items is McNemar's exact test.
Oracles in the tests: statsmodels ``proportion_confint(method="wilson")`` and
``scipy.stats.binomtest``.
"""

from __future__ import annotations

import math

import numpy as np

from evaladdon.stats._base.dist import binom_cdf, norm_ppf

__all__ = [
    "RTOL", "bounded_interval", "se_is_zero", "se_is_zero_at", "sign_test", "unit_word", "wilson_bounds", "within",
]

RTOL = 1e-12


def se_is_zero(se: float, values: np.ndarray) -> bool:
    """True when ``se`` is 0 or within round-off of 0 relative to the scale of ``values``."""
    if math.isnan(se):
        return False
    # max |v| as max(max v, -min v): no n-element temporary of |v| (10M values: 76 MB)
    return se_is_zero_at(se, max(float(np.max(values)), -float(np.min(values))) if values.size else 0.0)


def se_is_zero_at(se: float, scale: float) -> bool:
    """:func:`se_is_zero` for values whose largest magnitude ``max|v|`` is ``scale``."""
    if math.isnan(se):
        return False
    return se <= RTOL * scale or se == 0.0


def wilson_bounds(p: float, n: float, level: float) -> tuple[float, float]:
    """Wilson score interval for a proportion ``p`` on ``n`` units (``p n`` need not be whole)."""
    z = float(norm_ppf(0.5 + level / 2.0))
    z2 = z * z
    p = min(max(p, 0.0), 1.0)
    centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n)
    half = z / (1.0 + z2 / n) * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n))
    low, high = centre - half, centre + half
    if p <= 0.0:
        low = 0.0
    if p >= 1.0:
        high = 1.0
    return max(low, 0.0), min(high, 1.0)


def bounded_interval(
    mean: float, n_units: int, level: float, lo: float = 0.0, hi: float = 1.0
) -> tuple[float, float]:
    """Wilson interval for the mean of values in ``[lo, hi]`` on ``n_units`` independent units."""
    width = hi - lo
    low, high = wilson_bounds((mean - lo) / width, float(n_units), level)
    return lo + width * low, lo + width * high


def within(values: np.ndarray, lo: float, hi: float) -> bool:
    return bool(values.size and np.all((values >= lo) & (values <= hi)))


def sign_test(unit_totals: np.ndarray) -> tuple[float, int, int]:
    """Exact two-sided sign test: ``(p, n_positive, n_negative)`` of the unit totals."""
    scale = float(np.max(np.abs(unit_totals))) if unit_totals.size else 0.0
    tol = RTOL * scale
    pos = int(np.sum(unit_totals > tol))
    neg = int(np.sum(unit_totals < -tol))
    if pos + neg == 0:
        return 1.0, 0, 0
    return float(min(1.0, 2.0 * binom_cdf(min(pos, neg), pos + neg, 0.5))), pos, neg


def unit_word(n_units: int, clustered: bool) -> str:
    return f"{n_units} {'cluster' if clustered else 'item'}{'s' if n_units != 1 else ''}"
