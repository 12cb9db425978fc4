"""A family of paired comparisons: one multiplicity choice for p-values, intervals and the gate,
and a gate that never contradicts the test it reports.

The choice (``adjust``) is applied alike to all three, over the K comparisons made together:

- ``holm`` (default) and ``bonferroni`` -- family-wise error at ``alpha = 1 - level``: p-values
  adjusted by Holm's step-down (or Bonferroni), intervals *simultaneous* by Bonferroni, each at
  ``1 - alpha/K`` (the intervals compatible with Holm's first step; Holm's p is never larger
  than Bonferroni's, so an interval that excludes a value implies the Holm test rejects it);
- ``bh`` -- false discovery rate: p-values by Benjamini-Hochberg, intervals at the
  false-coverage-rate level ``1 - R alpha/K`` with R the number of BH rejections (at least 1)
  (Benjamini & Yekutieli 2005, "False discovery rate-adjusted multiple confidence intervals");
- ``none`` -- each comparison at ``level`` alone.

The gate (:func:`tested_gate`) reads the interval as :func:`~evaladdon.stats.paired.gate.regression_gate`
does, and calls a regression *shown* only when the reported test agrees: its (adjusted) p below
``alpha``.  For 0/1 scores McNemar's exact test is the default test while the default interval
(Tango's) is a score interval that can exclude 0 when the exact test does not reject (5 of 5
discordant pairs one way in 30 items: exact p = 0.0625, Tango's upper bound -3.4 points,
Newcombe's -1.9): such a
comparison is ``inconclusive``, never a failed build.  With ``m > 0`` the interval must also lie
below ``-m``.  So the gate's false-fail rate is at most the test's one-sided size, and over a
family at most the family-wise (or FDR) level stated.
"""

from __future__ import annotations

import dataclasses

from evaladdon.stats._base import zero_se
from evaladdon.stats.intervals import t_bounds
from evaladdon.stats.paired.gate import INCONCLUSIVE, REGRESSION, GateDecision, regression_gate
from evaladdon.stats.paired.paired import PairedComparison
from evaladdon.stats.paired.paired_binary import PAIRED_BINARY_METHODS, paired_binary_interval

__all__ = ["at_level", "family_level", "tested_gate"]


def family_level(level: float, k: int, adjust: str, n_rejected: int = 1) -> float:
    """The level each interval of a family of ``k`` is computed at (see module doc)."""
    alpha = 1.0 - level
    if k <= 1 or adjust == "none":
        return level
    if adjust == "bh":
        return 1.0 - max(n_rejected, 1) * alpha / k
    return 1.0 - alpha / k


def at_level(comp: PairedComparison, level: float) -> PairedComparison:
    """``comp`` with its interval (and every paired binary interval) at ``level``, from the
    statistics it holds: the t interval from its SE and df, the binary intervals from the
    discordance table, the zero-SE Wilson interval from the number of units.  A bootstrap
    interval cannot be recomputed without the data: it stays at its level, with a note."""
    if level == comp.level:
        return comp
    method = comp.ci_method
    binary = comp.binary_intervals
    if comp.discordance is not None and binary is not None:
        t = comp.discordance
        binary = {m: _bounds(paired_binary_interval(t.n11, t.n10, t.n01, t.n00, m, level)) for m in PAIRED_BINARY_METHODS}
    notes = comp.notes
    if method in PAIRED_BINARY_METHODS and binary is not None:
        low, high = binary[method]
    elif method == "t" or method.startswith("t-cluster"):
        low, high = t_bounds(comp.delta, comp.se, comp.df, level)
    elif method.startswith("zero-se-wilson"):
        units = comp.n_clusters if method.endswith("clusters") and comp.n_clusters else comp.n
        low, high = zero_se.bounded_interval(comp.delta, units, level, -1.0, 1.0)
    elif method == "none":
        low, high = comp.ci_low, comp.ci_high
    else:
        notes = (*notes, f"the {method} interval stays at {comp.level:.4g} (it cannot be recomputed at the family's "
                         f"level {level:.4g} without the data); the gate relies on the adjusted p")
        return dataclasses.replace(comp, binary_intervals=binary, notes=notes)
    return dataclasses.replace(comp, ci_low=float(low), ci_high=float(high), level=level, binary_intervals=binary,
                               notes=notes)


def _bounds(ci: object) -> tuple[float, float]:
    return float(ci.low), float(ci.high)  # type: ignore[attr-defined]


def tested_gate(ci_low: float, ci_high: float, margin: float, p_value: float, alpha: float,
                lower_is_better: bool = False) -> GateDecision:
    """:func:`~evaladdon.stats.paired.gate.regression_gate` of the interval (mirrored when
    ``lower_is_better``), with a regression shown only when the reported test rejects too
    (``p_value < alpha``; see module doc)."""
    gate = regression_gate(ci_low, ci_high, margin, lower_is_better)
    if gate.decision == REGRESSION and not (p_value < alpha):  # NaN p: no test, no regression shown
        return dataclasses.replace(gate, decision=INCONCLUSIVE)
    return gate
