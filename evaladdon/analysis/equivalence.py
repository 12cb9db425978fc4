"""Equivalence and non-inferiority of comparisons already made: ``compare --equivalence 2pt``
and the gate policy's ``test: equivalence`` / ``test: non-inferiority``.

The margin is typed as any effect (``2pt``, ``0.02``, or the metric's own units; one rule,
:meth:`evaladdon.analysis.options.Effect.resolve`) and read on each comparison's scale
(``RunComparison.points``).  The test is :func:`evaladdon.stats.paired.equivalence.equivalence_of`
(Schuirmann's TOST on the comparison's own SE and df: items, or clusters by CR2/CR1) at
``alpha = 1 - level`` of the comparison's interval -- the family's level when many comparisons
are made together (Bonferroni/Holm: ``alpha/K`` each), so a family of equivalence claims keeps
the family-wise error of the p-values -- i.e. the ``1 - 2 alpha`` interval must lie inside
``(-m, m)``.  Non-inferiority is the one-sided test against ``-m`` at ``alpha/2`` (the lower
bound of the comparison's two-sided interval, as the regression gate reads it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evaladdon.analysis.options import Effect
from evaladdon.analysis.results import RunComparison
from evaladdon.stats._base.result import Result
from evaladdon.stats.paired.equivalence import Equivalence, equivalence_of, noninferiority_of

__all__ = ["EquivalenceRow", "equivalence_rows", "decide_margin"]


@dataclass(frozen=True)
class EquivalenceRow(Result):
    """One comparison's equivalence (or non-inferiority) decision, with the margin as typed."""

    comparison: RunComparison
    result: Equivalence
    margin_text: str

    def flat(self) -> dict[str, Any]:
        e = self.result
        return {"kind": e.kind, "margin": e.margin, "margin_as_given": self.margin_text, "alpha": e.alpha,
                "p_lower": e.p_lower, "p_upper": e.p_upper, "p_value": e.p_value, "ci_low": e.ci_low,
                "ci_high": e.ci_high, "ci_level": 1.0 - 2.0 * e.alpha if e.kind == "equivalence" else 1.0 - e.alpha,
                "verdict": e.verdict, "note": e.note}


def decide_margin(r: RunComparison, margin: float, kind: str = "equivalence") -> Equivalence:
    """The TOST (or non-inferiority test) of ``r`` at ``margin`` on its scale, at the alpha of its
    interval's level (see module doc)."""
    alpha = 1.0 - r.comparison.level
    if kind == "equivalence":
        return equivalence_of(r.comparison, margin, alpha)
    return noninferiority_of(r.comparison, margin, alpha / 2.0)


def equivalence_rows(results: list[RunComparison], margin: Effect, flag: str = "--equivalence",
                     kind: str = "equivalence") -> list[EquivalenceRow]:
    """Each comparison's TOST at ``margin`` resolved on its own scale (points or own units)."""
    if margin.value <= 0:
        raise ValueError(f"{flag} {margin.text}: the equivalence margin must be > 0")
    return [EquivalenceRow(r, decide_margin(r, margin.resolve(r.points, flag), kind), margin.text) for r in results]
