"""Proportion and t intervals against statsmodels, scipy and published values."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps
from statsmodels.stats.proportion import proportion_confint

from evaladdon.stats import proportion_interval, t_interval

SM_NAME = {
    "wilson": "wilson",
    "clopper-pearson": "beta",
    "jeffreys": "jeffreys",
    "agresti-coull": "agresti_coull",
    "wald": "normal",
}


@pytest.mark.parametrize("method", list(SM_NAME))
@pytest.mark.parametrize("level", [0.8, 0.9, 0.95, 0.99])
def test_matches_statsmodels(method: str, level: float) -> None:
    for n in (1, 2, 7, 10, 33, 100, 1000):
        for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            if not 0 <= k <= n:
                continue
            ours = proportion_interval(k, n, method, level)
            lo, hi = proportion_confint(k, n, alpha=1 - level, method=SM_NAME[method])
            lo, hi = float(np.clip(lo, 0, 1)), float(np.clip(hi, 0, 1))
            if method == "jeffreys" and k == 0:
                lo = 0.0  # BCD 2001: lower bound 0 at k = 0 (statsmodels leaves the raw quantile)
            if method == "jeffreys" and k == n:
                hi = 1.0
            assert ours.low == pytest.approx(lo, abs=1e-10), (k, n)
            assert ours.high == pytest.approx(hi, abs=1e-10), (k, n)


@pytest.mark.parametrize(
    "k,n,method,low,high",
    [
        (3, 10, "wilson", 0.107791, 0.603222),
        (0, 10, "wilson", 0.0, 0.277533),
        (3, 10, "clopper-pearson", 0.066740, 0.652453),
        (3, 10, "agresti-coull", 0.103338, 0.607675),
    ],
)
def test_published_values(k: int, n: int, method: str, low: float, high: float) -> None:
    ci = proportion_interval(k, n, method)
    assert ci.low == pytest.approx(low, abs=5e-7)
    assert ci.high == pytest.approx(high, abs=5e-7)


def test_jeffreys_edges() -> None:
    assert proportion_interval(0, 20, "jeffreys").low == 0.0
    assert proportion_interval(20, 20, "jeffreys").high == 1.0
    assert proportion_interval(0, 20, "jeffreys").high == pytest.approx(sps.beta.ppf(0.975, 0.5, 20.5))


@pytest.mark.parametrize("bad", [(-1, 10), (11, 10), (0, 0), (1.5, 3)])
def test_refuses_bad_counts(bad: tuple[float, int]) -> None:
    with pytest.raises(ValueError):
        proportion_interval(bad[0], bad[1])  # type: ignore[arg-type]


def test_refuses_bad_method_and_level() -> None:
    with pytest.raises(ValueError, match="unknown interval method"):
        proportion_interval(1, 2, "exact-ish")
    with pytest.raises(ValueError, match="level"):
        proportion_interval(1, 2, "wilson", level=1.5)


def test_t_interval_matches_scipy() -> None:
    ours = t_interval(0.4, 0.05, 12, 0.9)
    lo, hi = sps.t.interval(0.9, 12, loc=0.4, scale=0.05)
    assert (ours.low, ours.high) == pytest.approx((lo, hi))
    z = t_interval(0.4, 0.05, float("inf"))
    assert z.high - 0.4 == pytest.approx(1.959964 * 0.05, rel=1e-6)


def test_wilson_coverage_monte_carlo() -> None:
    """Wilson's coverage averaged over p in [0.05, 0.95] is near nominal (BCD 2001, fig. 4)."""
    rng = np.random.default_rng(7)
    n, reps = 50, 4000
    ps = rng.uniform(0.05, 0.95, reps)
    ks = rng.binomial(n, ps)
    covered = 0
    for k, p in zip(ks, ps, strict=True):
        ci = proportion_interval(int(k), n)
        covered += ci.low <= p <= ci.high
    coverage = covered / reps
    assert 0.93 <= coverage <= 0.97
