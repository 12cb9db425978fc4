"""The regression gate mirrored for a metric where lower is better: a regression is a RISE of
``B - A`` beyond the margin.  Oracle: the unmirrored gate of the negated interval."""

from __future__ import annotations

import itertools

import pytest

from evaladdon.stats.paired.family import tested_gate as gate_with_test
from evaladdon.stats.paired.gate import INCONCLUSIVE, NO_REGRESSION, REGRESSION, regression_gate


def test_lower_is_better_b_clearly_lower_passes_and_higher_fails() -> None:
    # perplexity: B lower by 2 +/- 0.5 is an improvement; B higher by 2 +/- 0.5 a regression
    assert regression_gate(-2.5, -1.5, 0.0, lower_is_better=True).decision == NO_REGRESSION
    assert regression_gate(1.5, 2.5, 0.0, lower_is_better=True).decision == REGRESSION
    assert regression_gate(1.5, 2.5, 3.0, lower_is_better=True).decision == NO_REGRESSION  # within the margin
    assert regression_gate(-0.5, 1.0, 0.0, lower_is_better=True).decision == INCONCLUSIVE


def test_higher_is_better_unchanged() -> None:
    assert regression_gate(-2.5, -1.5, 0.0).decision == REGRESSION
    assert regression_gate(1.5, 2.5, 0.0).decision == NO_REGRESSION
    assert regression_gate(-2.5, -1.5, 3.0).decision == NO_REGRESSION
    assert regression_gate(-0.5, 1.0, 0.0).decision == INCONCLUSIVE
    assert regression_gate(-2.5, -1.5).lower_is_better is False


@pytest.mark.parametrize("low,high,margin", [(lo, lo + w, m) for lo, w, m in itertools.product(
    (-3.0, -1.0, -0.2, 0.0, 0.4, 2.0), (0.0, 0.5, 3.0), (0.0, 0.3, 1.0))])
def test_mirror_is_the_gate_of_the_negated_interval(low: float, high: float, margin: float) -> None:
    got = regression_gate(low, high, margin, lower_is_better=True)
    assert got.decision == regression_gate(-high, -low, margin).decision
    assert (got.ci_low, got.ci_high, got.lower_is_better) == (low, high, True)  # the interval of B - A itself


def test_nan_bounds_stay_inconclusive() -> None:
    assert regression_gate(float("nan"), float("nan"), 0.0, lower_is_better=True).decision == INCONCLUSIVE


def test_tested_gate_needs_the_test_either_way() -> None:
    assert gate_with_test(1.5, 2.5, 0.0, 0.001, 0.05, lower_is_better=True).decision == REGRESSION
    assert gate_with_test(1.5, 2.5, 0.0, 0.2, 0.05, lower_is_better=True).decision == INCONCLUSIVE
    assert gate_with_test(-2.5, -1.5, 0.0, 0.001, 0.05, lower_is_better=True).decision == NO_REGRESSION
