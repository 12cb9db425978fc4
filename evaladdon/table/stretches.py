"""Stretches of consecutive rows equal in some columns (a file's run, task and metric), told by
comparing each row with the one before it: what :mod:`evaladdon.table.codes` uses instead of
integer codes of run-level columns when a table was read file after file (issue 31 item 2)."""

from __future__ import annotations

from typing import Any

import numpy as np
from typing import TYPE_CHECKING as _TYPE_CHECKING

if _TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
else:
    from evaladdon._util.lazy import lazy_module

    pd = lazy_module("pandas")  # imported on first use

from evaladdon.table.columns import GROUP, _is_str_dtype

__all__ = ["segment_starts", "stretch_groups", "values_at"]


def segment_starts(df: pd.DataFrame, columns: tuple[str, ...]) -> np.ndarray | None:
    """First row of each stretch of consecutive rows equal in every one of ``columns`` (row 0
    first), told by comparing each row with the one before it (a few ns a row: no codes, no
    hash table); ``None`` when the stretches are many (more than ``len(df) // 64 + 16``: codes
    are then the cheaper way) or a column is not one this compares exactly (a missing value,
    an object column of anything but ``str``, a float column).

    Run-level columns (run, model, task, metric, source) come in long stretches, one a file (or
    a run) at a time: their distinct combinations are among the stretches' first rows.
    Oracle: the codes of :func:`evaladdon.table.codes.key_codes` (``tests/table/test_periodic_codes.py``)."""
    n = len(df)
    limit = n // 64 + 16
    change = np.zeros(max(n - 1, 0), dtype=bool)
    for col in columns:
        step = _changes(df[col])
        if step is None:
            return None
        change |= step
        if int(np.count_nonzero(change)) > limit:
            return None
    return np.concatenate([np.zeros(min(n, 1), dtype=np.int64), np.flatnonzero(change) + 1])


def values_at(s: pd.Series, rows: np.ndarray) -> list[Any]:
    """``s.array.take(rows).tolist()`` for ascending ``rows``; a pyarrow-backed column is taken
    chunk by chunk (a take from a chunked array first joins all its chunks: 20M strings copied
    to read a few of them)."""
    if not (_is_str_dtype(s.dtype) and getattr(s.dtype, "storage", None) == "pyarrow"):
        return s.array.take(rows).tolist()  # type: ignore[no-any-return]
    import pyarrow as pa

    arrow = s.array.__arrow_array__()
    if arrow.null_count or (len(rows) > 1 and bool((np.diff(rows) <= 0).any())):
        return s.array.take(rows).tolist()  # type: ignore[no-any-return]  # (pandas' missing value)
    out: list[Any] = []
    start = 0
    for chunk in arrow.chunks if hasattr(arrow, "chunks") else [arrow]:
        lo, hi = np.searchsorted(rows, [start, start + len(chunk)])
        if hi > lo:
            out += chunk.take(pa.array(rows[lo:hi] - start)).to_pylist()
        start += len(chunk)
    return out


def _changes(s: pd.Series) -> np.ndarray | None:
    """``s[i + 1] != s[i]`` for each row ``i`` (see :func:`segment_starts`)."""
    import pyarrow.compute as pc

    n = len(s)
    if n < 2:
        return np.zeros(0, dtype=bool)
    if isinstance(s.dtype, pd.CategoricalDtype):
        codes = s.cat.codes.to_numpy()
        if bool((codes < 0).any()):
            return None
        return codes[1:] != codes[:-1]  # type: ignore[no-any-return]
    if _is_str_dtype(s.dtype) and getattr(s.dtype, "storage", None) == "pyarrow":
        arrow = s.array.__arrow_array__()
        if arrow.null_count:
            return None
        return pc.not_equal(arrow.slice(1), arrow.slice(0, n - 1)).to_numpy(zero_copy_only=False)  # type: ignore[no-any-return]
    arr = s.to_numpy()
    if arr.dtype.kind in "iub":
        return arr[1:] != arr[:-1]  # type: ignore[no-any-return]
    if arr.dtype == object and pd.api.types.infer_dtype(arr, skipna=False) == "string":
        return np.not_equal(arr[1:], arr[:-1])  # type: ignore[no-any-return]
    return None


def stretch_groups(df: pd.DataFrame, starts: np.ndarray) -> tuple[np.ndarray, list[np.ndarray | slice]] | None:
    """:func:`evaladdon.table.codes.group_positions` when each group is one stretch of rows (:func:`segment_starts` of
    the group columns gave ``starts``): a slice each, in table order; ``None`` when a group
    comes back after another one (its rows are then not one slice)."""
    keys = list(zip(*(values_at(df[c], starts) for c in GROUP), strict=True))
    if len(set(keys)) < len(keys):
        return None
    bounds = [*starts.tolist(), len(df)]
    return np.arange(len(keys)), [slice(lo, hi) for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]
