"""Judge drift: the same outputs judged twice, and how much of a headline difference the judge's
change explains.

Two judge-scored runs ``A`` (before) and ``B`` (after) -- an anchor set re-judged, or two runs
whose outputs are in part byte for byte the same -- are paired on (task, metric, item).  An item's
outputs are *the same* when every epoch's logged answer (the canonical table's ``prediction``) is
identical in both runs; on those items any change of verdict is the judge's alone.

* **judge change**: the paired difference ``B - A`` of the verdicts on the same-output items
  (:func:`evaladdon.analysis.compare_table.compare_table`: the interval and test ``compare``
  gives, exact McNemar for 0/1 verdicts);
* **headline**: the same paired difference on all shared items;
* **share explained**: ``sum_{same} d_i / sum_{shared} d_i``, the part of the headline difference
  that comes from re-judging unchanged outputs (1: all of it; 0: none), with a cluster-bootstrap
  BCa interval (:func:`evaladdon.stats.resampling.bootstrap_totals` on per-cluster totals
  of the two sums; clusters from the ``cluster`` column, else items).  When the headline interval
  covers 0 the share is unstable and a note says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from evaladdon.errors import EvalAddonError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["DriftReport", "judge_drift", "share_explained"]


@dataclass(frozen=True)
class DriftReport:
    run_a: str
    run_b: str
    task: str
    metric: str
    n_shared: int
    n_same_output: int
    judge_change: Any  # RunComparison on the same-output items, or None
    headline: Any  # RunComparison on all shared items
    share: Any  # stats.resampling.BootstrapResult, or None
    notes: list[str] = field(default_factory=list)

    def flat(self) -> dict[str, Any]:
        return {"run_a": self.run_a, "run_b": self.run_b, "task": self.task, "metric": self.metric,
                "n_shared": self.n_shared, "n_same_output": self.n_same_output,
                "judge_change": self.judge_change.flat() if self.judge_change is not None else None,
                "headline": self.headline.flat(), "share_explained": self.share.to_dict() if self.share else None,
                "notes": list(self.notes)}


def _same_output_items(a: pd.DataFrame, b: pd.DataFrame) -> set[str]:
    """Items whose every epoch's answer is the same text in both runs (and logged in both)."""
    keys = ["item", "epoch"]
    joined = a[keys + ["prediction"]].merge(b[keys + ["prediction"]], on=keys, how="outer", suffixes=("_a", "_b"))
    same = (joined["prediction_a"].astype("string") == joined["prediction_b"].astype("string")).fillna(False)
    per_item = same.groupby(joined["item"].astype(str)).all()
    return set(per_item.index[per_item.to_numpy(dtype=bool)])


def share_explained(d: np.ndarray, same: np.ndarray, units: np.ndarray, level: float = 0.95,
                    seed: int | None = 0) -> Any:
    """``sum(d[same]) / sum(d)`` with a BCa cluster-bootstrap interval over ``units`` (per-unit
    totals of the two sums; None when there are fewer than two units or no difference at all)."""
    from evaladdon.stats.resampling import bootstrap_totals

    codes = np.unique(units, return_inverse=True)[1]
    totals = np.zeros((int(codes.max()) + 1, 2))
    np.add.at(totals, codes, np.column_stack([np.where(same, d, 0.0), d]))
    if totals.shape[0] < 2 or totals[:, 1].sum() == 0:
        return None
    return bootstrap_totals(totals, n_resamples=2_000, level=level, method="bca", seed=seed)


def _share(per_item: pd.DataFrame, level: float, seed: int | None) -> Any:
    return share_explained(per_item["d"].to_numpy(dtype=float), per_item["same"].to_numpy(dtype=bool),
                           per_item["unit"].astype(str).to_numpy(), level, seed)


def _per_item(rows_a: pd.DataFrame, rows_b: pd.DataFrame, same: set[str]) -> pd.DataFrame:
    import pandas as pd

    mean_a = rows_a.groupby("item")["value"].mean()
    mean_b = rows_b.groupby("item")["value"].mean()
    shared = mean_a.index.intersection(mean_b.index)
    cluster = rows_a.groupby("item")["cluster"].first().reindex(shared)
    unit = cluster.where(cluster.notna(), pd.Series(shared, index=shared))
    return pd.DataFrame({"d": (mean_b.loc[shared] - mean_a.loc[shared]).to_numpy(),
                         "same": shared.astype(str).isin(list(same)), "unit": unit.to_numpy()}, index=shared)


def judge_drift(df: pd.DataFrame, run_a: str, run_b: str, *, metric: str | None = None, level: float = 0.95,
                seed: int | None = 0) -> list[DriftReport]:
    """One :class:`DriftReport` per (task, metric) the two runs share."""
    from evaladdon.analysis.compare_table import compare_table
    from evaladdon.table.usable import usable_rows

    if "prediction" not in df.columns:
        raise EvalAddonError("these logs keep no answers (no prediction column): outputs judged twice cannot be found")
    if metric is not None:
        df = df[df["metric"] == metric]
    good, _ = usable_rows(df[df["run"].isin([run_a, run_b])])
    out = []
    for (task, m), rows in good.groupby(["task", "metric"], sort=True):
        rows_a, rows_b = rows[rows["run"] == run_a], rows[rows["run"] == run_b]
        if rows_a.empty or rows_b.empty:
            continue
        same = _same_output_items(rows_a, rows_b)
        per_item = _per_item(rows_a, rows_b, same)
        (headline,) = compare_table(rows, [(run_a, run_b)], level=level, seed=seed, adjust="none")
        notes: list[str] = []
        change = None
        sub = rows[rows["item"].astype(str).isin(same)]
        if sub["item"].nunique() >= 2:
            (change,) = compare_table(sub, [(run_a, run_b)], level=level, seed=seed, adjust="none")
        else:
            notes.append(f"{len(same)} item(s) with the same outputs in both runs: too few to measure the judge's change")
        share = _share(per_item, level, seed) if change is not None else None
        c = headline.comparison
        if share is not None and c.ci_low <= 0 <= c.ci_high:
            notes.append("the headline difference's interval covers 0: the share it explains is unstable")
        out.append(DriftReport(run_a, run_b, str(task), str(m), len(per_item), int(per_item["same"].sum()), change,
                               headline, share, notes))
    if not out:
        raise EvalAddonError(f"runs {run_a!r} and {run_b!r} share no task and metric with scored rows")
    return out
