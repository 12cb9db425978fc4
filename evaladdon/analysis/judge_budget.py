"""``power --judge``: the human-label budget of a judge correction, planned from given judge
accuracy or measured on a pilot (a judge-scored run and a few human labels).

The formulas are :func:`evaladdon.stats.judge_budget.label_budget`'s (its tests hold the
Monte-Carlo oracle); nothing printed here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from evaladdon.errors import EvalAddonError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["JudgePilot", "measure_judge"]


@dataclass(frozen=True)
class JudgePilot:
    """The judge's accuracy measured on a pilot: Se, Sp (from the labelled items), pass rate and
    items judged, with the labels it was measured on and the rows left out."""

    run: str
    task: str
    metric: str
    sensitivity: float
    specificity: float
    judge_rate: float
    n_judged: int
    n_labelled: int
    n_pos: int
    n_neg: int
    dropped: dict[str, int]


def measure_judge(table: "pd.DataFrame", labels: "pd.Series", metric: str | None = None) -> JudgePilot:
    """Se, Sp and the pass rate of the one judge-scored (run, task, metric) of ``table`` against
    the human 0/1 ``labels`` (by item id); an error names what is wrong."""
    import numpy as np

    from evaladdon.stats.judge import judge_agreement
    from evaladdon.table import run_labels
    from evaladdon.table.usable import usable_rows

    df = table if metric is None else table[table["metric"] == metric]
    groups = list(df.groupby(["run", "task", "metric"], sort=False))
    if len(groups) != 1:
        raise EvalAddonError(f"--pilot with --judge needs one judge-scored run and metric; found {len(groups)} "
                             "(choose one with --metric)")
    (run, task, met), group = groups[0]
    good, dropped = usable_rows(group)
    if (good["epoch"] > 1).any():
        raise EvalAddonError("the judge pilot needs one verdict per item; this run has epochs")
    verdicts = good.set_index(good["item"].astype(str))["value"]
    if not np.isin(verdicts.to_numpy(), [0.0, 1.0]).all():
        raise EvalAddonError("judge verdicts must be 0/1")
    shared = verdicts.index.intersection(labels.index)
    if len(shared) < 2:
        raise EvalAddonError(f"only {len(shared)} labelled item(s) are in this run")
    try:
        agr = judge_agreement(verdicts.loc[shared].to_numpy(), labels.loc[shared].to_numpy())
    except ValueError as exc:
        raise EvalAddonError(str(exc)) from None
    return JudgePilot(run_labels(df).get(str(run), str(run)), str(task), str(met), agr.sensitivity,
                      agr.specificity, float(verdicts.mean()), int(verdicts.size), agr.n_labelled, agr.n_pos,
                      agr.n_neg, dict(dropped))
