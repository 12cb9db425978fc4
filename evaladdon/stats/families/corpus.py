"""Cluster bootstrap of corpus-level metrics (F1, MCC, BLEU, chrF, TER, perplexity ...).

A corpus-level metric is a function of the whole corpus, not a mean of item scores, so its
uncertainty comes from resampling the independent units -- clusters, else items with all
their repeats -- and recomputing the metric (Efron & Tibshirani 1993, ch. 6 and 13; for
clustered data Davison & Hinkley 1997, sec. 3.8).  Two routes:

1. **Sufficient statistics** (the fast route).  Most corpus metrics are a function of
   *sums* of per-item statistics: F1 of (tp, fp, fn) counts, MCC of the confusion matrix,
   micro/macro multilabel F1 of per-label (tp, fp, fn), BLEU of n-gram match/total counts
   and lengths, chrF of character n-gram counts, TER of (edits, reference length),
   perplexity of (sum log-likelihood, count).  Per-cluster totals are computed once; a
   replicate sums ``C`` cluster rows (:func:`evaladdon.stats.bootstrap.bootstrap_totals`,
   vectorised over batches of replicates), then the statistic maps totals to the metric
   (vectorised for F1/MCC/multilabel/ratios; one call of the scorer's own formula per
   replicate for BLEU/chrF/TER).
2. **Generic** (:func:`bootstrap_items`): any aggregation callable over a list of items
   (the harness's own, e.g. ``median``), called once per replicate on the resampled items.

Paired comparison of two systems on the same items (:func:`paired_totals_difference`):
both systems' totals are resampled with the *same* cluster draws (Koehn 2004's paired
bootstrap, with clusters as units), giving the interval of metric(B) − metric(A) and a
two-sided bootstrap p-value (the share of centred replicates at least as extreme).

Oracles in the tests: scikit-learn's ``f1_score``/``matthews_corrcoef``, sacrebleu's corpus
scores and lm-eval's own aggregation functions reproduce the point values from the totals;
a seeded Monte-Carlo check gives the coverage of the default interval on a simulated
clustered corpus with a known population F1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np
import numpy.typing as npt

from evaladdon.stats._base.checks import check_level, codes
from evaladdon.stats._base.result import Result
from evaladdon.stats.bootstrap import bootstrap_totals
from evaladdon.stats.families.estimates import MetricEstimate
from evaladdon.stats.metric_bootstrap import cluster_weights

__all__ = [
    "PairedBootstrap", "binary_f1_stats", "bootstrap_corpus", "bootstrap_items", "cluster_totals", "confusion_stats",
    "f1_from_totals", "macro_f1_from_totals", "mcc_from_totals", "micro_f1_from_totals", "multilabel_stats",
    "paired_totals_difference", "ratio_stat", "rowwise",
]

TotalsStatistic = Callable[[np.ndarray], np.ndarray]
"""Maps totals of shape ``(..., m)`` to the metric, shape ``(...)``."""


# ---------------------------------------------------------------- per-item sufficient statistics


def binary_f1_stats(gold: npt.ArrayLike, pred: npt.ArrayLike, pos_label: Any = 1) -> np.ndarray:
    """Per item (tp, fp, fn) indicators for binary F1 of ``pos_label``."""
    g = np.asarray(gold) == pos_label
    p = np.asarray(pred) == pos_label
    return np.column_stack([g & p, ~g & p, g & ~p]).astype(float)


def f1_from_totals(t: np.ndarray) -> np.ndarray:
    """F1 = 2tp / (2tp + fp + fn); 0 when there is no positive at all (scikit-learn's value)."""
    tp, fp, fn = t[..., 0], t[..., 1], t[..., 2]
    den = 2 * tp + fp + fn
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, 2 * tp / np.where(den > 0, den, 1), 0.0)


def confusion_stats(gold: npt.ArrayLike, pred: npt.ArrayLike) -> tuple[np.ndarray, int]:
    """Per item one-hot (K*K) of its (gold, pred) cell, and K, for confusion-matrix metrics."""
    g = np.asarray(gold)
    p = np.asarray(pred)
    labels, inv = np.unique(np.concatenate([g, p]).astype(str), return_inverse=True)
    k = len(labels)
    gi, pi = inv[: len(g)], inv[len(g):]
    out = np.zeros((len(g), k * k))
    out[np.arange(len(g)), gi * k + pi] = 1.0
    return out, k


def mcc_from_totals(t: np.ndarray) -> np.ndarray:
    """Matthews correlation (Gorodkin's K-class form, as scikit-learn) from flattened K*K counts.

    MCC = (c·s − t·p) / sqrt((s² − p·p)(s² − t·t)); 0 when a denominator factor is 0.
    """
    k = int(round(np.sqrt(t.shape[-1])))
    cm = t.reshape(t.shape[:-1] + (k, k))
    true_k = cm.sum(axis=-1)
    pred_k = cm.sum(axis=-2)
    c = np.trace(cm, axis1=-2, axis2=-1)
    s = cm.sum(axis=(-2, -1))
    cov_ytyp = c * s - (true_k * pred_k).sum(axis=-1)
    cov_ypyp = s**2 - (pred_k * pred_k).sum(axis=-1)
    cov_ytyt = s**2 - (true_k * true_k).sum(axis=-1)
    den = cov_ytyt * cov_ypyp
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, cov_ytyp / np.sqrt(np.where(den > 0, den, 1)), 0.0)


