"""ROC / PR curves: scikit-learn's ``roc_curve`` and ``precision_recall_curve`` as oracles for
the points, the bands' bookkeeping checked against direct recomputation, and a seeded
Monte-Carlo of the pointwise band's coverage in the clustered binormal model."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from evaladdon.stats.families.curves import _precision_at, _tpr_at, curve_bands, pr_curve, roc_curve

skm = pytest.importorskip("sklearn.metrics")


def _data(seed: int, n: int = 400) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.35).astype(float)
    return np.round(rng.normal(y, 1.0), 2), y


def test_points_match_sklearn() -> None:
    s, y = _data(0)
    fpr, tpr, thr = roc_curve(s, y)
    f2, t2, th2 = skm.roc_curve(y, s, drop_intermediate=False)
    assert np.allclose(fpr, f2) and np.allclose(tpr, t2) and np.allclose(thr[1:], th2[1:])
    rec, prec, th = pr_curve(s, y)
    p2, r2, th3 = skm.precision_recall_curve(y, s)
    # sklearn: thresholds increasing, a final (precision 1, recall 0) point; ours decreasing
    assert np.allclose(prec, p2[:-1][::-1]) and np.allclose(rec, r2[:-1][::-1]) and np.allclose(th, th3[::-1])


def test_band_point_curve_and_replicate_helpers() -> None:
    s, y = _data(1)
    b = curve_bands(s, y, n_boot=200)
    fpr, tpr, _ = roc_curve(s, y)
    direct = np.array([tpr[fpr <= x].max() for x in b.fpr_grid])
    assert np.allclose(b.tpr, direct)
    rec, prec, _ = pr_curve(s, y)
    direct_p = np.array([prec[rec >= r].max() for r in b.recall_grid])
    assert np.allclose(b.precision, direct_p)
    assert np.all(b.tpr_low <= b.tpr + 1e-12) and np.all(b.tpr <= b.tpr_high + 1e-12)
    assert np.allclose(_tpr_at(fpr[None], tpr[None], b.fpr_grid)[0], direct)
    assert np.allclose(_precision_at(rec[None], prec[None], b.recall_grid)[0], direct_p)
    with pytest.raises(ValueError, match="both labels"):
        curve_bands([0.1, 0.2], [1, 1])


def test_pointwise_band_coverage_clustered_binormal() -> None:
    """40 clusters of 10 with a shared score shift; truth: TPR(x) = Phi(d / s + Phi^-1(x)) of the
    marginal binormal law; checked at FPR 0.1, 0.3, 0.5 (seeded, 300 replications)."""
    rng = np.random.default_rng(5)
    d, su, se = 1.2, 0.5, 0.9
    sig = np.hypot(su, se)
    xs = np.array([0.1, 0.3, 0.5])
    truth = sps.norm.cdf(d / sig + sps.norm.ppf(xs))
    reps, hits = 300, np.zeros(3)
    for i in range(reps):
        cl = np.repeat(np.arange(40), 10)
        y = (rng.random(400) < 0.4).astype(float)
        s = d * y + su * rng.normal(size=40)[cl] + se * rng.normal(size=400)
        b = curve_bands(s, y, cl, n_boot=250, seed=i)
        j = np.searchsorted(b.fpr_grid, xs)
        hits += (b.tpr_low[j] <= truth) & (truth <= b.tpr_high[j])
    cover = hits / reps
    # measured: 0.953, 0.947, 0.967
    assert np.all(cover >= 0.93) and np.all(cover <= 0.99), cover
