"""The canonical per-item table: one row per (run, task, metric, item, epoch).

Column names and meanings are the contract between adapters and statistics (see
``docs/table.md``).  :func:`validate` checks names, dtypes and the key's uniqueness;
:func:`empty_table` and :func:`finalize` build conforming frames.
"""

from __future__ import annotations

import sys
import weakref
from typing import Any, Iterable

import numpy as np
from typing import TYPE_CHECKING as _TYPE_CHECKING

if _TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
else:
    from evaladdon._util.lazy import lazy_module

    pd = lazy_module("pandas")  # imported on first use (the lean summarize of Inspect logs needs none)

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
    return np.frombuffer(raw, dtype=np.uintp, count=arr.size).reshape(arr.shape) == id(None)


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


_CODES: dict[int, tuple[Any, np.ndarray, int]] = {}
"""Codes of pyarrow-backed label columns already factorized, keyed by the id of the column's
immutable ``pyarrow.ChunkedArray`` (held by a weak reference; a column changed in place gets
a new one), so ``validate`` and ``summarize_table`` hash a 10-million-row item column once."""


def _release_arrow_memory() -> None:
    """Hand the memory arrow's allocator kept after a big kernel (a hash table of millions
    of strings) back to the system, so it does not add to the peak of what follows."""
    try:
        import pyarrow as pa

        pa.default_memory_pool().release_unused()
    except (ImportError, AttributeError):  # pragma: no cover - old pyarrow
        pass


def _forget(ref: Any, key: int) -> None:
    if _CODES.get(key, (None,))[0] is ref:
        del _CODES[key]


_MIX_P = np.uint64(0x9E3779B97F4A7C15)
_MIX_Q = np.uint64(0xC2B2AE3D27D4EB4F)
_PROBE = 1 << 16
"""Rows hashed first: a duplicate among them ends the all-distinct test early."""


def _string_hashes(chunk: Any) -> np.ndarray | None:
    """A 64-bit hash of every string of one arrow ``string``/``large_string`` array (no nulls),
    computed 8 bytes at a time on the array's own buffers with numpy; ``None`` for other types.

    Equal strings get equal hashes (length and bytes only), so distinct hashes prove distinct
    strings; equal hashes prove nothing (the caller then asks arrow).  Our own because arrow
    exposes no per-row hash and its hash table (``dictionary_encode``) costs ~0.5 us a string
    once millions of distinct strings no longer fit in cache; this costs a few numpy passes.
    """
    import pyarrow as pa

    if pa.types.is_string(chunk.type):
        off_type = np.dtype(np.int32)
    elif pa.types.is_large_string(chunk.type):
        off_type = np.dtype(np.int64)
    else:
        return None
    n = len(chunk)
    _, offsets_buf, data_buf = chunk.buffers()
    if n == 0:
        return np.empty(0, dtype=np.uint64)
    offsets = np.frombuffer(offsets_buf, dtype=off_type, count=n + 1, offset=chunk.offset * off_type.itemsize)
    start = offsets[:-1].astype(np.int64)
    length = offsets[1:].astype(np.int64) - start
    lo = int(start[0])
    start -= lo
    size = int(offsets[-1]) - lo
    padded = np.zeros(size + 8, dtype=np.uint8)  # the last string's last word may read past the buffer
    if size:
        padded[:size] = np.frombuffer(data_buf, dtype=np.uint8, count=size, offset=lo)
    words = np.ndarray(buffer=padded, dtype="<u8", shape=(size + 1,), strides=(1,))  # 8 bytes at any offset
    h = length.astype(np.uint64) * _MIX_Q
    rows: np.ndarray | None = None  # None: every row
    with np.errstate(over="ignore"):
        for k in range(0, int(length.max()), 8):
            if k:
                rows = np.flatnonzero(length > k) if rows is None else rows[length[rows] > k]
            rem = (length if rows is None else length[rows]) - k
            w = words[(start if rows is None else start[rows]) + k]
            short = rem < 8
            if short.any():  # bytes past the string's end are not part of it
                w[short] &= (np.uint64(1) << (rem[short].astype(np.uint64) * np.uint64(8))) - np.uint64(1)
            w *= _MIX_P
            x = (h if rows is None else h[rows]) ^ w
            x = ((x << np.uint64(31)) | (x >> np.uint64(33))) * _MIX_Q
            if rows is None:
                h = x
            else:
                h[rows] = x
    return h


