"""lm-eval samples' columns -> the canonical table: notes, missing docs, one DataFrame of many files.

Completeness: when the results file declares ``n-samples`` (``effective``) for a task and the
samples hold fewer docs, each missing doc (``doc_id`` 0..n-1, the harness's own numbering)
gets rows with the error ``missing from log`` and a note marks the run incomplete.
``read_runs`` reads samples files as :class:`SamplesPart` and makes one DataFrame of
consecutive ones (:func:`frame_parts`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
else:
    from evaladdon._util.lazy import lazy_module

    pd = lazy_module("pandas")  # imported on first use (the lean summarize of Inspect logs needs none)

from evaladdon._util.gc import no_cyclic_gc
from evaladdon.adapters.common.scores import NON_FINITE
from evaladdon.adapters.lm_eval.results import declared_docs
from evaladdon.adapters.lm_eval.samples import MC_COLUMNS, _extract
from evaladdon.adapters.tuning import DEFAULT, ReadTuning
from evaladdon.table import finalize
from evaladdon.table.usable import MISSING_FROM_LOG

_JOINED_ROWS = 5000  # _to_arrow: one pyarrow call for all columns of a table under this many rows
_BASE_COLUMNS = ("item", "epoch", "metric", "value", "raw", "error", "item_hash", "cluster", "run", "task", "model",
                 "source", "harness")


def rows_from_records(
    records: Any,
    *,
    task: str,
    run: str,
    model: str,
    source: str,
    filters: list[str],
    cluster: str | None,
    metric_names: list[str] | None = None,
    delim: str = " ",
    results: dict[str, Any] | None = None,
    tuning: ReadTuning | None = None,
) -> tuple[pd.DataFrame, list[str]]:
    """Canonical rows for one task's sample records (a list of dicts or ``(place, dict)`` pairs)."""
    known: dict[str, bool] = {}
    cols, notes = _cols_from_records(records, task=task, source=source, filters=filters, cluster=cluster,
                                     metric_names=metric_names, delim=delim, results=results, known=known,
                                     tuning=tuning)
    return _frame(cols, run=run, task=task, model=model, source=source, str_hashes=known["str_hashes"]), notes


def _cols_from_records(records: Any, *, task: str, source: str, filters: list[str], cluster: str | None,
                       metric_names: list[str] | None = None, delim: str = " ",
                       results: dict[str, Any] | None = None, known: dict[str, bool] | None = None,
                       tuning: ReadTuning | None = None) -> tuple[dict[str, np.ndarray], list[str]]:
    """The columns (without the constant ones) and notes of :func:`rows_from_records`.
    ``known``, when given, gets ``str_hashes``: whether every row's ``item_hash`` is known to
    be a string (or missing), so that no pass over the column need check it."""
    place_word = "line"
    if isinstance(records, list):
        records, place_word = enumerate(records, start=1), "sample"
    elif isinstance(records, tuple):
        records, place_word = records
    with no_cyclic_gc():  # many small containers, no cycles: the collector would rescan the growing lists
        cols, info = _extract(records, filters=filters, cluster=cluster, delim=delim, source=source,
                              metric_names=metric_names, place_word=place_word, tuning=tuning or DEFAULT)
    notes: list[str] = []
    if info["extra_filters"]:
        notes.append(f"{source}: docs repeat more often than the results list filters; extra copies named filterN")
    if info["mc"] and info["mc_no_label"]:
        notes.append(f"{source}: {info['mc_no_label']} of {info['mc']} multiple-choice docs have no gold index in "
                     "the log (choices not logged, several golds, or an ambiguous target); label left empty")
    more = _mark_missing(cols, info, results, task, source, cluster)  # its rows' item_hash: None
    notes += more
    if known is not None:
        known["str_hashes"] = info["str_hashes"]
    notes += _nonfinite_notes(cols, results, task, source)
    return cols, notes


