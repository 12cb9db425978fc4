"""One Inspect log's rows as columns: the batches a :class:`~evaladdon.adapters.inspect.rows.Collector`
makes, the string columns, the log's :class:`Part` (or its row lists, :class:`Pending`, converted
for many logs at once by :func:`convert_pending`); :func:`~evaladdon.adapters.inspect.rows.frame`
makes the canonical table of them (see :mod:`evaladdon.adapters.inspect.rows`).
"""

from __future__ import annotations

import binascii
import dataclasses
import functools
import hashlib
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Sequence

import numpy as np

from evaladdon.adapters.common.scores import _finish_arrays, coerce_scores, raw_strings


class _Batch(NamedTuple):
    """Columns of consecutive samples (see :class:`Collector`)."""

    # per sample
    items: Strings  # str(id)
    epochs: np.ndarray  # int64
    scored: np.ndarray  # bool: has a non-empty scores dict
    nrows: np.ndarray  # int64: rows of a scored sample
    reasons: np.ndarray  # int64: code in Collector.texts of "sample error" / "limit reached (...)", -1 none
    errors: np.ndarray  # bool
    hashes: Strings
    labels: Strings
    clusters: np.ndarray | None  # object: str, None where the field is missing or not a scalar
    meta_keys: np.ndarray  # int64: code of the sample's tuple of meta.* keys (Collector.key_sets)
    metas: dict[str, np.ndarray]  # object per sample, NaN where the sample lacks the key
    nscores: np.ndarray  # int64: scores of the sample
    # per score (the order score names first appear in)
    score_name: np.ndarray  # int64: code in Collector.names
    # per row (scored samples only; unscored ones get their rows at the end, one per known name)
    metrics: np.ndarray  # object
    metric_codes: np.ndarray  # int64: code in Collector.metric_texts
    raws: np.ndarray  # object: raw_strings of the value
    values: np.ndarray  # float64 (NaN where the row has a reason)
    row_errors: np.ndarray  # object
    answers: Strings
    confidences: np.ndarray  # float64, NaN for none


def _objects(values: Sequence[Any]) -> np.ndarray:
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    return arr


_LABEL_BYTES = 64
"""Longest label kept as its own bytes in a lean batch (longer ones: a digest, see :func:`label_bytes`)."""


def label_bytes(labels: list[str | None]) -> np.ndarray:
    """Texts (item ids, cluster labels) as one fixed-width ``numpy.bytes_`` array, equal texts
    equal elements, ``None`` as ``b""``: a few bytes a sample instead of a Python ``str``
    (~50 bytes plus the text), so a lean summary of a 200,000-sample log keeps ~2-3 MB of ids.

    Why not a per-log ``dict`` of codes: it keeps a ``str`` and a dict entry (~100-150 bytes)
    per distinct id, i.e. grows ~25 MB per 200,000 samples of unique ids; sorting the bytes
    once at the end (``np.unique(..., return_inverse=True)``) costs less than that hash table.
    Each text is its UTF-8 (``surrogatepass``: injective on ``str``) plus a ``\\x01``
    terminator, because numpy strips trailing NUL bytes (``"a\\x00"`` must not equal
    ``"a"``); a text longer than 64 bytes is ``\\xff`` + its 20-byte BLAKE2b digest (``\\xff``
    never occurs in UTF-8, so it cannot equal a short text; two long texts would need a
    160-bit collision), so one long id does not widen the whole batch."""
    out: list[bytes] = []
    add = out.append
    for t in labels:
        if t is None:
            add(b"")
            continue
        b = t.encode("utf-8", "surrogatepass")
        if len(b) > _LABEL_BYTES:
            b = b"\xff" + hashlib.blake2b(b, digest_size=20).digest()
        add(b + b"\x01")
    return np.array(out, dtype=np.bytes_) if out else np.empty(0, dtype="S1")


Strings = Any
"""A column of texts: an arrow array (batch) / chunked array (log) when every value is a
``str`` and pandas keeps such columns in arrow (pandas 3's ``str`` dtype), else an
``object`` ndarray.  Ids, hashes, targets and answers are most of what a log's rows hold;
as arrow data a batch's Python strings are freed at once and the table takes the chunks
without a copy (the DataFrame would convert an ``object`` column of ``str`` anyway)."""