def _all_distinct(arrow: Any) -> bool:
    """Whether every string of an arrow (chunked) string array without nulls is known to differ
    from every other: all 64-bit hashes distinct (sorting them is far cheaper than a hash table
    of millions of strings).  ``False`` means "not shown" (duplicates, a hash collision, another
    type, or a small column where arrow's hash table is cheap), never "equal strings"."""
    n = len(arrow)
    if n < _PROBE:
        return False
    chunks = arrow.chunks if hasattr(arrow, "chunks") else [arrow]
    first = _string_hashes(arrow.slice(0, _PROBE).combine_chunks() if hasattr(arrow, "chunks")
                           else arrow.slice(0, _PROBE))
    if first is None or _has_repeat(first):
        return False  # repeats early on (e.g. several epochs or metrics per item): not all distinct
    hashes = np.empty(n, dtype=np.uint64)
    at = 0
    for chunk in chunks:
        got = _string_hashes(chunk)
        if got is None:
            return False
        hashes[at:at + got.size] = got
        at += got.size
    return not _has_repeat(hashes)


def _has_repeat(hashes: np.ndarray) -> bool:
    """Whether two of ``hashes`` are equal (sorts ``hashes`` in place: no copy of 10M values)."""
    hashes.sort()
    return bool((hashes[1:] == hashes[:-1]).any())


def label_codes(s: pd.Series) -> tuple[np.ndarray, int]:
    """``pd.factorize(s)`` codes (first-appearance order, -1 for missing; int64 as pandas', so the
    statistics index with them as they are instead of each taking a 64-bit copy) and the number
    of labels; computed once per pyarrow-backed column (see :data:`_CODES`)."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        return _categorical_codes(s)
    arrow = None
    if _is_str_dtype(s.dtype) and getattr(s.dtype, "storage", None) == "pyarrow":  # not python-backed str
        arrow = s.array.__arrow_array__()
        hit = _CODES.get(id(arrow))
        if hit is not None and hit[0]() is arrow:
            return hit[1], hit[2]
    if arrow is not None and arrow.null_count == 0 and _all_distinct(arrow):
        # every label differs (one row per item, the usual long table): pd.factorize's
        # first-appearance codes are 0..n-1, proven without a hash table of the strings
        n_labels = len(arrow)
        codes = np.arange(n_labels, dtype=np.int64)
    elif arrow is not None:
        # arrow's own hash kernel: the same first-appearance codes as pd.factorize (one memo
        # shared by all chunks, so every chunk indexes the same dictionary), ~25% faster on
        # millions of distinct strings because pandas adds passes of its own around it
        import pyarrow.compute as pc

        encoded = pc.dictionary_encode(arrow)
        chunks = encoded.chunks if hasattr(encoded, "chunks") else [encoded]
        n_labels = len(chunks[0].dictionary) if chunks else 0
        codes = (np.concatenate([c.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
                                 for c in chunks]) if chunks else np.empty(0, dtype=np.int64))
        del encoded, chunks
        _release_arrow_memory()
    else:
        codes, uniques = pd.factorize(s, use_na_sentinel=True)
        n_labels = len(uniques)
        codes = codes.astype(np.int64, copy=False)
    if arrow is not None:
        try:
            ref = weakref.ref(arrow, lambda r, key=id(arrow): _forget(r, key))
        except TypeError:  # not weak-referenceable: no cache
            return codes, n_labels
        codes.flags.writeable = False  # shared between callers
        _CODES[id(arrow)] = (ref, codes, n_labels)
    return codes, n_labels


def _categorical_codes(s: pd.Series) -> tuple[np.ndarray, int]:
    """:func:`label_codes` of a categorical: its own codes (a fresh int64 array: numpy's
    ``bincount`` would copy a read-only one) when its categories are in order of first
    appearance (as the table reader makes them; one pass a block at a time checks it), else
    ``pd.factorize``'s (with no hash table over the rows either way)."""
    from evaladdon.stats.cluster import _first_appearance_top

    codes = s.cat.codes.to_numpy().astype(np.int64)
    present = codes if not bool((codes < 0).any()) else codes[codes >= 0]
    top = _first_appearance_top(present) if present.size and present[0] == 0 else None
    if top is not None or present.size == 0:
        return codes, (top + 1 if top is not None else 0)
    del present
    codes, uniques = pd.factorize(s, use_na_sentinel=True)
    return codes.astype(np.int64, copy=False), len(uniques)