def _frame(cols: dict[str, np.ndarray], *, run: Any, task: Any, model: Any, source: Any,
           str_hashes: bool = False) -> pd.DataFrame:
    """The canonical table of one task's columns, built once and conforming by construction
    (the order and dtypes :func:`evaladdon.table.finalize` gives), so reading a small file
    costs one DataFrame construction, not a construction, column insertions and a finalize.

    Only ``item_hash`` holds logged values of unchecked type: when one is not a string the
    frame goes through ``finalize`` (which converts it exactly as for any reader).
    ``str_hashes``: the reader knows every ``item_hash`` is a string or None (no check)."""
    n = len(cols["metric"])
    conforming = n > 0 and (str_hashes or _is_arrow(cols["item_hash"])
                            or pd.api.types.infer_dtype(cols["item_hash"], skipna=True) in ("string", "empty"))
    if not conforming:  # (item_hash holds a value that is not a string: then no column is converted)
        cols = {c: _objects(v) for c, v in cols.items()}
    data: dict[str, Any] = {
        c: _constant(v, n) if isinstance(v, str) else v  # an array: several files' parts (frame_parts)
        for c, v in (("run", run), ("source", source), ("harness", "lm_eval"), ("task", task), ("model", model))}
    for col in ("metric", "item", "epoch", "value", "raw", "cluster", "item_hash", "error"):
        data[col] = _as_pandas(cols[col])
    for col in ("cluster", "item_hash", "error"):  # nullable: None where missing, object dtype then
        arr = data[col]
        if not isinstance(arr, np.ndarray):  # converted as read: nothing missing (hot_strings)
            continue
        miss = pd.isna(arr)
        if miss.any():
            if not (arr[miss] == None).all():  # noqa: E711 - elementwise: a NaN/NA stands for None
                arr = arr.copy()
                arr[miss] = None
            data[col] = pd.Series(arr, dtype=object, copy=False)
    for col in MC_COLUMNS:
        if col in cols:
            data[col] = _as_pandas(cols[col])
    if not conforming:  # no rows, or a non-string doc_hash: converted like any logged value
        return finalize(pd.DataFrame(data))
    _arrow_strings(data, n)
    return pd.DataFrame(data)


def _arrow_strings(data: dict[str, Any], n: int) -> None:
    """The object-array string columns of ``data`` converted to pandas' pyarrow-backed ``str``
    by pyarrow itself (:func:`_to_arrow`) -- the same dtype and values as pandas gives them, at
    under half its cost (pandas checks and copies each column before the same pyarrow call:
    ~125 ms for the columns of 50,000 rows against ~55 ms).  Columns with no string (all
    missing) stay object, as pandas leaves them; anything else (another pandas, a value that is
    not a string) is left to pandas."""
    names = [c for c, v in data.items() if isinstance(v, np.ndarray) and v.dtype == object]
    arrays = _to_arrow([data[c] for c in names], n) if names else None
    if arrays is None:
        return
    from pandas.arrays import ArrowStringArray

    for c, a in zip(names, arrays, strict=True):
        if a is not None and a.null_count < n:  # all missing: left as object, as pandas leaves it
            data[c] = ArrowStringArray(a, dtype=_inferred_str_dtype())


def _to_arrow(columns: list[np.ndarray], n: int) -> list[Any] | None:
    """Object columns of ``n`` rows as pyarrow ``large_string`` arrays (None for a column holding
    a value that is not a string), or None when nothing is converted: pandas does not keep
    strings in pyarrow, or a small table holds such a value.  A small table (under
    :data:`_JOINED_ROWS`): all columns in ONE pyarrow call, then sliced (zero copy), as the
    per-column overhead dominates a small file; above, one call per column (the joined copy
    costs more than it saves)."""
    dtype = _inferred_str_dtype()
    if not (isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow"):
        return None
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - pandas' pyarrow strings need pyarrow
        return None
    if n < _JOINED_ROWS:
        try:
            joined = pa.array(np.concatenate(columns), pa.large_string(), from_pandas=True)
        except (TypeError, ValueError):  # a non-string value (ArrowTypeError is a TypeError)
            return None
        return [joined.slice(j * n, n) for j in range(len(columns))]
    arrays: list[Any] = []
    for col in columns:
        try:
            arrays.append(pa.array(col, pa.large_string(), from_pandas=True))
        except (TypeError, ValueError):  # this column holds a value that is not a string: left as it is
            arrays.append(None)
    return arrays


def hot_strings(cols: dict[str, np.ndarray]) -> dict[str, Any]:
    """``cols`` of ONE file with its string columns converted to pyarrow ``large_string`` as the
    file is read (:func:`_to_arrow`), and their Python strings let go: the columns
    :func:`_arrow_strings` would convert in the end, those with nothing missing (a column with a
    missing value, or a value that is not a string, stays as it is: :func:`_frame` decides it).
    A file's strings held until the end took ~600 bytes a row (a thousand 100-doc files: 60 MB
    of fresh pages, then converted cold); freed as read, the next file reuses their memory.
    ``cols`` unchanged when pandas does not store strings in pyarrow."""
    n = len(cols["metric"])
    names = [c for c, v in cols.items() if v.dtype == object]
    arrays = _to_arrow([cols[c] for c in names], n) if n and names else None
    if arrays is None:
        return cols
    out = dict(cols)
    for c, a in zip(names, arrays, strict=True):
        if a is not None and a.null_count == 0:
            out[c] = a
    return out


def _is_arrow(col: Any) -> bool:
    """A column :func:`hot_strings` converted (a pyarrow array), not a numpy one."""
    return not isinstance(col, np.ndarray)


def _objects(col: Any) -> np.ndarray:
    """A column as a numpy array: a converted one (strings, nothing missing) back to ``str`` objects."""
    return col.to_numpy(zero_copy_only=False) if _is_arrow(col) else col


def _as_pandas(col: Any) -> Any:
    """A column for the DataFrame: a converted one as pandas' pyarrow-backed ``str`` array."""
    if not _is_arrow(col):
        return col
    from pandas.arrays import ArrowStringArray

    return ArrowStringArray(col, dtype=_inferred_str_dtype())


def _joined(columns: list[Any]) -> Any:
    """One column of many files': pyarrow's concatenation when every file's is converted, else
    the numpy one (a converted one back to objects)."""
    if all(map(_is_arrow, columns)):
        import pyarrow as pa

        return pa.concat_arrays(columns)
    return np.concatenate([_objects(c) for c in columns])


@lru_cache(maxsize=1)
def _inferred_str_dtype() -> Any:
    """The dtype pandas gives a column of ``str`` (pandas 3: ``str``, pyarrow-backed)."""
    return pd.DataFrame({"s": np.array(["x"], dtype=object)})["s"].dtype


def _constant(value: str, n: int) -> Any:
    """A column repeating one string, in the dtype pandas would infer for it.

    pandas converts an object array of ``n`` equal strings to pyarrow one string at a time
    (15 ms per column at 50,000 rows); when pandas stores strings in pyarrow the column is
    built from its buffers: the string's bytes ``n`` times and their offsets (under 1 ms).  Small columns: the object array
    (as fast, and the same dtype)."""
    dtype = _inferred_str_dtype()
    if n >= 1000 and isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow":
        try:
            import pyarrow as pa
            from pandas.arrays import ArrowStringArray

            data = value.encode("utf-8")  # the bytes n times and their offsets: no per-row work at all
            offsets = np.arange(n + 1, dtype=np.int64) * len(data)
            taken = pa.LargeStringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(data * n))
            return ArrowStringArray(taken, dtype=dtype)
        except (ImportError, TypeError, ValueError):  # another pandas/pyarrow: the plain way
            pass
    return np.full(n, value, dtype=object)


