"""Paired comparison: McNemar, paired intervals, t, permutation, multiple comparisons, gate."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats as sps
from statsmodels.stats.contingency_tables import cochrans_q as sm_cochrans_q
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.multitest import multipletests

from evaladdon.stats import (
    adjust_pvalues,
    cochrans_q,
    compare_paired,
    mcnemar,
    paired_binary_interval,
    regression_gate,
    sign_flip_test,
)


@pytest.mark.parametrize("n10,n01", [(0, 0), (0, 5), (7, 1), (10, 2), (3, 3), (15, 40), (200, 230)])
def test_mcnemar_matches_statsmodels(n10: int, n01: int) -> None:
    table = [[30, n10], [n01, 25]]
    ours = mcnemar(n10, n01)
    assert ours.exact_p == pytest.approx(sm_mcnemar(table, exact=True).pvalue, abs=1e-12)
    if n10 + n01 > 0:
        assert ours.chi2_p == pytest.approx(sm_mcnemar(table, exact=False, correction=False).pvalue, rel=1e-10)
        assert ours.chi2_cc_p == pytest.approx(sm_mcnemar(table, exact=False, correction=True).pvalue, rel=1e-10)


def test_mcnemar_published_values() -> None:
    assert mcnemar(7, 1).mid_p == pytest.approx(0.0390625, abs=1e-15)
    assert mcnemar(10, 2).exact_p == pytest.approx(0.03857421875, abs=1e-15)


def test_mcnemar_is_fast_with_many_discordant_pairs() -> None:
    r = mcnemar(34_500, 33_500)  # a hand-written exact sum takes minutes here
    assert 0 < r.exact_p < 0.01


@pytest.mark.parametrize(
    "method,low,high",
    [("bonett-price", -0.508, -0.013), ("newcombe", -0.507, -0.026), ("tango", -0.517, -0.026)],
)
def test_fagerland_table_v(method: str, low: float, high: float) -> None:
    # (n11, n12, n21, n22) = (1, 1, 7, 12), p1 - p2 of the row system (A) minus the column (B);
    # ours is B - A, so the published interval is our interval negated.
    ci = paired_binary_interval(1, 1, 7, 12, method)
    assert -ci.high == pytest.approx(low, abs=5e-4)
    assert -ci.low == pytest.approx(high, abs=5e-4)


def test_tango_yang_sun_hardin() -> None:
    ci = paired_binary_interval(36, 12, 2, 0, "tango")  # N = 50, b = 12, c = 2
    assert (-ci.high, -ci.low) == pytest.approx((0.06111, 0.34471), abs=5e-6)


@pytest.mark.parametrize("method", ["newcombe", "tango", "bonett-price", "wald"])
def test_paired_intervals_edges_stay_in_range(method: str) -> None:
    for cells in [(0, 0, 0, 10), (10, 0, 0, 0), (0, 10, 0, 0), (0, 0, 10, 0), (5, 0, 3, 2)]:
        ci = paired_binary_interval(*cells, method=method)
        assert -1 <= ci.low <= ci.estimate <= ci.high <= 1, (cells, ci)


def test_paired_t_matches_scipy_and_unpaired_se_beside_it() -> None:
    rng = np.random.default_rng(3)
    a = rng.normal(size=80)
    b = a + rng.normal(0.2, 0.5, size=80)
    r = compare_paired(a, b, one_epoch=False)
    ref = sps.ttest_rel(b, a)
    assert r.t_statistic == pytest.approx(ref.statistic)
    assert r.p_value == pytest.approx(ref.pvalue)
    assert r.test == "t"
    assert r.se_unpaired > r.se_paired
    assert r.variance_removed == pytest.approx(1 - np.var(b - a, ddof=1) / (np.var(a, ddof=1) + np.var(b, ddof=1)))
    assert r.correlation == pytest.approx(np.corrcoef(a, b)[0, 1])


def test_binary_comparison_defaults() -> None:
    a = np.array([1] * 30 + [0] * 10 + [1] * 2 + [0] * 8, dtype=float)
    b = np.array([1] * 30 + [1] * 10 + [0] * 2 + [0] * 8, dtype=float)
    r = compare_paired(a, b)
    assert r.test == "mcnemar" and r.ci_method == "tango"
    assert (r.discordance.n10, r.discordance.n01) == (2, 10)
    assert r.p_value == pytest.approx(0.03857421875)
    assert r.delta == pytest.approx(8 / 50)


def test_clustered_paired_uses_cluster_se() -> None:
    rng = np.random.default_rng(8)
    clusters = np.repeat(np.arange(20), 10)
    shift = rng.normal(0, 0.3, 20)[clusters]
    a = rng.normal(size=200)
    b = a + shift + rng.normal(0, 0.2, 200)
    r = compare_paired(a, b, clusters, one_epoch=False, cluster_method="cr1")
    assert r.n_clusters == 20 and r.df == 19 and r.se == r.se_cluster > r.se_paired
    default = compare_paired(a, b, clusters, one_epoch=False)  # CR2 + Bell-McCaffrey df by default
    assert default.se == default.se_cluster_cr2 and default.df == pytest.approx(19)  # equal sizes: CR2 = CR1
    with pytest.raises(ValueError, match="mcnemar"):
        compare_paired((a > 0).astype(float), (b > 0).astype(float), clusters, test="mcnemar")


def brute_force_sign_flip(d: np.ndarray) -> float:
    obs = abs(d.sum())
    hits = [abs(np.dot(s, d)) >= obs - 1e-12 for s in itertools.product([-1, 1], repeat=d.size)]
    return float(np.mean(hits))


def test_sign_flip_exact_matches_brute_force_and_scipy() -> None:
    rng = np.random.default_rng(5)
    d = rng.normal(0.3, 1, 12)
    ours = sign_flip_test(d)
    assert ours.exact
    assert ours.p_value == pytest.approx(brute_force_sign_flip(d))
    ref = sps.permutation_test((d,), lambda x: np.sum(x), permutation_type="samples", n_resamples=np.inf,
                               alternative="two-sided")
    assert ours.p_value == pytest.approx(ref.pvalue)


def test_sign_flip_monte_carlo_and_zeros() -> None:
    rng = np.random.default_rng(6)
    d = np.concatenate([rng.normal(0.0, 1, 60), np.zeros(40)])
    r = sign_flip_test(d, n_permutations=20_000, seed=1)
    assert not r.exact and r.n_nonzero == 60
    assert r.p_value == pytest.approx(sps.ttest_1samp(d[:60], 0).pvalue, abs=0.05)
    assert sign_flip_test(np.zeros(5)).p_value == 1.0


def test_size_of_mcnemar_and_permutation_at_most_nominal() -> None:
    rng = np.random.default_rng(10)
    reps, n = 400, 60
    rej_mc = rej_perm = 0
    for i in range(reps):
        p = rng.uniform(0.2, 0.8, n)  # correlated runs through shared item difficulty
        a = (rng.random(n) < p).astype(float)
        b = (rng.random(n) < p).astype(float)
        r = compare_paired(a, b, test="mcnemar")
        rej_mc += r.p_value <= 0.05
        rej_perm += sign_flip_test(b - a, n_permutations=500, seed=i).p_value <= 0.05
    assert rej_mc / reps <= 0.05 + 0.02
    assert rej_perm / reps <= 0.05 + 0.025


def test_paired_interval_coverage_with_correlated_runs() -> None:
    rng = np.random.default_rng(14)
    reps, n = 500, 150
    cover_newcombe = cover_t = 0
    for _ in range(reps):
        p = rng.beta(1, 1, n)
        a = (rng.random(n) < p).astype(float)
        b = (rng.random(n) < np.clip(p + 0.05, 0, 1)).astype(float)
        true = float(np.mean(np.clip(p + 0.05, 0, 1) - p))
        r = compare_paired(a, b)
        cover_newcombe += r.ci_low <= true <= r.ci_high
        rt = compare_paired(a, b, interval="t")
        cover_t += rt.ci_low <= true <= rt.ci_high
    assert 0.92 <= cover_newcombe / reps <= 0.98
    assert 0.92 <= cover_t / reps <= 0.98


@pytest.mark.parametrize("ours,theirs", [("holm", "holm"), ("bh", "fdr_bh"), ("bonferroni", "bonferroni")])
def test_adjusted_pvalues_match_statsmodels(ours: str, theirs: str) -> None:
    rng = np.random.default_rng(2)
    p = np.concatenate([rng.uniform(0, 0.05, 5), rng.uniform(0, 1, 15), [0.01, 0.01]])
    assert adjust_pvalues(p, ours) == pytest.approx(multipletests(p, method=theirs)[1])


def test_adjusted_pvalues_keep_nan() -> None:
    out = adjust_pvalues([0.01, np.nan, 0.04], "holm", nan_policy="omit")  # (the default refuses a NaN)
    assert np.isnan(out[1]) and out[0] == pytest.approx(0.02) and out[2] == pytest.approx(0.04)


def test_cochrans_q_matches_statsmodels() -> None:
    rng = np.random.default_rng(4)
    p = rng.uniform(0.2, 0.9, 60)
    x = (rng.random((60, 4)) < (p[:, None] + np.array([0, 0.05, 0.1, -0.05]))).astype(float)
    ours = cochrans_q(x)
    ref = sm_cochrans_q(x)
    assert ours.statistic == pytest.approx(ref.statistic)
    assert ours.p_value == pytest.approx(ref.pvalue)
    assert ours.df == 3


def test_regression_gate_decisions() -> None:
    assert regression_gate(-0.05, -0.01, 0.0).decision == "regression shown"
    assert regression_gate(-0.05, -0.01, 0.02).decision == "inconclusive"
    assert regression_gate(-0.015, -0.005, 0.02).decision == "no regression shown within m"
    assert regression_gate(-0.01, 0.03, 0.0).decision == "inconclusive"
    assert regression_gate(0.001, 0.03, 0.0).decision == "no regression shown within m"
    assert regression_gate(float("nan"), 0.1).decision == "inconclusive"
    with pytest.raises(ValueError):
        regression_gate(0, 1, -0.1)


def test_paired_bootstrap_interval_near_t_and_clustered() -> None:
    rng = np.random.default_rng(31)
    a = rng.normal(size=400)
    b = a + rng.normal(0.1, 0.5, 400)
    t = compare_paired(a, b, one_epoch=False)
    bs = compare_paired(a, b, one_epoch=False, interval="bootstrap", n_resamples=4000, seed=2)
    assert bs.ci_method == "bootstrap"
    assert (bs.ci_low, bs.ci_high) == pytest.approx((t.ci_low, t.ci_high), abs=0.01)
    clusters = np.repeat(np.arange(40), 10)
    b2 = b + rng.normal(0, 0.3, 40)[clusters]
    cb = compare_paired(a, b2, clusters, one_epoch=False, interval="bootstrap", n_resamples=4000, seed=2)
    ct = compare_paired(a, b2, clusters, one_epoch=False)
    # the cluster bootstrap resamples whole clusters: its width tracks the clustered t interval
    assert cb.ci_high - cb.ci_low == pytest.approx(ct.ci_high - ct.ci_low, rel=0.2)
    assert ct.n_clusters == 40 and ct.se > ct.se_paired


def test_cr2_paired_with_few_unequal_clusters() -> None:
    rng = np.random.default_rng(32)
    sizes = [40, 20, 10, 5, 3, 2]
    clusters = np.repeat(np.arange(len(sizes)), sizes)
    a = rng.normal(size=clusters.size)
    b = a + 0.2 + rng.normal(0, 0.3, len(sizes))[clusters]
    r = compare_paired(a, b, clusters, one_epoch=False, cluster_method="cr2")
    assert r.se == r.se_cluster_cr2 and r.df == pytest.approx(r.df_cluster_cr2) and r.df < len(sizes) - 1
    assert not any("undercover" in n for n in r.notes)  # issue 10.1: the few-clusters note is about CR1 only
    r1 = compare_paired(a, b, clusters, one_epoch=False, cluster_method="cr1")
    assert any("--cluster-method cr2" in n for n in r1.notes)
