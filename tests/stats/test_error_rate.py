"""The exact McNemar test of two runs' error rates on shared items (stats/paired/error_rate.py):
scipy's binomtest as the oracle, and its size by seeded Monte-Carlo (issue 27: <= 6.5 %)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom, binomtest

from evaladdon.stats.paired.error_rate import compare_error_rates


@pytest.mark.parametrize("only_a, only_b, both, none", [(1, 20, 0, 79), (3, 3, 2, 92), (0, 0, 0, 10), (0, 7, 1, 2),
                                                       (12, 5, 4, 30), (40, 61, 9, 3)])
def test_counts_and_exact_p_agree_with_binomtest(only_a: int, only_b: int, both: int, none: int) -> None:
    a = np.array([1] * only_a + [0] * only_b + [1] * both + [0] * none, dtype=bool)
    b = np.array([0] * only_a + [1] * only_b + [1] * both + [0] * none, dtype=bool)
    t = compare_error_rates(a, b)
    assert (t.n, t.only_a, t.only_b, t.errors_a, t.errors_b) == (len(a), only_a, only_b, only_a + both, only_b + both)
    want = 1.0 if only_a + only_b == 0 else binomtest(only_b, only_a + only_b, 0.5).pvalue
    assert t.p_value == pytest.approx(want, rel=1e-12, abs=1e-15)
    assert t.difference == pytest.approx((only_b - only_a) / len(a))
    assert t.worse(0.05) == (only_b > only_a and want < 0.05)


def test_refuses_arrays_of_different_lengths() -> None:
    with pytest.raises(ValueError, match="one length"):
        compare_error_rates(np.zeros(3, bool), np.zeros(4, bool))


def _exact_p(only_a: np.ndarray, only_b: np.ndarray) -> np.ndarray:
    """The exact two-sided McNemar p of every replicate at once (twice the smaller binomial tail)."""
    m = only_a + only_b
    return np.where(m == 0, 1.0, np.minimum(1.0, 2.0 * binom.cdf(np.minimum(only_a, only_b), m, 0.5)))


@pytest.mark.parametrize("n, rate", [(100, 0.05), (200, 0.15), (60, 0.3)])
def test_size_under_the_null_by_monte_carlo(n: int, rate: float) -> None:
    """Both runs error independently at the same rate: the two-sided test rejects at most 6.5 %
    of the time at alpha 0.05 (the exact test is conservative), and the gate's one-sided use
    (B errors more and p < 0.05) at most half of that."""
    rng = np.random.default_rng(27)
    reps = 20_000
    a = rng.uniform(size=(reps, n)) < rate
    b = rng.uniform(size=(reps, n)) < rate
    only_a, only_b = (a & ~b).sum(1), (b & ~a).sum(1)
    pv = _exact_p(only_a, only_b)
    size = float(np.mean(pv < 0.05))
    assert size <= 0.065, size
    assert float(np.mean((pv < 0.05) & (only_b > only_a))) <= 0.0325
    for k in range(20):  # the vectorised p is compare_error_rates' own
        assert compare_error_rates(a[k], b[k]).p_value == pytest.approx(pv[k], rel=1e-12)


def test_power_when_the_candidate_errors_much_more() -> None:
    """10 % against 2 % errored on 200 items: the test finds it nearly always (>= 80 %)."""
    rng = np.random.default_rng(3)
    reps, n = 4000, 200
    a = rng.uniform(size=(reps, n)) < 0.02
    b = rng.uniform(size=(reps, n)) < 0.10
    only_a, only_b = (a & ~b).sum(1), (b & ~a).sum(1)
    pv = _exact_p(only_a, only_b)
    power = float(np.mean((pv < 0.05) & (only_b > only_a)))
    assert power >= 0.8, power