def _repeated(values: list[Any], sizes: list[int]) -> Any:
    """Each file's text repeated over its rows (run, task, model, source), in the dtype pandas
    would infer for the object column: when pandas stores strings in pyarrow, a take of the
    files' texts (one string a file converted, not one a row: ~40 ns a row and column), else
    the object column itself."""
    dtype = _inferred_str_dtype()
    if isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow" and all(type(v) is str for v in values):
        try:
            import pyarrow as pa
            from pandas.arrays import ArrowStringArray

            taken = pa.array(values, pa.large_string()).take(np.repeat(np.arange(len(values)), sizes))
            return ArrowStringArray(taken, dtype=dtype)
        except (ImportError, TypeError, ValueError):  # another pandas/pyarrow: the plain way
            pass
    return np.repeat(np.array(values, dtype=object), sizes)


def _mark_missing(cols: dict[str, np.ndarray], info: dict[str, Any], results: dict[str, Any] | None, task: str,
                  source: str, cluster: str | None) -> list[str]:
    """Rows ``missing from log`` (appended to ``cols``) for docs the results declare but the
    samples lack (issue 12.2); returns the notes."""
    declared = declared_docs(results, task)
    if declared is None:
        return []
    seen_ids = set(info["doc_ids"])
    n_seen = len(seen_ids)
    if n_seen >= declared:
        return []
    note = (f"{source}: incomplete: the results declare {declared} docs for task {task!r} "
            f"(n-samples effective) but the samples hold {n_seen}")
    if not info["int_ids"] or cluster is not None:
        why = "doc ids are not the harness's numbering" if not info["int_ids"] else \
            "their cluster field is unknown"
        return [note + f"; the {declared - n_seen} missing docs are not listed as rows ({why})"]
    ids = np.arange(declared).astype(str)
    missing = ids[~np.isin(ids, np.fromiter(seen_ids, dtype=object, count=n_seen).astype(str))]
    metrics = sorted(info["metric_keys"])
    if not metrics or missing.size == 0:
        return [note]
    k = missing.size * len(metrics)
    add: dict[str, np.ndarray] = {
        "item": np.repeat(missing.astype(object), len(metrics)),
        "epoch": np.ones(k, dtype=np.int64),
        "metric": np.tile(np.array(metrics, dtype=object), missing.size),
        "value": np.full(k, np.nan), "raw": np.full(k, "", dtype=object),
        "error": np.full(k, MISSING_FROM_LOG, dtype=object), "item_hash": np.full(k, None, dtype=object),
        "cluster": np.full(k, None, dtype=object),
    }
    if "confidence" in cols:
        add.update(prediction=np.full(k, None, dtype=object), label=np.full(k, None, dtype=object),
                   confidence=np.full(k, np.nan))
    if "choice_lls" in cols:
        add["choice_lls"] = np.full(k, None, dtype=object)
    for col, extra in add.items():
        cols[col] = np.concatenate([cols[col], extra])
    return [note + f"; {missing.size} missing docs counted as '{MISSING_FROM_LOG}'"]


