"""Issue 26 (low): inputs that used to be accepted (or crash with an unrelated error) now raise
one clear ValueError each."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evaladdon.stats import adjust_pvalues, proportion_interval, regression_gate


def test_regression_gate_refuses_an_inverted_interval() -> None:
    with pytest.raises(ValueError, match="inverted"):
        regression_gate(0.1, -0.1)  # used to answer "regression shown"
    assert regression_gate(-0.1, -0.1).decision == "regression shown"  # a point is not inverted
    assert regression_gate(math.nan, 0.1).decision == "inconclusive"  # NaN: no decision, as before


def test_adjust_pvalues_refuses_a_nan() -> None:
    with pytest.raises(ValueError, match="NaN"):
        adjust_pvalues([0.01, np.nan, 0.04], "bh")  # used to drop it silently from the family
    kept = adjust_pvalues([0.01, np.nan, 0.04], "bh", nan_policy="omit")  # asked for: kept outside
    assert math.isnan(kept[1]) and kept[0] == pytest.approx(0.02)
    with pytest.raises(ValueError, match="nan_policy"):
        adjust_pvalues([0.01], nan_policy="propagate")


@pytest.mark.parametrize("n", [math.inf, math.nan, 2.5])
def test_proportion_interval_refuses_a_non_finite_or_fractional_n(n: float) -> None:
    with pytest.raises(ValueError, match="n must be a whole number"):
        proportion_interval(3, n)  # type: ignore[arg-type]  # inf used to raise OverflowError
    with pytest.raises(ValueError, match="successes must be a whole number"):
        proportion_interval(n, 10)  # type: ignore[arg-type]
