"""Flaky items of runs with repeats (issue 27 item 4): per (run, task, metric) of a canonical
table with 0/1 scores and items attempted more than once, each item's pass rate with a Wilson
interval and its flip rate, the unstable items (:mod:`evaladdon.stats.families.flaky`), and
pass@k beside pass^k at k = the most attempts (:mod:`evaladdon.stats.families.passk`).

``summarize --flaky`` shows them; ``compare --max-flaky SHARE`` fails the gate when a candidate
run has more than ``SHARE`` of its repeated items unstable.  Rows are the usable rows
(:func:`evaladdon.table.usable.usable_rows`): an errored attempt is no attempt here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from evaladdon.stats._base.result import Result
from evaladdon.stats.families.estimates import MetricEstimate
from evaladdon.stats.families.flaky import FlakyItems, flaky_items
from evaladdon.stats.families.passk import pass_at_k

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["FlakyGroup", "flaky_table"]


@dataclass(frozen=True)
class FlakyGroup(Result):
    """One run's flaky items for one task and metric."""

    run: str
    label: str
    task: str
    metric: str
    items: FlakyItems
    item_labels: np.ndarray  # the item ids of ``items.items``, in the same order
    k: int
    pass_at: MetricEstimate | None
    pass_hat: MetricEstimate | None

    def unstable_rows(self) -> list[dict[str, Any]]:
        """The unstable items, the most flipping first (ties: lowest pass rate first, then log order)."""
        f = self.items
        at = np.flatnonzero(f.unstable)
        at = at[np.lexsort((f.rate[at], -f.flip_rate[at]))]
        return [{"item": str(self.item_labels[i]), "n": int(f.n[i]), "passes": int(f.passes[i]),
                 "pass_rate": float(f.rate[i]), "ci_low": float(f.ci_low[i]), "ci_high": float(f.ci_high[i]),
                 "flip_rate": float(f.flip_rate[i])} for i in at]

    def flat(self) -> dict[str, Any]:
        f = self.items

        def est(e: MetricEstimate | None) -> dict[str, Any] | None:
            return None if e is None else {"estimate": e.estimate, "ci_low": e.ci_low, "ci_high": e.ci_high,
                                           "n_items": e.n_items}

        return {"run": self.run, "label": self.label, "task": self.task, "metric": self.metric,
                "n_items_repeated": f.n_items, "n_items_single": f.n_single, "n_unstable": f.n_unstable,
                "share_unstable": f.share_unstable, "mean_flip_rate": f.mean_flip_rate, "level": f.level,
                "k": self.k, f"pass@{self.k}": est(self.pass_at), f"pass^{self.k}": est(self.pass_hat),
                "interval": "wilson (per item, its repeats as Bernoulli trials)", "unstable": self.unstable_rows()}


def _group(run: Any, label: str, task: Any, metric: Any, values: np.ndarray, items: np.ndarray,
           level: float, notes: list[str]) -> FlakyGroup | None:
    """One group's :class:`FlakyGroup`, or None (with a note when the group cannot have one)."""
    import pandas as pd

    codes, labels = pd.factorize(items)
    if codes.size == 0 or np.bincount(codes).max() < 2:
        # one attempt per item: no item can be flaky; said, so that --flaky / --max-flaky never pass silently
        notes.append(f"note: {label} / {task} / {metric}: flaky: every item has one attempt (no epochs or repeats "
                     "to be flaky over)")
        return None
    if not np.all((values == 0) | (values == 1)):
        notes.append(f"note: {label} / {task} / {metric}: no flaky items (they need 0/1 scores per attempt)")
        return None
    f = flaky_items(values, codes, level)
    k = int(f.n.max())
    pass_at = pass_hat = None
    got = pass_at_k(values, codes, ks=[k], level=level)
    if got:
        pass_at, pass_hat = got[0], got[1]
    return FlakyGroup(str(run), label, str(task), str(metric), f, np.asarray(labels)[f.items], k, pass_at, pass_hat)


def flaky_table(df: pd.DataFrame, metric: str | None = None, level: float = 0.95,
                notes: list[str] | None = None) -> list[FlakyGroup]:
    """A :class:`FlakyGroup` per (run, task, metric) of ``df`` whose usable 0/1 rows repeat an item."""
    from evaladdon.table import GROUP, run_labels
    from evaladdon.table.codes import group_positions
    from evaladdon.table.usable import usable_rows

    notes = [] if notes is None else notes
    if metric is not None:
        df = df[df["metric"] == metric]
    if df.empty:
        return []
    labels = run_labels(df)
    out = []
    for rows in group_positions(df)[1]:
        part = df.iloc[rows]
        good, _ = usable_rows(part)
        run, task, metric_name = (part[c].iat[0] for c in GROUP)
        got = _group(run, labels[str(run)], task, metric_name, good["value"].to_numpy(dtype=float),
                     good["item"].to_numpy(), level, notes)
        if got is not None:
            out.append(got)
    return out