def _column_codes(s: pd.Series) -> tuple[np.ndarray | None, int]:
    """Integer codes of one column (equal codes = equal values, missing values equal to each
    other), and their range; ``None`` for a column holding one value throughout.  A range
    equal to the column's length means every value differs.

    Constant string columns (run, task, metric of a single file) are recognised by one
    comparison pass instead of a hash table; small-range integers (epochs) are their own codes.
    """
    n = len(s)
    if isinstance(s.dtype, pd.CategoricalDtype):
        small = s.cat.codes.to_numpy()
        if len(s.cat.categories) == 1 and n and not bool((small < 0).any()):
            return None, 1
        return small.astype(np.int64) + 1, len(s.cat.categories) + 1  # -1 (missing) becomes 0
    if s.dtype == object and n:
        arr = s.to_numpy()
        first = arr[0]
        if isinstance(first, str):
            try:
                if bool((arr == first).all()):
                    return None, 1
            except (TypeError, ValueError):
                pass
    elif pd.api.types.is_integer_dtype(s.dtype) and not isinstance(s.dtype, pd.api.extensions.ExtensionDtype) and n:
        arr = s.to_numpy()
        lo, hi = int(arr.min()), int(arr.max())
        if hi == lo:
            return None, 1
        if hi - lo < 2 * n + 1024:
            return (arr.astype(np.int64) - lo) if lo else arr.astype(np.int64, copy=False), hi - lo + 1
    if _is_str_dtype(s.dtype):
        codes, width = label_codes(s)
        if width == n:  # all distinct, none missing
            return codes.astype(np.int64), n  # a copy: the caller combines codes in 64 bits
        return np.add(codes, 1, dtype=np.int64), width + 1  # -1 (missing) becomes 0
    codes, uniques = pd.factorize(s, use_na_sentinel=False)
    return codes.astype(np.int64, copy=False), max(len(uniques), 1)


def key_codes(df: pd.DataFrame, columns: tuple[str, ...] = KEY) -> np.ndarray:
    """One int64 code per row for the combination of ``columns`` (equal codes = equal keys).

    Each column is factorized once (hash-based, C level; constant and small-range integer
    columns without hashing) and the codes are combined, so the uniqueness check never
    compares strings row by row.
    """
    return _key_codes(df, columns)[0]


def _key_codes(df: pd.DataFrame, columns: tuple[str, ...]) -> tuple[np.ndarray, bool]:
    """:func:`key_codes` and whether every row's key is known to differ from every other's."""
    combined: np.ndarray | None = None
    top = 1
    n = len(df)
    for col in columns:
        s = df[col]
        if n > 1 and _is_str_dtype(s.dtype):
            codes, width = label_codes(s)
            if width == n:  # n labels among n rows, none missing: every row differs, and the
                return codes, True  # first-appearance codes are 0..n-1 (read-only: shared)
        codes, width = _column_codes(s)
        if codes is None:
            continue
        if width == n and n > 1 and bool(np.all(codes == np.arange(n))):
            return np.arange(n, dtype=np.int64), True  # one column all distinct: so is every combination
        if combined is None:
            combined, top = codes, width
            continue
        if top * width >= 2**62:  # keep within int64: re-factorize the partial key first
            combined, uniques = pd.factorize(combined)
            combined, top = combined.astype(np.int64), len(uniques)
        combined = combined * width + codes
        top *= width
    if combined is None:
        return np.zeros(len(df), dtype=np.int64), n < 2
    return (combined if combined.base is None and combined.flags.writeable else combined.copy()), False