@functools.lru_cache(maxsize=1)
def _str_column() -> tuple[Any, Any] | None:
    """(dtype, arrow type) pandas gives a column of ``str`` objects, when it is arrow-backed."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:  # pragma: no cover - pyarrow is a core dependency
        return None
    probe = np.array(["a"], dtype=object)
    import pandas as pd

    dtype = pd.DataFrame({0: probe})[0].dtype
    if not isinstance(dtype, pd.StringDtype) or dtype.storage != "pyarrow":
        return None
    return dtype, dtype.construct_array_type()._from_sequence(probe, dtype=dtype)._pa_array.type


def _arrow_texts(values: Any) -> Any:
    """``values`` (a sequence or an ``object`` array) as the arrow array pandas keeps texts in,
    when pandas keeps them in arrow and every value is a ``str``; else ``None``."""
    spec = _str_column()
    if spec is None or not len(values):
        return None
    import pyarrow as pa

    try:
        arr = pa.array(values, type=spec[1])
    except (pa.ArrowTypeError, pa.ArrowInvalid, TypeError, ValueError):  # not all str (or not UTF-8)
        return None
    return arr if arr.null_count == 0 else None


def _strings(values: Sequence[Any]) -> Strings:
    """A batch's texts as arrow when all are ``str`` (see :data:`Strings`)."""
    arr = _arrow_texts(values)
    return arr if arr is not None else _objects(values)


STRING_CHUNK_ROWS = 8192
"""Rows a chunk of a text column converted for many logs at once (:func:`_chunked_strings`)."""


def _chunked_strings(values: Sequence[Any], rows: int | None = None) -> Strings:
    """:func:`_strings` of many rows, ``rows`` at a time, as one chunked array (the same values
    and type; an ``object`` array of them all when one is not a ``str``).  One arrow array of
    100,000 long texts (answers) is built in a buffer that doubles as it grows: tens of MB of
    fresh memory touched twice, and ~3-10x the time of the same texts in chunks on a host where
    fresh pages are dear (``benchmarks/bench_inspect.py``, growth to 1,000 logs)."""
    rows = STRING_CHUNK_ROWS if rows is None else rows
    if len(values) <= rows:
        return _strings(values)
    chunks = []
    for at in range(0, len(values), rows):  # a call a chunk of rows
        arr = _arrow_texts(values[at:at + rows])
        if arr is None:
            return _objects(values)
        chunks.append(arr)
    import pyarrow as pa

    return pa.chunked_array(chunks, type=chunks[0].type)


_HEX_WIDTH = 64
"""Characters of a SHA-256 digest's hex text."""


def hex_strings(digests: Sequence[bytes | None]) -> Strings:
    """SHA-256 digests as their hex texts (``None`` stays missing): the column :func:`_strings`
    makes of ``[d.hex() for d in digests]``.  When every one is a digest and pandas keeps texts
    in arrow, the column is ONE hex text of them all (``binascii.hexlify``, the bytes of ``hex()``) cut at fixed
    64-character offsets (``pyarrow.Array.from_buffers``): no ``str`` a row, none converted
    one by one.  Oracle: :func:`_strings` of the texts (``tests/adapters/test_inspect_quick.py``)."""
    spec = _str_column()
    n = len(digests)
    if spec is not None and n and None not in digests:
        import pyarrow as pa

        large = pa.types.is_large_string(spec[1])
        joined = b"".join(digests)  # type: ignore[arg-type]
        # (each a sha256 digest, 32 bytes: the total says so; string offsets are int32)
        if len(joined) * 2 == _HEX_WIDTH * n and (large or _HEX_WIDTH * n < 2**31 - 1):
            offsets = np.arange(0, _HEX_WIDTH * n + 1, _HEX_WIDTH, dtype=np.int64 if large else np.int32)
            return pa.Array.from_buffers(spec[1], n, [None, pa.py_buffer(offsets),
                                                      pa.py_buffer(binascii.hexlify(joined))])
    return _strings([None if d is None else d.hex() for d in digests])


def _object_texts_as_arrow(cols: dict[str, Any]) -> None:
    """Each ``object`` array of ``cols`` whose values are all ``str`` as the column pandas makes
    of it (:func:`_strings` then :func:`_column`: one pyarrow call, without pandas' checks and
    copy before the same call); any other column (a missing value, a number) is left to pandas."""
    for key, col in cols.items():
        if isinstance(col, np.ndarray) and col.dtype == object and len(col):
            arr = _arrow_texts(col)
            if arr is not None:
                cols[key] = _column(arr)


def _is_arrow(col: Strings) -> bool:
    return not isinstance(col, np.ndarray)


def _as_objects(col: Strings) -> np.ndarray:
    return col.to_numpy(zero_copy_only=False) if _is_arrow(col) else col


def _cat_strings(cols: list[Strings]) -> Strings:
    """Batches (or logs) of a text column as one column (chunks are not copied)."""
    import_ok = _str_column() if cols and all(_is_arrow(c) for c in cols) else None
    if import_ok is not None:
        import pyarrow as pa

        chunks = [ch for c in cols for ch in (c.chunks if isinstance(c, pa.ChunkedArray) else [c])]
        return pa.chunked_array(chunks, type=import_ok[1])
    if not cols:
        return np.empty(0, dtype=object)
    if len(cols) == 1:
        return _as_objects(cols[0])
    return np.concatenate([_as_objects(c) for c in cols])


