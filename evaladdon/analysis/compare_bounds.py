"""``compare --errors bounds``: beside the difference on the samples that ran, the worst and the
best case for the candidate over what its errored samples (and the baseline's) could have scored.

- worst case: every errored sample of the candidate (B) failed (scored 0) and every errored
  sample of the baseline (A) passed (scored 1);
- best case: the reverse (B's errored samples passed, A's failed).

Each case is the same paired comparison as the estimate (:func:`evaladdon.stats.compare_paired`
with the comparison's test, interval, cluster method and level) on the items paired once the
errored rows are filled in, so its interval is the paired interval of that filled-in difference.
Together they are Manski-style (no-assumption) bounds on the difference under any outcome of the
errored samples (Manski 1990, "Nonparametric bounds on treatment effects"; Horowitz & Manski
2000 for the worst/best-case imputation of missing binary outcomes): the lower end of the worst
case's interval to the upper end of the best case's covers the difference whatever the errored
samples would have scored.  Only metrics in [0, 1] have a worst and a best value; on another
scale (or with no errored sample among the items) a comparison has no bounds (None).

Oracle (tests/analysis/test_compare_bounds.py): the cases counted by hand from a built Inspect
log, and :func:`compare_paired` called directly on the filled-in arrays."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Protocol, Sequence

from evaladdon.analysis.compare import Paired
from evaladdon.analysis.results import CaseBound, ComparisonBounds, RunComparison
from evaladdon.stats import compare_paired
from evaladdon.table.scale import unit_interval

__all__ = ["CaseBound", "ComparisonBounds", "FilledPairs", "comparison_bounds", "with_bounds"]


class FilledPairs(Protocol):
    """What the bounds need of the runs' rows (:class:`~evaladdon.analysis.compare_table.GroupRows`)."""

    def rows(self, run: Any, task: Any, metric: Any) -> Any:
        """``run``'s rows of (task, metric), with the columns ``value`` and ``error``."""

    def pair_filled(self, run_a: Any, run_b: Any, task: Any, metric: Any, fill_a: float, fill_b: float) -> Paired:
        """The two runs paired with A's errored rows scored ``fill_a`` and B's ``fill_b``."""



def _bounded(rows: Any) -> bool:
    """Whether a run's rows of a (task, metric) have a worst and a best value (scores in [0, 1])."""
    values = rows["value"].to_numpy(dtype=float)
    return unit_interval(values[rows["error"].isna().to_numpy()])


def _case(groups: FilledPairs, r: RunComparison, fill_a: float, fill_b: float, kw: dict[str, Any]) -> CaseBound:
    """The comparison ``r`` on its runs' rows with A's errored rows scored ``fill_a`` and B's ``fill_b``."""
    p = groups.pair_filled(r.run_a, r.run_b, r.task, r.metric, fill_a, fill_b)
    c = compare_paired(p.a, p.b, p.clusters, one_epoch=p.alignment.one_epoch, level=r.comparison.level, **kw)
    return CaseBound(float(c.delta), float(c.ci_low), float(c.ci_high), int(c.n))


def comparison_bounds(groups: FilledPairs, r: RunComparison, **kw: Any) -> ComparisonBounds | None:
    """The worst and best case of ``r`` (see the module doc); ``kw``: the comparison's ``test``,
    ``interval``, ``cluster_method``, ``n_permutations`` and ``seed``.  None when no shared item
    errored or the metric is not in [0, 1] in both runs."""
    t = r.error_test
    if t is None or not (t.errors_a or t.errors_b):
        return None
    if not (_bounded(groups.rows(r.run_a, r.task, r.metric)) and _bounded(groups.rows(r.run_b, r.task, r.metric))):
        return None
    return ComparisonBounds(worst=_case(groups, r, 1.0, 0.0, kw), best=_case(groups, r, 0.0, 1.0, kw))


def with_bounds(groups: FilledPairs, results: Sequence[RunComparison], **kw: Any) -> list[RunComparison]:
    """``results`` each with its :func:`comparison_bounds` (``compare --errors bounds``)."""
    return [replace(r, bounds=comparison_bounds(groups, r, **kw)) for r in results]

