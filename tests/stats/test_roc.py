"""ROC AUC (DeLong, clustered DeLong) and average precision: scikit-learn for point values,
the O(mn) structural-component definition for the variance, Monte-Carlo coverage and size."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from evaladdon.stats.roc import average_precision, compare_average_precision, compare_roc_auc, roc_auc

sk = pytest.importorskip("sklearn.metrics")


def _psi_matrix(s: np.ndarray, y: np.ndarray) -> np.ndarray:
    x, z = s[y == 1], s[y == 0]
    return (x[:, None] > z[None, :]) + 0.5 * (x[:, None] == z[None, :])


def _delong_direct(s: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """DeLong et al. (1988) written from the definition: O(mn) kernel matrix."""
    psi = _psi_matrix(s, y)
    m, n = psi.shape
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    return float(psi.mean()), float(v10.var(ddof=1) / m + v01.var(ddof=1) / n)


def _obuchowski_direct(s: np.ndarray, y: np.ndarray, cl: np.ndarray) -> float:
    """Obuchowski (1997) eq. for clustered data, written with explicit loops over clusters."""
    psi = _psi_matrix(s, y)
    a = psi.mean()
    m, n = psi.shape
    cp, cn = cl[y == 1], cl[y == 0]
    ks = np.unique(cl)
    v10 = {k: psi[cp == k].sum() / n for k in ks}  # sum over the cluster's positives of V10
    v01 = {k: psi[:, cn == k].sum() / m for k in ks}
    mk = {k: int((cp == k).sum()) for k in ks}
    nk = {k: int((cn == k).sum()) for k in ks}
    i10 = sum(mk[k] > 0 for k in ks)
    i01 = sum(nk[k] > 0 for k in ks)
    i = len(ks)
    s10 = i10 / ((i10 - 1) * m) * sum((v10[k] - mk[k] * a) ** 2 for k in ks)
    s01 = i01 / ((i01 - 1) * n) * sum((v01[k] - nk[k] * a) ** 2 for k in ks)
    s11 = i / (i - 1) * sum((v10[k] - mk[k] * a) * (v01[k] - nk[k] * a) for k in ks)
    return s10 / m + s01 / n + 2 * s11 / (m * n)


@pytest.mark.parametrize("seed,ties", [(0, False), (1, True), (2, True)])
def test_auc_and_delong_variance_match_definitions(seed: int, ties: bool) -> None:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 120)
    s = rng.normal(size=120) + y
    if ties:
        s = np.round(s * 2) / 2
    r = roc_auc(s, y)
    auc, var = _delong_direct(s, y)
    assert r.estimate == pytest.approx(sk.roc_auc_score(y, s), abs=1e-12)
    assert r.estimate == pytest.approx(auc, abs=1e-12)
    assert r.se == pytest.approx(math.sqrt(var), rel=1e-10)


def test_clustered_variance_matches_obuchowski_and_singletons_match_delong() -> None:
    rng = np.random.default_rng(4)
    cl = np.repeat(np.arange(25), 6)
    y = rng.integers(0, 2, cl.size)
    s = rng.normal(size=25)[cl] + rng.normal(size=cl.size) + 0.8 * y
    r = roc_auc(s, y, cl)
    assert r.se == pytest.approx(math.sqrt(_obuchowski_direct(s, y, cl)), rel=1e-10)
    single = roc_auc(s, y, np.arange(cl.size))
    assert single.se == pytest.approx(roc_auc(s, y).se, rel=1e-10)


def test_paired_delong_matches_direct_covariance() -> None:
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 150)
    e = rng.normal(size=150)
    sa = e + 0.8 * y
    sb = 0.6 * e + 0.8 * rng.normal(size=150) + 1.1 * y
    psi_a, psi_b = _psi_matrix(sa, y), _psi_matrix(sb, y)
    m, n = psi_a.shape
    s10 = np.cov(np.vstack([psi_a.mean(1), psi_b.mean(1)]))
    s01 = np.cov(np.vstack([psi_a.mean(0), psi_b.mean(0)]))
    cov = s10 / m + s01 / n
    var = cov[0, 0] + cov[1, 1] - 2 * cov[0, 1]
    r = compare_roc_auc(sa, sb, y)
    assert r.delta == pytest.approx(psi_b.mean() - psi_a.mean())
    assert r.se == pytest.approx(math.sqrt(var), rel=1e-10)
    assert r.p_value == pytest.approx(2 * sps.norm.sf(abs(r.delta) / r.se))


def test_delong_coverage_binormal_clustered() -> None:
    """Binormal model with a cluster effect; truth AUC = Phi(d / sqrt(2 (1 + s_u^2)))."""
    rng = np.random.default_rng(12)
    d, su, n_c, size, reps = 1.0, 0.7, 60, 5, 300
    truth = sps.norm.cdf(d / math.sqrt(2 * (1 + su**2)))
    cl = np.repeat(np.arange(n_c), size)
    hits_cl = 0
    for _ in range(reps):
        y = rng.integers(0, 2, cl.size)
        s = su * rng.normal(size=n_c)[cl] + rng.normal(size=cl.size) + d * y
        r = roc_auc(s, y, cl)
        hits_cl += r.ci_low <= truth <= r.ci_high
    assert 0.91 <= hits_cl / reps <= 0.98


def test_paired_delong_size_and_coverage() -> None:
    rng = np.random.default_rng(13)
    reps, rejections = 300, 0
    for _ in range(reps):
        y = rng.integers(0, 2, 120)
        e = rng.normal(size=120)
        sa = 0.7 * e + 0.71 * rng.normal(size=120) + y
        sb = 0.7 * e + 0.71 * rng.normal(size=120) + y  # same law: equal AUCs
        rejections += compare_roc_auc(sa, sb, y).p_value < 0.05
    assert 0.02 <= rejections / reps <= 0.09


@pytest.mark.parametrize("seed,ties", [(0, False), (3, True)])
def test_average_precision_matches_sklearn(seed: int, ties: bool) -> None:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 200)
    s = rng.normal(size=200) + y
    if ties:
        s = np.round(s)
    r = average_precision(s, y, n_boot=200)
    assert r.estimate == pytest.approx(sk.average_precision_score(y, s), abs=1e-12)


def test_average_precision_replicate_equals_sklearn_on_resampled_clusters() -> None:
    from evaladdon.stats.roc import _ap_from_weights, _threshold_tables

    rng = np.random.default_rng(2)
    cl = np.repeat(np.arange(10), 7)
    y = rng.integers(0, 2, 70).astype(bool)
    s = np.round(rng.normal(size=70) + y, 1)
    pos, neg = _threshold_tables(s, y, cl, 10)
    w = rng.multinomial(10, np.full(10, 0.1)).astype(float)
    items = np.concatenate([np.flatnonzero(cl == c) for c in np.repeat(np.arange(10), w.astype(int))])
    assert _ap_from_weights(w[None], pos, neg)[0] == pytest.approx(sk.average_precision_score(y[items], s[items]))


def test_average_precision_coverage() -> None:
    """Truth: AP of a very large sample from the same clustered binormal law."""
    rng = np.random.default_rng(5)
    su, n_c, size = 0.5, 50, 6

    def draw(nc: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        cl = np.repeat(np.arange(nc), size)
        y = rng.random(cl.size) < 0.3
        return su * rng.normal(size=nc)[cl] + rng.normal(size=cl.size) + 1.2 * y, y, cl

    big_s, big_y, _ = draw(40_000)
    truth = sk.average_precision_score(big_y, big_s)
    reps, hits = 120, 0
    for i in range(reps):
        s, y, cl = draw(n_c)
        r = average_precision(s, y, cl, n_boot=300, seed=i)
        hits += r.ci_low <= truth <= r.ci_high
    assert 0.88 <= hits / reps <= 0.99


def test_paired_average_precision_and_bca() -> None:
    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 150)
    sa = rng.normal(size=150) + y
    r = compare_average_precision(sa, sa, y, n_boot=200)
    assert r.delta == 0 and r.ci_low == 0 and r.ci_high == 0
    sb = sa + 0.8 * y
    r = compare_average_precision(sa, sb, y, np.arange(150) // 3, n_boot=400, method="bca")
    assert r.delta > 0 and r.ci_low > 0 and r.p_value < 0.05
    assert r.estimate_b == pytest.approx(sk.average_precision_score(y, sb))


def test_refusals() -> None:
    with pytest.raises(ValueError):
        roc_auc([0.1, 0.2], [1, 1])
    with pytest.raises(ValueError):
        roc_auc([0.1, 0.2], [0, 2])
    with pytest.raises(ValueError):
        average_precision([0.1, 0.2], [0, 0])


def test_paired_average_precision_coverage() -> None:
    """B = A's score plus a label signal; truth from a large sample of the same law."""
    rng = np.random.default_rng(10)

    def draw(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        y = rng.random(n) < 0.3
        e = rng.normal(size=n)
        return e + 0.8 * y, 0.8 * e + 0.6 * rng.normal(size=n) + 1.2 * y, y

    sa, sb, y = draw(200_000)
    truth = sk.average_precision_score(y, sb) - sk.average_precision_score(y, sa)
    reps, hits = 100, 0
    for i in range(reps):
        sa, sb, y = draw(240)
        r = compare_average_precision(sa, sb, y, n_boot=300, seed=i)
        hits += r.ci_low <= truth <= r.ci_high
    assert 0.88 <= hits / reps <= 1.0


def test_one_positive_gives_nan_interval_with_a_note() -> None:
    r = roc_auc([0.9, 0.1, 0.2, 0.3], [1, 0, 0, 0])
    assert r.estimate == 1.0 and math.isnan(r.ci_low) and math.isnan(r.ci_high) and r.notes
