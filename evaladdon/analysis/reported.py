"""Harness-reported values of results-only inputs (lm-eval results files without samples).

Old runs often keep only ``results_<ts>.json`` (or 0.3 ``acc``/``acc_stderr`` files).  They
hold no per-item scores, so nothing here is clustered, paired or recomputed: the harness's
own value and stderr are shown as they were logged, with a normal-approximation interval
value ± z·stderr (lm-eval's stderr is the i.i.d. SE over docs, or an i.i.d. bootstrap for
corpus-level metrics) and the marks ``harness-reported``, ``unclustered``, ``unpaired``.

Input: the dicts the lm-eval adapter puts in ``table.attrs["reported"]`` (keys ``run``,
``source``, ``task``, ``model``, ``metric``, ``value``, ``stderr``, ``n``; see
:mod:`evaladdon.adapters.lm_eval`).  Rows whose (run, task, metric) also has per-item
rows in the canonical table are left out (the per-item summary supersedes them).

How the CLI calls it (summarize)::

    from evaladdon.analysis.reported import reported_summaries
    rows = reported_summaries(reported, level=args.level, table=loaded.table)
    for r in rows: ...   # r.flat() -> the JSON record (mean, se, ci_low, ci_high, n_items, method, notes)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable

from evaladdon.stats._base.result import Result

MARK = "harness-reported (unclustered, unpaired)"


@dataclass(frozen=True)
class ReportedSummary(Result):
    """One harness-reported value with its stderr and the interval it implies."""

    run: str
    source: str
    task: str
    model: str
    metric: str
    value: float
    stderr: float | None
    ci_low: float | None
    ci_high: float | None
    level: float
    n: int | None
    method: str = MARK
    notes: tuple[str, ...] = ()

    def flat(self) -> dict[str, Any]:
        """The JSON record (same names as ``summarize --json`` where they mean the same)."""
        return {"run": self.run, "label": self.run, "source": self.source, "task": self.task, "model": self.model,
                "metric": self.metric, "mean": self.value, "se": self.stderr, "ci_low": self.ci_low,
                "ci_high": self.ci_high, "level": self.level, "n_items": self.n, "method": self.method,
                "harness_reported": True, "clustered": False, "paired": False,
                "n_dropped": 0, "dropped": {},  # no per-item rows were read, so none were left out
                "notes": list(self.notes)}


def _z(level: float) -> float:
    from statistics import NormalDist  # no scipy needed for one quantile

    return NormalDist().inv_cdf(0.5 + level / 2.0)


def reported_summaries(
    reported: Iterable[dict[str, Any]],
    level: float = 0.95,
    table: Any = None,
    metric: str | None = None,
) -> list[ReportedSummary]:
    """One :class:`ReportedSummary` per harness-reported (run, task, metric).

    ``table`` (the canonical table, optional): rows already summarised from per-item data
    are dropped.  ``metric`` keeps only that metric.  A missing, ``"N/A"`` or non-finite
    stderr gives no interval (with a note); a non-finite value is shown as logged, with a note.
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must be in (0, 1), got {level}")
    reported = list(reported)
    have: set[tuple[str, str, str]] = set()
    if reported and table is not None and len(table):  # nothing reported (the usual case): no pass over the rows
        from evaladdon.table import distinct_tuples  # on integer codes: no copy of the three columns

        have = {(str(r), str(t), str(m)) for r, t, m in distinct_tuples(table, ("run", "task", "metric"))}
    z = _z(level)
    out: list[ReportedSummary] = []
    for r in reported:
        key = (str(r["run"]), str(r["task"]), str(r["metric"]))
        if key in have or (metric is not None and key[2] != metric):
            continue
        value = float(r["value"])
        se = r.get("stderr")
        notes: list[str] = []
        lo = hi = None
        if se is None or not math.isfinite(float(se)) or float(se) < 0:
            notes.append("the harness logged no usable stderr: no interval")
            se = None
        elif math.isfinite(value):
            se = float(se)
            lo, hi = value - z * se, value + z * se
            notes.append(f"interval = value ± {z:.3f}·stderr (normal approximation on the harness's i.i.d. stderr)")
        if not math.isfinite(value):
            notes.append("the harness reported a non-finite value")
        out.append(ReportedSummary(run=key[0], source=str(r.get("source", "")), task=key[1],
                                   model=str(r.get("model", "")), metric=key[2], value=value, stderr=se, ci_low=lo,
                                   ci_high=hi, level=level, n=r.get("n"), notes=tuple(notes)))
    return out
