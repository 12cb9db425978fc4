"""TOST and non-inferiority of a paired difference (evaladdon.stats.paired.equivalence).

Oracle: statsmodels' ``ttost_paired`` (unclustered items); size at the margin by seeded
Monte-Carlo for unclustered continuous, unclustered 0/1 and clustered (CR2) data."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evaladdon.stats import compare_paired
from evaladdon.stats.paired.equivalence import (EQUIVALENT, NONINFERIOR, NOT_SHOWN_EQUIVALENT, equivalence_of,
                                                noninferiority, noninferiority_of, tost)


@pytest.mark.parametrize("seed, shift, margin", [(0, 0.0, 0.3), (1, 0.2, 0.3), (2, -0.1, 0.15), (3, 0.5, 0.2)])
def test_tost_equals_statsmodels_ttost_paired(seed: int, shift: float, margin: float) -> None:
    weightstats = pytest.importorskip("statsmodels.stats.weightstats", reason="statsmodels is not installed")
    rng = np.random.default_rng(seed)
    a = rng.normal(size=80)
    b = a + shift + rng.normal(scale=0.6, size=80)
    # statsmodels tests x1 - x2 within (low, upp): x1 = candidate, x2 = baseline
    p_sm, lower, upper = weightstats.ttost_paired(b, a, -margin, margin)
    got = equivalence_of(compare_paired(a, b, one_epoch=False), margin, alpha=0.05)
    assert got.p_value == pytest.approx(p_sm, rel=1e-9, abs=1e-12)
    assert got.p_lower == pytest.approx(lower[1], rel=1e-9, abs=1e-12)
    assert got.p_upper == pytest.approx(upper[1], rel=1e-9, abs=1e-12)
    assert got.verdict == (EQUIVALENT if p_sm < 0.05 else NOT_SHOWN_EQUIVALENT)
    # the decision is the 90 % interval inside (-m, m)
    assert got.shown == (-margin < got.ci_low and got.ci_high < margin)


def test_noninferiority_is_the_lower_one_sided_test() -> None:
    weightstats = pytest.importorskip("statsmodels.stats.weightstats", reason="statsmodels is not installed")
    rng = np.random.default_rng(5)
    a = rng.normal(size=60)
    b = a - 0.05 + rng.normal(scale=0.5, size=60)
    _, lower, _ = weightstats.ttost_paired(b, a, -0.3, 0.3)
    got = noninferiority_of(compare_paired(a, b, one_epoch=False), 0.3, alpha=0.025)
    assert got.p_value == pytest.approx(lower[1], rel=1e-9)
    assert got.verdict == NONINFERIOR and math.isinf(got.ci_high)


def test_textbook_numbers_and_refusals() -> None:
    # delta 0, se 1, df inf-like: p = P(Z >= m) on each side
    got = tost(0.0, 1.0, 1e9, 1.645, alpha=0.05)
    assert got.p_value == pytest.approx(0.05, abs=2e-4)
    assert noninferiority(0.0, 1.0, 1e9, 1.96).p_value == pytest.approx(0.025, abs=2e-4)
    with pytest.raises(ValueError, match="margin"):
        tost(0.0, 1.0, 10, 0.0)
    with pytest.raises(ValueError, match="SE"):
        tost(0.0, 0.0, 10, 0.1)


def test_identical_runs_are_equivalent_by_the_zero_se_interval() -> None:
    a = np.tile([0.0, 1.0], 200)
    got = equivalence_of(compare_paired(a, a.copy()), 0.02)
    assert got.verdict == EQUIVALENT and math.isnan(got.p_value) and "the SE of the difference is 0" in (got.note or "")
    assert -0.02 < got.ci_low <= 0 <= got.ci_high < 0.02
    small = np.tile([0.0, 1.0], 10)  # 20 items cannot bound the difference within 2 points
    assert equivalence_of(compare_paired(small, small.copy()), 0.02).verdict == NOT_SHOWN_EQUIVALENT


def _size(datasets: list[tuple[np.ndarray, np.ndarray, np.ndarray | None]], margin: float) -> float:
    shown = [equivalence_of(compare_paired(a, b, cl), margin).shown for a, b, cl in datasets]
    return float(np.mean(shown))


def test_mc_tost_size_at_the_margin_unclustered_binary() -> None:
    """0/1 items, one epoch, true difference exactly at -m (and +m): TOST shows equivalence in
    at most 5 % of 2,000 runs each (+ Monte-Carlo error).  n is large enough for the margin to be
    4 SEs (with fewer items the TOST is conservative: its rejection window narrows)."""
    rng = np.random.default_rng(20261202)
    n, reps, margin, psi = 1600, 2000, 0.05, 0.25
    rates = []
    for delta in (-margin, margin):
        up, down = (psi + delta) / 2, (psi - delta) / 2
        u = rng.random((reps, n))
        a = rng.random((reps, n)) < 0.6
        d = np.where(u < up, 1, np.where(u < up + down, -1, 0))
        a = np.where(d == 1, 0.0, np.where(d == -1, 1.0, a.astype(float)))
        b = a + d
        rates.append(_size([(a[r], b[r], None) for r in range(reps)], margin))
    assert max(rates) <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / 2000), rates


def test_mc_tost_size_at_the_margin_clustered_cr2() -> None:
    """25 unequal clusters with a cluster effect (ICC ~0.3), difference at -m (about 4 SEs): the
    TOST on the CR2 SE with Bell-McCaffrey df shows equivalence in at most 5 % of 2,000 runs (+ MC
    error)."""
    rng = np.random.default_rng(7)
    sizes = rng.integers(2, 14, size=25)
    cl = np.repeat(np.arange(25), sizes)
    n, reps, margin = cl.size, 2000, 0.3
    a = rng.normal(size=(reps, n))
    d = -margin + rng.normal(scale=0.25, size=(reps, 25))[:, cl] + rng.normal(scale=0.4, size=(reps, n))
    rate = _size([(a[r], a[r] + d[r], cl) for r in range(reps)], margin)
    assert rate <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / 2000), rate


def test_mc_tost_power_inside_the_margin() -> None:
    """The same clustered design with no difference: equivalence is shown most of the time (the
    test is not trivially conservative)."""
    rng = np.random.default_rng(8)
    cl = np.repeat(np.arange(40), 5)
    reps, margin = 500, 0.1
    a = rng.normal(size=(reps, cl.size))
    d = rng.normal(scale=0.1, size=(reps, 40))[:, cl] + rng.normal(scale=0.2, size=(reps, cl.size))
    assert _size([(a[r], a[r] + d[r], cl) for r in range(reps)], margin) >= 0.8
