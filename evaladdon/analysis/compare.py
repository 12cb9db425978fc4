"""The loop of a paired comparison over runs, shared by the table path
(:mod:`evaladdon.analysis.compare_table`) and the pandas-free store compare
(:mod:`evaladdon.store.fast_compare`): every pair of runs on every (task, metric) both have,
what could not be compared and why, the gate, p-values adjusted over all comparisons.

``groups`` is a :class:`PairSource`: the table's (:class:`~evaladdon.analysis.compare_table.GroupRows`,
``JoinedGroups``) or the store's arrays (``FastGroups``).  Every route that compares ends in
:func:`compare_groups` and :func:`finish_comparisons`, so their answers cannot drift apart."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Protocol, Sequence

import numpy as np

from evaladdon.analysis.options import Margin
from evaladdon.analysis.results import Alignment, RunComparison, Skipped
from evaladdon.errors import EvalAddonError
from evaladdon.stats import GateDecision, adjust_pvalues, compare_paired, regression_gate
from evaladdon.stats.paired.error_rate import compare_error_rates
from evaladdon.stats.paired.family import at_level, family_level, tested_gate
from evaladdon.table.direction import Declared, declared_of, lower_is_better
from evaladdon.table.scale import shown_in_points


class PairSource(Protocol):
    """What the pairing loop needs of the runs' rows, wherever they are held."""

    def keys_of(self, run: Any) -> Sequence[tuple[Any, Any]]:
        """The (task, metric) combinations ``run`` has, in table order."""

    def model_of(self, run: Any) -> Any:
        """The model of ``run`` (its first)."""

    def pair(self, run_a: Any, run_b: Any, task: Any, metric: Any, strict: bool) -> Paired:
        """The two runs' per-item values on their shared items; raises :class:`EvalAddonError`
        when they cannot be paired (``strict``: items whose content differs are refused)."""

    def why_unpaired(self, run_a: Any, run_b: Any, task: Any, metric: Any, exc: EvalAddonError) -> str:
        """Why ``pair`` failed, in the user's terms."""

    def errored(self, run_a: Any, run_b: Any, task: Any, metric: Any) -> tuple[np.ndarray, np.ndarray]:
        """Over the items both runs attempted (scored or errored): errored in A, errored in B."""


@dataclass(frozen=True)
class Paired:
    """Two runs' per-item values on their shared items (A's order), the items' clusters (None
    when unclustered) and what pairing did."""

    a: np.ndarray
    b: np.ndarray
    clusters: np.ndarray | None
    alignment: Alignment


def why_unpaired_text(exc: EvalAddonError, sides: Sequence[tuple[int, dict[str, int]]]) -> str:
    """The reason a (task, metric) could not be paired, in the user's terms; ``sides``: for A
    and B, the number of usable rows and the rows left out by reason."""
    if "no items in common" not in exc.message:
        return exc.message.split(": ", 1)[-1] if exc.message.startswith("task ") else exc.message
    empty = []
    for side, (n_good, dropped) in zip(("A", "B"), sides, strict=True):
        if n_good == 0:
            empty.append((side, ", ".join(f"{v} {k}" for k, v in dropped.items()) or "no rows"))
    if len(empty) == 2:
        reasons = empty[0][1] if empty[0][1] == empty[1][1] else f"A: {empty[0][1]}; B: {empty[1][1]}"
        return f"no scored items in either run ({reasons})"
    if empty:
        return f"no scored items in {empty[0][0]} ({empty[0][1]})"
    return "no items in common"


NOT_BLOCKING = ("no scored items in either run", "share no (task, metric)")
"""Reasons a comparison was not made that hide nothing, so a gate may pass: neither run scored
the metric, or the two runs have no (task, metric) in common (a folder holding a run of another
task).  They are listed in every output mode; no input is counted as unreadable for them."""


