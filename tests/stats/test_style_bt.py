"""Style-controlled Bradley–Terry (Chatbot Arena's style control): oracle statsmodels' binomial
GLM, and a seeded Monte-Carlo where length is confounded with the models."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evaladdon.stats.ranking.style_bt import arena_style_features, style_bradley_terry

SCALE = 400.0 / math.log(10.0)


def _simulate(rng: np.random.Generator, n: int, theta: np.ndarray, beta: float) -> tuple[np.ndarray, ...]:
    """Battles where the weaker models write longer answers and the judge rewards length."""
    k = theta.size
    a = rng.integers(0, k, n)
    b = (a + rng.integers(1, k, n)) % k
    mean_len = 400.0 * np.exp(-1.2 * (theta - theta.mean()))  # confounded: weaker = longer
    la = rng.lognormal(np.log(mean_len[a]), 0.5)
    lb = rng.lognormal(np.log(mean_len[b]), 0.5)
    d = (la - lb) / (la + lb + 1.0)
    logit = theta[a] - theta[b] + beta * d / 0.35
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-logit))).astype(float)
    return a.astype(str), b.astype(str), y, la, lb


def test_arena_normalisation() -> None:
    xa, xb = np.array([10.0, 0.0, 5.0, 3.0]), np.array([0.0, 10.0, 5.0, 1.0])
    z, varies = arena_style_features(xa, xb)
    d = (xa - xb) / (xa + xb + 1)
    assert varies.all()
    np.testing.assert_allclose(z[:, 0], (d - d.mean()) / d.std())
    z2, v2 = arena_style_features(np.ones(4), np.ones(4))
    assert not v2[0] and (z2 == 0).all()


def test_matches_statsmodels_glm() -> None:
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(3)
    theta = np.array([0.0, 0.5, 1.0])
    a, b, y, la, lb = _simulate(rng, 800, theta, 0.6)
    y[::7] = 0.5  # some ties (half wins)
    z, _ = arena_style_features(la, lb)
    cl = np.repeat(np.arange(200), 4)
    res = style_bradley_terry(a, b, y, z, ["length"], cl, n_boot=0)
    # oracle: binomial GLM with fractional outcomes on [e_a - e_b without model "1", z]
    models = ["0", "1", "2"]
    ref = 1  # style_bradley_terry fixes the most frequent model; find it the same way
    counts = np.bincount(np.concatenate([a, b]).astype(int), minlength=3)
    ref = int(np.argmax(counts))
    m = np.zeros((a.size, 3))
    m[np.arange(a.size), a.astype(int)] += 1
    m[np.arange(a.size), b.astype(int)] -= 1
    x = np.hstack([np.delete(m, ref, axis=1), z])
    fit = sm.GLM(y, x, family=sm.families.Binomial()).fit(cov_type="cluster", cov_kwds={"groups": cl})
    theta_o = np.insert(fit.params[:2], ref, 0.0)
    rating_o = 1000 + SCALE * (theta_o - theta_o.mean())
    np.testing.assert_allclose(res.rating, rating_o, rtol=0, atol=1e-6)
    np.testing.assert_allclose(res.coef, fit.params[2:], rtol=1e-7)
    # statsmodels' cluster covariance uses the small-sample factor (C/(C-1))((n-1)/(n-q)): undo the second
    n, q = y.size, x.shape[1]
    se_o = fit.bse[2] / math.sqrt((n - 1) / (n - q))
    z95 = 1.959963984540054
    np.testing.assert_allclose(res.coef_high[0] - res.coef[0], z95 * se_o, rtol=1e-6)
    assert list(res.models) == models and res.interval == "sandwich"


def test_controlled_recovers_confounded_ratings() -> None:
    """MC: with length confounded, the controlled ratings are unbiased, the raw ones are not,
    and the default (bootstrap) intervals cover the truth."""
    from evaladdon.stats.ranking.bradley_terry import bradley_terry

    rng = np.random.default_rng(20261202)
    theta = np.array([0.0, 0.3, 0.6, 0.9])
    truth = SCALE * (theta - theta.mean())
    err_c, err_r, cover = [], [], []
    for _ in range(30):
        a, b, y, la, lb = _simulate(rng, 1200, theta, 0.8)
        z, _ = arena_style_features(la, lb)
        res = style_bradley_terry(a, b, y, z, ["length"], n_boot=200, seed=int(rng.integers(1 << 30)))
        raw = bradley_terry(a, b, y, n_boot=0)
        err_c.append(res.rating - 1000 - truth)
        err_r.append(raw.rating - 1000 - truth)
        cover.append((res.ci_low - 1000 <= truth) & (truth <= res.ci_high - 1000))
    bias_c = np.abs(np.mean(err_c, axis=0)).max()
    bias_r = np.abs(np.mean(err_r, axis=0)).max()
    assert bias_c < 12.0, bias_c  # Elo points
    assert bias_r > 40.0, bias_r  # raw Bradley–Terry is pulled by the judge's length preference
    assert np.mean(cover) >= 0.93, np.mean(cover)


def test_refuses_a_design_too_large_and_unidentifiable() -> None:
    rng = np.random.default_rng(0)
    a, b, y, la, lb = _simulate(rng, 300, np.array([0.0, 0.5, 1.0]), 0.5)
    z, _ = arena_style_features(la, lb)
    with pytest.raises(ValueError, match="too large"):
        style_bradley_terry(a, b, y, z, ["length"], n_boot=0, max_cells=100)
    # a feature that is a function of the models: not separately identifiable from the ratings
    only = (a == "0") | (b == "0")
    a2, b2, y2 = a[only & (a != b)][:60], b[only & (a != b)][:60], y[only & (a != b)][:60]
    d = np.where(a2 == "0", 1.0, -1.0)[:, None]
    sub = (a2 == "0") & (b2 == "1") | (a2 == "1") & (b2 == "0")
    with pytest.raises(ValueError, match="identifiable"):
        style_bradley_terry(a2[sub], b2[sub], y2[sub], d[sub], ["x"], n_boot=0)
