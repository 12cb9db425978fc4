"""A worker's ``summarize --store --engine dask`` of its stored logs, a batch of rows at a time
(issue 31, item 1: each of 2 workers under half of the local engine's memory).

The ``dask_store`` route's worker used to read its group of stored logs as one pandas table (every
stored column, ``raw`` and ``meta.*`` included) and run ``summarize_table`` on it: a 2M-row group
peaked at about the local engine's own peak.  Here each stored file is streamed with
``pyarrow.parquet.ParquetFile.iter_batches`` (:data:`BATCH` rows), reading only the columns a
summary needs (:data:`READ`), every string column as dictionary codes; each batch is folded into
the file's compact arrays -- the value (float64), the item, cluster and error as int32 codes, the
(run, task, metric) as an int32 key -- and dropped.  A row costs 24 bytes instead of the table's
hundreds; the strings kept are the distinct (run, model, task, metric, source) combinations and
the error texts.  Once a file is read, each (run, task, metric) of it (in order of first
appearance, as ``group_positions`` orders them) goes through the same :func:`summarize_groups`
kernel (``estimate_mean``) as :class:`GroupArrays`, and the file's arrays are released before the
next file is read.

Why per-row arrays and not per-item sums: ``estimate_mean`` on the same values in the same row order
with the same item and cluster partition is bit-identical to the one-table path (it codes items and
clusters by first appearance within the group itself, :func:`evaladdon.stats.cluster.codes`), so
the output is byte for byte the local engine's; summing per-item statistics over batches
(:mod:`evaladdon.stats.mean_parts`) agrees only to ~1e-15 relative.  Every (run, task, metric) lies in
one stored log on this route, so one file's arrays are the most a worker holds: 12 MB for a log of
500k rows (measured in ``docs/dev/performance-log.md``).

Codes across batches: within a Parquet row group, pyarrow gives every batch the row group's
dictionary grown so far (a batch's codes index a prefix of the next batch's dictionary; checked
with one comparison of the prefix, else None: the caller reads the table as before); a new row
group starts a new dictionary, so a file of several row groups has its item, cluster and error
dictionaries unified at its end (``unify_dictionaries``) and its codes mapped once.
Not checked here (as the ``dask_compare`` route's reading): the table's ``validate`` -- the store
was validated when ingested.  Oracle: the former reading (``load_selection`` +
``summarize_table``), ``tests/routes/test_store_stream.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from evaladdon._util.arrow import int_array, numbers
from evaladdon.stats._base.checks import first_appearance

BATCH = 16_384
"""Rows a batch.  Arrow's peak while streaming a stored log of 500k rows (its pool's
``max_memory``): 15.4 MB in batches of 131,072 rows, 7.9 MB of 65,536, 4.2 MB of 32,768,
2.3 MB of 16,384, at the same CPU (0.45-0.6 s, a loaded machine)."""
RUN_LEVEL = ("run", "model", "task", "metric", "source")
CODED = ("item", "cluster", "error")
READ = (*RUN_LEVEL, *CODED, "value")
NEEDED = (*RUN_LEVEL, "item", "value")
"""Without these in a file, the caller reads it as a table (a missing error or cluster is NULL)."""


class NotStreamable(Exception):
    """The file's columns are not what a canonical store writes: read it as a table."""


