"""Flaky items over repeated attempts (Inspect epochs, lm-eval ``repeats``, promptfoo ``--repeat``).

For an item attempted ``n >= 2`` times with ``c`` passes (0/1 scores):

- its pass rate ``c/n`` with a Wilson score interval (Wilson 1927; Brown, Cai & DasGupta 2001):
  centre ``(p + z²/2n)/(1 + z²/n)``, half-width ``z/(1 + z²/n)·sqrt(p(1-p)/n + z²/4n²)``, the
  repeats of one item treated as independent Bernoulli trials of its own pass rate;
- its flip rate ``2c(n-c)/(n(n-1))``: the share of the ``C(n, 2)`` pairs of its attempts that
  disagree, the unbiased estimate of the chance that two fresh attempts disagree
  (``2p(1-p)``), whatever the order the attempts ran in;
- *unstable* when ``0 < c < n`` (neither always pass nor always fail).

The run's flakiness: the share of its repeated items that are unstable, and the mean flip rate
over them.  Vectorised over items (``np.bincount``); the scalar Wilson of
:mod:`evaladdon.stats.intervals` is the one-proportion form of the same formula (written here
once more only to run over every item at once).  Oracles in the tests: statsmodels
``proportion_confint(method="wilson")``, exact enumeration of the pairs of attempts, and the
Monte-Carlo coverage of the per-item interval.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from evaladdon.stats._base.checks import check_level
from evaladdon.stats._base.dist import norm_ppf

__all__ = ["FlakyItems", "flaky_items", "wilson_arrays"]


def wilson_arrays(c: np.ndarray, n: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of ``c`` successes in ``n`` trials, elementwise (``n >= 1``)."""
    z = float(norm_ppf(0.5 + check_level(level) / 2.0))
    z2 = z * z
    n = np.asarray(n, dtype=float)
    p = np.asarray(c, dtype=float) / n
    centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n)
    half = z / (1.0 + z2 / n) * np.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n))
    low = np.where(p <= 0.0, 0.0, np.maximum(centre - half, 0.0))
    high = np.where(p >= 1.0, 1.0, np.minimum(centre + half, 1.0))
    return low, high


@dataclass(frozen=True)
class FlakyItems:
    """Per repeated item (``n >= 2``; the items' first-appearance order): codes, attempts, passes,
    pass rate with its Wilson interval, flip rate; ``n_single`` items attempted once (left out)."""

    items: np.ndarray
    n: np.ndarray
    passes: np.ndarray
    rate: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    flip_rate: np.ndarray
    level: float
    n_single: int

    @property
    def unstable(self) -> np.ndarray:
        """Mask of the items neither always passed nor always failed."""
        return (self.passes > 0) & (self.passes < self.n)

    @property
    def n_items(self) -> int:
        return int(self.items.size)

    @property
    def n_unstable(self) -> int:
        return int(self.unstable.sum())

    @property
    def share_unstable(self) -> float:
        return self.n_unstable / self.n_items if self.n_items else float("nan")

    @property
    def mean_flip_rate(self) -> float:
        return float(self.flip_rate.mean()) if self.n_items else float("nan")


def flaky_items(values: npt.ArrayLike, items: npt.ArrayLike, level: float = 0.95) -> FlakyItems:
    """:class:`FlakyItems` of 0/1 ``values`` (one per attempt) and non-negative integer item
    codes ``items`` (attempts of one item share its code)."""
    v = np.asarray(values, dtype=float)
    codes = np.asarray(items)
    if v.shape != codes.shape or v.ndim != 1:
        raise ValueError("values and items must be 1-d arrays of one length")
    if not np.all((v == 0) | (v == 1)):
        raise ValueError("flaky items need 0/1 scores (pass/fail per attempt)")
    if codes.size and (not np.issubdtype(codes.dtype, np.integer) or codes.min() < 0):
        raise ValueError("items must be non-negative integer codes")
    n_all = np.bincount(codes, minlength=0).astype(float) if codes.size else np.zeros(0)
    c_all = np.bincount(codes, weights=v, minlength=n_all.size) if codes.size else np.zeros(0)
    seen = np.flatnonzero(n_all > 0)
    first = np.full(n_all.size, codes.size, dtype=np.int64)
    np.minimum.at(first, codes, np.arange(codes.size))
    order = seen[np.argsort(first[seen], kind="stable")]
    repeated = order[n_all[order] >= 2]
    n, c = n_all[repeated], c_all[repeated]
    low, high = wilson_arrays(c, n, level)
    flip = 2.0 * c * (n - c) / (n * (n - 1.0)) if n.size else np.zeros(0)
    return FlakyItems(items=repeated, n=n, passes=c, rate=c / n if n.size else np.zeros(0), ci_low=low,
                      ci_high=high, flip_rate=flip, level=level, n_single=int(order.size - repeated.size))
