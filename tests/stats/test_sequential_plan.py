"""``stats.sequential.plan``: items to a decision by simulation (``power --sequential``).

Oracles: the designs' moments; the stop of each simulated run recomputed by a plain loop over
its own interval; for Gaussian differences the median stop near the t where the normal-mixture
half-width equals the effect (the drift meets the boundary); the error under no difference <= alpha.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize

from evaladdon.stats.sequential.mixture import mixture_half_width, mixture_r, normal_mixture_sequence
from evaladdon.stats.sequential.plan import draw_differences, sequential_plans, simulate_sequential


def test_designs_have_the_planned_moments() -> None:
    rng = np.random.default_rng(1)
    d = draw_differences(rng, 50, 4000, -0.05, psi=0.2)
    assert d.mean() == pytest.approx(-0.05, abs=0.005) and (d != 0).mean() == pytest.approx(0.2, abs=0.005)
    d = draw_differences(rng, 50, 4000, 0.05, p_a=0.7)
    assert d.mean() == pytest.approx(0.05, abs=0.006)
    with pytest.raises(ValueError, match="discordance"):
        draw_differences(rng, 2, 2, 0.3, psi=0.2)


def test_stops_match_a_loop_over_each_runs_interval() -> None:
    rng = np.random.default_rng(2)
    d = draw_differences(rng, 30, 800, 0.15, sd=1.0)
    plan = simulate_sequential(d, 0.15, sd=1.0)
    used = []
    for row in d:
        cs = normal_mixture_sequence(row, sigma=1.0)
        t = next((k + 1 for k in range(row.size) if cs.low[k] > 0 or cs.high[k] < 0), row.size)
        used.append(t)
    assert plan.mean_n == pytest.approx(np.mean(used)) and plan.median_n == pytest.approx(np.median(used))


def test_gaussian_median_stop_is_where_the_boundary_meets_the_drift() -> None:
    delta, alpha = 0.1, 0.05
    r = mixture_r(100, alpha)
    t_star = optimize.brentq(lambda t: float(mixture_half_width(t, alpha, r)) - delta, 10, 1e6)
    effect, zero = sequential_plans(delta, sd=1.0, reps=400, horizon=int(4 * t_star), seed=3)
    assert 0.6 * t_star <= effect.median_n <= 1.1 * t_star
    assert effect.decided > 0.9 and effect.wrong < 0.01
    tol = 2.5 * math.sqrt(0.05 * 0.95 / 400)
    assert zero.wrong <= 0.05 + tol and zero.mean_n > 0.9 * zero.horizon


def test_bounded_designs_betting_and_bernstein() -> None:
    effect, zero = sequential_plans(-0.1, psi=0.3, reps=40, horizon=600, seed=4)
    assert effect.method.startswith("betting") and effect.decided > 0.8 and effect.wrong == 0.0
    assert effect.mean_n < 600 and zero.decided <= 0.1
    eb, _ = sequential_plans(-0.1, psi=0.3, method="bernstein", reps=200, horizon=600, seed=4)
    assert eb.decided > 0.8 and eb.mean_n < 600
