"""Confidence intervals for a binomial proportion and for a mean.

Formulas follow Brown, Cai & DasGupta (2001), "Interval Estimation for a Binomial
Proportion", Statistical Science 16(2), 101-133, and Agresti & Coull (1998).
Oracle in the tests: ``statsmodels.stats.proportion.proportion_confint`` for every
method, plus the published values listed in ``tests/stats/test_intervals.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Literal

import numpy as np

from evaladdon.stats._base.checks import check_level, whole

# Interval is defined beside Result (evaladdon.stats._base.result) and re-exported here
from evaladdon.stats._base.result import Interval

__all__ = [
    "PROPORTION_METHODS", "ProportionInterval", "ProportionMethod", "proportion_interval", "t_bounds", "t_interval",
]

ProportionMethod = Literal["wilson", "clopper-pearson", "jeffreys", "agresti-coull", "wald"]
PROPORTION_METHODS: tuple[str, ...] = ("wilson", "clopper-pearson", "jeffreys", "agresti-coull", "wald")


@dataclass(frozen=True)
class ProportionInterval(Interval):
    """Interval for ``successes`` out of ``n`` Bernoulli trials."""

    successes: int
    n: int


def _z(level: float) -> float:
    from statistics import NormalDist  # Wichura's AS241, full double precision, no scipy import

    return float(NormalDist().inv_cdf(0.5 + level / 2.0))


def _wilson(k: int, n: int, level: float) -> tuple[float, float]:
    """Wilson's (1927) score interval: centre ``(k + z^2/2)/(n + z^2)``, half-width
    ``z sqrt(n) / (n + z^2) * sqrt(p(1-p) + z^2/(4n))``; exactly 0 at k = 0 and 1 at k = n."""
    p = k / n
    z = _z(level)
    z2 = z * z
    centre = (k + z2 / 2.0) / (n + z2)
    half = z * math.sqrt(n) / (n + z2) * math.sqrt(p * (1.0 - p) + z2 / (4.0 * n))
    low, high = centre - half, centre + half
    if k == 0:
        low = 0.0
    if k == n:
        high = 1.0
    return low, high


def _clopper_pearson(k: int, n: int, level: float) -> tuple[float, float]:
    """The exact interval: ``Beta(a/2; k, n-k+1)`` and ``Beta(1-a/2; k+1, n-k)`` quantiles, 0 at
    k = 0 and 1 at k = n (Clopper & Pearson 1934)."""
    # imported here: _dist loads scipy.special, which `evaladdon ci` (Wilson) never needs
    from evaladdon.stats._base.dist import beta_ppf

    alpha = 1.0 - level
    low = 0.0 if k == 0 else float(beta_ppf(alpha / 2.0, k, n - k + 1))
    high = 1.0 if k == n else float(beta_ppf(1.0 - alpha / 2.0, k + 1, n - k))
    return low, high


def _jeffreys(k: int, n: int, level: float) -> tuple[float, float]:
    """Equal-tailed ``Beta(k + 1/2, n - k + 1/2)`` quantiles, 0 at k = 0 and 1 at k = n (BCD 2001,
    section 4.1.2)."""
    from evaladdon.stats._base.dist import beta_ppf

    alpha = 1.0 - level
    low = 0.0 if k == 0 else float(beta_ppf(alpha / 2.0, k + 0.5, n - k + 0.5))
    high = 1.0 if k == n else float(beta_ppf(1.0 - alpha / 2.0, k + 0.5, n - k + 0.5))
    return low, high


def _agresti_coull(k: int, n: int, level: float) -> tuple[float, float]:
    """Wald around ``p~ = (k + z^2/2)/(n + z^2)`` with ``n~ = n + z^2`` (Agresti & Coull 1998)."""
    z = _z(level)
    n_tilde = n + z * z
    p_tilde = (k + z * z / 2.0) / n_tilde
    half = z * math.sqrt(p_tilde * (1.0 - p_tilde) / n_tilde)
    return p_tilde - half, p_tilde + half


def _wald(k: int, n: int, level: float) -> tuple[float, float]:
    """``p +- z sqrt(p(1-p)/n)`` (for contrast only: BCD 2001)."""
    p = k / n
    z = _z(level)
    half = z * math.sqrt(p * (1.0 - p) / n)
    return p - half, p + half


_PROPORTION_BOUNDS: dict[str, Callable[[int, int, float], tuple[float, float]]] = {
    "wilson": _wilson, "clopper-pearson": _clopper_pearson, "jeffreys": _jeffreys, "agresti-coull": _agresti_coull,
    "wald": _wald,
}
"""Each proportion method's unclipped ``(low, high)`` from ``(k, n, level)``."""


