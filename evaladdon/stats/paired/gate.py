"""A regression gate for CI pipelines: non-inferiority logic on the interval of a difference.

``delta = candidate - baseline`` (higher is better) with a two-sided interval
``[low, high]`` at level L, and a margin ``m >= 0`` (the largest drop that does not matter):

- ``regression shown``: ``high < -m`` -- the whole interval lies below ``-m``, a drop larger
  than the margin is supported (a one-sided test at ``(1 - L)/2``);
- ``no regression shown within m``: ``low >= -m`` -- the interval excludes any drop larger than
  ``m`` (non-inferiority at margin ``m``);
- ``inconclusive``: the interval contains ``-m``; the data cannot tell (more items are needed).

With ``m = 0`` this is "significantly worse" / "not worse" / "can't tell".

For a metric where LOWER is better (``lower_is_better``: perplexity, error rates, ECE ...) the test
is mirrored: a regression is a rise, ``low > m``; none is shown when ``high <= m``.  That is the
rule above applied to ``-delta`` (interval ``[-high, -low]``); the decision keeps the interval
of ``delta`` itself.
Reference: the non-inferiority framework of Wellek (2010), ch. 1; ICH E9 (1998).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from evaladdon.stats._base.result import Result

__all__ = ["INCONCLUSIVE", "NO_REGRESSION", "REGRESSION", "GateDecision", "regression_gate"]

REGRESSION = "regression shown"
NO_REGRESSION = "no regression shown within m"
INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True)
class GateDecision(Result):
    decision: str
    margin: float
    ci_low: float
    ci_high: float
    lower_is_better: bool = False

    @property
    def is_regression(self) -> bool:
        return self.decision == REGRESSION


def regression_gate(ci_low: float, ci_high: float, margin: float = 0.0,
                    lower_is_better: bool = False) -> GateDecision:
    """Decide from the interval of ``delta`` (see module doc; ``lower_is_better``: mirrored).  NaN
    bounds are inconclusive; an inverted interval (``ci_low > ci_high``) is refused."""
    if margin < 0 or math.isnan(margin):
        raise ValueError(f"the margin must be >= 0, got {margin}")
    if ci_low > ci_high:  # (False when either is NaN)
        raise ValueError(f"the interval is inverted: ci_low {ci_low} > ci_high {ci_high}")
    low, high = (-ci_high, -ci_low) if lower_is_better else (ci_low, ci_high)  # the change for the better
    if math.isnan(low) or math.isnan(high):
        decision = INCONCLUSIVE
    elif high < -margin:
        decision = REGRESSION
    elif low >= -margin:
        decision = NO_REGRESSION
    else:
        decision = INCONCLUSIVE
    return GateDecision(decision, float(margin), float(ci_low), float(ci_high), bool(lower_is_better))
