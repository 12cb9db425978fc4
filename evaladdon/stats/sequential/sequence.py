"""The result of a confidence sequence, and the pieces every construction shares.

A confidence sequence (CS) at level ``1 - alpha`` is a sequence of intervals ``C_1, C_2, ...``
with the *time-uniform* guarantee ``P(exists t: truth not in C_t) <= alpha``: the interval may be
read after every sample and a run may be stopped at any data-dependent time without losing the
level (Darling & Robbins 1967; Howard, Ramdas, McAuliffe & Sekhon 2021, Ann. Statist. 49(2)).
A fixed-n interval read after every sample does not keep its level (``docs/sequential.md``).

Every CS here is intersected over time (``C_t <- C_t ∩ C_{t-1}``), which keeps the guarantee
(the event "the truth never leaves" is the same) and makes the intervals nested.  An empty
intersection (``low > high``) can only happen on the event of probability <= alpha and is left
visible, never repaired.

The predictable plug-in estimates of Waudby-Smith & Ramdas (2024, JRSS-B 86(1), Eq. (13)-(14)):
``mu_t = (1/2 + sum_{i<=t} x_i)/(t+1)``, ``s2_t = (1/4 + sum_{i<=t} (x_i - mu_i)^2)/(t+1)`` and the
bet ``lambda_t = min(sqrt(2 log(2/alpha) / (s2_{t-1} t log(1+t))), c)``: all running sums, so one
more sample is O(1) work (:mod:`.stream`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from evaladdon.stats._base.result import Interval, Result

__all__ = ["ConfidenceSequence", "as_unit_scores", "plugin_bets", "plugin_moments", "running_intersection"]

FloatArray = NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class ConfidenceSequence(Result):
    """Intervals ``[low[t-1], high[t-1]]`` after each of ``n`` samples, with the running estimate.

    ``method`` names the construction; ``alpha`` is the time-uniform error
    ``P(exists t: truth not in [low_t, high_t]) <= alpha``.
    """

    method: str
    alpha: float
    estimate: FloatArray
    low: FloatArray
    high: FloatArray

    @property
    def n(self) -> int:
        return int(self.estimate.shape[-1])

    def at(self, t: int) -> Interval:
        """The interval after ``t`` samples (1-based) as an :class:`Interval`."""
        if not 1 <= t <= self.n:
            raise ValueError(f"t must be in 1..{self.n}, got {t}")
        return Interval(float(self.estimate[t - 1]), float(self.low[t - 1]), float(self.high[t - 1]),
                        1.0 - self.alpha, self.method)

    @property
    def last(self) -> Interval:
        return self.at(self.n)

    def width(self) -> FloatArray:
        return self.high - self.low


def as_unit_scores(x: ArrayLike, name: str = "scores") -> FloatArray:
    """Scores as a float array with every value in ``[0, 1]`` (ValueError naming what is wrong)."""
    arr = np.asarray(x, dtype=float)
    if arr.ndim == 0 or arr.shape[-1] == 0:
        raise ValueError(f"{name}: no samples")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: NaN or infinite values (drop unscored samples first)")
    if np.any(arr < 0) or np.any(arr > 1):
        raise ValueError(f"{name}: values outside [0, 1] (rescale bounded scores, or use the normal mixture)")
    return arr


def check_alpha(alpha: float) -> float:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    return float(alpha)


def plugin_moments(x: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``(mu_{t-1}, s2_{t-1})`` for t = 1..T along the last axis: the predictable plug-in mean and
    variance of Waudby-Smith & Ramdas (2024), Eq. (13)-(14), with priors 1/2 and 1/4."""
    t = np.arange(1, x.shape[-1] + 1, dtype=float)
    mu = (0.5 + np.cumsum(x, axis=-1)) / (t + 1.0)            # mu_t, t = 1..T
    s2 = (0.25 + np.cumsum((x - mu) ** 2, axis=-1)) / (t + 1.0)
    mu_prev = np.concatenate([np.full(x.shape[:-1] + (1,), 0.5), mu[..., :-1]], axis=-1)
    s2_prev = np.concatenate([np.full(x.shape[:-1] + (1,), 0.25), s2[..., :-1]], axis=-1)
    return mu_prev, s2_prev


def plugin_bets(s2_prev: FloatArray, alpha: float, cap: float) -> FloatArray:
    """``lambda_t = min(sqrt(2 log(2/alpha) / (s2_{t-1} t log(1+t))), cap)`` (WSR 2024, Eq. (15))."""
    t = np.arange(1, s2_prev.shape[-1] + 1, dtype=float)
    lam: FloatArray = np.sqrt(2.0 * np.log(2.0 / alpha) / (s2_prev * t * np.log1p(t)))
    return np.minimum(lam, cap)


def running_intersection(low: FloatArray, high: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``max`` of the lower ends and ``min`` of the upper ends so far (nested intervals)."""
    return np.maximum.accumulate(low, axis=-1), np.minimum.accumulate(high, axis=-1)
