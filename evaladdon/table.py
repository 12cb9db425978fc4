"""The canonical per-item table: one row per (run, task, metric, item, epoch).

Column names and meanings are the contract between adapters and statistics (see
``docs/table.md``).  :func:`validate` checks names, dtypes and the key's uniqueness;
:func:`empty_table` and :func:`finalize` build conforming frames.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd

from evaladdon.errors import TableError

KEY: tuple[str, ...] = ("run", "task", "metric", "item", "epoch")
"""The columns that identify a row."""

GROUP: tuple[str, ...] = ("run", "task", "metric")
"""One estimate per group."""

STRING_COLUMNS: tuple[str, ...] = ("run", "source", "harness", "task", "model", "metric", "item", "raw")
NULLABLE_STRING_COLUMNS: tuple[str, ...] = ("cluster", "item_hash", "error")
COLUMNS: tuple[str, ...] = (
    "run",
    "source",
    "harness",
    "task",
    "model",
    "metric",
    "item",
    "epoch",
    "value",
    "raw",
    "cluster",
    "item_hash",
    "error",
)
HARNESSES: tuple[str, ...] = ("inspect", "lm_eval", "table", "helm", "promptfoo", "deepeval")

OPTIONAL_COLUMNS: tuple[str, ...] = ("prediction", "label", "confidence", "score")
"""Optional per-row inputs of the metrics that are not means (present only when a reader has them):
``prediction`` (str: the answer given, e.g. a choice letter or class), ``label`` (str: the
target / gold class), ``confidence`` (float: the probability the model gave its prediction),
``score`` (float: for binary labels 0/1, the predicted probability of label 1).  Readers that
do not know them leave them out; :func:`finalize` keeps them after the canonical columns."""


def empty_table() -> pd.DataFrame:
    """A conforming table with no rows."""
    return finalize(pd.DataFrame({c: [] for c in COLUMNS}))


def finalize(df: pd.DataFrame) -> pd.DataFrame:
    """Cast the canonical columns to their dtypes and order them first.

    String columns become ``object`` dtype holding ``str`` (nullable ones hold ``None``
    for missing), ``epoch`` ``int64``, ``value`` ``float64``.  Extra ``meta.*`` columns
    are kept after the canonical ones.
    """
    out = df.copy()
    for col in STRING_COLUMNS:
        out[col] = out[col].astype(str) if len(out) else pd.Series([], dtype=object)
        out[col] = out[col].astype(object)
    for col in NULLABLE_STRING_COLUMNS:
        if col not in out:
            out[col] = None
        s = out[col]
        mask = s.isna()
        s = s.astype(object).where(mask, s.astype(str))
        out[col] = s.where(~mask, None).astype(object)
    out["epoch"] = out["epoch"].astype(np.int64)
    out["value"] = out["value"].astype(np.float64)
    extra = [c for c in out.columns if c not in COLUMNS]
    return out[list(COLUMNS) + extra].reset_index(drop=True)


def _describe_rows(df: pd.DataFrame, mask: np.ndarray, limit: int = 3) -> str:
    rows = df.loc[mask, list(KEY)].head(limit)
    parts = [", ".join(f"{k}={r[k]!r}" for k in KEY) for _, r in rows.iterrows()]
    return "; ".join(f"row {i} ({p})" for i, p in zip(rows.index.tolist(), parts))


def validate(df: pd.DataFrame) -> pd.DataFrame:
    """Check that ``df`` is a canonical item table; return it unchanged or raise.

    Checks: every column present; string columns hold strings (nullable ones strings or
    null); ``epoch`` an integer >= 1; ``value`` float; ``harness`` known; no missing key;
    (run, task, metric, item, epoch) unique.  The ``TableError`` names the first
    offending rows and how many break the rule.
    """
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise TableError(f"missing column(s) {', '.join(missing)}")
    for col in STRING_COLUMNS + NULLABLE_STRING_COLUMNS:
        nullable = col in NULLABLE_STRING_COLUMNS
        kind = pd.api.types.infer_dtype(df[col], skipna=nullable)  # C-level scan, no Python loop
        if kind not in ("string", "empty"):
            if not nullable and df[col].isna().any():
                bad = df[col].isna().to_numpy()
                raise TableError(f"column {col!r} has {int(bad.sum())} missing value(s): {_describe_rows(df, bad)}")
            raise TableError(f"column {col!r} must hold strings{' or null' if nullable else ''}, found {kind} values")
    if not pd.api.types.is_integer_dtype(df["epoch"]):
        raise TableError(f"column 'epoch' must be integer, found {df['epoch'].dtype}")
    bad_epoch = (df["epoch"] < 1).to_numpy()
    if bad_epoch.any():
        raise TableError(f"epoch must be 1-based; {int(bad_epoch.sum())} row(s) are < 1: {_describe_rows(df, bad_epoch)}")
    if not pd.api.types.is_float_dtype(df["value"]):
        raise TableError(f"column 'value' must be float, found {df['value'].dtype}")
    unknown = ~df["harness"].isin(HARNESSES).to_numpy()
    if unknown.any():
        raise TableError(f"unknown harness {df['harness'][unknown].iloc[0]!r}; expected one of {', '.join(HARNESSES)}")
    unscored_without_reason = (df["value"].isna() & df["error"].isna()).to_numpy()
    if unscored_without_reason.any():
        raise TableError(
            f"{int(unscored_without_reason.sum())} row(s) have no value and no error saying why: "
            f"{_describe_rows(df, unscored_without_reason)}"
        )
    dup = df.duplicated(list(KEY), keep=False).to_numpy()
    if dup.any():
        raise TableError(
            f"(run, task, metric, item, epoch) must be unique; {int(dup.sum())} row(s) share a key: "
            f"{_describe_rows(df, dup)}"
        )
    return df


def concat(tables: Iterable[pd.DataFrame]) -> pd.DataFrame:
    """Concatenate canonical tables (keeping every ``meta.*`` column)."""
    frames = [t for t in tables if len(t)]
    if not frames:
        return empty_table()
    return finalize(pd.concat(frames, ignore_index=True, sort=False))


def run_labels(df: pd.DataFrame) -> dict[str, str]:
    """Readable names for runs: for Inspect (whose eval ids are opaque) the log file's stem
    when a run comes from one file of its own, else the run id.  Ambiguous stems fall back
    to ids."""
    sources = df.groupby("run", sort=False)["source"].unique()
    harness = df.groupby("run", sort=False)["harness"].first()
    label: dict[str, str] = {}
    for run, srcs in sources.items():
        own_file = len(srcs) == 1 and df.loc[df["source"] == srcs[0], "run"].nunique() == 1
        opaque = harness[run] == "inspect"  # lm-eval and table run ids are already readable
        label[str(run)] = Path(str(srcs[0])).stem if own_file and opaque else str(run)
    counts: dict[str, int] = {}
    for v in label.values():
        counts[v] = counts.get(v, 0) + 1
    return {r: (v if counts[v] == 1 else r) for r, v in label.items()}
