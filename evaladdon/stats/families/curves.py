"""ROC and precision-recall curves with pointwise cluster-bootstrap bands.

The curves are exact: every distinct score is a threshold (flag when ``score >= t``), as
scikit-learn's ``roc_curve(drop_intermediate=False)`` and ``precision_recall_curve``
(:func:`evaladdon.stats.families.threshold.operating_points`).

The bands are *pointwise* percentile intervals of the cluster bootstrap (Macskassy, Provost &
Rosset 2005, "vertical averaging"): on a grid of FPR values, the TPR of each replicate's ROC
curve at that FPR (the highest TPR among thresholds with FPR <= x); on a grid of recall values,
each replicate's interpolated precision (the highest precision among thresholds with recall >=
r, as in the 11-point average precision).  A replicate reweighs whole clusters (multinomial
counts) of the per-cluster counts of positives and negatives above each threshold, so items of
one cluster move together.  Thresholds for the bands are at most ``max_thresholds`` score
quantiles (the point curves use every score).  Pointwise: at each grid value the band covers
the population curve with the stated probability, not the whole curve at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from evaladdon.stats._base.checks import check_level, codes
from evaladdon.stats._base.threads import one_blas_thread
from evaladdon.stats.families.threshold import operating_points
from evaladdon.stats.resampling import cluster_weights

__all__ = ["CurveBands", "curve_bands", "pr_curve", "roc_curve"]


def roc_curve(scores: npt.ArrayLike, labels: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(fpr, tpr, thresholds)``, thresholds decreasing from ``+inf``."""
    t, tp, fp = operating_points(scores, labels)
    if tp[-1] == 0 or fp[-1] == 0:
        raise ValueError("a ROC curve needs both labels (0 and 1)")
    return fp / fp[-1], tp / tp[-1], t


def pr_curve(scores: npt.ArrayLike, labels: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(recall, precision, thresholds)`` at every finite threshold, decreasing."""
    t, tp, fp = operating_points(scores, labels)
    if tp[-1] == 0:
        raise ValueError("a precision-recall curve needs positives")
    return tp[1:] / tp[-1], tp[1:] / (tp[1:] + fp[1:]), t[1:]


@dataclass(frozen=True)
class CurveBands:
    """Pointwise bands: TPR on ``fpr_grid``, interpolated precision on ``recall_grid``."""

    fpr_grid: np.ndarray
    tpr: np.ndarray
    tpr_low: np.ndarray
    tpr_high: np.ndarray
    recall_grid: np.ndarray
    precision: np.ndarray
    precision_low: np.ndarray
    precision_high: np.ndarray
    level: float
    n_boot: int
    n_clusters: int


def _count_below(values: np.ndarray, grid: np.ndarray, strict: bool) -> np.ndarray:
    """``(b, g)``: per row, how many values are ``< x`` (strict) or ``<= x`` for each grid ``x``.

    Rows are non-decreasing in [0, 1]; shifting row ``b`` by ``2 b`` makes one sorted array,
    so one ``searchsorted`` answers every row (no loop over replicates)."""
    b, t = values.shape
    shift = 2.0 * np.arange(b)[:, None]
    flat = (np.nan_to_num(values, nan=0.0) + shift).ravel()
    pos = np.searchsorted(flat, (grid[None, :] + shift).ravel(), side="left" if strict else "right")
    return pos.reshape(b, grid.size) - (np.arange(b) * t)[:, None]


def _tpr_at(fpr: np.ndarray, tpr: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Per row: the highest TPR among points with FPR <= x (rows are increasing in both)."""
    idx = _count_below(fpr, grid, strict=False) - 1
    return np.take_along_axis(tpr, np.maximum(idx, 0), axis=1)


def _precision_at(recall: np.ndarray, precision: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Per row: the highest precision among points with recall >= r (NaN where none)."""
    interp = np.maximum.accumulate(np.nan_to_num(precision, nan=0.0)[:, ::-1], axis=1)[:, ::-1]
    idx = _count_below(recall, grid, strict=True)
    ok = idx < recall.shape[1]
    got = np.take_along_axis(interp, np.minimum(idx, recall.shape[1] - 1), axis=1)
    return np.where(ok, got, np.nan)


def curve_bands(scores: npt.ArrayLike, labels: npt.ArrayLike, clusters: npt.ArrayLike | None = None, *,
                level: float = 0.95, n_boot: int = 1000, seed: int | None = 0, grid_size: int = 101,
                max_thresholds: int = 400) -> CurveBands:
    """Pointwise cluster-bootstrap bands of the ROC and PR curves (module doc)."""
    level = check_level(level)
    s, y = np.asarray(scores, dtype=float), np.asarray(labels, dtype=float)
    roc_curve(s, y)  # checks
    cc, n_c = codes(clusters, s.size, "clusters")
    if n_c < 2:
        raise ValueError("bands need at least two clusters (or items)")
    cuts = np.unique(s)[::-1]
    if cuts.size > max_thresholds:
        cuts = np.unique(np.quantile(s, np.linspace(0, 1, max_thresholds)))[::-1]
    # bin of each score: the first cut (from the top) it reaches; counts above each cut by cluster
    pos = np.minimum(np.searchsorted(-cuts, -s, side="left"), cuts.size - 1)  # first cut <= score
    g = cuts.size
    above_pos = np.cumsum(np.bincount(cc * g + pos, weights=y, minlength=n_c * g).reshape(n_c, g), axis=1)
    above_neg = np.cumsum(np.bincount(cc * g + pos, weights=1 - y, minlength=n_c * g).reshape(n_c, g), axis=1)
    w = cluster_weights(np.random.default_rng(seed), n_boot, n_c).astype(float)
    with one_blas_thread():  # small products: threads only contend
        tp, fp = w @ above_pos, w @ above_neg
    with np.errstate(divide="ignore", invalid="ignore"):
        tpr, fpr = tp / tp[:, -1:], fp / fp[:, -1:]
        precision = np.where(tp + fp > 0, tp / (tp + fp), np.nan)
    zeros = np.zeros((n_boot, 1))
    fgrid = np.linspace(0.0, 1.0, grid_size)
    roc_reps = _tpr_at(np.hstack([zeros, fpr]), np.hstack([zeros, tpr]), fgrid)
    pr_reps = _precision_at(tpr, precision, fgrid)
    ok = np.isfinite(roc_reps).all(axis=1) & np.isfinite(tpr[:, -1])
    q = [(1 - level) / 2, (1 + level) / 2]
    rl, rh = np.quantile(roc_reps[ok], q, axis=0)
    pl, ph = np.quantile(np.nan_to_num(pr_reps[ok], nan=0.0), q, axis=0)
    fr, tr, _ = roc_curve(s, y)
    rec, prec, _ = pr_curve(s, y)
    point_roc = tr[np.searchsorted(fr, fgrid, side="right") - 1]
    point_pr = _precision_at(rec[None], prec[None], fgrid)[0]
    return CurveBands(fgrid, point_roc, rl, rh, fgrid, point_pr, pl, ph, level, n_boot, n_c)
