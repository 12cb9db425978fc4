""":func:`validate` (names, dtypes, the key's uniqueness) and :func:`concat` of canonical tables."""

from __future__ import annotations

from typing import Iterable

import numpy as np
from typing import TYPE_CHECKING as _TYPE_CHECKING

if _TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
else:
    from evaladdon._util.lazy import lazy_module

    pd = lazy_module("pandas")  # imported on first use (the lean summarize of Inspect logs needs none)

from evaladdon.errors import TableError
from evaladdon.table.codes import duplicated_keys
from evaladdon.table.columns import (COLUMNS, HARNESSES, KEY, NULLABLE_STRING_COLUMNS, STRING_COLUMNS,
                                     _is_none, _str_categorical, all_missing, empty_table, finalize, object_values)


def _describe_rows(df: pd.DataFrame, mask: np.ndarray, limit: int = 3, columns: tuple[str, ...] = KEY) -> str:
    rows = df.loc[mask, list(columns)].head(limit)
    parts = [", ".join(f"{k}={r[k]!r}" for k in columns) for _, r in rows.iterrows()]
    return "; ".join(f"row {i} ({p})" for i, p in zip(rows.index.tolist(), parts, strict=True))


def _not_in(s: pd.Series, allowed: tuple[str, ...]) -> np.ndarray:
    """``~s.isin(allowed)`` as a numpy mask; for a categorical, decided on its few labels and
    then its codes (``isin`` on a 10M-row categorical took ~100 MB of temporaries)."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        bad_label = ~s.cat.categories.isin(allowed)
        codes = s.cat.codes.to_numpy()
        if not bad_label.any() and not bool((codes < 0).any()):
            return np.zeros(len(s), dtype=bool)
        return np.append(bad_label, True)[codes]  # code -1 (missing) is not allowed either
    return ~s.isin(allowed).to_numpy()


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
        if _str_categorical(df[col]) and (nullable or not bool((df[col].cat.codes.to_numpy() < 0).any())):
            continue  # str labels, one byte a row
        if nullable and df[col].dtype == object and bool(_is_none(df[col].to_numpy()).all()):
            continue  # e.g. no item_hash / no error at all (as infer_dtype's "empty", without its scan)
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
    unknown = _not_in(df["harness"], HARNESSES)
    if unknown.any():
        raise TableError(f"unknown harness {df['harness'][unknown].iloc[0]!r}; expected one of {', '.join(HARNESSES)}")
    unscored_without_reason = (df["value"].isna() & df["error"].isna()).to_numpy()
    if unscored_without_reason.any():
        raise TableError(
            f"{int(unscored_without_reason.sum())} row(s) have no value and no error saying why: "
            f"{_describe_rows(df, unscored_without_reason)}"
        )
    dup = duplicated_keys(df)
    if dup.any():
        sources = _sources(df, dup)
        where = sources[0] if len(sources) == 1 else None  # one file: named as every input error names it
        raise TableError(
            f"(run, task, metric, item, epoch) must be unique; {int(dup.sum())} row(s) share a key"
            + (f" (rows from {', '.join(map(repr, sources))})" if len(sources) > 1 else "")
            + f": {_describe_rows(df, dup, columns=KEY if len(sources) < 2 else ('source', *KEY))}",
            where,
        )
    return df


def _sources(df: pd.DataFrame, mask: np.ndarray, limit: int = 4) -> list[str]:
    """The files (``source``) of the rows in ``mask``, in table order (at most ``limit``)."""
    if "source" not in df.columns:
        return []
    return [str(s) for s in pd.unique(df.loc[mask, "source"].astype(object))[:limit]]


def concat(tables: Iterable[pd.DataFrame]) -> pd.DataFrame:
    """Concatenate canonical tables (keeping every ``meta.*`` column)."""
    frames = [t for t in tables if len(t)]
    if not frames:
        return empty_table()
    if len(frames) == 1:  # one file: no copy through pd.concat
        return finalize(frames[0])
    # categoricals with different labels (two long tables' cluster or raw columns, or their
    # run-level columns of one value each: source, run, model ...) would concatenate to one
    # Python str a row (2 x 1M rows: ~1.4 s for `source` alone, issue 31); their union keeps
    # codes, labels in order of first appearance
    union = {}
    for col in NULLABLE_STRING_COLUMNS + STRING_COLUMNS:
        if all(col in f and _str_categorical(f[col]) for f in frames) and len({f[col].dtype for f in frames}) > 1:
            try:
                union[col] = pd.api.types.union_categoricals([f[col] for f in frames])
            except TypeError:  # labels of different dtypes (str and object): as pd.concat does
                pass
    for col in NULLABLE_STRING_COLUMNS:  # categoricals with others: as object columns, None where missing
        if all(col in f and all_missing(f[col]) for f in frames):
            continue  # no value in any file (no_values in each): concatenated as such, not 8 bytes of None a row
        if col not in union and any(col in f and isinstance(f[col].dtype, pd.CategoricalDtype) for f in frames):
            frames = [f.assign(**{col: pd.Series(object_values(f[col]).copy(), index=f.index, dtype=object)})
                      if col in f and isinstance(f[col].dtype, pd.CategoricalDtype) else f for f in frames]
    out = pd.concat([f.drop(columns=list(union)) for f in frames] if union else frames, ignore_index=True, sort=False)
    for col, cat in union.items():
        out[col] = pd.Series(cat, index=out.index, copy=False)
    return finalize(out)
