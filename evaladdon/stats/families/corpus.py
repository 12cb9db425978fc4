"""Corpus-level metrics (F1, MCC, BLEU, chrF, TER, perplexity ...) for the cluster bootstrap.

The per-item statistics and the metrics of their totals are here; the bootstraps
(:func:`bootstrap_corpus`, :func:`bootstrap_items`, :func:`paired_totals_difference`) are in
:mod:`evaladdon.stats.resampling` and keep their old names here.

A corpus-level metric is a function of the whole corpus, not a mean of item scores, so its
uncertainty comes from resampling the independent units -- clusters, else items with all
their repeats -- and recomputing the metric (Efron & Tibshirani 1993, ch. 6 and 13; for
clustered data Davison & Hinkley 1997, sec. 3.8).  Two routes:

1. **Sufficient statistics** (the fast route).  Most corpus metrics are a function of
   *sums* of per-item statistics: F1 of (tp, fp, fn) counts, MCC of the confusion matrix,
   micro/macro multilabel F1 of per-label (tp, fp, fn), BLEU of n-gram match/total counts
   and lengths, chrF of character n-gram counts, TER of (edits, reference length),
   perplexity of (sum log-likelihood, count).  Per-cluster totals are computed once; a
   replicate sums ``C`` cluster rows (:func:`evaladdon.stats.resampling.bootstrap_totals`,
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

from typing import Any, Callable, Sequence

import numpy as np
import numpy.typing as npt

# the bootstraps of corpus metrics live in the one resampling module; their old names stay here
from evaladdon.stats.resampling import PairedBootstrap as PairedBootstrap
from evaladdon.stats.resampling import TotalsStatistic
from evaladdon.stats.resampling import bootstrap_corpus as bootstrap_corpus
from evaladdon.stats.resampling import bootstrap_items as bootstrap_items
from evaladdon.stats.resampling import cluster_totals as cluster_totals
from evaladdon.stats.resampling import paired_totals_difference as paired_totals_difference

__all__ = [
    "binary_f1_stats", "confusion_stats", "f1_from_totals", "macro_f1_from_totals", "mcc_from_totals",
    "micro_f1_from_totals", "multilabel_stats", "ratio_stat", "rowwise",
]



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
    for i, (gs, ps) in enumerate(zip(gold_sets, pred_sets, strict=True)):  # sets of a few labels per item
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