def multilabel_stats(gold_sets: Sequence[Sequence[Any]], pred_sets: Sequence[Sequence[Any]]
                     ) -> tuple[np.ndarray, list[str]]:
    """Per item and label (tp, fp, fn) indicators, flattened label-major, and the labels.

    Micro F1 sums them over labels; macro F1 averages the per-label F1 over the labels that
    occur (tp + fp + fn > 0) in the corpus or replicate.
    """
    labels = sorted({str(x) for s in gold_sets for x in s} | {str(x) for s in pred_sets for x in s})
    index = {lab: j for j, lab in enumerate(labels)}
    n, k = len(gold_sets), len(labels)
    g = np.zeros((n, k), dtype=bool)
    p = np.zeros((n, k), dtype=bool)
    for i, (gs, ps) in enumerate(zip(gold_sets, pred_sets)):  # sets of a few labels per item
        g[i, [index[str(x)] for x in gs]] = True
        p[i, [index[str(x)] for x in ps]] = True
    out = np.stack([g & p, ~g & p, g & ~p], axis=-1).reshape(n, 3 * k).astype(float)
    return out, labels


def micro_f1_from_totals(t: np.ndarray) -> np.ndarray:
    per = t.reshape(t.shape[:-1] + (-1, 3)).sum(axis=-2)
    return f1_from_totals(per)


def macro_f1_from_totals(t: np.ndarray) -> np.ndarray:
    per = t.reshape(t.shape[:-1] + (-1, 3))
    present = per.sum(axis=-1) > 0
    f1 = f1_from_totals(per)
    n_present = present.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n_present > 0, (f1 * present).sum(axis=-1) / np.maximum(n_present, 1), 0.0)


def ratio_stat(transform: Callable[[np.ndarray], np.ndarray]) -> TotalsStatistic:
    """Statistic ``transform(totals[..., 0] / totals[..., 1])`` (perplexity, bits per byte, Brier)."""
    def stat(t: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            return transform(t[..., 0] / t[..., 1])
    return stat


def rowwise(score: Callable[[list[float]], float]) -> TotalsStatistic:
    """A statistic from a scalar formula on one totals row (e.g. sacrebleu's
    ``_compute_score_from_stats``): one call per replicate, no loop over items."""
    def stat(t: np.ndarray) -> np.ndarray:
        flat = t.reshape(-1, t.shape[-1])
        return np.array([score(list(row)) for row in flat]).reshape(t.shape[:-1])
    return stat


# ---------------------------------------------------------------- bootstrap


@dataclass(frozen=True)
class PairedBootstrap(Result):
    """metric(B) − metric(A) with its paired cluster-bootstrap interval and p-value."""

    estimate: MetricEstimate
    estimate_a: float
    estimate_b: float
    p_value: float


def cluster_totals(per_item: npt.ArrayLike, clusters: npt.ArrayLike | None = None) -> np.ndarray:
    """Per-cluster sums of per-item statistics, shape (C, m) (no cluster: one row per item)."""
    x = np.asarray(per_item, dtype=float)
    if x.ndim == 1:
        x = x[:, None]
    c, n_c = codes(clusters, x.shape[0], "clusters")
    order = np.argsort(c, kind="stable")
    starts = np.searchsorted(c[order], np.arange(n_c))  # every code occurs (factorized labels)
    return np.add.reduceat(x[order], starts, axis=0)


def bootstrap_corpus(
    per_item: npt.ArrayLike,
    statistic: TotalsStatistic,
    clusters: npt.ArrayLike | None = None,
    *,
    name: str = "corpus metric",
    n_resamples: int = 2_000,
    level: float = 0.95,
    method: str = "percentile",
    seed: int | None = 0,
) -> MetricEstimate:
    """Cluster bootstrap interval of a metric of summed per-item statistics.

    ``per_item`` has shape (n, m); ``statistic`` maps totals (..., m) to the metric.
    """
    level = check_level(level)
    x = np.asarray(per_item, dtype=float)
    totals = cluster_totals(x, clusters)
    n_units = totals.shape[0]
    unit = "cluster" if clusters is not None else "item"
    if n_units < 2:
        est = float(statistic(totals.sum(axis=0)[None, :])[0])
        return MetricEstimate(name, est, float("nan"), float("nan"), level, f"{unit} bootstrap {method}",
                              x.shape[0], n_units if clusters is not None else None, None,
                              ("fewer than two independent units: no interval",))
    b = bootstrap_totals(totals, statistic, n_resamples=n_resamples, level=level, method=method, seed=seed)
    return MetricEstimate(name, b.estimate, b.low, b.high, level, f"{unit} bootstrap {method}", x.shape[0],
                          n_units if clusters is not None else None, b.se,
                          (f"{n_resamples} resamples of {n_units} {unit}s, seed {seed}",))


def paired_totals_difference(
    per_item_a: npt.ArrayLike,
    per_item_b: npt.ArrayLike,
    statistic: TotalsStatistic,
    clusters: npt.ArrayLike | None = None,
    *,
    name: str = "difference",
    n_resamples: int = 2_000,
    level: float = 0.95,
    method: str = "percentile",
    seed: int | None = 0,
) -> PairedBootstrap:
    """Paired cluster bootstrap of metric(B) − metric(A) on the same items (rows aligned)."""
    a = np.asarray(per_item_a, dtype=float)
    b = np.asarray(per_item_b, dtype=float)
    a = a[:, None] if a.ndim == 1 else a
    b = b[:, None] if b.ndim == 1 else b
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"paired inputs need the same items: {a.shape[0]} vs {b.shape[0]} rows")
    ma, mb = a.shape[1], b.shape[1]

    def diff(t: np.ndarray) -> np.ndarray:
        return statistic(t[..., ma:]) - statistic(t[..., :ma])

    both = np.concatenate([a, b], axis=1)
    est = bootstrap_corpus(both, diff, clusters, name=name, n_resamples=n_resamples, level=level, method=method,
                           seed=seed)
    totals = cluster_totals(both, clusters)
    full = totals.sum(axis=0)
    ea, eb = float(statistic(full[None, :ma])[0]), float(statistic(full[None, ma:])[0])
    p = _paired_p(totals, diff, est.estimate, n_resamples, seed)
    del mb
    return PairedBootstrap(est, ea, eb, p)


