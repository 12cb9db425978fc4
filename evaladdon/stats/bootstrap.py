"""Cluster bootstrap of statistics that are functions of cluster totals.

The independent unit (a cluster, else an item with all its epochs) is resampled with
replacement.  Every statistic here is a smooth function of *totals*: per-cluster sums of
item-level quantities (``sum xbar_i``, ``n_c``, ``sum d_i``, ``sum xbar_i^2`` ...).  A
replicate therefore only sums ``C`` cluster rows, never ``n`` items: ``O(B*C)`` work,
vectorised over batches of replicates (no Python loop per replicate beyond batching).

Intervals: percentile, and BCa (Efron 1987; Efron & Tibshirani 1993, ch. 14) with the
acceleration from the leave-one-cluster-out jackknife, computed from totals too.
Oracle in the tests: ``scipy.stats.bootstrap`` (percentile and BCa) on singleton
clusters, and a seeded Monte-Carlo coverage check.
"""

from __future__ import annotations

from dataclasses import InitVar, dataclass, field
from typing import Callable, ClassVar, Literal, TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from evaladdon.stats._base.checks import as_finite_1d, check_level, codes, whole
from evaladdon.stats._base.dist import norm_cdf, norm_ppf
from evaladdon.stats._base.result import Interval, IntervalResult, ci_bounds, holds_interval

__all__ = [
    "BootstrapResult", "TotalsStatistic", "bca_probabilities", "bootstrap_mean", "bootstrap_totals", "ratio_of_totals",
]

TotalsStatistic = Callable[[np.ndarray], np.ndarray]
"""Maps totals of shape ``(..., m)`` to the statistic, shape ``(...)``."""


@holds_interval
@dataclass(frozen=True)
class BootstrapResult(IntervalResult):
    _ci_of: ClassVar[tuple[str, str]] = ("estimate", "method")
    estimate: float
    if TYPE_CHECKING:  # to a type checker the bounds read like fields (they are properties of ``ci``)
        low: float
        high: float
    else:
        low: InitVar[float]
        high: InitVar[float]
    ci: Interval = field(init=False, metadata=ci_bounds("low", "high"))
    se: float
    level: float
    method: str
    n_resamples: int
    n_units: int
    seed: int | None


def bca_probabilities(reps: np.ndarray, estimate: float, jack: np.ndarray, level: float) -> np.ndarray:
    """The two quantile levels of the BCa interval (Efron 1987; Efron & Tibshirani 1993, sec. 14.3):
    ``Phi(z0 + (z0 + z_a) / (1 - a (z0 + z_a)))`` with bias ``z0 = Phi^-1(#{r < est} + #{r = est}/2) / B``
    and acceleration ``a = sum d^3 / (6 (sum d^2)^1.5)``, ``d`` the jackknife deviations from their
    mean; the percentile levels when that is not finite.  The one BCa formula of the stats core
    (:func:`bootstrap_totals`, :mod:`evaladdon.stats.metric_bootstrap`)."""
    alpha = 1.0 - level
    probs = np.array([alpha / 2.0, 1.0 - alpha / 2.0])
    z0 = float(norm_ppf((np.sum(reps < estimate) + 0.5 * np.sum(reps == estimate)) / reps.size))
    dev = jack.mean() - jack if jack.size else np.zeros(1)
    denom = 6.0 * np.sum(dev * dev) ** 1.5
    accel = float(np.sum(dev**3) / denom) if denom > 0 else 0.0
    z = norm_ppf(probs)
    adj = norm_cdf(z0 + (z0 + z) / (1.0 - accel * (z0 + z)))
    return adj if np.all(np.isfinite(adj)) else probs


def ratio_of_totals(totals: np.ndarray) -> np.ndarray:
    """Statistic ``totals[..., 0] / totals[..., 1]``: a mean from (sum, count) totals."""
    return totals[..., 0] / totals[..., 1]