def _take_strings(col: Strings, idx: np.ndarray) -> Strings:
    if _is_arrow(col):
        return col.take(idx)
    return col[idx]


def _has_text(col: Strings) -> bool:
    if _is_arrow(col):
        return len(col) > 0
    return bool((col != None).any())  # noqa: E711 - elementwise


def _text_at(col: Strings, j: int) -> Any:
    return col[j].as_py() if _is_arrow(col) else col[j]


def _column(col: Strings) -> Any:
    """The DataFrame column: arrow chunks as pandas' ``str`` array (what the DataFrame would
    make of the same ``str`` objects)."""
    if _is_arrow(col):
        dtype = _str_column()[0]  # type: ignore[index]
        return dtype.construct_array_type()(col, dtype=dtype)
    return col


def _records_column(values: np.ndarray) -> np.ndarray:
    """One column of ``pd.DataFrame.from_records(list_of_dicts)`` as ``to_numpy()`` gives it,
    from that key's values (NaN where a record lacks it): the same conversion pandas applies
    to each column of records (``convert_object_array``), then the same DataFrame step."""
    import pandas as pd

    try:
        from pandas.core.internals.construction import convert_object_array
    except ImportError:  # pragma: no cover - a pandas without it: the records themselves
        return pd.DataFrame.from_records([(v,) for v in values])[0].to_numpy()
    (arr,) = convert_object_array([values], dtype=None)
    return pd.DataFrame({0: arr}, copy=False)[0].to_numpy()


@dataclass
class Part:
    """One log's rows as columns, before the DataFrame, so that many logs make one DataFrame
    (:func:`frame`); the constant columns as scalars.

    Everything that can fail on a bad log (ids, epochs, cluster fields, no scores, values
    with no float or too deep to show) fails in :func:`build_part`, per file; what
    :func:`frame` does to the combined columns cannot fail."""

    source: str
    run: str
    task: str
    model: str
    n: int  # rows
    metrics: np.ndarray
    items: Strings
    epochs: np.ndarray
    values: np.ndarray
    raws: np.ndarray
    errors: np.ndarray
    answers: Strings
    confidences: np.ndarray
    clusters: np.ndarray | None
    hashes: Strings
    labels: Strings
    metas: dict[str, np.ndarray]  # per kept sample, NaN where absent (pandas infers dtypes in frame)
    row_sample: np.ndarray  # row -> kept sample
    n_samples: int  # kept samples
    columns: list[str]  # this log's table's columns, in order
    notes: list[str]
    incomplete: dict[str, Any] | None
    lean: bool = False  # numbers only (Collector(lean=COLUMNS)): items and clusters as label_bytes, no text columns
    pending: Pending | None = None  # an ordinary log's rows as lists: :func:`frame` converts them (None above)
    judges: dict[str, str] = field(default_factory=dict)  # model-graded metric -> grader (adapters.inspect.judges)


@dataclass
class Pending:
    """An ordinary log's rows as Python sequences (tuples), as the quick reader of ``.eval`` summaries
    (:func:`evaladdon.adapters.inspect.quick.quick_rows`) collects them: every sample with an
    id, an integer epoch and scores, no (id, epoch) twice, every value convertible, so that
    no rule of :func:`build_part` (duplicates, unscored rows, errors) applies and its rows are
    the samples' rows in order.  :func:`frame` converts the lists of all such logs at once
    (values, raw texts, arrow strings), which was most of the cost of a small log read alone.
    Per sample: ``items``, ``epochs``, ``errors``, ``clusters``, ``hashes``, ``labels`` and
    ``metas`` (NaN where absent); per row: ``metrics`` .. ``row_sample`` (the row's sample)."""

    cluster: str | None
    n_samples: int
    items: Sequence[str]  # per sample
    epochs: Sequence[int]  # per sample
    metrics: Sequence[str]
    raws: Sequence[Any]
    convert: Sequence[Any]  # the value for the converter (grades and yes/no mapped)
    all_str: bool  # every raw value a str
    all_number: bool  # every value for the converter a float or an int
    errors: Sequence[bool]  # per sample: it has an error
    answers: Sequence[str | None]
    confidences: Sequence[float]
    clusters: list[str] | None  # per sample
    hashes: Sequence[bytes | None]  # per sample: the item hash's SHA-256 digest (hex_strings writes them out)
    labels: Sequence[str | None]  # per sample
    row_sample: Sequence[int]
    metas: dict[str, list[Any]]  # per sample
    columns: list[str]  # the log's table's columns, in order
    one_row: bool = False  # every sample has exactly one row (row_sample is 0, 1, 2, ...)

    def per_row(self, attr: str) -> Sequence[Any]:
        """A per-sample list (``items`` .. ``labels``) repeated as its samples' rows."""
        values = getattr(self, attr)
        return values if self.one_row else [values[j] for j in self.row_sample]


