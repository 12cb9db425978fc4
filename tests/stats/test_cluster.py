"""CR1 against statsmodels, CR2 and its Satterthwaite df against dense Bell-McCaffrey algebra."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import linalg

from evaladdon.stats import clustered_se, satterthwaite_df_intercept


def dense_bell_mccaffrey(x: np.ndarray, clusters: np.ndarray) -> tuple[float, float]:
    """CR2 SE and BM df for the intercept-only OLS by explicit matrices (the oracle)."""
    n = x.size
    X = np.ones((n, 1))
    XtX_inv = np.linalg.inv(X.T @ X)
    H = X @ XtX_inv @ X.T
    e = x - x.mean()
    I_minus_H = np.eye(n) - H
    meat = 0.0
    G = []
    for c in np.unique(clusters):
        idx = np.flatnonzero(clusters == c)
        Hcc = H[np.ix_(idx, idx)]
        vals, vecs = np.linalg.eigh(np.eye(idx.size) - Hcc)
        A = vecs @ np.diag(vals**-0.5) @ vecs.T
        u = X[idx].T @ A @ e[idx]
        meat += float(u @ u)
        G.append(I_minus_H[:, idx] @ A @ X[idx] @ XtX_inv[:, 0])
    var = float(XtX_inv[0, 0] ** 2 * meat)
    Gm = np.column_stack(G)
    lam = linalg.eigvalsh(Gm.T @ Gm)
    return float(np.sqrt(var)), float(lam.sum() ** 2 / np.sum(lam**2))


def test_cr1_matches_statsmodels() -> None:
    rng = np.random.default_rng(1)
    clusters = rng.integers(0, 17, 240)
    x = rng.normal(size=17)[clusters] + rng.normal(size=240)
    fit = sm.OLS(x, np.ones(240)).fit(cov_type="cluster", cov_kwds={"groups": clusters})
    ours = clustered_se(x, clusters)
    assert ours.se_cr1 == pytest.approx(float(fit.bse[0]), rel=1e-10)
    assert ours.df_cr1 == len(np.unique(clusters)) - 1


def test_cr2_and_df_match_dense_oracle() -> None:
    rng = np.random.default_rng(2)
    sizes = [231, 75, 44, 34, 32, 22, 22, 19, 10, 8, 2, 1]
    clusters = np.repeat(np.arange(len(sizes)), sizes)
    x = rng.normal(size=len(sizes))[clusters] + rng.normal(size=clusters.size)
    se, df = dense_bell_mccaffrey(x, clusters)
    ours = clustered_se(x, clusters)
    assert ours.se_cr2 == pytest.approx(se, rel=1e-9)
    assert ours.df_cr2 == pytest.approx(df, rel=1e-9)
    assert ours.df_cr2 == pytest.approx(3.3308, abs=5e-5)  # the value the issue gives
    assert satterthwaite_df_intercept(sizes) == pytest.approx(3.3308, abs=5e-5)


def test_cr2_special_cases() -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(size=60)
    equal = np.repeat(np.arange(12), 5)
    r = clustered_se(x, equal)
    assert r.se_cr2 == pytest.approx(r.se_cr1, rel=1e-12)
    assert r.df_cr2 == pytest.approx(11.0)
    singletons = clustered_se(x, np.arange(60))
    assert singletons.se_cr2 == pytest.approx(x.std(ddof=1) / np.sqrt(60), rel=1e-12)
    assert singletons.se_cr1 == pytest.approx(x.std(ddof=1) / np.sqrt(60), rel=1e-12)


def test_one_cluster_is_documented_nan() -> None:
    r = clustered_se([0.1, 0.5, 0.9], ["a", "a", "a"])
    assert np.isnan(r.se_cr1) and np.isnan(r.se_cr2)
    assert any("one cluster" in n for n in r.notes)


def test_clustered_t_coverage_monte_carlo() -> None:
    """CR1 with t(C-1) covers near nominal with 30 equal clusters and strong correlation."""
    rng = np.random.default_rng(11)
    n_c, m, reps = 30, 8, 1500
    clusters = np.repeat(np.arange(n_c), m)
    from scipy import stats as sps

    q = sps.t.ppf(0.975, n_c - 1)
    hits = 0
    for _ in range(reps):
        x = rng.normal(size=n_c)[clusters] + rng.normal(size=n_c * m)
        r = clustered_se(x, clusters)
        hits += abs(r.mean) <= q * r.se_cr1
    assert 0.93 <= hits / reps <= 0.97
