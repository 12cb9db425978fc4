"""What a paired comparison of two runs gives (no pandas: the fast store compare builds these
too): the alignment on shared items, the comparison and its gate, or why none was made."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evaladdon.stats import GateDecision, PairedComparison
from evaladdon.stats._base.result import Result
from evaladdon.stats.paired.error_rate import ErrorRateTest
from evaladdon.table.errored import count_errors


@dataclass(frozen=True)
class CaseBound(Result):
    """One case of ``compare --errors bounds`` (:mod:`evaladdon.analysis.compare_bounds`): the
    difference B - A with the errored samples filled in, its paired interval (at the comparison's
    level) and the number of items paired."""

    delta: float
    ci_low: float
    ci_high: float
    n: int

    def flat(self) -> dict[str, Any]:
        return {"delta": self.delta, "ci_low": self.ci_low, "ci_high": self.ci_high, "n": self.n}


@dataclass(frozen=True)
class ComparisonBounds(Result):
    """The worst case for the candidate (its errored samples failed, the baseline's passed), the
    best case (the reverse), and the bounds: the worst case's lower end to the best case's upper end."""

    worst: CaseBound
    best: CaseBound

    @property
    def ci_low(self) -> float:
        return self.worst.ci_low

    @property
    def ci_high(self) -> float:
        return self.best.ci_high

    def flat(self) -> dict[str, Any]:
        return {"worst": self.worst.flat(), "best": self.best.flat(), "ci_low": self.ci_low, "ci_high": self.ci_high}


@dataclass(frozen=True)
class Alignment(Result):
    """What pairing did: shared items, items on one side only, hash mismatches, drops."""

    n_shared: int
    only_a: int
    only_b: int
    hash_mismatch: int
    hash_mismatch_examples: tuple[str, ...]
    dropped_a: dict[str, int]
    dropped_b: dict[str, int]
    one_epoch: bool


@dataclass(frozen=True)
class RunComparison(Result):
    run_a: str
    run_b: str
    model_a: str
    model_b: str
    task: str
    metric: str
    alignment: Alignment
    comparison: PairedComparison
    p_adjusted: float | None = None
    adjust_method: str | None = None
    mde: float | None = None
    mde_note: str | None = None
    gate: GateDecision | None = None
    label_a: str = ""
    label_b: str = ""
    points: bool = True
    """Shown in percentage points (every compared value in [0, 1]) or in the metric's own units
    (:func:`evaladdon.table.scale.shown_in_points`); the gate's margin is on the same scale."""
    error_test: ErrorRateTest | None = None
    """The error rates of the two runs on the items both attempted, and their exact McNemar test."""
    errors: str = "exclude"
    """The policy for errored samples (:mod:`evaladdon.table.errored`)."""
    bounds: ComparisonBounds | None = None
    """``--errors bounds``: the worst and best case for the candidate (:mod:`evaladdon.analysis.compare_bounds`)."""
    direction_declared: bool = False
    """The direction is the log's declaration (a user's word that contradicts it is refused)."""
    lower_is_better: bool = False
    """A lower score is better for this metric (:func:`evaladdon.table.direction.lower_is_better`):
    the gate's test is mirrored and every output mode says so; ``delta`` stays ``B - A``."""

    def flat(self) -> dict[str, Any]:
        out = self._flat()
        if self.lower_is_better:  # present only then: the records of higher-is-better metrics unchanged
            out["lower_is_better"] = True
        return out

    def _flat(self) -> dict[str, Any]:
        c, al = self.comparison, self.alignment
        disc = c.discordance
        return {
            "run_a": self.run_a,
            "run_b": self.run_b,
            "label_a": self.label_a or self.run_a,
            "label_b": self.label_b or self.run_b,
            "model_a": self.model_a,
            "model_b": self.model_b,
            "task": self.task,
            "metric": self.metric,
            "n": c.n,
            "mean_a": c.mean_a,
            "mean_b": c.mean_b,
            "delta": c.delta,
            "se": c.se,
            "df": c.df,
            "se_paired": c.se_paired,
            "se_unpaired": c.se_unpaired,
            "correlation": c.correlation,
            "variance_removed": c.variance_removed,
            "ci_low": c.ci_low,
            "ci_high": c.ci_high,
            "ci_method": c.ci_method,
            "level": c.level,
            "test": c.test,
            "p_value": c.p_value,
            "p_adjusted": self.p_adjusted,
            "adjust_method": self.adjust_method,
            "t_p_value": c.t_p_value,
            "n11": disc.n11 if disc else None,
            "n10": disc.n10 if disc else None,
            "n01": disc.n01 if disc else None,
            "n00": disc.n00 if disc else None,
            "mcnemar_exact_p": c.mcnemar.exact_p if c.mcnemar else None,
            "mcnemar_mid_p": c.mcnemar.mid_p if c.mcnemar else None,
            "binary_intervals": {k: list(v) for k, v in c.binary_intervals.items()} if c.binary_intervals else None,
            "n_clusters": c.n_clusters,
            "se_cluster": c.se_cluster,
            "se_cluster_cr2": c.se_cluster_cr2,
            "df_cluster_cr2": c.df_cluster_cr2,
            "permutation_p": c.permutation_p,
            "mde": self.mde,
            "mde_note": self.mde_note,
            "decision": self.gate.decision if self.gate else None,
            "margin": self.gate.margin if self.gate else None,
            "units": "points" if self.points else "metric",
            "only_a": al.only_a,
            "only_b": al.only_b,
            "hash_mismatch": al.hash_mismatch,
            "dropped_a": al.dropped_a,
            "dropped_b": al.dropped_b,
            "notes": list(c.notes),
            "errors": self.errors,
            "n_errors_a": self.error_test.errors_a if self.error_test else count_errors(al.dropped_a),
            "n_errors_b": self.error_test.errors_b if self.error_test else count_errors(al.dropped_b),
            "error_rate_a": self.error_test.rate_a if self.error_test else None,
            "error_rate_b": self.error_test.rate_b if self.error_test else None,
            "error_test": self.error_test.flat() if self.error_test else None,
            "bounds": self.bounds.flat() if self.bounds else None,
        }


@dataclass(frozen=True)
class Skipped(Result):
    """A comparison that could not be made, and why."""

    run_a: str
    run_b: str
    label_a: str
    label_b: str
    task: str | None
    metric: str | None
    reason: str
    blocking: bool = True  # False when neither run has a scored row of this metric (nothing was hidden)

    def line(self) -> str:
        what = f" on {self.task}/{self.metric}" if self.task is not None else ""
        left = "" if self.blocking else " (left out; hides nothing from the gate)"
        return f"not compared: {self.label_b} vs {self.label_a}{what}: {self.reason}{left}"