def _cat(batches: list[_Batch], attr: str, dtype: Any) -> np.ndarray:
    if not batches:
        return np.empty(0, dtype=dtype)
    if len(batches) == 1:
        return getattr(batches[0], attr)
    return np.concatenate([getattr(b, attr) for b in batches])


def pending_columns(rows: list[Pending]) -> dict[str, Any]:
    """The row lists of ``rows`` (consecutive logs' :class:`Pending`) converted at once, as
    :class:`Collector` and :func:`build_part` convert a log's (the same rules, value by value):
    each per-row column of :class:`Part` (``metrics`` .. ``hashes``, ``labels``) over all of
    their rows, in order; ``clusters`` ``None`` when the rows were collected without a cluster."""
    import itertools

    import pandas as pd

    def cat(attr: str) -> Sequence[Any]:
        lists = [getattr(r, attr) for r in rows]
        return lists[0] if len(lists) == 1 else list(itertools.chain.from_iterable(lists))

    def cat_rows(attr: str) -> Sequence[Any]:  # a per-sample list as rows
        lists = [r.per_row(attr) for r in rows]
        return lists[0] if len(lists) == 1 else list(itertools.chain.from_iterable(lists))

    convert = cat("convert")
    if all(r.all_number for r in rows):  # every value a float or an int: as Collector.flush
        arr = np.array(convert, dtype=float) if convert else np.empty(0)
        values, value_error = _finish_arrays(arr, np.zeros(len(arr), dtype=bool), ~np.isfinite(arr))
    else:
        values, errs = coerce_scores(pd.Series(convert, dtype=object))
        value_error = errs.to_numpy()
    failed = np.array(cat_rows("errors"), dtype=bool)
    values = np.where(failed, np.nan, values)
    row_errors = np.where(failed, "sample error", value_error)
    raws = cat("raws")
    raw = _objects(raws) if all(r.all_str for r in rows) else raw_strings(pd.Series(raws, dtype=object)).to_numpy()
    items, labels = (_chunked_strings(cat_rows(a)) for a in ("items", "labels"))
    hashes = hex_strings(cat_rows("hashes"))
    return {"metrics": _objects(cat("metrics")), "items": items, "epochs": np.array(cat_rows("epochs"), dtype=np.int64),
            "values": values, "raws": raw, "errors": row_errors, "answers": _chunked_strings(cat("answers")),
            "confidences": np.array(cat("confidences"), dtype=float),
            "clusters": _objects(cat_rows("clusters")) if rows[0].cluster is not None else None,
            "hashes": hashes, "labels": labels}


def pending_metas(rows: Pending) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """A log's ``metas`` (object arrays) and ``row_sample`` (int64) as :class:`Part` holds them."""
    return {k: _objects(v) for k, v in rows.metas.items()}, np.array(rows.row_sample, dtype=np.int64)


def convert_pending(parts: list[Part]) -> list[Part]:
    """``parts`` with the lists of every :class:`Pending` one converted at once
    (:func:`pending_columns`), then cut per log, so :func:`frame` continues as for any part."""
    todo = [p for p in parts if p.pending is not None]
    rows = [p.pending for p in todo]
    whole = pending_columns(rows)  # type: ignore[arg-type]
    done: dict[int, Part] = {}
    at = 0
    for p, r in zip(todo, rows, strict=True):
        end = at + p.n

        def cut(a: Any, p: Any = p, at: int = at, end: int = end) -> Any:  # (bound: called in this pass)
            return a if len(rows) == 1 else a.slice(at, p.n) if _is_arrow(a) else a[at:end]

        metas, row_sample = pending_metas(r)  # type: ignore[arg-type]
        w, clusters = whole, whole["clusters"]
        done[id(p)] = dataclasses.replace(
            p, metrics=cut(w["metrics"]), items=cut(w["items"]), epochs=cut(w["epochs"]), values=cut(w["values"]),
            raws=cut(w["raws"]), errors=cut(w["errors"]), answers=cut(w["answers"]), confidences=cut(w["confidences"]),
            clusters=cut(clusters) if clusters is not None else None, hashes=cut(w["hashes"]), labels=cut(w["labels"]),
            metas=metas, row_sample=row_sample, pending=None)
        at = end
    return [done.get(id(p), p) for p in parts]
