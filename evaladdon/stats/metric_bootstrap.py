"""Cluster bootstrap of vector-valued metrics computed from per-cluster tables.

The metrics that are not means (F1, MCC, kappa, ECE, Brier, average precision ...) are all
functions of *additive* per-cluster tables: a confusion matrix per cluster, per-bin sums per
cluster, per-threshold counts per cluster.  A bootstrap replicate draws clusters with
replacement; that is the same as giving cluster ``c`` the weight ``w_c`` (its multinomial
count, ``sum_c w_c = C``), and the replicate's table is ``w @ tables``.  Items are never
resampled.  All replicates of a batch are one matrix product ``W (b, C) @ T (C, m)``, and the
statistic is evaluated on the ``(b, m)`` replicate tables at once, returning ``(b, q)`` -- one
column per metric.

Intervals (Efron & Tibshirani 1993, ch. 13-14):

- percentile: the ``alpha/2`` and ``1 - alpha/2`` quantiles of the replicates;
- BCa: bias correction ``z0 = Phi^-1(share of replicates below the estimate)`` and
  acceleration ``a = sum d^3 / (6 (sum d^2)^1.5)`` from the leave-one-cluster-out jackknife
  ``d_c = mean(theta_(.)) - theta_(-c)`` (each ``theta_(-c)`` from ``total - T_c``).

Paired comparison of two runs on shared items: both runs' tables are indexed by the same
clusters and every replicate uses the same weights for both, so the replicate difference keeps
the correlation between runs.  The p-value is the percentile-bootstrap test
``min(1, 2 (1 + min(#{delta* <= 0}, #{delta* >= 0})) / (B + 1))`` (about the smallest level at which
the percentile interval excludes 0; never 0).

Oracles in the tests: ``scipy.stats.bootstrap`` on singleton clusters for the mean, and the
coverage checks of every metric module.
"""

from __future__ import annotations

import contextlib
from dataclasses import InitVar, dataclass, field
from typing import Any, Callable, ClassVar, ContextManager, Literal, Sequence, TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from evaladdon.stats._base.checks import check_level
from evaladdon.stats.bootstrap import bca_probabilities
from evaladdon.stats._base.result import Interval, IntervalResult, ci_bounds, holds_interval
from evaladdon.stats.families.estimates import MetricEstimate

__all__ = [
    "BOOT_METHODS", "PairedMetric", "TableStatistic", "VectorBootstrap", "bootstrap_metrics", "cluster_weights",
    "paired_bootstrap_metrics", "replicate_tables",
]

TableStatistic = Callable[[np.ndarray], np.ndarray]
"""Maps replicate tables ``(b, m)`` to metric values ``(b, q)``."""

BOOT_METHODS: tuple[str, ...] = ("percentile", "bca")


@holds_interval
@dataclass(frozen=True)
class PairedMetric(IntervalResult):
    """``metric(B) - metric(A)`` on shared items with a paired interval and p-value."""

    _ci_of: ClassVar[tuple[str, str]] = ("delta", "method")
    name: str
    estimate_a: float
    estimate_b: float
    delta: float
    if TYPE_CHECKING:  # to a type checker the bounds read like fields (they are properties of ``ci``)
        ci_low: float
        ci_high: float
    else:
        ci_low: InitVar[float]
        ci_high: InitVar[float]
    ci: Interval = field(init=False, metadata=ci_bounds())
    level: float
    method: str
    p_value: float
    n_items: int
    n_clusters: int | None = None
    se: float | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class VectorBootstrap:
    """Raw output: estimates, replicates and jackknife values, all ``(q,)`` / ``(B, q)``."""

    estimate: np.ndarray
    replicates: np.ndarray
    jackknife: np.ndarray


_CONTROLLER: Any = None


def _one_blas_thread() -> ContextManager[Any]:
    """Limit BLAS to one thread around the replicate products when ``threadpoolctl`` is there.

    The products are small (``b x C`` by ``C x m``); BLAS threads only add synchronisation,
    and on shared cores they make them 10-50x slower.  Without threadpoolctl nothing changes.
    """
    global _CONTROLLER
    if _CONTROLLER is None:
        try:
            from threadpoolctl import ThreadpoolController

            _CONTROLLER = ThreadpoolController()
        except ImportError:  # optional: only speed depends on it
            _CONTROLLER = False
    if _CONTROLLER is False:
        return contextlib.nullcontext()
    return _CONTROLLER.limit(limits=1, user_api="blas")  # type: ignore[no-any-return]


def cluster_weights(rng: np.random.Generator, n_replicates: int, n_units: int) -> np.ndarray:
    """``(b, C)`` multinomial counts: how often each unit is drawn in each replicate.

    Drawn as ``C`` uniform indices per replicate counted by one ``bincount`` (much faster than
    ``Generator.multinomial``, which draws one binomial per cell).
    """
    idx = rng.integers(0, n_units, size=(n_replicates, n_units))
    idx += (np.arange(n_replicates) * n_units)[:, None]
    return np.bincount(idx.ravel(), minlength=n_replicates * n_units).reshape(n_replicates, n_units).astype(float)


