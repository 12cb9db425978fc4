"""The single-run estimate: item averaging, SE at each unit, method choice, degenerate input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from evaladdon.stats import estimate_mean, proportion_interval


def test_binary_single_epoch_uses_wilson() -> None:
    x = np.array([1] * 3 + [0] * 7, dtype=float)
    r = estimate_mean(x)
    assert r.method == "wilson"
    ci = proportion_interval(3, 10)
    assert (r.ci_low, r.ci_high) == (ci.low, ci.high)
    assert r.se == pytest.approx(x.std(ddof=1) / np.sqrt(10))
    assert r.se_naive == r.se_item


def test_epochs_are_averaged_within_items() -> None:
    items = np.repeat(["a", "b", "c", "d"], 3)
    x = np.array([1, 1, 0, 0, 0, 0, 1, 1, 1, 0, 1, 0], dtype=float)
    r = estimate_mean(x, items, epochs=np.tile([1, 2, 3], 4))
    means = np.array([2 / 3, 0, 1, 1 / 3])
    assert r.mean == pytest.approx(means.mean())
    assert r.se_item == pytest.approx(means.std(ddof=1) / 2)
    assert r.se_naive == pytest.approx(x.std(ddof=1) / np.sqrt(12))
    assert r.method == "t" and r.df == 3
    assert r.n_epochs_max == 3 and r.icc_epochs is not None


def test_duplicate_item_epoch_refused() -> None:
    with pytest.raises(ValueError, match="more than once"):
        estimate_mean([1.0, 0.0], ["a", "a"], epochs=[1, 1])


def test_clustered_matches_statsmodels_and_reports_deff() -> None:
    rng = np.random.default_rng(9)
    clusters = np.repeat(np.arange(25), 6)
    item_p = 1 / (1 + np.exp(-(rng.normal(0, 1.5, 25)[clusters])))
    x = rng.binomial(1, item_p).astype(float)
    r = estimate_mean(x, np.arange(150), clusters, cluster_method="cr1")
    fit = sm.OLS(x, np.ones(150)).fit(cov_type="cluster", cov_kwds={"groups": clusters})
    assert r.se_cluster == pytest.approx(float(fit.bse[0]))
    assert r.se == r.se_cluster and r.df == 24 and r.method == "t-cluster-cr1"
    assert r.deff == pytest.approx((r.se_cluster / r.se_item) ** 2)
    assert r.n_eff == pytest.approx(150 / r.deff)
    assert r.icc == pytest.approx((r.deff - 1) / (6 - 1))  # equal sizes: m~ = 6
    r2 = estimate_mean(x, np.arange(150), clusters)  # the default: CR2 with the Bell-McCaffrey df
    assert r2.se == r2.se_cluster_cr2 and r2.df == pytest.approx(r2.df_cluster_cr2)
    assert r2.method == "t-cluster-cr2"


def test_item_in_two_clusters_refused() -> None:
    with pytest.raises(ValueError, match="two clusters"):
        estimate_mean([1.0, 0.0], ["a", "a"], ["c1", "c2"], epochs=[1, 2])


@pytest.mark.parametrize("bad", [[], [np.nan, 1.0], [np.inf]])
def test_empty_or_nonfinite_refused(bad: list[float]) -> None:
    with pytest.raises(ValueError):
        estimate_mean(bad)


def test_degenerate_results_are_documented() -> None:
    one = estimate_mean([1.0])
    assert np.isnan(one.se) and any("one item" in n for n in one.notes)
    assert one.ci_high == 1.0 and one.ci_low > 0  # Wilson still exists for n = 1
    all_one = estimate_mean(np.ones(20))
    assert all_one.mean == 1.0 and all_one.se == 0.0 and all_one.ci_high == 1.0
    assert all_one.ci_low == pytest.approx(proportion_interval(20, 20).low)
    flat = estimate_mean(np.full(6, 0.5), np.repeat(["a", "b", "c"], 2), epochs=[1, 2] * 3)
    assert flat.se == 0.0 and flat.ci_low < 0.5 < flat.ci_high  # issue 10.2: never width 0
    assert flat.method == "zero-se-wilson-items" and any("zero-SE fallback" in n for n in flat.notes)
    one_cluster = estimate_mean([1.0, 0.0, 1.0], clusters=["c", "c", "c"])
    assert np.isnan(one_cluster.se) and np.isnan(one_cluster.ci_low)
    assert any("one cluster" in n for n in one_cluster.notes)


def test_proportion_method_needs_binary_single_epoch() -> None:
    with pytest.raises(ValueError, match="0/1 scores"):
        estimate_mean([0.5, 1.0], method="wilson")


def test_bootstrap_method_is_seeded() -> None:
    rng = np.random.default_rng(4)
    x = rng.normal(size=200)
    a = estimate_mean(x, method="bootstrap", n_resamples=2000, seed=3)
    b = estimate_mean(x, method="bootstrap", n_resamples=2000, seed=3)
    assert (a.ci_low, a.ci_high) == (b.ci_low, b.ci_high)
    assert a.ci_low < a.mean < a.ci_high


def test_naive_se_understates_with_epochs_coverage() -> None:
    """With correlated epochs the item-level t interval covers; the naive one does not."""
    rng = np.random.default_rng(12)
    n, k, reps = 80, 5, 600
    items = np.repeat(np.arange(n), k)
    hit_item = hit_naive = 0
    for _ in range(reps):
        p = rng.beta(0.6, 0.6, n)
        x = rng.binomial(1, p[items]).astype(float)
        r = estimate_mean(x, items)
        hit_item += r.ci_low <= 0.5 <= r.ci_high
        hit_naive += abs(r.mean - 0.5) <= 1.96 * r.se_naive
    assert 0.92 <= hit_item / reps <= 0.975
    assert hit_naive / reps < 0.85


def test_integer_codes_in_first_appearance_order_are_taken_as_they_are() -> None:
    from evaladdon.stats._checks import codes as factorized
    from evaladdon.stats.cluster import codes

    rng = np.random.default_rng(11)
    for trial in range(2000):
        n = int(rng.integers(1, 25))
        labels = rng.integers(0, int(rng.integers(1, 9)), n)
        if trial % 2:
            labels = pd.factorize(labels)[0]  # the form the summary passes
        if trial % 3 == 0:
            labels = labels.astype(np.int32)
        got, k = codes(labels, n, "items")
        ref, k_ref = factorized(labels, n, "items")  # oracle: pandas.factorize
        assert got.dtype == ref.dtype and got.tolist() == ref.tolist() and k == k_ref
    negative = np.array([0, -1, 1])  # -1 is a label like any other here (not pandas' missing sentinel)
    assert codes(negative, 3, "items")[0].tolist() == factorized(negative, 3, "items")[0].tolist() == [0, 1, 2]


def test_one_row_per_item_shortcut_equals_the_grouped_path() -> None:
    """With one row per item the item means are the rows themselves (no grouping). Oracle: the
    grouped path, forced by a second identical epoch of every item (which leaves every item
    mean unchanged): the item, cluster and interval fields agree."""
    rng = np.random.default_rng(11)
    n = 400
    x = rng.normal(0.5, 0.2, n)
    clusters = rng.integers(0, 40, n)
    items = np.array([f"item-{k}" for k in rng.permutation(n)])
    one = estimate_mean(x, items=items, clusters=clusters)
    twice = estimate_mean(np.concatenate([x, x]), items=np.concatenate([items, items]),
                          clusters=np.concatenate([clusters, clusters]))
    for field in ("mean", "se", "ci_low", "ci_high", "df", "se_item", "se_cluster", "se_cluster_cr2", "deff", "icc"):
        assert getattr(one, field) == pytest.approx(getattr(twice, field), rel=1e-12), field
    assert one.n_items == n and one.n_epochs_max == 1 and twice.n_epochs_max == 2
    with pytest.raises(ValueError, match="two clusters"):  # still refused once an item has two rows
        estimate_mean(np.concatenate([x, x]), items=np.concatenate([items, items]),
                      clusters=np.concatenate([clusters, clusters + 1]))
