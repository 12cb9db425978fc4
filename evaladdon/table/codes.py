"""Integer codes of the table's label columns and keys: each label column factorized once
(cached per arrow column), key codes, duplicate keys and first rows of distinct keys."""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np
from typing import TYPE_CHECKING as _TYPE_CHECKING

if _TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
else:
    from evaladdon._util.lazy import lazy_module

    pd = lazy_module("pandas")  # imported on first use (the lean summarize of Inspect logs needs none)

from evaladdon.table.columns import GROUP, KEY, _is_str_dtype
from evaladdon.table.stretches import segment_starts, stretch_groups, values_at  # noqa: F401 - values_at re-exported


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

    off_type: np.dtype[Any]
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
    spread = _spread_hashes(arrow)
    if spread is None or _has_repeat(spread):
        return False  # repeats far apart (two runs' files of the same items, one after the other)
    hashes = np.empty(n, dtype=np.uint64)
    at = 0
    for chunk in chunks:
        got = _string_hashes(chunk)
        if got is None:
            return False
        hashes[at:at + got.size] = got
        at += got.size
    return not _has_repeat(hashes)


def _spread_hashes(arrow: Any) -> np.ndarray | None:
    """:func:`_string_hashes` of :data:`_PROBE` rows of ``arrow`` at distinct pseudo-random
    positions (a fixed seed) over its whole length.  When a fraction ``f`` of ``n`` rows repeat
    another row anywhere, ~``f * _PROBE**2 / (2 n)`` repeated pairs fall in the sample (two files
    of the same 1M items: ~1,000), so a table of repeated items is told in one small pass
    instead of hashing and sorting every row first (2 x 1M rows: ~0.3 s of a compare).  Taken
    chunk by chunk (a take from a chunked array joins its chunks first)."""
    import pyarrow as pa

    at = np.unique(np.random.default_rng(0).integers(0, len(arrow), _PROBE))  # distinct: no false repeat
    parts = []
    start = 0
    for chunk in arrow.chunks if hasattr(arrow, "chunks") else [arrow]:
        lo, hi = np.searchsorted(at, [start, start + len(chunk)])
        if hi > lo:
            got = _string_hashes(chunk.take(pa.array(at[lo:hi] - start)))
            if got is None:
                return None
            parts.append(got)
        start += len(chunk)
    return np.concatenate(parts) if parts else np.empty(0, dtype=np.uint64)