def duplicated_keys(df: pd.DataFrame, columns: tuple[str, ...] = KEY) -> np.ndarray:
    """Mask of the rows whose ``columns`` combination occurs more than once.

    Dense combined codes are counted with ``np.bincount`` (no hash table); sparse ones go
    through pandas' hash-based ``duplicated``.
    """
    combined, distinct = _key_codes(df, columns)
    n = combined.size
    if n == 0 or distinct:
        return np.zeros(n, dtype=bool)
    top = int(combined.max()) + 1
    if top <= 4 * n + 1024:
        return np.bincount(combined, minlength=top)[combined] > 1
    return pd.Series(combined).duplicated(keep=False).to_numpy()


def distinct_rows(df: pd.DataFrame, columns: tuple[str, ...]) -> pd.DataFrame:
    """``df[list(columns)].drop_duplicates()`` (first row of each combination, in table order,
    index kept) computed on integer codes: one-value columns cost nothing, no string hashing."""
    return df[list(columns)].iloc[_first_rows(df, columns)]


def distinct_tuples(df: pd.DataFrame, columns: tuple[str, ...]) -> list[tuple[Any, ...]]:
    """The rows of :func:`distinct_rows` as tuples of Python values, without building a frame
    (a few per file: this is on the per-file path of ``read_runs``)."""
    if len(df) <= _SMALL:  # a small file: hashing the tuples directly beats factorizing 4 columns
        return list(dict.fromkeys(zip(*(df[c].tolist() for c in columns))))
    first = _first_rows(df, columns)
    return list(zip(*(df[c].array.take(first).tolist() for c in columns)))


_SMALL = 2048


def _first_rows(df: pd.DataFrame, columns: tuple[str, ...]) -> np.ndarray:
    n = len(df)
    combined = key_codes(df, columns)
    if n == 0 or not combined.any():
        first = np.zeros(min(n, 1), dtype=np.int64)
    elif int(combined.max()) < 4 * n + 1024:
        lowest = np.full(int(combined.max()) + 1, n, dtype=np.int64)
        np.minimum.at(lowest, combined, np.arange(n, dtype=np.int64))
        first = np.sort(lowest[lowest < n])
    else:
        first = np.flatnonzero(~pd.Series(combined).duplicated().to_numpy())
    return first


def _describe_rows(df: pd.DataFrame, mask: np.ndarray, limit: int = 3) -> str:
    rows = df.loc[mask, list(KEY)].head(limit)
    parts = [", ".join(f"{k}={r[k]!r}" for k in KEY) for _, r in rows.iterrows()]
    return "; ".join(f"row {i} ({p})" for i, p in zip(rows.index.tolist(), parts))


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
    if len(frames) == 1:  # one file: no copy through pd.concat
        return finalize(frames[0])
    # categoricals with different labels (two long tables' cluster or raw columns) would
    # concatenate to one Python str a row; their union keeps codes, labels in order of first appearance
    union = {}
    for col in NULLABLE_STRING_COLUMNS + ("raw",):
        if all(col in f and _str_categorical(f[col]) for f in frames) and len({f[col].dtype for f in frames}) > 1:
            try:
                union[col] = pd.api.types.union_categoricals([f[col] for f in frames])
            except TypeError:  # labels of different dtypes (str and object): as pd.concat does
                pass
    for col in NULLABLE_STRING_COLUMNS:  # categoricals with others: as object columns, None where missing
        if col not in union and any(col in f and isinstance(f[col].dtype, pd.CategoricalDtype) for f in frames):
            frames = [f.assign(**{col: pd.Series(object_values(f[col]).copy(), index=f.index, dtype=object)})
                      if col in f and isinstance(f[col].dtype, pd.CategoricalDtype) else f for f in frames]
    out = pd.concat([f.drop(columns=list(union)) for f in frames] if union else frames, ignore_index=True, sort=False)
    for col, cat in union.items():
        out[col] = pd.Series(cat, index=out.index, copy=False)
    return finalize(out)


def run_labels(df: pd.DataFrame) -> dict[str, str]:
    """Short readable names for runs, unique among the runs of ``df``
    (:func:`evaladdon.run_names.labels_of` of its distinct (run, model, task, source) rows;
    runs the user named, ``NAME=PATH``, are in ``df.attrs["run_names"]``)."""
    from evaladdon.run_names import labels_of

    return labels_of(distinct_tuples(df, ("run", "model", "task", "source")), df.attrs.get("run_names", {}))
