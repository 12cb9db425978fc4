"""Score ranking: pairwise tests against scipy, Holm against statsmodels, bootstrap rank
probabilities against exact enumeration of every resample, Monte-Carlo coverage of the default
(simultaneous) rank intervals, and the winner's-curse bound."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from evaladdon.stats.ranking import competition_ranks, rank_models


def test_pairwise_tests_match_paired_t_and_holm_matches_statsmodels() -> None:
    from scipy import stats as sps
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(1)
    x = rng.normal([0.0, 0.1, 0.3, 0.35], 1.0, size=(80, 4))
    r = rank_models(x, ["a", "b", "c", "d"], n_boot=0)
    iu = np.triu_indices(4, 1)
    raw = [sps.ttest_rel(x[:, i], x[:, j]).pvalue for i, j in zip(*iu, strict=True)]
    np.testing.assert_allclose(r.p_values[iu], raw, rtol=1e-10)
    np.testing.assert_allclose(r.p_adjusted[iu], multipletests(raw, method="holm")[1], rtol=1e-10)
    np.testing.assert_allclose(r.mean, x.mean(axis=0))


def test_rank_probabilities_match_exact_enumeration() -> None:
    """5 items, 3 models: every one of the 5^5 equally likely bootstrap resamples enumerated."""
    x = np.array([[1, 0, 1], [1, 1, 0], [0, 1, 1], [1, 0, 0], [0.5, 1, 0]], dtype=float)
    exact = np.zeros((3, 3))
    for idx in itertools.product(range(5), repeat=5):
        ranks = competition_ranks(x[list(idx)].mean(axis=0))
        exact[np.arange(3), ranks - 1] += 1
    exact /= 5**5
    r = rank_models(x, ["a", "b", "c"], n_boot=40_000, seed=3)
    np.testing.assert_allclose(r.rank_probabilities, exact, atol=0.012)
    # percentile rank bounds from the exact distribution (inverted CDF at 2.5 % and 97.5 %)
    cdf = np.cumsum(exact, axis=1)
    lo = 1 + (cdf < 0.025).sum(axis=1)
    hi = 1 + (cdf < 0.975).sum(axis=1)
    assert not np.any(np.abs(cdf - 0.025) < 0.01) and not np.any(np.abs(cdf - 0.975) < 0.01)
    np.testing.assert_array_equal(r.boot_rank_low, lo)
    np.testing.assert_array_equal(r.boot_rank_high, hi)


def test_competition_ranks() -> None:
    np.testing.assert_array_equal(competition_ranks(np.array([0.2, 0.5, 0.5, 0.1])), [3, 1, 1, 4])
    np.testing.assert_array_equal(competition_ranks(np.array([[0.2, 0.5], [0.5, 0.5]])), [[2, 1], [1, 1]])


def test_default_rank_intervals_cover_all_true_ranks_simultaneously() -> None:
    """Seeded Monte Carlo (0/1 scores, clustered items): all five true ranks inside their
    intervals at once in at least 95 % of the runs (up to Monte-Carlo error)."""
    rng = np.random.default_rng(20261130)
    mu = np.array([0.50, 0.53, 0.56, 0.62, 0.64])
    true_rank = competition_ranks(mu)
    n, c = 300, 60
    cl = np.repeat(np.arange(c), n // c)
    all_in = 0
    sims = 400
    for _ in range(sims):
        shift = rng.normal(0, 0.15, c)[cl][:, None]  # items of a passage are alike
        p = np.clip(mu[None, :] + shift, 0, 1)
        x = (rng.random((n, 5)) < p).astype(float)
        r = rank_models(x, list("abcde"), cl, n_boot=0)
        all_in += bool(np.all((r.rank_low <= true_rank) & (true_rank <= r.rank_high)))
    assert all_in / sims >= 0.93, all_in / sims


def test_winners_curse_bound_and_bootstrap() -> None:
    """K equal models: the top observed score over-estimates the truth; the Gaussian bound holds
    and the bootstrap estimate is positive and below the bound on average."""
    rng = np.random.default_rng(7)
    k, n = 8, 200
    excess, boot, bounds = [], [], []
    for _ in range(60):
        x = (rng.random((n, k)) < 0.6).astype(float)
        r = rank_models(x, [f"m{i}" for i in range(k)], n_boot=300, seed=int(rng.integers(1 << 30)))
        excess.append(r.top_score - 0.6)
        boot.append(r.optimism)
        bounds.append(r.optimism_bound)
    assert np.mean(excess) > 0.02  # the curse is real here
    assert np.mean(bounds) >= np.mean(excess)
    assert 0 < np.mean(boot) <= np.mean(bounds)
    assert r.top_corrected == pytest.approx(r.top_score - r.optimism)


def test_tiers_and_clear_separation() -> None:
    rng = np.random.default_rng(0)
    x = np.column_stack([rng.random(500) < p for p in (0.2, 0.21, 0.8)]).astype(float)
    r = rank_models(x, ["low", "low2", "high"], n_boot=200)
    assert r.tier[2] == 1 and r.tier[0] == r.tier[1] == 2
    assert (r.rank_low[2], r.rank_high[2]) == (1, 1)
    assert r.rank_high[0] == 3 and r.rank_low[0] == 2


def test_bad_inputs() -> None:
    with pytest.raises(ValueError, match="finite"):
        rank_models(np.array([[1.0, np.nan], [0.0, 1.0]]), ["a", "b"], n_boot=0)
    with pytest.raises(ValueError, match="two models"):
        rank_models(np.ones((3, 1)), ["a"], n_boot=0)
    with pytest.raises(ValueError, match="100"):
        rank_models(np.eye(3), ["a", "b", "c"], n_boot=10)


def test_bootstrap_mean_intervals_cover() -> None:
    """Seeded Monte Carlo: the percentile cluster-bootstrap intervals of each model's mean."""
    rng = np.random.default_rng(11)
    mu = np.array([0.3, 0.5, 0.7])
    cl = np.repeat(np.arange(40), 5)
    hits = total = 0
    for _ in range(200):
        p = np.clip(mu[None, :] + rng.normal(0, 0.1, 40)[cl][:, None], 0, 1)
        x = (rng.random((200, 3)) < p).astype(float)
        r = rank_models(x, ["a", "b", "c"], cl, n_boot=300, seed=int(rng.integers(1 << 30)))
        hits += int(((r.ci_low <= mu) & (mu <= r.ci_high)).sum())
        total += 3
    assert 0.92 <= hits / total <= 0.98, hits / total
