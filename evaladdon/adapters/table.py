"""Reader for long tables (csv, tsv, jsonl, parquet) into the canonical item table.

Columns: ``item`` and ``value`` required (aliases below), optionally ``run``, ``task``,
``model``, ``metric``, ``epoch``, ``cluster``, ``item_hash``.  Several models in one file
become several runs (``run`` defaults to ``model``, else the file's stem).  Every other
column is kept as ``meta.<name>`` so ``--cluster`` can name it.  Values that are not
numbers are kept with their reason in ``error``, never dropped.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from evaladdon.adapters.jsonlines import read_json_records
from evaladdon.adapters.scores import coerce_scores, raw_strings
from evaladdon.errors import InputError
from evaladdon.table import COLUMNS, finalize

ALIASES: dict[str, tuple[str, ...]] = {
    "item": ("item", "item_id", "question_id", "sample_id", "id", "doc_id"),
    "value": ("value", "score"),
    "cluster": ("cluster", "cluster_id"),
    "epoch": ("epoch", "sample", "repeat"),
    "item_hash": ("item_hash", "doc_hash"),
    "run": ("run",),
    "task": ("task",),
    "model": ("model",),
    "metric": ("metric",),
}
TABLE_SUFFIXES: tuple[str, ...] = (".csv", ".tsv", ".jsonl", ".ndjson", ".parquet")


def _read_jsonl(path: Path) -> pd.DataFrame:
    """JSON lines via :func:`read_json_records` (``pandas.read_json`` would turn ``null``
    into NaN and ints into floats, losing the difference between a missing score and a
    ``NaN`` literal, and the raw value)."""
    records = read_json_records(path)
    for i, r in enumerate(records):
        if not isinstance(r, dict):
            raise InputError(f"line {i + 1}: expected a JSON object, found {type(r).__name__}", str(path))
    return pd.DataFrame.from_records(records)


def read_raw_table(path: Path) -> pd.DataFrame:
    suffix = path.suffix.lower()
    try:
        if suffix in (".csv", ".tsv"):
            return pd.read_csv(path, sep="\t" if suffix == ".tsv" else ",", dtype=str, keep_default_na=False)
        if suffix in (".jsonl", ".ndjson"):
            return _read_jsonl(path)
        if suffix == ".parquet":
            try:
                return pd.read_parquet(path)
            except ImportError:
                raise InputError("reading parquet needs pyarrow: pip install 'evaladdon[parquet]'", str(path)) from None
    except InputError:
        raise
    except pd.errors.EmptyDataError:
        raise InputError("the file is empty", str(path)) from None
    except (ValueError, OSError, pd.errors.ParserError) as exc:
        raise InputError(f"cannot read as {suffix[1:]}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}", str(path)) from None
    raise InputError(f"unsupported table format {suffix!r}; use csv, tsv, jsonl or parquet", str(path))


def _pick(raw: pd.DataFrame, name: str) -> str | None:
    for alias in ALIASES[name]:
        if alias in raw.columns:
            return alias
    return None


def read_long_table(path: str | Path, cluster: str | None = None) -> pd.DataFrame:
    """Read one long table into canonical rows (see module docstring).

    ``cluster`` names any column to cluster on; without it a ``cluster``/``cluster_id``
    column is used when present.  Raises :class:`InputError` with the file and the
    problem for missing columns, bad epochs, or unreadable files.
    """
    p = Path(path)
    raw = read_raw_table(p)
    if raw.empty:
        raise InputError("the table has no rows", str(p))
    where = str(p)
    item_col, value_col = _pick(raw, "item"), _pick(raw, "value")
    if item_col is None or value_col is None:
        need = [n for n, c in (("item", item_col), ("value", value_col)) if c is None]
        raise InputError(
            f"missing column(s) {', '.join(need)} (accepted names: item: {', '.join(ALIASES['item'])}; "
            f"value: {', '.join(ALIASES['value'])}); found {', '.join(map(str, raw.columns))}",
            where,
        )
    used = {item_col, value_col}
    out = pd.DataFrame(index=raw.index)
    item = raw[item_col]
    if item.isna().any() or (item.astype(str).str.strip() == "").any():
        first = int(np.flatnonzero((item.isna() | (item.astype(str).str.strip() == "")).to_numpy())[0])
        raise InputError(f"row {first + 1}: empty item id in column {item_col!r}", where)
    out["item"] = item.astype(str)
    values, errors = coerce_scores(raw[value_col])
    out["value"] = values
    out["raw"] = raw_strings(raw[value_col])
    out["error"] = errors

    epoch_col = _pick(raw, "epoch")
    if epoch_col is not None:
        used.add(epoch_col)
        epoch = pd.to_numeric(raw[epoch_col], errors="coerce")
        bad = epoch.isna() | (epoch != np.floor(epoch))
        if bad.any():
            first = int(np.flatnonzero(bad.to_numpy())[0])
            raise InputError(f"row {first + 1}: epoch {raw[epoch_col].iloc[first]!r} is not a whole number", where)
        epoch = epoch.astype(np.int64)
        if epoch.min() == 0:
            epoch = epoch + 1  # 0-based repeats (lm-eval style) become 1-based
        if epoch.min() < 1:
            raise InputError(f"epochs must be >= 0 (0-based) or >= 1, found {int(epoch.min())}", where)
        out["epoch"] = epoch
    else:
        out["epoch"] = 1

    model_col, run_col = _pick(raw, "model"), _pick(raw, "run")
    for name, col in (("model", model_col), ("run", run_col)):
        if col is not None:
            used.add(col)
            out[name] = raw[col].astype(str)
    if run_col is None:
        out["run"] = out["model"] if model_col is not None else p.stem
    if model_col is None:
        out["model"] = out["run"]
    task_col = _pick(raw, "task")
    out["task"] = raw[task_col].astype(str) if task_col is not None else "default"
    metric_col = _pick(raw, "metric")
    out["metric"] = raw[metric_col].astype(str) if metric_col is not None else value_col
    used.update(c for c in (task_col, metric_col) if c is not None)

    hash_col = _pick(raw, "item_hash")
    out["item_hash"] = raw[hash_col].astype(object).where(raw[hash_col].notna(), None) if hash_col else None
    if hash_col:
        used.add(hash_col)

    cluster_col = cluster if cluster is not None else _pick(raw, "cluster")
    if cluster is not None and cluster not in raw.columns:
        raise InputError(f"no column {cluster!r} to cluster on; columns are {', '.join(map(str, raw.columns))}", where)
    if cluster_col is not None:
        used.add(cluster_col)
        cl = raw[cluster_col]
        empty = cl.isna() | (cl.astype(str).str.strip() == "")
        if empty.any():
            first = int(np.flatnonzero(empty.to_numpy())[0])
            raise InputError(f"row {first + 1}: empty cluster id in column {cluster_col!r}", where)
        out["cluster"] = cl.astype(str)
    else:
        out["cluster"] = None

    out["source"] = where
    out["harness"] = "table"
    for col in raw.columns:
        if col not in used and col not in COLUMNS:
            out[f"meta.{col}"] = raw[col]
    return finalize(out)
