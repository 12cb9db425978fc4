"""Updating a confidence sequence one sample at a time: O(1) work per sample (O(grid) for betting).

:class:`RunningSequence` keeps only running sums -- ``t``, ``sum x``, ``sum (x_i - mu_i)^2``, and for
each construction its own sums (``sum lambda``, ``sum lambda x``, ``sum v psi`` for empirical
Bernstein; ``sum x^2`` for the normal mixture; the log-capital of each grid candidate for betting)
-- plus the running intersection.  After ``t`` updates it equals the batch functions of
:mod:`.bounded` and :mod:`.mixture` on the first ``t`` samples (``tests/stats/test_sequential_stream.py``).
Used by the Inspect early-stopping plug-in, which sees one completed item at a time.
"""

from __future__ import annotations

import math

import numpy as np

from evaladdon.stats._base.result import Interval
from evaladdon.stats.sequential.bounded import _BET_CAP, BETTING_GRID
from evaladdon.stats.sequential.mixture import ASYMPTOTIC_BURN_IN, DEFAULT_T_OPT, mixture_half_width, mixture_r
from evaladdon.stats.sequential.sequence import check_alpha

__all__ = ["RunningSequence"]


class RunningSequence:
    """A confidence sequence updated in place: ``update(x)`` returns the interval after ``x``.

    ``method``: ``betting`` or ``bernstein`` (x in [lo, hi], rescaled to [0, 1] internally by the
    known bounds ``lo``/``hi``), or ``mixture`` (``sigma`` known, else the running SD).
    """

    def __init__(self, method: str = "betting", alpha: float = 0.05, lo: float = 0.0, hi: float = 1.0,
                 grid: int = BETTING_GRID, sigma: float | None = None, t_opt: float = DEFAULT_T_OPT) -> None:
        if method not in ("betting", "bernstein", "mixture"):
            raise ValueError(f"unknown sequence method {method!r}")
        if not hi > lo:
            raise ValueError(f"the score bounds must satisfy lo < hi, got {lo}, {hi}")
        self.method, self.alpha, self.lo, self.hi, self.sigma = method, check_alpha(alpha), lo, hi, sigma
        self.t, self.sum_x, self.sum_sq, self.sum_dev = 0, 0.0, 0.0, 0.0
        self.sum_lam, self.sum_lam_x, self.sum_vpsi = 0.0, 0.0, 0.0
        self.low, self.high = -math.inf, math.inf
        self.r = mixture_r(t_opt, self.alpha)
        self.m = (np.arange(grid, dtype=float) + 0.5) / grid
        self.edges = np.concatenate([[0.0], self.m, [1.0]])
        self.up, self.down = np.zeros(grid), np.zeros(grid)

    def _bet(self) -> float:
        """The predictable plug-in bet from the sums before this sample (WSR 2024, Eq. (15))."""
        t = self.t + 1
        s2_prev = (0.25 + self.sum_dev) / t
        return min(math.sqrt(2.0 * math.log(2.0 / self.alpha) / (s2_prev * t * math.log1p(t))), _BET_CAP)

    def update(self, value: float) -> Interval:
        """Add one sample; return the interval (in the score's own units) after it."""
        if not math.isfinite(value):
            raise ValueError(f"a score must be finite, got {value}")
        x = value if self.method == "mixture" else (value - self.lo) / (self.hi - self.lo)
        if self.method != "mixture" and not 0.0 <= x <= 1.0:
            raise ValueError(f"a score {value} lies outside [{self.lo}, {self.hi}]")
        lam, mu_prev = self._bet(), (0.5 + self.sum_x) / (self.t + 1)
        self.t += 1
        self.sum_x += x
        self.sum_sq += x * x
        self.sum_dev += (x - (0.5 + self.sum_x) / (self.t + 1)) ** 2
        low, high = getattr(self, f"_{self.method}")(x, lam, mu_prev)
        self.low, self.high = max(self.low, low), min(self.high, high)
        return self.interval()

    def _bernstein(self, x: float, lam: float, mu_prev: float) -> tuple[float, float]:
        self.sum_lam += lam
        self.sum_lam_x += lam * x
        self.sum_vpsi += 4.0 * (x - mu_prev) ** 2 * (-math.log1p(-lam) - lam) / 4.0
        centre = self.sum_lam_x / self.sum_lam
        half = (math.log(2.0 / self.alpha) + self.sum_vpsi) / self.sum_lam
        return max(centre - half, 0.0), min(centre + half, 1.0)

    def _betting(self, x: float, lam: float, mu_prev: float) -> tuple[float, float]:
        dx = x - self.m
        self.up += np.log1p(np.minimum(lam, _BET_CAP / self.m) * dx)
        self.down += np.log1p(-np.minimum(lam, _BET_CAP / (1.0 - self.m)) * dx)
        logk = np.maximum(math.log(0.5) + self.up, math.log(0.5) + self.down)
        ok = logk < math.log(1.0 / self.alpha)
        if ok.any():
            idx = np.flatnonzero(ok)
            first, last = int(idx[0]), int(idx[-1])
        else:
            first = last = int(logk.argmin())
        return float(self.edges[first]), float(self.edges[last + 2])

    def _mixture(self, x: float, lam: float, mu_prev: float) -> tuple[float, float]:
        mean = self.sum_x / self.t
        if self.sigma is not None:
            scale = self.sigma
        else:
            var = (self.sum_sq - self.t * mean * mean) / (self.t - 1) if self.t >= ASYMPTOTIC_BURN_IN else 0.0
            scale = math.sqrt(var) if var > 0 else math.inf
        half = scale * float(mixture_half_width(self.t, self.alpha, self.r))
        return mean - half, mean + half

    def interval(self) -> Interval:
        """The current interval in the score's units (``nan`` estimate before any sample)."""
        if self.method == "mixture":
            return Interval(self.sum_x / self.t if self.t else math.nan, float(self.low), float(self.high),
                            1 - self.alpha, self.method)
        span, low, high = self.hi - self.lo, max(self.low, 0.0), min(self.high, 1.0)
        est = self.sum_lam_x / self.sum_lam if self.method == "bernstein" and self.t else (
            self.sum_x / self.t if self.t else math.nan)
        return Interval(float(self.lo + span * est), float(self.lo + span * low), float(self.lo + span * high),
                        1 - self.alpha, self.method)