def proportion_interval(
    successes: int, n: int, method: str = "wilson", level: float = 0.95
) -> ProportionInterval:
    """Two-sided interval for a binomial proportion ``successes / n``.

    Methods (``z`` = standard normal quantile at ``(1 + level) / 2``, ``p = k/n``):

    - ``wilson``: score interval, centre ``(k + z^2/2)/(n + z^2)``, half-width
      ``z sqrt(n) / (n + z^2) * sqrt(p(1-p) + z^2/(4n))`` (Wilson 1927; BCD 2001 eq. 4).
    - ``clopper-pearson``: exact, ``Beta(a/2; k, n-k+1)`` and ``Beta(1-a/2; k+1, n-k)``
      quantiles, with 0 at k = 0 and 1 at k = n (conservative; for sign-offs).
    - ``jeffreys``: equal-tailed ``Beta(k + 1/2, n - k + 1/2)`` quantiles, with the lower
      bound set to 0 at k = 0 and the upper to 1 at k = n (BCD 2001, section 4.1.2).
    - ``agresti-coull``: Wald around ``p~ = (k + z^2/2)/(n + z^2)`` with ``n~ = n + z^2``,
      clipped to [0, 1] (Agresti & Coull 1998).
    - ``wald``: ``p +- z sqrt(p(1-p)/n)``, clipped to [0, 1]; shown for contrast only --
      it has length 0 at k = 0 and k = n and undercovers badly (BCD 2001).

    Raises ``ValueError`` for ``n`` or ``k`` not a finite whole number, ``n < 1``, ``k`` outside
    ``[0, n]``, or an unknown method.
    """
    level = check_level(level)
    n = whole(n, "n", minimum=1)  # (a one-line ValueError for inf, NaN, 2.5, "x")
    k = whole(successes, "successes")
    if not 0 <= k <= n:
        raise ValueError(f"successes must be between 0 and n={n}, got {k}")
    p = k / n
    method = method.lower().replace("_", "-")
    bounds = _PROPORTION_BOUNDS.get(method)
    if bounds is None:
        raise ValueError(f"unknown interval method {method!r}; choose one of {', '.join(PROPORTION_METHODS)}")
    low, high = bounds(k, n, level)
    return ProportionInterval(
        estimate=p,
        low=float(min(max(low, 0.0), 1.0)),
        high=float(min(max(high, 0.0), 1.0)),
        level=level,
        method=method,
        successes=k,
        n=n,
    )


def t_bounds(estimate: float, se: float, df: float, level: float = 0.95) -> tuple[float, float]:
    """``(low, high)`` of :func:`t_interval`, or ``(nan, nan)`` when no SE or df exists
    (one item, one cluster): the callers record why in their notes."""
    if math.isnan(se) or not df > 0:
        return float("nan"), float("nan")
    if se < 0:
        raise ValueError(f"a standard error must be >= 0, got {se}")
    ti = t_interval(estimate, se, df, level)
    return ti.low, ti.high


def t_interval(estimate: float, se: float, df: float, level: float = 0.95, method: str = "t") -> Interval:
    """``estimate +- t_{df, (1+level)/2} * se``; ``df = inf`` gives the normal interval.

    Oracle in the tests: ``scipy.stats.t.interval``.
    """
    level = check_level(level)
    if not (df > 0):
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    if not math.isfinite(estimate):
        raise ValueError(f"the estimate must be finite, got {estimate}")
    if not (math.isfinite(se) and se >= 0):
        raise ValueError(f"a standard error must be finite and >= 0, got {se}")
    # here: `evaladdon ci` never loads scipy.special
    from evaladdon.stats._base.dist import norm_ppf, t_ppf

    q = float(norm_ppf(0.5 + level / 2.0)) if np.isinf(df) else float(t_ppf(0.5 + level / 2.0, df))
    return Interval(
        estimate=float(estimate),
        low=float(estimate - q * se),
        high=float(estimate + q * se),
        level=level,
        method=method,
    )
