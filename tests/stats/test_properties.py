"""Property-based checks (hypothesis) of invariants every estimator must keep."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from evaladdon.stats import (
    PROPORTION_METHODS,
    adjust_pvalues,
    clustered_se,
    estimate_mean,
    paired_binary_interval,
    proportion_interval,
)


@given(st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
       st.sampled_from(PROPORTION_METHODS), st.floats(0.5, 0.999))
def test_proportion_interval_contains_estimate_within_unit(kn: tuple[int, int], method: str, level: float) -> None:
    k, n = kn
    ci = proportion_interval(k, n, method, level)
    assert 0.0 <= ci.low <= ci.high <= 1.0
    if method != "wald":  # Wald collapses at 0 and n but still contains the estimate
        assert ci.low <= k / n <= ci.high


@given(st.integers(0, 30), st.integers(0, 30), st.integers(0, 30), st.integers(0, 30),
       st.sampled_from(["newcombe", "tango", "bonett-price", "wald"]))
def test_paired_interval_in_range(n11: int, n10: int, n01: int, n00: int, method: str) -> None:
    if n11 + n10 + n01 + n00 == 0:
        return
    ci = paired_binary_interval(n11, n10, n01, n00, method)
    assert -1.0 <= ci.low <= ci.high <= 1.0
    if method in ("newcombe", "tango", "wald"):
        assert ci.low - 1e-9 <= ci.estimate <= ci.high + 1e-9


@settings(max_examples=50)
@given(st.lists(st.floats(0, 1), min_size=3, max_size=60), st.integers(0, 2**31 - 1))
def test_estimate_is_invariant_to_row_order(values: list[float], seed: int) -> None:
    x = np.array(values)
    items = np.arange(x.size) // 2
    clusters = items // 3
    perm = np.random.default_rng(seed).permutation(x.size)
    a = estimate_mean(x, items, clusters if len(set(clusters)) > 1 else None)
    b = estimate_mean(x[perm], items[perm], clusters[perm] if len(set(clusters)) > 1 else None)
    assert np.isclose(a.mean, b.mean) and np.isclose(a.se_item, b.se_item, equal_nan=True)
    if a.se_cluster is not None:
        assert np.isclose(a.se_cluster, b.se_cluster, equal_nan=True)


@settings(max_examples=50)
@given(st.lists(st.floats(-5, 5), min_size=4, max_size=50))
def test_cr2_at_least_as_large_as_unscaled_sandwich(values: list[float]) -> None:
    x = np.array(values)
    clusters = np.arange(x.size) % 3
    r = clustered_se(x, clusters)
    raw = np.sqrt(np.sum(np.bincount(clusters, weights=x - x.mean()) ** 2)) / x.size
    assert r.se_cr2 >= raw - 1e-12 and r.se_cr1 >= raw - 1e-12


@given(st.lists(st.floats(0, 1), min_size=1, max_size=30), st.sampled_from(["holm", "bh", "bonferroni"]))
def test_adjusted_pvalues_are_valid(p: list[float], method: str) -> None:
    adj = adjust_pvalues(p, method)
    assert np.all(adj >= np.array(p) - 1e-12) and np.all(adj <= 1.0)