class _Coder:
    """File-level int32 codes of one dictionary-encoded column read batch by batch (module doc):
    a row group's codes offset by the sizes of the earlier row groups' dictionaries, unified at
    the end when there were several.  NULL (or a column of NULL type) is -1."""

    def __init__(self) -> None:
        self.done: list[Any] = []  # the final dictionary of each finished row group
        self.offset = 0
        self.cur: Any = None  # the current row group's dictionary so far

    def new_row_group(self) -> None:
        if self.cur is not None:
            self.done.append(self.cur)
            self.offset += len(self.cur)
        self.cur = None

    def codes(self, chunk: Any) -> np.ndarray:
        import pyarrow as pa

        n = len(chunk)
        if chunk.null_count == n:
            return np.full(n, -1, dtype=np.int32)
        if not pa.types.is_dictionary(chunk.type) or not _is_string(chunk.type.value_type):
            raise NotStreamable(f"a column of {chunk.type}")
        d = chunk.dictionary
        if self.cur is not None and len(d) < len(self.cur) or self.cur is not None and not d.slice(
                0, len(self.cur)).equals(self.cur):
            raise NotStreamable("a batch's dictionary does not extend the previous one")
        self.cur = d
        out = numbers(chunk.indices, fill=-1).astype(np.int32, copy=True)
        if self.offset:
            out[out >= 0] += self.offset
        return out

    def finish(self, codes: np.ndarray) -> Any:
        """The file's dictionary (its codes in ``codes`` remapped in place when the row groups'
        dictionaries were unified); None when no row had a value."""
        import pyarrow as pa

        self.new_row_group()
        dicts = self.done
        if not dicts:
            return None
        if len(dicts) == 1:
            return dicts[0]
        chunks = [pa.DictionaryArray.from_arrays(int_array(np.arange(len(d), dtype=np.int32)), d.cast(pa.large_string()))
                  for d in dicts]
        unified = pa.chunked_array(chunks).unify_dictionaries()
        remap = np.concatenate([numbers(c.indices) for c in unified.chunks]).astype(np.int32)
        has = codes >= 0
        codes[has] = remap[codes[has]]
        return unified.chunk(0).dictionary


def _is_string(t: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_string(t) or pa.types.is_large_string(t))


class _Keys:
    """The file's (run, model, task, metric, source) combinations in order of first appearance, and
    per row the code of its (run, task, metric) key."""

    def __init__(self) -> None:
        self.combos: dict[tuple[str, ...], int] = {}  # -> key code
        self.keys: dict[tuple[str, str, str], int] = {}
        self.model: list[str] = []  # each key's model at its first row

    def codes(self, batch: Any) -> np.ndarray:
        import pyarrow as pa

        n = batch.num_rows
        cols = []
        for c in RUN_LEVEL:
            ch = batch.column(c)
            if not pa.types.is_dictionary(ch.type) or not _is_string(ch.type.value_type) or ch.null_count:
                raise NotStreamable(f"column {c!r}: {ch.type} with {ch.null_count} NULL(s)")
            cols.append((numbers(ch.indices), ch.dictionary.to_pylist()))
        if all(len(labels) == 1 for _, labels in cols):  # a log of one run: one combination, no codes
            return np.full(n, self._key(tuple(labels[0] for _, labels in cols)), dtype=np.int32)
        combined = np.zeros(n, dtype=np.int64)
        width = 1
        for idx, labels in cols:
            width *= max(len(labels), 1)
            if width >= 1 << 62:
                raise NotStreamable("too many run-level labels")
            combined = combined * len(labels) + idx
        first, uniques = first_appearance(combined)  # pd.factorize's codes and order, by sorting
        key_of = np.empty(len(uniques), dtype=np.int32)
        for j, u in enumerate(uniques.tolist()):  # the distinct combinations of the batch (a few)
            parts = []
            for _idx, labels in reversed(cols):
                u, r = divmod(u, len(labels))
                parts.append(labels[r])
            key_of[j] = self._key(tuple(reversed(parts)))
        return key_of[first]

    def _key(self, combo: tuple[str, ...]) -> int:
        got = self.combos.get(combo)
        if got is None:
            run, model, task, metric, _ = combo
            got = self.keys.setdefault((run, task, metric), len(self.keys))
            if got == len(self.model):
                self.model.append(model)
            self.combos[combo] = got
        return got


