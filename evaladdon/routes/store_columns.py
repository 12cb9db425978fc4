"""A group of stored logs read straight from Parquet as the arrays the ``store_arrays`` route's
:class:`~evaladdon.routes.store_arrays.FastGroups` takes, the items as integer codes.

Why: DuckDB's ``fetchnumpy`` gives each string cell its own Python string, so a worker of the
``dask_compare`` route spent most of its time and memory building the item, run, model,
source and error strings of every row (issue 31, item 1).  Here each file's
:data:`~evaladdon.routes.store_arrays.COLUMNS` are read with pyarrow, every string column
dictionary-encoded from Parquet's own dictionary pages (``read_dictionary``): a run-level
column (run, model, task, metric, source) or a mostly-empty one (error, cluster, item_hash)
becomes an object array whose cells share the few distinct strings, and the item column stays
codes: its Parquet dictionaries are unified over the group (pyarrow's ``unify_dictionaries``)
and the rows keep the int32 codes into that one dictionary, whose labels stay an Arrow array.

The values are DuckDB's: NULL as None in the string columns and as NaN in ``value``; a store
these arrays cannot hold the same way (a label column with a NULL, an item that is not a
string, a ``value`` that is not a double, an ``epoch`` that is not a non-null integer, a column
no file has) gives None, and the caller reads the group through DuckDB as before.
A canonical table read from PATHs (``compare PATH... --engine dask``,
:mod:`evaladdon.routes.dask_compare_paths`) becomes the same arrays through :func:`from_frame`:
its columns as Arrow (pandas' Arrow-backed strings without a copy, categoricals as dictionaries),
each string column dictionary-encoded, then :func:`from_tables` as for a store's files.
Oracle: ``tests/routes/test_store_columns.py`` (the arrays equal DuckDB's ``fetchnumpy``, and a
canonical table's arrays equal those of the same rows stored).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from evaladdon._util.arrow import numbers, strings, valid
from evaladdon.routes.store_arrays import COLUMNS

STRINGS = ("run", "model", "task", "metric", "source", "item", "error", "cluster", "item_hash")
LABELS = ("run", "model", "task", "metric", "source", "item")  # never NULL in a canonical store
NULL = np.array([None], dtype=object)


@dataclass
class GroupColumns:
    """The group's rows: ``cols`` by :data:`COLUMNS` (``item`` as int codes into
    ``item_labels``, a pyarrow ``large_string`` array of the group's distinct items)."""

    cols: dict[str, np.ndarray]
    item_labels: Any


def _objects(chunk: Any) -> np.ndarray:
    """A dictionary (or null-typed) Arrow array as an object array of its strings, NULL as None;
    the cells share the dictionary's strings (one Python string per distinct value)."""
    n = len(chunk)
    if chunk.null_count == n:
        return np.broadcast_to(NULL, (n,))
    labels = strings(chunk.dictionary)
    if len(labels) == 1 and chunk.null_count == 0:  # one value (a run-level column in a log of one run)
        return np.broadcast_to(labels, (n,))
    if chunk.null_count == 0:
        return labels[numbers(chunk.indices)]  # type: ignore[no-any-return]
    out = labels[numbers(chunk.indices, fill=0)]
    out[~valid(chunk)] = None
    return out  # type: ignore[no-any-return]


def _join(parts: list[np.ndarray]) -> np.ndarray:
    """The parts one after another; parts that are one value broadcast (all the same value) stay
    one value broadcast, taking no memory a row."""
    if len(parts) == 1:
        return parts[0]
    filled = [p for p in parts if len(p)]
    if filled and all(p.strides == (0,) and p.dtype == object and p[0] == filled[0][0] for p in filled):
        return np.broadcast_to(filled[0][:1], (sum(len(p) for p in parts),))
    return np.concatenate(parts)


def _is_text(col: Any) -> bool:
    """A dictionary column of strings, or one without a value (of any type: NULL everywhere)."""
    import pyarrow as pa

    t = col.type
    return bool(col.null_count == len(col) or pa.types.is_dictionary(t) and (
        pa.types.is_string(t.value_type) or pa.types.is_large_string(t.value_type)))


def read_group(files: Sequence[Path]) -> GroupColumns | None:
    """Every row of ``files`` (module doc), in file order; None when DuckDB must read them."""
    import pyarrow.parquet as pq

    seen: set[str] = set()

    def tables() -> Iterator[tuple[Any, set[str]]]:
        for f in files:
            names = set(pq.read_schema(f).names)
            seen.update(names)
            with pq.ParquetFile(f, read_dictionary=[c for c in STRINGS if c in names]) as pf:
                yield pf.read(columns=[c for c in COLUMNS if c in names]), names

    got = from_tables(tables())
    return got if seen.issuperset(COLUMNS) else None  # a column no file has: DuckDB refuses the query


def from_frame(df: Any) -> GroupColumns | None:
    """A canonical table's :data:`COLUMNS` (a pandas DataFrame) as the arrays :func:`from_tables`
    gives a store's files of the same rows; None when they cannot be (a string column that holds
    something else, a column missing)."""
    import pyarrow as pa

    if not set(COLUMNS).issubset(df.columns):
        return None
    arrays = []
    try:
        for c in COLUMNS:
            got = pa.array(df[c], from_pandas=True)
            a = got if isinstance(got, pa.ChunkedArray) else pa.chunked_array([got])
            if c in STRINGS and not pa.types.is_dictionary(a.type) and a.null_count < len(a):
                if not (pa.types.is_string(a.type) or pa.types.is_large_string(a.type)):
                    return None
                a = a.dictionary_encode()
            arrays.append(a)
    except (pa.ArrowException, TypeError, ValueError):  # mixed objects in a column: not a canonical table's
        return None
    return from_tables(iter([(pa.Table.from_arrays(arrays, names=list(COLUMNS)), set(COLUMNS))]))


def from_tables(tables: Iterator[tuple[Any, set[str]]]) -> GroupColumns | None:
    """The rows of Arrow tables (each with the names of the columns it has; one missing is NULL
    there) as the group's arrays, the string columns dictionary-encoded (module doc); None when
    the arrays cannot be DuckDB's."""
    import pyarrow as pa

    parts: dict[str, list[np.ndarray]] = {c: [] for c in COLUMNS if c != "item"}
    items: list[Any] = []
    for table, names in tables:
        n = table.num_rows
        for c in COLUMNS:
            col = table.column(c) if c in names else pa.chunked_array([pa.nulls(n)])
            if c in STRINGS and not _is_text(col) or c in LABELS and col.null_count:
                return None
            if c == "item":
                items += [pa.DictionaryArray.from_arrays(ch.indices, ch.dictionary.cast(pa.large_string()))
                          for ch in col.chunks]
            elif c in STRINGS:
                parts[c] += [_objects(ch) for ch in col.chunks]
            elif c == "value":
                if col.type != pa.float64():
                    return None
                parts[c].append(numbers(col))  # NULL as NaN, as DuckDB's NULLs become
            elif not pa.types.is_integer(col.type) or col.null_count:  # epoch
                return None
            else:
                parts[c].append(numbers(col).astype(np.int64, copy=False))
        del table
    if not items:
        return None
    unified = pa.chunked_array(items).unify_dictionaries()
    cols = {c: _join(p) for c, p in parts.items()}
    parts.clear()
    cols["item"] = np.concatenate([numbers(ch.indices) for ch in unified.chunks])
    return GroupColumns({c: cols[c] for c in COLUMNS}, unified.chunk(0).dictionary)