def _replicates(
    totals: np.ndarray, statistic: TotalsStatistic, n_resamples: int, rng: np.random.Generator, batch_cells: int
) -> np.ndarray:
    n_units, m = totals.shape
    out = np.empty(n_resamples)
    batch = max(1, min(n_resamples, batch_cells // max(n_units, 1)))
    # two columns (sum, count: the common mean) gather as one complex array: one pass, not two
    packed = totals[:, 0] + 1j * totals[:, 1] if m == 2 else None
    for start in range(0, n_resamples, batch):  # loop over batches of replicates, not replicates
        b = min(batch, n_resamples - start)
        idx = rng.integers(0, n_units, size=(b, n_units), dtype=np.int64 if n_units > 2**31 - 1 else np.int32)
        sums = np.empty((b, m))
        if packed is not None:
            z = packed[idx].sum(axis=1)
            sums[:, 0], sums[:, 1] = z.real, z.imag
        else:
            for j in range(m):  # m is the handful of totals columns
                sums[:, j] = totals[:, j][idx].sum(axis=1)
        out[start : start + b] = statistic(sums)
    return out


def bootstrap_totals(
    totals: npt.ArrayLike,
    statistic: TotalsStatistic = ratio_of_totals,
    *,
    n_resamples: int = 10_000,
    level: float = 0.95,
    method: Literal["percentile", "bca"] = "percentile",
    seed: int | None = 0,
    batch_cells: int = 5_000_000,
) -> BootstrapResult:
    """Bootstrap ``statistic`` by resampling the rows of ``totals`` (one row per unit).

    ``totals`` has shape ``(C, m)``: per-cluster sums of the ``m`` item-level quantities
    the statistic needs.  ``seed`` makes it reproducible (``None``: fresh entropy).
    """
    level = check_level(level)
    t = np.asarray(totals, dtype=float)
    if t.ndim != 2 or t.shape[0] == 0:
        raise ValueError("totals must be a non-empty (units, m) array")
    if not np.all(np.isfinite(t)):
        raise ValueError("totals contain non-finite values")
    n_units = t.shape[0]
    if n_units < 2:
        raise ValueError("the bootstrap needs at least two independent units")
    n_resamples = whole(n_resamples, "n_resamples", 1)
    if n_resamples < 100:
        raise ValueError("use at least 100 bootstrap resamples")
    rng = np.random.default_rng(seed)
    full = t.sum(axis=0)
    estimate = float(statistic(full[None, :])[0])
    reps = _replicates(t, statistic, int(n_resamples), rng, batch_cells)
    reps = reps[np.isfinite(reps)]
    alpha = 1.0 - level
    if method == "percentile":
        probs = np.array([alpha / 2.0, 1.0 - alpha / 2.0])
    elif method == "bca":
        probs = bca_probabilities(reps, estimate, statistic(full[None, :] - t), level)  # jackknife from totals
    else:
        raise ValueError(f"unknown bootstrap method {method!r}; choose percentile or bca")
    low, high = np.quantile(reps, probs)
    return BootstrapResult(
        estimate=estimate,
        low=float(low),
        high=float(high),
        se=float(reps.std(ddof=1)),
        level=level,
        method=f"bootstrap-{method}",
        n_resamples=int(n_resamples),
        n_units=n_units,
        seed=seed,
    )


def bootstrap_mean(
    item_means: npt.ArrayLike,
    clusters: npt.ArrayLike | None = None,
    *,
    n_resamples: int = 10_000,
    level: float = 0.95,
    method: Literal["percentile", "bca"] = "percentile",
    seed: int | None = 0,
) -> BootstrapResult:
    """(Cluster) bootstrap interval of the mean of ``item_means``.

    Each cluster contributes the totals ``(sum of its item means, its item count)``;
    without clusters each item is its own unit.
    """
    x = as_finite_1d(item_means, "item_means")
    cluster_codes, n_clusters = codes(clusters, x.size, "clusters")
    totals = np.column_stack(
        [
            np.bincount(cluster_codes, weights=x, minlength=n_clusters),
            np.bincount(cluster_codes, minlength=n_clusters).astype(float),
        ]
    )
    return bootstrap_totals(totals, ratio_of_totals, n_resamples=n_resamples, level=level, method=method, seed=seed)