def compare_groups(
    groups: PairSource,
    pairs: Sequence[tuple[str, str]],
    labels: dict[str, str],
    *,
    level: float = 0.95,
    test: str = "auto",
    interval: str = "auto",
    cluster_method: str = "cr2",
    strict: bool = False,
    margin: Margin = None,
    n_permutations: int = 10_000,
    seed: int | None = 0,
    raise_first: bool = False,
    declared: Declared | None = None,
    better: str | None = None,
) -> tuple[list[RunComparison], list[Skipped]]:
    """The comparisons of :func:`compare_table` (not yet adjusted) and those not made; with
    ``raise_first`` the first comparison not made is raised instead.  ``margin``: the gate's
    margin, or a function of the comparison's scale giving it (``GateOptions.margin_for``:
    points on a metric in [0, 1], the metric's own units otherwise).  ``declared``: the
    directions the logs declare, ``better``: the user's (``--better``); each comparison's
    direction is :func:`evaladdon.table.direction.lower_is_better` of them."""
    results: list[RunComparison] = []
    missed: list[Skipped] = []

    def skip(run_a: str, run_b: str, task: str | None, metric_name: str | None, reason: str) -> None:
        item = Skipped(run_a, run_b, labels[run_a], labels[run_b], task, metric_name, reason,
                       blocking=not reason.startswith(NOT_BLOCKING))
        if raise_first:
            what = f"task {task!r}, metric {metric_name!r}, " if task is not None else ""
            raise EvalAddonError(f"{what}runs {run_a!r} vs {run_b!r}: {reason}")
        missed.append(item)

    for run_a, run_b in pairs:
        keys_a = set(groups.keys_of(run_a))
        keys_b = set(groups.keys_of(run_b))
        common = sorted(keys_a & keys_b)
        if not common:
            tasks_a = sorted({t for t, _ in keys_a})
            tasks_b = sorted({t for t, _ in keys_b})
            skip(run_a, run_b, None, None, "share no (task, metric)"
                 + (f" (tasks {', '.join(tasks_a[:4])} vs {', '.join(tasks_b[:4])})" if tasks_a != tasks_b else ""))
            continue
        for task, metric_name in common:
            try:
                paired = groups.pair(run_a, run_b, task, metric_name, strict)
            except EvalAddonError as exc:
                skip(run_a, run_b, task, metric_name, groups.why_unpaired(run_a, run_b, task, metric_name, exc))
                continue
            try:
                comp = compare_paired(paired.a, paired.b, paired.clusters, one_epoch=paired.alignment.one_epoch,
                                      level=level, test=test, interval=interval, cluster_method=cluster_method,
                                      n_permutations=n_permutations, seed=seed)
            except ValueError as exc:
                skip(run_a, run_b, task, metric_name, str(exc))
                continue
            points = shown_in_points(paired.a, paired.b)
            errored = getattr(groups, "errored", None)  # a source that knows no errors (a test's arrays): None
            error_test = compare_error_rates(*errored(run_a, run_b, task, metric_name)) if errored else None
            m = margin(points) if callable(margin) else margin
            lower = lower_is_better(str(task), str(metric_name), declared, better)
            results.append(RunComparison(
                run_a=run_a, run_b=run_b, model_a=str(groups.model_of(run_a)), model_b=str(groups.model_of(run_b)),
                task=str(task), metric=str(metric_name), alignment=paired.alignment, comparison=comp,
                gate=regression_gate(comp.ci_low, comp.ci_high, m, lower) if m is not None else None,
                label_a=labels[run_a], label_b=labels[run_b], points=points, error_test=error_test,
                lower_is_better=lower, direction_declared=declared_of(declared, str(task), str(metric_name)) is not None,
            ))
    return results, missed


def finish_comparisons(results: list[RunComparison], missed: list[Skipped], skipped: list[Skipped] | None,
                       adjust: str) -> list[RunComparison]:
    """``missed`` added to ``skipped``; an error when nothing was compared; then the one
    multiplicity choice ``adjust`` over all ``results`` applied to p-values, intervals and gates
    alike (:func:`family`)."""
    if skipped is not None:
        skipped.extend(missed)
    if not results and missed:
        first = missed[0]
        more = f" and {len(missed) - 1} more (--verbose lists them)" if len(missed) > 1 else ""
        raise EvalAddonError(f"nothing could be compared: {first.line()[len('not compared: '):]}{more}")
    return family(results, adjust)


def family(results: list[RunComparison], adjust: str) -> list[RunComparison]:
    """The comparisons as one family (:mod:`evaladdon.stats.paired.family`): p-values adjusted
    by ``adjust`` (when more than one), each interval at the family's level, and each gate on
    that interval and the adjusted p (a regression is shown only where the test rejects)."""
    if not results:
        return results
    results = adjust_error_tests(results, adjust)
    level = results[0].comparison.level
    if len(results) > 1 and adjust != "none":
        adjusted = adjust_pvalues(np.array([r.comparison.p_value for r in results]), adjust,
                                  nan_policy="omit")  # an undefined test stays NaN, outside the family
        k_level = family_level(level, len(results), adjust, int(np.sum(adjusted < 1.0 - level)))
        results = [replace(r, p_adjusted=float(p), adjust_method=adjust, comparison=at_level(r.comparison, k_level))
                   for r, p in zip(results, adjusted, strict=True)]
    return [r if r.gate is None else replace(r, gate=_gate(r, 1.0 - level)) for r in results]


def adjust_error_tests(results: list[RunComparison], adjust: str) -> list[RunComparison]:
    """The error-rate tests of the comparisons as one family of their own, adjusted by ``adjust``
    (Holm by default) when more than one: the error gate reads the adjusted p."""
    tested = [k for k, r in enumerate(results) if r.error_test is not None]
    if len(tested) < 2 or adjust == "none":
        return results
    raw = np.array([results[k].error_test.p_value for k in tested])  # type: ignore[union-attr]
    adjusted = adjust_pvalues(raw, adjust, nan_policy="omit")
    out = list(results)
    for k, p in zip(tested, adjusted, strict=True):
        test = out[k].error_test
        assert test is not None
        out[k] = replace(out[k], error_test=replace(test, p_adjusted=float(p)))
    return out


def _gate(r: RunComparison, alpha: float) -> GateDecision:
    c = r.comparison
    assert r.gate is not None
    return tested_gate(c.ci_low, c.ci_high, r.gate.margin, c.p_value if r.p_adjusted is None else r.p_adjusted, alpha,
                       r.lower_is_better)