def _nonfinite_notes(cols: dict[str, np.ndarray], results: dict[str, Any] | None, task: str,
                     source: str) -> list[str]:
    """Say where item values are non-finite and what the harness reported (issue 10.7)."""
    bad = cols["error"] == NON_FINITE
    if not bad.any():
        return []
    notes = []
    reported = ((results or {}).get("results") or {}).get(task) or {}
    for metric, k in sorted(Counter(cols["metric"][bad].tolist()).items()):
        harness = reported.get(metric)
        said = f"; the harness reported {harness!r}" if harness is not None else ""
        notes.append(f"{source}: {metric}: {k} item value(s) are non-finite (NaN/Infinity){said}; "
                     "evaladdon's mean is over the finite values only")
    return notes


def _empty() -> pd.DataFrame:
    return finalize(pd.DataFrame({c: [] for c in _BASE_COLUMNS}))


@dataclass
class SamplesPart:
    """One samples file's columns before the DataFrame, so that consecutive files of a
    :func:`evaladdon.adapters.read_runs` make one DataFrame (:func:`frame_parts`): a pandas
    DataFrame of ~20 columns costs about a millisecond to build, most of a small file's read.
    ``run`` may be renamed by ``read_runs`` (``NAME=PATH``, clashing run ids) before the frame."""

    cols: dict[str, Any]  # numpy arrays; text columns pyarrow arrays once converted (hot_strings)
    run: str
    task: str
    model: str
    source: str
    notes: list[str]
    str_hashes: bool = False  # every item_hash known to be a string or None (see _cols_from_records)
    declared: dict[str, dict[str, bool]] | None = None
    """Whether a lower score is better, as the results file declares it (:mod:`evaladdon.table.direction`)."""

    @property
    def n(self) -> int:
        return len(self.cols["metric"])

    @property
    def metrics(self) -> list[str]:
        return list(dict.fromkeys(self.column("metric").tolist()))

    def column(self, name: str) -> np.ndarray:
        """A column as a numpy array (one converted as the file was read, :func:`hot_strings`,
        back to ``str`` objects)."""
        return _objects(self.cols[name])

    def combinable(self) -> bool:
        """Rows, and every ``item_hash`` a string (else :func:`_frame` finalizes this file alone)."""
        return self.n > 0 and (self.str_hashes or _is_arrow(self.cols["item_hash"]) or
                               pd.api.types.infer_dtype(self.cols["item_hash"], skipna=True) in ("string", "empty"))


def frame_parts(parts: list[SamplesPart]) -> pd.DataFrame:
    """The canonical table of several samples files: their columns joined and ONE DataFrame
    built, equal (after :func:`evaladdon.table.finalize`) to concatenating each file's own
    table.  Parts that are not :meth:`~SamplesPart.combinable`, or whose optional columns
    differ from the first's, are framed alone and concatenated."""
    from evaladdon.table import concat

    if len(parts) == 1:
        p = parts[0]
        df = _frame(p.cols, run=p.run, task=p.task, model=p.model, source=p.source, str_hashes=p.str_hashes)
        df.attrs["notes"] = p.notes
        return df
    together = [p for p in parts if p.combinable() and p.cols.keys() == parts[0].cols.keys()]
    if len(together) < 2:
        return concat([frame_parts([p]) for p in parts])
    if len(together) < len(parts):  # file order kept: runs of combinable parts, the rest alone
        out, stretch = [], []
        for p in parts + [None]:  # type: ignore[list-item]
            if p is not None and p.combinable() and p.cols.keys() == parts[0].cols.keys():
                stretch.append(p)
                continue
            if stretch:
                out.append(frame_parts(stretch))
                stretch = []
            if p is not None:
                out.append(frame_parts([p]))
        return concat(out)
    sizes = [p.n for p in parts]
    cols = {c: _joined([p.cols[c] for p in parts]) for c in parts[0].cols}

    def constant(attr: str) -> Any:
        return _repeated([getattr(p, attr) for p in parts], sizes)

    df = _frame(cols, run=constant("run"), task=constant("task"), model=constant("model"), source=constant("source"),
                str_hashes=all(p.str_hashes for p in parts))
    if all(p.notes == parts[0].notes for p in parts):  # as pandas' concat keeps attrs all frames share
        df.attrs["notes"] = parts[0].notes
    return df