def _paired_p(totals: np.ndarray, diff: TotalsStatistic, observed: float, n_resamples: int,
              seed: int | None) -> float:
    """Two-sided bootstrap p: share of replicates with |d* − d̂| ≥ |d̂| (the centred null), +1 smoothed."""
    if totals.shape[0] < 2 or not np.isfinite(observed):
        return float("nan")
    rng = np.random.default_rng(None if seed is None else seed + 1)
    reps = np.empty(n_resamples)
    n = totals.shape[0]
    batch = max(1, min(n_resamples, 2_000_000 // max(n * totals.shape[1], 1)))
    for start in range(0, n_resamples, batch):  # batches of replicates, not a loop per replicate
        k = min(batch, n_resamples - start)
        reps[start:start + k] = diff(cluster_weights(rng, k, n) @ totals)  # cluster draw counts @ totals
    reps = reps[np.isfinite(reps)]
    extreme = np.sum(np.abs(reps - observed) >= abs(observed) - 1e-12 * max(1.0, abs(observed)))
    return float((extreme + 1) / (reps.size + 1))


def bootstrap_items(
    items: Sequence[Any],
    aggregate: Callable[[list[Any]], float],
    clusters: npt.ArrayLike | None = None,
    *,
    name: str = "corpus metric",
    n_resamples: int = 1_000,
    level: float = 0.95,
    seed: int | None = 0,
) -> MetricEstimate:
    """Generic cluster bootstrap: ``aggregate`` (any Python callable over a list of items,
    e.g. the harness's own aggregation) called once per replicate on the resampled items.

    Item indices of a replicate are gathered for all drawn clusters at once (CSR layout).
    Percentile interval.
    """
    level = check_level(level)
    obj = np.empty(len(items), dtype=object)
    obj[:] = list(items)
    c, n_c = codes(clusters, len(obj), "clusters")
    order = np.argsort(c, kind="stable")
    sizes = np.bincount(c, minlength=n_c)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    estimate = float(aggregate(list(obj)))
    unit = "cluster" if clusters is not None else "item"
    if n_c < 2:
        return MetricEstimate(name, estimate, float("nan"), float("nan"), level, f"{unit} bootstrap percentile",
                              len(obj), n_c if clusters is not None else None, None,
                              ("fewer than two independent units: no interval",))
    rng = np.random.default_rng(seed)
    reps = np.empty(n_resamples)
    for r in range(n_resamples):  # the aggregator is Python: one call per replicate
        drawn = rng.integers(0, n_c, size=n_c)
        lens = sizes[drawn]
        offs = np.repeat(starts[drawn] - np.concatenate([[0], np.cumsum(lens)[:-1]]), lens)
        idx = order[offs + np.arange(lens.sum())]
        reps[r] = aggregate(list(obj[idx]))
    reps = reps[np.isfinite(reps)]
    alpha = 1.0 - level
    lo, hi = np.quantile(reps, [alpha / 2, 1 - alpha / 2])
    return MetricEstimate(name, estimate, float(lo), float(hi), level, f"{unit} bootstrap percentile", len(obj),
                          n_c if clusters is not None else None, float(reps.std(ddof=1)),
                          (f"{n_resamples} resamples of {n_c} {unit}s, seed {seed}; aggregation called per replicate",))
