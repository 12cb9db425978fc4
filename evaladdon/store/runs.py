"""Run-level helpers of the store: listing, and keeping runs of different logs distinct."""

from __future__ import annotations

from typing import Any

from evaladdon.table.names import distinguishing_names
from evaladdon.store import Manifest


def disambiguate(df: Any) -> Any:
    """The rule of :func:`evaladdon.adapters.read_runs`, for rows that come from a store: when
    two sources give the same run the same (task, metric), each such run is prefixed with its
    file's name, so they stay two runs."""
    import pandas as pd

    keys = df[["run", "task", "metric", "source"]].drop_duplicates()
    per_key = keys.groupby(["run", "task", "metric"], sort=False)["source"].nunique()
    clashing = set(per_key[per_key > 1].index.get_level_values(0))
    if clashing:
        hit = df["run"].isin(clashing)
        label = distinguishing_names(df.loc[hit, "source"].astype(str).unique())
        df = df.copy()
        run = df["run"].astype(str)  # a categorical run column (store loads) cannot take new labels in place
        run[hit] = df.loc[hit, "source"].astype(str).map(label) + "/" + run[hit]
        df["run"] = run.astype("category") if isinstance(df["run"].dtype, pd.CategoricalDtype) else run
    return df


def list_runs(root: str) -> list[dict[str, Any]]:
    """One record per stored (source, run): model, task, metrics, items, rows, source, time."""
    m = Manifest.load(root)
    out = []
    for source, e in sorted(m.entries.items()):
        for d in e.get("run_detail", []):
            out.append({
                "run": d["run"],
                "model": d["model"],
                "task": ", ".join(d["tasks"]),
                "metrics": ", ".join(d["metrics"]),
                "n_items": d["n_items"],
                "n_rows": d["n_rows"],
                "source": source,
                "ingested_at": e.get("ingested_at"),
                "key": e.get("key"),
            })
    return out
