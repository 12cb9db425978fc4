"""ROC and precision-recall curves per (run, task, scorer) with pointwise bands, for the HTML
report: every group with a ``score`` and a 0/1 ``label`` (the inputs of ``roc_auc``); runs of
the same task and scorer are drawn together, so a comparison overlays its two runs.  Rows
without a score or label are counted (:attr:`CurveSet.dropped`); groups that cannot be drawn
say why (:attr:`CurveSet.missing`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evaladdon.analysis.metrics import _binary_labels, _units, with_optional_columns
from evaladdon.stats.families.curves import CurveBands, curve_bands, pr_curve, roc_curve
from evaladdon.table import run_labels
from evaladdon.table.usable import usable_rows

__all__ = ["CurveSet", "roc_pr_curves"]


@dataclass
class CurveSet:
    run: str
    label: str
    task: str
    metric: str
    n_items: int
    fpr: np.ndarray | None = None
    tpr: np.ndarray | None = None
    recall: np.ndarray | None = None
    precision: np.ndarray | None = None
    bands: CurveBands | None = None
    dropped: dict[str, int] = field(default_factory=dict)
    missing: str | None = None


def _one(g: pd.DataFrame, out: CurveSet, level: float, n_boot: int, seed: int | None) -> None:
    good, dropped = usable_rows(g)
    out.dropped = dict(dropped)
    ok = (good["score"].notna() & good["label"].notna()).to_numpy()
    if (~ok).any():
        out.dropped["no score or label"] = int((~ok).sum())
    good = good.loc[ok]
    y = _binary_labels(good["label"]) if len(good) else None
    if y is None:
        out.missing = "needs 0/1 labels and a score"
        return
    s = good["score"].to_numpy(dtype=float)
    units, _ = _units(good)
    try:
        out.fpr, out.tpr, _ = roc_curve(s, y)
        out.recall, out.precision, _ = pr_curve(s, y)
        out.bands = curve_bands(s, y, units, level=level, n_boot=n_boot, seed=seed)
    except ValueError as exc:
        out.missing = str(exc)
    out.n_items = int(len(good))


def roc_pr_curves(df: pd.DataFrame, *, level: float = 0.95, n_boot: int = 1000,
                  seed: int | None = 0) -> list[CurveSet]:
    """One :class:`CurveSet` per (run, task, scorer) group holding scores and labels."""
    df = with_optional_columns(df)
    if "score" not in df or "label" not in df or not df["score"].notna().any():
        return []
    labels = run_labels(df)
    out = []
    for (run, task, scorer), g in df.groupby(["run", "task", "metric"], sort=False):
        if not g["score"].notna().any():
            continue
        cs = CurveSet(str(run), labels.get(str(run), str(run)), str(task), str(scorer), 0)
        _one(g, cs, level, n_boot, seed)
        out.append(cs)
    return out
