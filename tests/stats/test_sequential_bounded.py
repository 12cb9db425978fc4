"""Confidence sequences for bounded means: an independent oracle and seeded time-uniform coverage.

Oracle: the hedged capital process and the empirical-Bernstein CS written again here as a plain
loop straight from Waudby-Smith & Ramdas (2024, JRSS-B), Thm 2 and Sec. 4.3 (``confseq`` does not
build in this environment).  Monte Carlo: a peek after every one of 5,000 samples; the truth must
never leave the interval in >= 95 % of replicates (binomial tolerance stated at each assert).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from evaladdon.stats.sequential.bounded import bernstein_sequence, betting_sequence, hedged_log_capital
from evaladdon.stats.sequential.decide import paired_sequence

ALPHA = 0.05


def _oracle_plugin(x: list[float], alpha: float) -> tuple[list[float], list[float]]:
    """lambda_t and mu_{t-1} by the paper's recursions, one sample at a time."""
    lams, mus, mu_hist, s, dev = [], [], [], 0.0, 0.0
    for t, xi in enumerate(x, start=1):
        mu_prev = (0.5 + s) / t
        s2_prev = (0.25 + dev) / t
        lams.append(min(math.sqrt(2 * math.log(2 / alpha) / (s2_prev * t * math.log(1 + t))), 0.5))
        mus.append(mu_prev)
        s += xi
        mu_t = (0.5 + s) / (t + 1)
        mu_hist.append(mu_t)
        dev += (xi - mu_t) ** 2
    return lams, mus


def _oracle_capital(x: list[float], m: float, alpha: float) -> list[float]:
    lams, _ = _oracle_plugin(x, alpha)
    kp = km = 1.0
    out = []
    for xi, lam in zip(x, lams, strict=True):
        kp *= 1 + min(lam, 0.5 / m) * (xi - m)
        km *= 1 - min(lam, 0.5 / (1 - m)) * (xi - m)
        out.append(math.log(max(0.5 * kp, 0.5 * km)))
    return out


def _oracle_bernstein(x: list[float], alpha: float) -> tuple[float, float]:
    lams, mus = _oracle_plugin(x, alpha)
    num = sum(lam * xi for lam, xi in zip(lams, x, strict=True))
    den = sum(lams)
    pen = sum(4 * (xi - mu) ** 2 * (-math.log(1 - lam) - lam) / 4 for xi, mu, lam in zip(x, mus, lams, strict=True))
    half = (math.log(2 / alpha) + pen) / den
    return max(num / den - half, 0.0), min(num / den + half, 1.0)


def test_hedged_capital_matches_the_paper_loop() -> None:
    x = np.random.default_rng(3).beta(2, 5, size=300)
    for m in (0.05, 0.3, 0.62, 0.97):
        np.testing.assert_allclose(hedged_log_capital(x, m), _oracle_capital(list(x), m, ALPHA), rtol=1e-10,
                                   atol=1e-10)


def test_betting_interval_is_the_capital_below_one_over_alpha() -> None:
    x = (np.random.default_rng(4).random(400) < 0.7).astype(float)
    cs = betting_sequence(x)
    for t in (5, 40, 400):
        lo, hi = cs.low[t - 1], cs.high[t - 1]
        inside = np.linspace(lo, hi, 23)[2:-2]
        outside = np.array([lo - 0.002, hi + 0.002])
        outside = outside[(outside > 0) & (outside < 1)]
        # every point well inside is accepted by the oracle capital; the ends just outside are not
        assert all(max(_oracle_capital(list(x[:t]), m, ALPHA)) < math.log(1 / ALPHA) for m in inside[::5])
        assert all(max(_oracle_capital(list(x[:t]), m, ALPHA)) >= math.log(1 / ALPHA) for m in outside)


def test_bernstein_matches_the_paper_loop() -> None:
    x = np.random.default_rng(5).random(250) ** 2
    cs = bernstein_sequence(x)
    for t in (1, 10, 250):
        lo, hi = _oracle_bernstein(list(x[:t]), ALPHA)
        low_run = max(_oracle_bernstein(list(x[:k]), ALPHA)[0] for k in range(1, t + 1))
        high_run = min(_oracle_bernstein(list(x[:k]), ALPHA)[1] for k in range(1, t + 1))
        assert cs.low[t - 1] == pytest.approx(low_run) and cs.high[t - 1] == pytest.approx(high_run)
        assert low_run >= lo - 1e-12 and high_run <= hi + 1e-12


def test_paired_sequence_maps_differences_back() -> None:
    rng = np.random.default_rng(6)
    a = (rng.random(500) < 0.6).astype(float)
    b = np.where(rng.random(500) < 0.8, a, 1 - a)
    cs = paired_sequence(a, b, "bernstein")
    ref = bernstein_sequence((b - a + 1) / 2)
    np.testing.assert_allclose(cs.low, 2 * ref.low - 1)
    np.testing.assert_allclose(cs.high, 2 * ref.high - 1)
    assert cs.low[-1] <= (b - a).mean() <= cs.high[-1]


def test_bad_scores_are_refused() -> None:
    with pytest.raises(ValueError, match="outside"):
        betting_sequence([0.2, 1.4])
    with pytest.raises(ValueError, match="NaN"):
        bernstein_sequence([0.2, np.nan])


HORIZON = 5000
REPS = 300
# 300 replicates: a true miss rate of 5 % would be observed above 5 % + 2.5 SE = 8.2 % with p < 0.01
TOL = 2.5 * math.sqrt(0.05 * 0.95 / REPS)


@pytest.mark.parametrize("draw", ["bernoulli_0.5", "bernoulli_0.1", "beta_2_5"])
def test_time_uniform_coverage_betting_and_bernstein(draw: str) -> None:
    rng = np.random.default_rng(2024)
    if draw == "beta_2_5":
        x, truth = rng.beta(2, 5, size=(REPS, HORIZON)), 2 / 7
    else:
        p = float(draw.split("_")[1])
        x, truth = (rng.random((REPS, HORIZON)) < p).astype(float), p
    # betting: the truth is in C_t iff K_t(truth) < 1/alpha, so the capital at the truth decides
    ever_out = hedged_log_capital(x, truth).max(axis=1) >= math.log(1 / ALPHA)
    assert 1 - ever_out.mean() >= 0.95 - TOL
    cs = bernstein_sequence(x)
    eb_out = ((cs.low > truth) | (cs.high < truth)).any(axis=1)
    assert 1 - eb_out.mean() >= 0.95 - TOL
    # contrast: the fixed-n Wald interval read after every sample loses its level
    t = np.arange(1, HORIZON + 1)
    mean = np.cumsum(x, axis=1) / t
    sd = np.sqrt(np.maximum(np.cumsum(x * x, axis=1) / t - mean**2, 0) * t / np.maximum(t - 1, 1))
    half = 1.959964 * sd / np.sqrt(t)
    fixed_out = (np.abs(mean - truth) > half)[:, 29:].any(axis=1)  # peeks from n = 30 on
    assert fixed_out.mean() > 0.25
