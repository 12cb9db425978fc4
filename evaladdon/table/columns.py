"""The canonical table's columns: names, kinds, an empty table, and :func:`finalize`, which
turns any frame of those columns into the conforming dtypes and order."""

from __future__ import annotations

import sys

import numpy as np
from typing import TYPE_CHECKING as _TYPE_CHECKING

if _TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
else:
    from evaladdon._util.lazy import lazy_module

    pd = lazy_module("pandas")  # imported on first use (the lean summarize of Inspect logs needs none)


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
HARNESSES: tuple[str, ...] = ("inspect", "lm_eval", "table", "helm", "promptfoo", "deepeval", "lighteval", "every_eval_ever", "swe_bench")

OPTIONAL_COLUMNS: tuple[str, ...] = ("prediction", "label", "confidence", "score", "judge", "choice_lls")
"""Optional per-row inputs of the metrics that are not means (present only when a reader has them):
``prediction`` (str: the answer given, e.g. a choice letter or class), ``label`` (str: the
target / gold class), ``confidence`` (float: the probability the model gave its prediction),
``score`` (float: for binary labels 0/1, the predicted probability of label 1), ``judge`` (str or None: the model that
graded a model-graded metric's row, e.g. Inspect's ``model_graded_qa`` grader),
``choice_lls`` (str: a JSON array of the K choices' logits whose softmax gives ``confidence``
-- lm-eval multiple choice: the log-likelihoods on ``acc`` rows, divided by the choices'
lengths on ``acc_norm`` rows; the K-choice temperature of ``metrics --recalibrate``).  Readers that
do not know them leave them out; :func:`finalize` keeps them after the canonical columns."""


def empty_table() -> pd.DataFrame:
    """A conforming table with no rows."""
    return finalize(pd.DataFrame({c: [] for c in COLUMNS}))


def _is_str_dtype(dtype: object) -> bool:
    """pandas' own string dtypes (``str`` in pandas 3, ``string``), not ``object``."""
    return isinstance(dtype, pd.StringDtype)


def _str_categorical(s: pd.Series) -> bool:
    """A categorical of ``str`` labels (how readers store a column of one or a few values)."""
    return isinstance(s.dtype, pd.CategoricalDtype) and pd.api.types.infer_dtype(
        s.cat.categories, skipna=False) in ("string", "empty")


def _has_missing(s: pd.Series) -> bool:
    """Whether a ``str`` column has a missing value (arrow keeps the count: no scan)."""
    if getattr(s.dtype, "storage", None) == "pyarrow":
        return s.array.__arrow_array__().null_count > 0
    return bool(s.isna().any())


def _conforming_strings(s: pd.Series) -> bool:
    """Whether ``s`` already holds only ``str`` (a C-level scan; no conversion)."""
    if _is_str_dtype(s.dtype):
        return not _has_missing(s)
    if isinstance(s.dtype, pd.CategoricalDtype):
        return _str_categorical(s) and not bool((s.cat.codes.to_numpy() < 0).any())
    return s.dtype == object and pd.api.types.infer_dtype(s, skipna=False) in ("string", "empty")


def _is_none(arr: np.ndarray) -> np.ndarray:
    """``arr == None`` elementwise for an object array, exactly (identity, as ``x is None``).

    Our own because ``arr == None`` makes one rich comparison per element (~30 ns; 0.3 s for the
    all-None ``item_hash``/``error`` columns of a 10-million-row table, checked several times):
    a CPython object array stores ``PyObject*`` pointers and ``id(None)`` is None's address, so
    comparing the pointers as integers is one vectorised pass over memory numpy owns.
    """
    if sys.implementation.name != "cpython" or arr.dtype != object or not arr.flags.c_contiguous or arr.size == 0:
        return np.asarray(arr == None, dtype=bool)  # noqa: E711 - elementwise
    import ctypes

    raw = (ctypes.c_char * arr.nbytes).from_address(arr.ctypes.data)  # arr stays alive meanwhile
    words: np.ndarray = np.frombuffer(raw, dtype=np.uintp, count=arr.size)  # type: ignore[call-overload]
    return words.reshape(arr.shape) == id(None)  # type: ignore[no-any-return]


def _nullable_strings(s: pd.Series) -> pd.Series:
    """``str`` or ``None`` values; returned unchanged when already so (a categorical of ``str``
    labels too: the table reader's cluster column, missing where it has no label)."""
    if _str_categorical(s):
        return s
    if _is_str_dtype(s.dtype):
        if not _has_missing(s):
            return s
        return s.astype(object).where(s.notna(), None)
    if s.dtype == object:
        arr = s.to_numpy()
        is_none = _is_none(arr)
        if bool(is_none.all()):  # e.g. no item_hash / no error at all: nothing else to look at
            return s
        kind = pd.api.types.infer_dtype(s, skipna=True)
        if kind in ("string", "empty"):
            mask = s.isna().to_numpy()
            if not mask.any() or bool((mask == is_none).all()):
                return s
            return s.where(~mask, None)
    mask = s.isna()
    out = s.astype(object).where(mask, s.astype(str).astype(object))
    return out.where(~mask, None).astype(object)


