"""Bradley–Terry: MLE against choix and statsmodels, sandwich against statsmodels' cluster
covariance, Davidson against a direct scipy likelihood maximisation, the replicate tables
against explicit resampling, and Monte-Carlo coverage of the default bootstrap intervals."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evaladdon.stats.bradley_terry import (
    ELO_SCALE,
    _newton,
    bradley_terry,
    pair_counts,
    position_bias,
)


def tournament(rng: np.random.Generator, theta: np.ndarray, n: int, n_prompts: int, tie_rate: float = 0.0):
    k = theta.size
    a = rng.integers(0, k, n)
    b = (a + rng.integers(1, k, n)) % k
    p = 1.0 / (1.0 + np.exp(-(theta[a] - theta[b])))
    u = rng.random(n)
    y = np.where(u < tie_rate, 0.5, (rng.random(n) < p).astype(float))
    return a, b, y, rng.integers(0, n_prompts, n)


def design(a: np.ndarray, b: np.ndarray, k: int, ref: int) -> np.ndarray:
    x = np.zeros((a.size, k))
    x[np.arange(a.size), a] = 1.0
    x[np.arange(a.size), b] = -1.0
    return np.delete(x, ref, axis=1)


def test_mle_matches_choix_without_ties() -> None:
    choix = pytest.importorskip("choix")
    rng = np.random.default_rng(3)
    theta = rng.normal(0, 1, 7)
    a, b, y, cl = tournament(rng, theta, 4000, 300)
    res = bradley_terry(a, b, y, cl, n_boot=0)
    data = [(int(i), int(j)) if w == 1 else (int(j), int(i)) for i, j, w in zip(a, b, y, strict=True)]
    ref = choix.opt_pairwise(7, data, alpha=0.0)
    ours = res.theta  # model labels '0'..'6' sort in code order
    np.testing.assert_allclose(ours, ref - ref.mean(), atol=1e-6)
    np.testing.assert_allclose(res.rating, 1000 + ELO_SCALE * (ref - ref.mean()), atol=1e-3)


def test_mle_with_half_ties_and_sandwich_match_statsmodels() -> None:
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(5)
    k = 5
    theta = np.linspace(-1, 1, k)
    a, b, y, cl = tournament(rng, theta, 3000, 150, tie_rate=0.15)
    res = bradley_terry(a, b, y, cl, n_boot=0)
    ref = int(np.argmax(np.bincount(np.concatenate([a, b]), minlength=k)))
    x = design(a, b, k, ref)
    fit = sm.GLM(y, x, family=sm.families.Binomial()).fit(cov_type="cluster",
                                                          cov_kwds={"groups": cl, "use_correction": False})
    full = np.insert(fit.params, ref, 0.0)
    np.testing.assert_allclose(res.theta, full - full.mean(), atol=1e-6)
    # statsmodels' uncorrected cluster covariance; ours carries C/(C-1)
    c = np.unique(cl).size
    v = np.asarray(fit.cov_params()) * c / (c - 1)
    embed = np.insert(np.eye(k - 1), ref, 0.0, axis=0)
    lin = ELO_SCALE * (np.eye(k) - 1.0 / k) @ embed
    np.testing.assert_allclose(res.sandwich_se, np.sqrt(np.diag(lin @ v @ lin.T)), rtol=1e-5)
    assert res.interval == "sandwich"  # n_boot=0 falls back to the sandwich


def test_davidson_matches_direct_likelihood_maximisation() -> None:
    from scipy.optimize import minimize

    rng = np.random.default_rng(11)
    k = 4
    a, b, y, cl = tournament(rng, np.array([0.0, 0.4, -0.3, 0.9]), 1500, 100, tie_rate=0.2)
    res = bradley_terry(a, b, y, cl, ties="davidson", n_boot=0)
    tie = y == 0.5

    def nll(par: np.ndarray) -> float:
        th = np.concatenate([[0.0], par[: k - 1]])
        nu = math.exp(par[-1])
        pa, pb = np.exp(th[a]), np.exp(th[b])
        den = pa + pb + nu * np.sqrt(pa * pb)
        lik = np.where(tie, nu * np.sqrt(pa * pb), np.where(y == 1, pa, pb)) / den
        return -float(np.log(lik).sum())

    opt = minimize(nll, np.zeros(k), method="BFGS", options={"gtol": 1e-9})
    th = np.concatenate([[0.0], opt.x[: k - 1]])
    np.testing.assert_allclose(res.theta, th - th.mean(), atol=1e-4)
    assert res.tie_param == pytest.approx(math.exp(opt.x[-1]), rel=1e-4)
    assert res.log_likelihood == pytest.approx(-opt.fun, rel=1e-8)


def test_replicate_tables_equal_explicit_cluster_resampling() -> None:
    rng = np.random.default_rng(2)
    a, b, y, cl = tournament(rng, np.zeros(4), 400, 30, tie_rate=0.1)
    pc = pair_counts(a, b, y, cl, 4, 30)
    draw = rng.integers(0, 30, 30)
    weights = np.bincount(draw, minlength=30).astype(float)[None, :]
    r1, r2, _ = pc.replicate(weights)
    # explicit: stack the battles of every drawn cluster (with repeats) and aggregate them
    idx = np.concatenate([np.flatnonzero(cl == c) for c in draw])
    explicit = pair_counts(a[idx], b[idx], y[idx], np.zeros(idx.size, int), 4, 1)
    e1, e2, _ = explicit.totals()
    lookup = {(i, j): n for n, (i, j) in enumerate(zip(pc.pair_i, pc.pair_j, strict=True))}
    for n, (i, j) in enumerate(zip(explicit.pair_i, explicit.pair_j, strict=True)):
        assert r1[0, lookup[(i, j)]] == pytest.approx(e1[n])
        assert r2[0, lookup[(i, j)]] == pytest.approx(e2[n])


def test_batched_newton_equals_one_at_a_time() -> None:
    rng = np.random.default_rng(4)
    a, b, y, cl = tournament(rng, np.array([0.0, 1.0, -1.0]), 600, 40)
    pc = pair_counts(a, b, y, cl, 3, 40)
    w = rng.multinomial(40, np.full(40, 1 / 40), size=5).astype(float)
    r1, r2, rt = pc.replicate(w)
    th, _, conv = _newton(pc.pair_i, pc.pair_j, 3, r1, r2, rt, np.zeros((5, 3)), None, 0)
    assert conv.all()
    for s in range(5):
        one, _, _ = _newton(pc.pair_i, pc.pair_j, 3, r1[s : s + 1], r2[s : s + 1], rt[s : s + 1], np.zeros((1, 3)),
                            None, 0)
        np.testing.assert_allclose(th[s], one[0], atol=1e-9)


def test_anchor_fixes_one_model_and_keeps_differences() -> None:
    rng = np.random.default_rng(8)
    names = np.array(["m-a", "m-b", "m-c"])
    a, b, y, cl = tournament(rng, np.array([0.0, 0.5, 1.0]), 900, 60)
    free = bradley_terry(names[a], names[b], y, cl, n_boot=200)
    anch = bradley_terry(names[a], names[b], y, cl, n_boot=200, anchor="m-b")
    i = anch.models.index("m-b")
    assert anch.rating[i] == pytest.approx(1000.0)
    assert anch.ci_low[i] == pytest.approx(1000.0) and anch.ci_high[i] == pytest.approx(1000.0)
    np.testing.assert_allclose(np.diff(anch.rating), np.diff(free.rating), atol=1e-6)
    with pytest.raises(ValueError, match="anchor"):
        bradley_terry(names[a], names[b], y, cl, n_boot=0, anchor="nope")


def test_ratings_at_infinity_are_refused() -> None:
    a = np.array(["x", "x", "y", "y"])
    b = np.array(["y", "z", "z", "z"])
    y = np.array([1.0, 1.0, 0.0, 1.0])  # x never loses
    with pytest.raises(ValueError, match="do not exist"):
        bradley_terry(a, b, y, n_boot=0)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="outcomes"):
        bradley_terry(["a"], ["b"], [2.0], n_boot=0)
    with pytest.raises(ValueError, match="same model"):
        bradley_terry(["a"], ["a"], [1.0], n_boot=0)
    with pytest.raises(ValueError, match="Davidson"):
        bradley_terry(["a", "b"], ["b", "a"], [1.0, 1.0], ties="davidson", n_boot=0)


def test_bootstrap_interval_coverage_on_simulated_tournaments() -> None:
    """Seeded Monte Carlo: the default (cluster bootstrap, percentile) 95 % intervals of the
    centred ratings cover the truth about 95 % of the time."""
    rng = np.random.default_rng(20261130)
    theta = np.array([-0.6, -0.2, 0.0, 0.3, 0.5])
    truth = 1000 + ELO_SCALE * (theta - theta.mean())
    names = np.array(list("abcde"))
    hits, total, rank_hits, sand_hits = 0, 0, 0, 0
    true_rank = 5 - np.argsort(np.argsort(theta))
    for _ in range(150):
        a, b, y, cl = tournament(rng, theta, 600, 60)
        r = bradley_terry(names[a], names[b], y, cl, n_boot=200, seed=int(rng.integers(1 << 30)))
        hits += int(((r.ci_low <= truth) & (truth <= r.ci_high)).sum())
        sand_hits += int(((r.sandwich_low <= truth) & (truth <= r.sandwich_high)).sum())
        rank_hits += int(((r.rank_low <= true_rank) & (true_rank <= r.rank_high)).sum())
        total += 5
    coverage = hits / total
    assert 0.92 <= coverage <= 0.98, coverage
    assert 0.92 <= sand_hits / total <= 0.98, sand_hits / total
    assert rank_hits / total >= 0.9


def test_win_rates_and_predictions() -> None:
    rng = np.random.default_rng(6)
    a, b, y, cl = tournament(rng, np.array([0.0, 1.0]), 800, 80)
    r = bradley_terry(a, b, y, cl, n_boot=300)
    # two models: the fitted probability equals the observed win rate
    assert r.predicted[1, 0] == pytest.approx(r.win_rate[1, 0], abs=1e-8)
    assert r.win_rate[0, 1] == pytest.approx(1 - r.win_rate[1, 0])
    assert r.win_rate_low[1, 0] <= r.win_rate[1, 0] <= r.win_rate_high[1, 0]
    assert r.battles[0, 1] == 800
    # Arena's "Rank (UB)": 1 + number of models whose lower bound beats this one's upper bound
    want = [1 + sum(r.ci_low[j] > r.ci_high[i] for j in range(2)) for i in range(2)]
    assert r.rank_ub.tolist() == want


def test_position_bias_against_sklearn_and_scipy() -> None:
    from scipy.stats import binomtest
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(9)
    g1 = rng.choice([0.0, 0.5, 1.0], 200, p=[0.3, 0.2, 0.5])
    g2 = np.where(rng.random(200) < 0.6, g1, rng.choice([0.0, 0.5, 1.0], 200))
    r = position_bias(g1, g2)
    assert r.agreement == pytest.approx(np.mean(g1 == g2))
    assert r.kappa == pytest.approx(cohen_kappa_score((2 * g1).astype(int), (2 * g2).astype(int)))
    first = int(np.sum(g1 == 1) + np.sum(g2 == 0))
    dec = int(np.sum(g1 != 0.5) + np.sum(g2 != 0.5))
    assert (r.first_position_wins, r.n_decisive_games) == (first, dec)
    assert r.p_value == pytest.approx(binomtest(first, dec, 0.5).pvalue)


def test_invariances_side_swap_order_and_duplication() -> None:
    rng = np.random.default_rng(12)
    a, b, y, cl = tournament(rng, np.array([0.0, 0.7, -0.4, 0.2]), 800, 50, tie_rate=0.1)
    base = bradley_terry(a, b, y, cl, n_boot=0)
    swapped = bradley_terry(b, a, 1 - y, cl, n_boot=0)
    perm = rng.permutation(a.size)
    shuffled = bradley_terry(a[perm], b[perm], y[perm], cl[perm], n_boot=0)
    np.testing.assert_allclose(swapped.rating, base.rating, atol=1e-8)
    np.testing.assert_allclose(shuffled.sandwich_se, base.sandwich_se, rtol=1e-10)
    # every prompt twice over (new prompt ids): same MLE, sandwich SE shrinks by about sqrt(2)
    doubled = bradley_terry(np.tile(a, 2), np.tile(b, 2), np.tile(y, 2), np.concatenate([cl, cl + 1000]), n_boot=0)
    np.testing.assert_allclose(doubled.rating, base.rating, atol=1e-8)
    ratio = base.sandwich_se / doubled.sandwich_se
    c = np.unique(cl).size
    np.testing.assert_allclose(ratio, np.sqrt((2 * c - 1) / (c - 1)), rtol=1e-8)  # C/(C-1) factor
