"""Cluster bootstrap against scipy.stats.bootstrap (singleton clusters) and by coverage."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from evaladdon.stats import bootstrap_mean, bootstrap_totals


@pytest.mark.parametrize("method,scipy_method", [("percentile", "percentile"), ("bca", "BCa")])
def test_singletons_match_scipy(method: str, scipy_method: str) -> None:
    rng = np.random.default_rng(0)
    x = rng.exponential(size=150)  # skewed, so BCa differs from percentile
    ours = bootstrap_mean(x, n_resamples=40_000, method=method, seed=1)  # type: ignore[arg-type]
    ref = sps.bootstrap((x,), np.mean, n_resamples=40_000, method=scipy_method, random_state=2).confidence_interval
    assert ours.low == pytest.approx(ref.low, abs=0.012)
    assert ours.high == pytest.approx(ref.high, abs=0.012)
    assert ours.se == pytest.approx(x.std(ddof=0) / np.sqrt(150), rel=0.05)


def test_seeded_and_reproducible() -> None:
    x = np.arange(50.0)
    a = bootstrap_mean(x, seed=5, n_resamples=500)
    b = bootstrap_mean(x, seed=5, n_resamples=500)
    assert a == b


def test_cluster_bootstrap_coverage() -> None:
    rng = np.random.default_rng(21)
    n_c, m, reps = 40, 5, 300
    clusters = np.repeat(np.arange(n_c), m)
    hits = 0
    for i in range(reps):
        x = rng.normal(size=n_c)[clusters] + rng.normal(size=n_c * m)
        r = bootstrap_mean(x, clusters, n_resamples=1000, seed=i)
        hits += r.low <= 0.0 <= r.high
    assert 0.90 <= hits / reps <= 0.98


def test_refusals() -> None:
    with pytest.raises(ValueError):
        bootstrap_totals(np.ones((1, 2)))
    with pytest.raises(ValueError):
        bootstrap_totals(np.ones((5, 2)), n_resamples=10)
    with pytest.raises(ValueError):
        bootstrap_totals(np.ones((5, 2)), method="studentized")  # type: ignore[arg-type]