def _period(arrow: Any) -> int | None:
    """``p`` when the arrow (chunked) string array without nulls is ``k >= 2`` blocks of ``p``
    rows, each block the first one row for row, and the first block's strings are all shown
    distinct (:func:`_all_distinct`); ``None`` otherwise ("not shown", never "no period").

    Then ``pd.factorize``'s first-appearance codes are ``0..p-1`` in every block, found by one
    search for the first row's next occurrence and one comparison of each block with the first
    (a few ns a row) instead of a hash table of every row (2 x 10M item ids: ~5 s).
    Oracle: ``pd.factorize`` (``tests/table/test_periodic_codes.py``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(arrow)
    if n < 2 * _PROBE or not (pa.types.is_string(arrow.type) or pa.types.is_large_string(arrow.type)):
        return None
    p = pc.index(arrow, arrow[0], start=1).as_py()
    if p < _PROBE or n % p:
        return None
    first = arrow.slice(0, p)
    for k in range(1, n // p):
        if not pc.all(pc.equal(arrow.slice(k * p, p), first)).as_py():
            return None
    return p if _all_distinct(first) else None


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
    period = None
    if arrow is not None and arrow.null_count == 0 and _all_distinct(arrow):
        # every label differs (one row per item, the usual long table): pd.factorize's
        # first-appearance codes are 0..n-1, proven without a hash table of the strings
        n_labels = len(arrow)
        codes = np.arange(n_labels, dtype=np.int64)
    elif arrow is not None and arrow.null_count == 0 and (period := _period(arrow)) is not None:
        # the same distinct labels in the same order, block after block (two runs' files of
        # one benchmark, or epochs written one after another): codes 0..p-1 in every block
        n_labels = period
        codes = np.tile(np.arange(period, dtype=np.int64), len(arrow) // period)
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
            ref = weakref.ref(arrow, lambda r, key=id(arrow): _forget(r, key))  # type: ignore[misc]  # noqa: B008 - the id now
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
        if n and _constant_arrow_strings(s):
            return None, 1
        codes, width = label_codes(s)
        if width == n:  # all distinct, none missing
            return codes.astype(np.int64), n  # a copy: the caller combines codes in 64 bits
        return np.add(codes, 1, dtype=np.int64), width + 1  # -1 (missing) becomes 0
    codes, uniques = pd.factorize(s, use_na_sentinel=False)
    return codes.astype(np.int64, copy=False), max(len(uniques), 1)


def _constant_arrow_strings(s: pd.Series) -> bool:
    """Whether a pyarrow-backed ``str`` column holds one value in every row (none missing):
    one comparison of each row with the first (a few ns a row), where the hash table of
    :func:`label_codes` costs ~10x that; ``False`` for other columns (not tested)."""
    if getattr(s.dtype, "storage", None) != "pyarrow" or not len(s):
        return False
    import pyarrow.compute as pc

    arrow = s.array.__arrow_array__()
    if arrow.null_count:
        return False
    first = arrow[0]
    return all(pc.all(pc.equal(chunk, first)).as_py() for chunk in getattr(arrow, "chunks", [arrow]) if len(chunk))


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
            if _constant_arrow_strings(s):
                continue  # one value throughout (the run or task of one file): no hash of its rows
            codes, width = label_codes(s)
            if width == n:  # n labels among n rows, none missing: every row differs, and the
                return codes, True  # first-appearance codes are 0..n-1 (read-only: shared)
        got, width = _column_codes(s)
        if got is None:
            continue
        codes = got
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
    if columns == KEY and len(df) > _SMALL:
        got = _duplicated_in_stretches(df)
        if got is not None:
            return got
    combined, distinct = _key_codes(df, columns)
    return _repeated(combined, distinct)


def _repeated(combined: np.ndarray, distinct: bool) -> np.ndarray:
    """Mask of the ``combined`` codes that occur more than once (``distinct``: known none does)."""
    n = combined.size
    if n == 0 or distinct or bool((combined[1:] > combined[:-1]).all()):  # (ascending codes: all differ)
        return np.zeros(n, dtype=bool)
    top = int(combined.max()) + 1
    if top <= 4 * n + 1024:
        return np.bincount(combined, minlength=top)[combined] > 1
    return pd.Series(combined).duplicated(keep=False).to_numpy()


def _duplicated_in_stretches(df: pd.DataFrame) -> np.ndarray | None:
    """:func:`duplicated_keys` of the key when each (run, task, metric) is one stretch of rows
    (:func:`segment_starts`; a table read from files, a run's rows after each other): two rows
    of different groups never share a key, so each group's (item, epoch) codes are checked
    alone (the run codes of every row and their 64-bit combination with the items' skipped);
    ``None`` otherwise."""
    starts = segment_starts(df, GROUP)
    got = stretch_groups(df, starts) if starts is not None and len(starts) > 1 else None
    if got is None:
        return None
    item = df["item"]
    codes = label_codes(item)[0] if _is_str_dtype(item.dtype) and _column_codes(df["epoch"])[0] is None else None
    if codes is not None and len(codes) and int(codes.min()) >= 0:  # one epoch: the item codes are the key's
        combined, distinct = codes, False  # (no copy of them; the all-distinct case was told by label_codes)
    else:
        combined, distinct = _key_codes(df, ("item", "epoch"))
    out = np.zeros(len(df), dtype=bool)
    if distinct:
        return out
    for rows in got[1]:
        out[rows] = _repeated(combined[rows], False)
    return out


def distinct_rows(df: pd.DataFrame, columns: tuple[str, ...]) -> pd.DataFrame:
    """``df[list(columns)].drop_duplicates()`` (first row of each combination, in table order,
    index kept) computed on integer codes: one-value columns cost nothing, no string hashing."""
    return df[list(columns)].iloc[_first_rows(df, columns)]


def distinct_tuples(df: pd.DataFrame, columns: tuple[str, ...]) -> list[tuple[Any, ...]]:
    """The rows of :func:`distinct_rows` as tuples of Python values, without building a frame
    (a few per file: this is on the per-file path of ``read_runs``)."""
    if len(df) <= _SMALL:  # a small file: hashing the tuples directly beats factorizing 4 columns
        return list(dict.fromkeys(zip(*(df[c].tolist() for c in columns), strict=True)))
    first = _first_rows(df, columns)
    return list(zip(*(values_at(df[c], first) for c in columns), strict=True))


_SMALL = 2048


def _first_rows(df: pd.DataFrame, columns: tuple[str, ...]) -> np.ndarray:
    n = len(df)
    starts = segment_starts(df, columns) if n > _SMALL else None
    if starts is not None:  # each distinct combination's first row is the start of its first stretch
        if len(starts) == 1:
            return starts
        seen: dict[tuple[Any, ...], int] = {}
        for key, at in zip(zip(*(values_at(df[c], starts) for c in columns), strict=True), starts.tolist(), strict=True):
            seen.setdefault(key, at)
        return np.fromiter(seen.values(), dtype=np.int64, count=len(seen))
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


# ---------------------------------------------------------------- groups


def first_present(codes: np.ndarray, n_codes: int, column: np.ndarray) -> np.ndarray:
    """Per code, the first value of ``column`` (object) that is not missing (None/NaN), None
    where a code has none (as pandas' group-by ``first``)."""
    present = np.not_equal(column, None) & np.equal(column, column)  # type: ignore[call-overload]  # NaN != NaN
    first = np.full(n_codes, len(column), dtype=np.int64)
    np.minimum.at(first, codes[present], np.flatnonzero(present))
    out = np.full(n_codes, None, dtype=object)
    has = first < len(column)
    out[has] = column[first[has]]
    return out


def first_present_in(codes: np.ndarray, n_codes: int, s: pd.Series) -> np.ndarray:
    """:func:`first_present` of a column given as a Series: a column with no value at all
    (:func:`~evaladdon.table.columns.no_values`, or every row missing) gives ``None`` for every
    code without an object array of its rows, a categorical is read on its integer codes."""
    import pandas as pd

    if isinstance(s.dtype, pd.CategoricalDtype):
        cat = s.cat.codes.to_numpy()
        present = cat >= 0
        if not present.any():
            return np.full(n_codes, None, dtype=object)
        first = np.full(n_codes, len(s), dtype=np.int64)
        np.minimum.at(first, codes[present], np.flatnonzero(present))
        out = np.full(n_codes, None, dtype=object)
        has = first < len(s)
        out[has] = s.cat.categories.to_numpy(dtype=object)[cat[first[has]]]
        return out
    column = s.to_numpy(dtype=object)
    if bool(pd.isna(column).all()):
        return np.full(n_codes, None, dtype=object)
    return first_present(codes, n_codes, column)


def group_positions(df: pd.DataFrame) -> tuple[np.ndarray, list[np.ndarray | slice]]:
    """The (run, task, metric) groups in order of first appearance (as ``groupby(sort=False)``)
    and each group's row positions in table order; a table of one group is one slice."""
    import pandas as pd

    if all(one_value(df[c]) for c in GROUP):  # one file of one run, task and metric: no codes at all
        return np.zeros(1, dtype=np.int64), [slice(0, len(df))]
    starts = segment_starts(df, GROUP) if len(df) > _SMALL else None
    if starts is not None:  # stretches of one group each (a file's run, task, metric): found without codes
        got = stretch_groups(df, starts)
        if got is not None:
            return got
    combined = key_codes(df, GROUP)
    if not combined.any():
        return np.zeros(1, dtype=np.int64), [slice(0, len(df))]
    gcodes, uniques = pd.factorize(combined)
    if len(uniques) == 1:
        return np.zeros(1, dtype=np.int64), [slice(0, len(df))]
    order = np.argsort(gcodes, kind="stable")
    bounds = np.cumsum(np.bincount(gcodes, minlength=len(uniques)))[:-1]
    rows: list[np.ndarray | slice] = [_as_slice(p) for p in np.split(order, bounds)]
    return np.arange(len(uniques)), rows


def _as_slice(positions: np.ndarray) -> np.ndarray | slice:
    """Ascending distinct row ``positions`` as a slice when they are one contiguous run (each
    file's group of a table read from several files): a view of the rows, not a copy of them."""
    lo, hi = int(positions[0]), int(positions[-1])
    return slice(lo, hi + 1) if hi - lo + 1 == len(positions) else positions


def one_value(s: pd.Series) -> bool:
    """A categorical of one category and no missing value (how the table reader stores a
    column it fills with one value)."""
    import pandas as pd

    return (isinstance(s.dtype, pd.CategoricalDtype) and len(s.cat.categories) == 1
            and not bool((s.cat.codes.to_numpy() < 0).any()))


def label_rows(df: pd.DataFrame) -> pd.DataFrame:
    """The first row of each (run, model, task, source) combination, in table order: all
    :func:`run_labels` looks at, without grouping millions of rows by strings."""
    small = distinct_rows(df, ("run", "model", "task", "source"))
    small.attrs = {"run_names": df.attrs.get("run_names", {})}
    return small