def no_values(n: int) -> pd.Categorical:
    """A nullable string column (``item_hash``, ``error``) with no value in any of its ``n`` rows,
    compactly: a categorical with no labels (one byte a row, where ``None`` in an object column
    takes 8; 10M rows: 76 -> 10 MB).  Every check reads it as all missing (``isna``, ``notna``,
    ``validate``); its values read as NaN rather than None (pandas' missing value of a
    categorical), which :func:`concat` and :func:`object_values` turn back into None.  The
    store writes it as the all-null column it was (``store._table_to_parquet``)."""
    return pd.Categorical.from_codes(np.full(n, -1, dtype=np.int8), categories=pd.Index([], dtype=str),
                                     validate=False)


def all_missing(s: pd.Series) -> bool:
    """Whether ``s`` is a :func:`no_values` column (a categorical without labels)."""
    return isinstance(s.dtype, pd.CategoricalDtype) and len(s.cat.categories) == 0


def object_values(s: pd.Series) -> np.ndarray:
    """``s.to_numpy(dtype=object)`` with ``None`` for missing values; for a :func:`no_values`
    column one read-only ``None`` broadcast to every row (no 8-byte pointer a row)."""
    if all_missing(s):
        return np.broadcast_to(np.array(None, dtype=object), (len(s),))
    if isinstance(s.dtype, pd.CategoricalDtype):
        out = s.to_numpy(dtype=object)
        out[s.isna().to_numpy()] = None
        return out
    return s.to_numpy(dtype=object)


def plain_columns(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with a large table's compact columns in their plain form (categorical ``cluster``,
    ``raw``, ``item_hash``, ``error`` as ``object`` with ``None``; int8 ``epoch`` as int64), for
    writing files whose column types must not depend on the table's size (``export``)."""
    out = df.copy(deep=False)
    for col in ("cluster", "raw", "item_hash", "error"):
        if col not in out or not isinstance(out[col].dtype, pd.CategoricalDtype):
            continue
        if col in NULLABLE_STRING_COLUMNS:  # str or None (object), as a small table holds them
            out[col] = pd.Series(np.array(object_values(out[col])), index=out.index, dtype=object)
        else:  # raw: the text dtype of its labels (pandas' str), as a small table holds it
            out[col] = out[col].astype(out[col].cat.categories.dtype)
    if "epoch" in out and out["epoch"].dtype != np.int64:
        out["epoch"] = out["epoch"].astype(np.int64)
    return out


def finalize(df: pd.DataFrame) -> pd.DataFrame:
    """Cast the canonical columns to their dtypes and order them first.

    String columns hold ``str``: ``object`` dtype, pandas' own string dtype (``str`` in
    pandas 3, pyarrow-backed, which the long-table reader keeps to save memory), or a
    categorical of ``str`` (the long-table reader's columns of one value: run, model, task,
    metric, source, harness); nullable ones hold ``str`` or ``None`` (object) -- or ``str``
    with no missing value.  ``epoch`` is
    ``int64`` (or ``int8``, as the long-table reader stores epochs below 128 of a large table),
    ``value`` ``float64``.  Extra ``meta.*`` columns are kept after the canonical
    ones.  A column already conforming is left as it is (no copy, no round trip through
    ``astype(str)``), so calling this on a finalized table costs a scan, not a conversion.
    """
    out = df.copy(deep=False)
    n = len(out)
    for col in STRING_COLUMNS:
        s = out[col]
        if n == 0:
            if s.dtype != object:
                out[col] = pd.Series([], dtype=object, index=out.index)
            continue
        if not _conforming_strings(s):
            out[col] = s.astype(str).astype(object)
    for col in NULLABLE_STRING_COLUMNS:
        if col not in out:
            out[col] = pd.Series(np.full(n, None, dtype=object), index=out.index)
            continue
        s = out[col]
        fixed = _nullable_strings(s)
        if fixed is not s:
            out[col] = fixed
    if out["epoch"].dtype not in (np.int64, np.int8):  # int8: a large long table's epochs, 1 byte a row
        out["epoch"] = out["epoch"].astype(np.int64)
    if out["value"].dtype != np.float64:
        out["value"] = out["value"].astype(np.float64)
    extra = [c for c in out.columns if c not in COLUMNS]
    order = list(COLUMNS) + extra
    if list(out.columns) != order:
        out = out[order]
    if not isinstance(out.index, pd.RangeIndex) or out.index.start != 0 or out.index.step != 1:
        out = out.reset_index(drop=True)
    return out