def replicate_tables(
    tables: np.ndarray,
    statistic: TableStatistic,
    n_boot: int,
    seed: int | None,
    batch_cells: int = 4_000_000,
) -> VectorBootstrap:
    """Evaluate ``statistic`` on the full table, ``n_boot`` replicates and the cluster jackknife.

    ``tables`` is ``(C, m)``: one row of additive sufficient statistics per cluster.
    """
    t = np.asarray(tables, dtype=float)
    if t.ndim != 2 or t.shape[0] < 2:
        raise ValueError("the cluster bootstrap needs at least two independent units (clusters or items)")
    if n_boot < 100:
        raise ValueError("use at least 100 bootstrap resamples")
    n_units = t.shape[0]
    rng = np.random.default_rng(seed)
    full = t.sum(axis=0)
    estimate = np.asarray(statistic(full[None, :]), dtype=float)[0]
    reps = np.empty((n_boot, estimate.size))
    uniq, inverse, mult = _distinct_rows(t) if n_units >= 64 else (t, None, None)
    if mult is not None:
        # Few distinct unit tables (e.g. one-hot confusion rows of unclustered items): drawing
        # C units uniformly is drawing C times from the distinct rows with probabilities
        # mult/C, so a replicate's table is Multinomial(C, mult/C) @ distinct rows -- the same
        # distribution in O(U) per replicate instead of O(C).
        counts = rng.multinomial(n_units, mult / n_units, size=n_boot).astype(float)
        with _one_blas_thread():
            reps[:] = statistic(counts @ uniq)
        jack = np.asarray(statistic(full[None, :] - uniq), dtype=float)[inverse]
        return VectorBootstrap(estimate, reps, jack)
    batch = max(1, min(n_boot, batch_cells // max(n_units, 1)))
    with _one_blas_thread():
        for start in range(0, n_boot, batch):  # batches of replicates, each one matrix product
            b = min(batch, n_boot - start)
            reps[start : start + b] = statistic(cluster_weights(rng, b, n_units) @ t)
    jack = np.asarray(statistic(full[None, :] - t), dtype=float)
    return VectorBootstrap(estimate, reps, jack)


def _distinct_rows(t: np.ndarray, max_distinct: int = 512) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """The distinct rows of ``t``, each row's index among them and their multiplicities, when
    there are at most ``max_distinct`` of them and at most a quarter of the rows; else ``t``.

    Rows of small non-negative integers are keyed exactly by a mixed-radix integer and
    hashed (``pandas.factorize``), which is much faster than ``np.unique(axis=0)``'s sort.
    """
    if not np.all(t == np.floor(t)) or t.min() < 0:
        return t, None, None
    radix = t.max(axis=0).astype(np.int64) + 1
    if np.sum(np.log2(radix.astype(float))) >= 62:
        return t, None, None
    place = np.concatenate([[1], np.cumprod(radix[:-1])]).astype(np.int64)
    key = t.astype(np.int64) @ place
    inverse, first = _factorize(key)
    if first.size > min(max_distinct, t.shape[0] // 4):
        return t, None, None
    mult = np.bincount(inverse, minlength=first.size).astype(float)
    return t[first], inverse, mult


def _factorize(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes of ``key`` and the index of each code's first row."""
    import pandas as pd

    codes_, uniq = pd.factorize(key)
    first = np.zeros(len(uniq), dtype=np.int64)
    first[codes_[::-1]] = np.arange(key.size)[::-1]
    return codes_.astype(np.int64), first


def _quantiles(reps: np.ndarray, estimate: np.ndarray, jack: np.ndarray, level: float, method: str) -> np.ndarray:
    """``(2, q)`` interval ends, NaN where a metric has no finite replicate."""
    alpha = 1.0 - level
    out = np.full((2, estimate.size), np.nan)
    if method == "percentile" and reps.shape[0] >= 10 and np.all(np.isfinite(reps)):
        out[:] = np.quantile(reps, [alpha / 2.0, 1.0 - alpha / 2.0], axis=0)  # every metric at once
        out[:, ~np.isfinite(estimate)] = np.nan
        return out
    for j in range(estimate.size):  # q metrics: a handful of columns, not rows
        r = reps[:, j]
        r = r[np.isfinite(r)]
        if r.size < 10 or not np.isfinite(estimate[j]):
            continue
        probs = np.array([alpha / 2.0, 1.0 - alpha / 2.0])
        if method == "bca":
            jj = jack[:, j]
            probs = bca_probabilities(r, float(estimate[j]), jj[np.isfinite(jj)], level)
        out[:, j] = np.quantile(r, probs)
    return out


def bootstrap_metrics(
    tables: npt.ArrayLike,
    statistic: TableStatistic,
    names: Sequence[str],
    *,
    n_items: int,
    n_clusters: int | None,
    n_boot: int = 2000,
    level: float = 0.95,
    method: Literal["percentile", "bca"] = "percentile",
    seed: int | None = 0,
    what: str = "",
    notes: Sequence[str] = (),
) -> list[MetricEstimate]:
    """One :class:`MetricEstimate` per name, intervals by the cluster bootstrap of ``tables``."""
    level = check_level(level)
    if method not in BOOT_METHODS:
        raise ValueError(f"unknown bootstrap method {method!r}; choose percentile or bca")
    vb = replicate_tables(np.asarray(tables, dtype=float), statistic, n_boot, seed)
    q = _quantiles(vb.replicates, vb.estimate, vb.jackknife, level, method)
    unit = "cluster" if n_clusters is not None else "item"
    label = f"{unit} bootstrap {method} ({n_boot} resamples{', ' + what if what else ''})"
    out = []
    for j, name in enumerate(names):
        r = vb.replicates[:, j]
        r = r[np.isfinite(r)]
        extra = tuple(notes)
        if r.size < n_boot:
            extra += (f"{n_boot - r.size} of {n_boot} replicates undefined (left out)",)
        out.append(MetricEstimate(
            name=name, estimate=float(vb.estimate[j]), ci_low=float(q[0, j]), ci_high=float(q[1, j]), level=level,
            method=label, n_items=n_items, n_clusters=n_clusters,
            se=float(r.std(ddof=1)) if r.size > 1 else None, notes=extra,
        ))
    return out


def _boot_p(r: np.ndarray) -> float:
    """Two-sided percentile-bootstrap p-value of ``delta = 0``, never 0:
    ``min(1, 2 min(1 + #{r <= 0}, 1 + #{r >= 0}) / (B + 1))`` (Davison & Hinkley 1997, sec. 4.4)."""
    if r.size == 0:
        return float("nan")
    return float(min(1.0, 2.0 * (1 + min(np.sum(r <= 0), np.sum(r >= 0))) / (r.size + 1)))


def paired_bootstrap_metrics(
    tables_a: npt.ArrayLike,
    tables_b: npt.ArrayLike,
    statistic: TableStatistic,
    names: Sequence[str],
    *,
    n_items: int,
    n_clusters: int | None,
    n_boot: int = 2000,
    level: float = 0.95,
    method: Literal["percentile", "bca"] = "percentile",
    seed: int | None = 0,
    what: str = "",
) -> list[PairedMetric]:
    """Paired cluster bootstrap of ``statistic(B) - statistic(A)``: the same cluster weights
    for both runs in every replicate (rows of ``tables_a`` and ``tables_b`` are the same clusters)."""
    level = check_level(level)
    if method not in BOOT_METHODS:
        raise ValueError(f"unknown bootstrap method {method!r}; choose percentile or bca")
    ta = np.asarray(tables_a, dtype=float)
    tb = np.asarray(tables_b, dtype=float)
    if ta.shape[0] != tb.shape[0]:
        raise ValueError("paired tables must have one row per shared cluster in both runs")
    m = ta.shape[1]

    def both(x: np.ndarray) -> np.ndarray:
        return np.concatenate([statistic(x[:, :m]), statistic(x[:, m:])], axis=1)

    vb = replicate_tables(np.concatenate([ta, tb], axis=1), both, n_boot, seed)
    q_n = len(names)
    est_a, est_b = vb.estimate[:q_n], vb.estimate[q_n:]
    d_reps = vb.replicates[:, q_n:] - vb.replicates[:, :q_n]
    d_jack = vb.jackknife[:, q_n:] - vb.jackknife[:, :q_n]
    delta = est_b - est_a
    q = _quantiles(d_reps, delta, d_jack, level, method)
    unit = "cluster" if n_clusters is not None else "item"
    label = f"paired {unit} bootstrap {method} ({n_boot} resamples{', ' + what if what else ''})"
    out = []
    for j, name in enumerate(names):
        r = d_reps[:, j]
        r = r[np.isfinite(r)]
        p = _boot_p(r)
        notes: tuple[str, ...] = ()
        if r.size < n_boot:
            notes = (f"{n_boot - r.size} of {n_boot} replicates undefined (left out)",)
        out.append(PairedMetric(
            name=name, estimate_a=float(est_a[j]), estimate_b=float(est_b[j]), delta=float(delta[j]),
            ci_low=float(q[0, j]), ci_high=float(q[1, j]), level=level, method=label, p_value=p,
            n_items=n_items, n_clusters=n_clusters, se=float(r.std(ddof=1)) if r.size > 1 else None, notes=notes,
        ))
    return out