def _file_arrays(path: Path, distinct: bool) -> tuple[_Keys, dict[str, np.ndarray], Any] | None:
    """The file's rows as compact arrays (module doc): its keys, the arrays by name (``value``,
    ``key``, ``item``, ``cluster``, ``error``) and the error texts; None for a file of no row.
    ``distinct``: every row's item is another (the item column is not read, no ``item`` array)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    names = set(pq.read_schema(path).names)
    if not names.issuperset(NEEDED):
        raise NotStreamable("a column missing")
    coded = [c for c in CODED if c != "item" or not distinct]
    read = [c for c in READ if c in names and (c != "item" or not distinct)]
    with pq.ParquetFile(path, read_dictionary=[c for c in read if c != "value"]) as pf:
        meta = pf.metadata
        n = meta.num_rows
        if n == 0:
            return None
        starts = set(np.cumsum([meta.row_group(i).num_rows for i in range(meta.num_row_groups)])[:-1].tolist())
        arrays = {"value": np.empty(n, dtype=np.float64), "key": np.empty(n, dtype=np.int32),
                  **{c: np.empty(n, dtype=np.int32) for c in coded}}
        coders = {c: _Coder() for c in coded}
        keys = _Keys()
        at = 0
        for batch in pf.iter_batches(batch_size=BATCH, columns=read, use_threads=False):
            m = batch.num_rows
            _boundary(at, m, n, starts, coders.values())
            value = batch.column("value")
            if value.type != pa.float64():
                raise NotStreamable(f"value of {value.type}")
            arrays["value"][at:at + m] = numbers(value)  # NULL as NaN
            arrays["key"][at:at + m] = keys.codes(batch)
            for c in coded:
                arrays[c][at:at + m] = coders[c].codes(batch.column(c)) if c in names else -1
            at += m
            del batch, value
        if at != n:
            raise NotStreamable("rows missing")
    for c in coded[:-1]:  # item (unless distinct), cluster
        coders[c].finish(arrays[c])
    errors = coders["error"].finish(arrays["error"])
    return keys, arrays, () if errors is None else tuple(errors.to_pylist())


def _boundary(at: int, m: int, n: int, starts: set[int], coders: Any) -> None:
    """A batch of ``m`` rows from row ``at`` (of ``n``): a new row group's dictionaries when one
    starts there; a batch across row groups (not seen from pyarrow) is not streamed."""
    if at in starts:
        for cd in coders:
            cd.new_row_group()
    if at + m > n or any(at < s < at + m for s in starts):
        raise NotStreamable("a batch across row groups")


def file_groups(files: Sequence[str], metric: str | None, seen: set[str], label_rows: list[tuple[str, ...]],
                counts: list[int], distinct: frozenset[str] = frozenset()) -> Iterator[Any]:
    """The (run, task, metric) groups of ``files`` as :class:`GroupArrays`, file after file, only
    ``metric``'s when given; fills ``seen`` (the metrics), ``label_rows`` (the distinct
    (run, model, task, source) in table order) and ``counts`` (rows read) as it goes.  Raises
    :class:`NotStreamable` before yielding anything (every file's columns are checked first),
    except when a batch's dictionary does not extend the previous one (not seen from pyarrow).
    ``distinct``: the names of the files whose rows are each another item (the manifest's
    ``n_items == n_rows``: one epoch, the usual long table): their items are not read, each row
    its own code -- hashing 500k distinct item strings costs ~90 MB of Arrow's memo tables, the
    largest part of a worker's peak otherwise (``docs/dev/performance-log.md``)."""
    import pyarrow.parquet as pq

    from evaladdon.adapters.inspect.columns import CodedTexts
    from evaladdon.analysis.summarize import GroupArrays

    for f in files:
        names = set(pq.read_schema(f).names)
        if not names.issuperset(NEEDED):
            raise NotStreamable(f"{f}: a column missing")
    labels: dict[tuple[str, ...], None] = {}
    for f in files:
        got = _file_arrays(Path(f), Path(f).name in distinct)
        if got is None:
            continue
        keys, arrays, texts = got
        counts.append(len(arrays["value"]))
        for combo in keys.combos:
            labels.setdefault((combo[0], combo[1], combo[2], combo[4]), None)
        label_rows[:] = list(labels)
        seen.update(k[2] for k in keys.keys)
        key = arrays.pop("key")
        if len(keys.keys) == 1:
            positions: list[Any] = [slice(0, len(key))]
        else:
            order = np.argsort(key, kind="stable")
            positions = np.split(order, np.cumsum(np.bincount(key, minlength=len(keys.keys)))[:-1])
        del key
        value, item, cluster, error = arrays["value"], arrays.get("item"), arrays["cluster"], arrays["error"]
        arrays.clear()
        for (run, task, metric_name), rows, model in zip(keys.keys, positions, keys.model, strict=True):
            if metric is not None and metric_name != metric:
                continue
            codes = error[rows]
            v = value[rows]
            items = np.arange(len(v), dtype=np.int32) if item is None else item[rows]
            yield GroupArrays(run, task, model, metric_name, v, codes >= 0, CodedTexts(codes, texts), items,
                              cluster[rows])
            del v, items, codes
        del value, item, cluster, error, positions
