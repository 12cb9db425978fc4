"""The cluster-robust Wald test of equal subgroup means (stats.paired.interaction): statsmodels'
OLS on subgroup dummies with ``cov_type="cluster"`` and ``f_test`` as the oracle, the cases it
cannot test, and a seeded Monte-Carlo check of its size under the null."""

from __future__ import annotations

import numpy as np
import pytest

from evaladdon.stats import SubgroupWald, subgroup_wald

sm = pytest.importorskip("statsmodels.api", reason="statsmodels (the oracle) is not installed")


def _oracle(y: np.ndarray, g: np.ndarray, c: np.ndarray) -> tuple[float, float, float, np.ndarray]:
    labels = np.unique(g)
    x = (g[:, None] == labels[None, :]).astype(float)
    fit = sm.OLS(y, x).fit(cov_type="cluster", cov_kwds={"groups": c}, use_t=True)
    k = labels.size
    test = fit.f_test(np.hstack([-np.ones((k - 1, 1)), np.eye(k - 1)]))
    return float(np.squeeze(test.fvalue)), float(test.pvalue), float(test.df_denom), fit.bse


@pytest.mark.parametrize("seed, k, n_clusters, clustered", [(1, 4, 25, True), (2, 2, 12, True), (3, 6, 60, True),
                                                             (4, 3, 0, False), (5, 5, 0, False)])
def test_matches_statsmodels_cluster_robust_f_test(seed: int, k: int, n_clusters: int, clustered: bool) -> None:
    rng = np.random.default_rng(seed)
    n = 150
    g = rng.integers(0, k, n).astype(str)
    c = rng.integers(0, n_clusters, n) if clustered else np.arange(n)
    y = rng.normal(size=n) + 0.2 * (g == "1") + (rng.normal(size=max(n_clusters, 1))[c] if clustered else 0)
    got = subgroup_wald(y, g, c if clustered else None)
    f, p, df_denom, bse = _oracle(y, g, c)
    assert got.statistic == pytest.approx(f, rel=1e-10)
    assert got.p_value == pytest.approx(p, rel=1e-9)
    assert got.df_denom == df_denom and got.df_num == k - 1
    np.testing.assert_allclose(got.se, bse, rtol=1e-10)
    np.testing.assert_allclose(got.means, [y[g == lab].mean() for lab in got.labels])
    assert got.wald == pytest.approx(f * (k - 1), rel=1e-10) and got.clustered is clustered


def test_cases_it_cannot_test() -> None:
    y = np.arange(10.0)
    one = subgroup_wald(y, ["a"] * 10)
    assert one.p_value is None and "one subgroup" in (one.note or "")
    few = subgroup_wald(y, list("abcab") * 2, [0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    assert few.p_value is None and "too few" in (few.note or "")
    flat = subgroup_wald(np.r_[np.ones(5), np.arange(5.0)], list("aaaaabbbbb"))
    assert flat.p_value is not None  # one subgroup without variation: the other carries the covariance
    same = subgroup_wald(np.ones(6), list("aabbcc"))
    assert same.p_value is None and "undefined" in (same.note or "")
    with pytest.raises(ValueError):
        subgroup_wald([1.0, np.nan], ["a", "b"])
    assert isinstance(one, SubgroupWald)


def test_size_under_the_null_with_clusters() -> None:
    """4 subgroups, 40 clusters of 5 items with ICC 0.3, clusters cutting across subgroups, equal
    means: the test's rejection rate at 5 % stays within [2 %, 6.5 %] (1000 replicates)."""
    rng = np.random.default_rng(11)
    reps, n_clusters, m = 1000, 40, 5
    c = np.repeat(np.arange(n_clusters), m)
    rejected = 0
    for _ in range(reps):
        g = rng.integers(0, 4, c.size)
        y = rng.normal(size=n_clusters)[c] * np.sqrt(0.3) + rng.normal(size=c.size) * np.sqrt(0.7)
        p = subgroup_wald(y, g, c).p_value
        rejected += p is not None and p < 0.05
    assert 0.02 <= rejected / reps <= 0.065, rejected / reps
