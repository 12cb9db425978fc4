"""``compare --store --engine dask``: each worker reduces a group of stored logs to per-item
statistics of each (run, task, metric) and sends back only those (issue 31, item 1b).

The former Dask reading of a store (the table route's :func:`evaladdon.routes.dask_reduce.load_reduced`) reduced each stored file on
a worker to per-item statistics and then rebuilt every row on the driver as a table, then ran
``compare_table`` on it.  Here a worker reads its group's rows as arrays: straight from Parquet
with pyarrow when every row of its files matches ``--where``, else filtered by DuckDB and fetched
as Arrow; either way the string columns dictionary-encoded, the items kept as codes
(:mod:`evaladdon.routes.store_columns`; DuckDB's ``fetchnumpy`` gave every cell its own Python
string, most of a worker's time and memory).  It reduces each (run, task, metric) to the
``store_arrays`` route's :class:`Side`: its usable items (as codes into the group's item labels,
sent once a group as an Arrow array), each item's mean over epochs and number of epochs, the
first cluster and content hash, the rows left out by reason, the errored and attempted items --
the per-item sufficient statistics of a paired comparison, O(items), never O(rows) -- and hands
the freed rows back to the OS before its next group.  The driver takes the groups one at a time
as the workers finish them (:func:`~evaladdon.routes.dask.lazy_submitter`: a worker keeps a result
only until the driver has taken it), codes each group's item labels onto the labels so far
(:class:`_LabelCoder`: one comparison when a group has the previous group's items), maps its
codes and drops its labels -- so the driver holds the sides and the distinct labels, not every
group's labels at once (10M stored rows: 889 MB before, ``docs/dev/performance-log.md``) -- and runs the ``store_arrays``
route's pairing (:class:`~evaladdon.routes.store_arrays.FastGroups`'
``pair``/``errored``/``why_unpaired``, the checks and messages of ``align_sides``) and the shared
comparison loop, so the numbers are the local engine's.  Every selected run is reduced: each is
in some pair (``--baseline``: all against it; ``--all-pairs``; else exactly two).  Declines (the
table route answers) whenever the ``store_arrays`` route would: a run's (task, metric) in two
logs, a repeated (item, epoch), rows that are not a canonical store's, a query DuckDB refuses.
``tests/routes/test_dask_compare.py`` holds the output equal to the local engine's byte for byte.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence

import numpy as np

from evaladdon.routes.store_arrays import COLUMNS, FastGroups, Side, _codes, _combined, _plain
from evaladdon.routes.store_columns import GroupColumns

if TYPE_CHECKING:  # pragma: no cover
    from evaladdon.analysis.options import CompareOptions, RouteLimits
    from evaladdon.routes.results import Comparisons
    from evaladdon.table.names import RunInfo


NONE = np.array([], dtype=object)
NO_LABEL = np.array(None, dtype=object)


@dataclasses.dataclass
class GroupSides:
    """What a worker sends back for a group of stored logs: each (run, task, metric)'s side (item
    codes into the group's distinct item labels, sent once), the (run, model, task, source) rows in table order, each run's
    model at its first row of the metric compared, whether every finite value is in [0, 1], the
    metrics seen; ``ok`` False when the rows must be read as a table."""

    sides: dict[tuple[str, str, str], Side]
    item_labels: Any  # the group's distinct item labels (numpy object array or pyarrow array); sides' codes index it
    labels: list[tuple[Any, ...]]
    models: dict[str, Any]
    bounded: bool
    metrics: list[str]
    ok: bool = True


def reduce_group(root: str, where: str | None, metric: str | None, files: Sequence[str]) -> GroupSides:
    """Runs on a worker: the group's rows reduced to per-item sides (module doc): read from Parquet
    (:func:`~evaladdon.routes.store_columns.read_group`) when every row of the files matches
    ``--where``, else filtered by DuckDB and fetched as Arrow, dictionary-encoded; fetched as
    DuckDB's numpy arrays when the Arrow columns cannot hold them as those would."""
    from evaladdon._util.memory import give_back
    from evaladdon.routes.store_columns import read_group
    from evaladdon.store.query import select

    sel = select(root, where)
    paths = [Path(f) for f in files]
    got: GroupColumns | dict[str, np.ndarray] | None = read_group(paths) if sel.whole else None
    got = got if got is not None else _from_duckdb(paths, sel.where, arrow=not sel.whole)
    if isinstance(got, GroupColumns):
        sides = _reduce(got.cols, got.item_labels, metric)
    else:
        sides = _reduce(got, None, metric)
    del got
    give_back()  # the group's rows, freed: handed back before the worker's next group
    return sides


def _from_duckdb(paths: list[Path], where: str | None, arrow: bool) -> GroupColumns | dict[str, np.ndarray] | None:
    """The rows of ``paths`` matching ``where``: as :class:`GroupColumns` when ``arrow`` and they
    can be, else as DuckDB's numpy arrays; None when DuckDB refuses the query."""
    import duckdb

    from evaladdon.routes.store_columns import STRINGS, from_tables
    from evaladdon.store.query import _arrow, connect, select_sql

    sql = select_sql(paths, where, ", ".join(f'"{c}"' for c in COLUMNS))
    con = connect(paths)
    try:
        got = from_tables(iter([(_arrow(con.sql(sql), STRINGS), set(COLUMNS))])) if arrow else None
        if got is not None:
            return got
        fetched = con.sql(sql).fetchnumpy()
    except duckdb.Error:
        return None
    finally:
        con.close()
    return {c: _plain(fetched[c], np.nan if c == "value" else None) for c in COLUMNS}


def _reduce(cols: dict[str, np.ndarray] | None, item_labels: Any, metric: str | None) -> GroupSides:
    """The sides of the rows ``cols`` (items as labels, or as codes into ``item_labels``)."""
    from evaladdon.table.scale import unit_interval

    if cols is None:
        return GroupSides({}, NONE, [], {}, True, [], ok=False)
    if len(cols["run"]) == 0:
        return GroupSides({}, NONE, [], {}, True, [])
    metrics = list(dict.fromkeys(_codes(cols["metric"])[1].tolist()))
    try:
        groups = FastGroups(cols, metric)
    except TypeError:  # a None among labels: not a canonical store
        return GroupSides({}, NONE, [], {}, True, metrics, ok=False)
    if cols["value"].dtype != np.float64 or not groups.rows_unique():
        return GroupSides({}, NONE, [], {}, True, metrics, ok=False)
    if item_labels is not None:  # the sides' codes index the group's labels in first appearance
        from evaladdon._util.arrow import int_array

        groups.item_labels = item_labels.take(int_array(np.asarray(groups.item_labels).astype(np.int64, copy=False)))
    sides = {key: _compact(groups.side(*key)) for key in groups._rows}
    _, firsts = _combined(cols, ("run", "model", "task", "source"))
    labels = list(zip(*(cols[c][firsts].tolist() for c in ("run", "model", "task", "source")), strict=True))
    models = {run: groups.model_of(run) for run in groups._first}
    values = cols["value"] if metric is None else cols["value"][cols["metric"] == metric]
    return GroupSides(sides, groups.item_labels, labels, models, unit_interval(values), metrics)


def _compact(side: Side) -> Side:
    """``side`` as sent to the driver, in about a third of its memory and the same numbers:
    codes and counts as int32, a column of one value (no cluster, no hash, as many epochs for
    every item) as that value broadcast, and the attempted items, when none errored, as the
    side's items themselves (``errored`` and ``pair`` need them unique, not sorted)."""
    small = np.int32 if len(side.items) == 0 or int(side.items.max()) < 2**31 else np.int64
    items = side.items.astype(small)

    def thin(labels: np.ndarray) -> np.ndarray:
        return np.broadcast_to(NO_LABEL, labels.shape) if not np.not_equal(labels, None).any() else labels  # type: ignore[call-overload]

    n = side.n_epochs
    same = len(n) == 0 or int(n.min()) == int(n.max())  # as often: one epoch, or as many for every item
    epochs = np.broadcast_to(n[:1].astype(np.int32), n.shape) if same and len(n) else n.astype(np.int32)
    return Side(items, side.values, epochs, thin(side.clusters), thin(side.hashes),
                side.dropped, side.errored.astype(small),
                items if len(side.errored) == 0 else side.attempted.astype(small))


class ReducedGroups(FastGroups):
    """:class:`FastGroups` over the workers' sides: item labels coded over all sides, a group at a
    time as the groups arrive (:class:`_LabelCoder`); each group's own codes and labels are
    released once mapped, so the driver holds the sides and the distinct labels, never every
    group's labels at once.  ``parts`` may be an iterator (the groups as the workers finish them)."""

    def __init__(self, parts: Iterable[GroupSides]) -> None:
        from evaladdon._util.memory import give_back

        coder = _LabelCoder()
        self._sides: dict[tuple[str, str, str], Side] = {}
        self._models: dict[str, Any] = {}
        labels: dict[tuple[Any, ...], None] = {}
        for p in parts:
            if not p.labels:
                continue
            remap = coder.code(p.item_labels)
            for key, s in p.sides.items():  # each group's codes mapped onto the codes of all
                items = remap[s.items]
                self._sides[key] = dataclasses.replace(
                    s, items=items, errored=remap[s.errored],
                    attempted=items if s.attempted is s.items else remap[s.attempted])  # unique, in any order
            p.sides, p.item_labels = {}, NONE  # the group's own codes and labels: released once mapped
            for r, m in p.models.items():
                self._models.setdefault(r, m)  # the first file's
            labels.update(dict.fromkeys(p.labels))
            del remap, p
        self.item_labels = coder.labels()
        del coder
        give_back()  # pyarrow's hash tables and the groups' labels
        self._keys: dict[str, list[tuple[str, str]]] = {}
        for run, task, name in self._sides:
            self._keys.setdefault(run, []).append((task, name))
        self._labels = list(labels)

    def model_of(self, run: Any) -> Any:
        return self._models[run]

    def side(self, run: str, task: str, metric: str) -> Side:
        return self._sides[(run, task, metric)]

    def info(self) -> RunInfo:
        from evaladdon.table.names import run_info

        return run_info(self._labels)


class _LabelCoder:
    """Codes of item labels over groups that arrive one at a time, in order of first appearance
    (the codes one ``dictionary_encode`` of all groups' labels in order gave): a group's labels
    equal to the previous group's (the same items in every run, as checkpoints of one benchmark
    have) take the previous codes after one comparison; other labels are looked up in the labels
    so far (``pc.index_in``) and the new ones appended.  Labels that are not strings (only a store
    that is not canonical has them) make the route decline."""

    def __init__(self) -> None:
        self.chunks: list[Any] = []  # the distinct labels so far, Arrow large_string arrays
        self.n = 0
        self.last: Any = None
        self.last_remap: np.ndarray = np.empty(0, dtype=np.int32)

    def code(self, labels: Any) -> np.ndarray:
        import pyarrow as pa
        import pyarrow.compute as pc

        from evaladdon.routes.results import Decline

        try:
            labels = pa.array(labels, type=pa.large_string()) if isinstance(labels, np.ndarray) else \
                labels.cast(pa.large_string())
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
            raise Decline("item labels that are not strings") from None
        if self.last is not None and len(labels) == len(self.last) and labels.equals(self.last):
            return self.last_remap
        if self.n:
            known = pa.concat_arrays(self.chunks) if len(self.chunks) > 1 else self.chunks[0]
            self.chunks = [known]
            idx = pc.index_in(labels, value_set=known)
            added = labels.filter(idx.is_null())
            codes = idx.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
        else:
            added, codes = labels, np.full(len(labels), -1, dtype=np.int64)
        fresh = codes < 0
        codes[fresh] = self.n + np.arange(int(fresh.sum()))
        if len(added):
            self.chunks.append(added)
            self.n += len(added)
        small = np.int32 if self.n < 2**31 else np.int64
        self.last, self.last_remap = labels, codes.astype(small)
        return self.last_remap

    def labels(self) -> np.ndarray:
        """The distinct labels in code order, as an object array."""
        import pyarrow as pa

        if not self.chunks:
            return NONE
        whole = pa.concat_arrays(self.chunks) if len(self.chunks) > 1 else self.chunks[0]
        return whole.to_numpy(zero_copy_only=False)  # type: ignore[no-any-return]


class _Seen:
    """What the driver learns of the groups as they pass (their sides are folded in and dropped):
    any rows, the metrics, whether every value is in [0, 1]; a group that is not a canonical
    store's makes the route decline at once."""

    def __init__(self) -> None:
        self.rows = False
        self.bounded = True
        self.metrics: list[str] = []

    def watch(self, parts: Iterator[GroupSides]) -> Iterator[GroupSides]:
        from evaladdon.routes.results import Decline

        for p in parts:
            if not p.ok:
                raise Decline("rows that are not a canonical store's, or a query DuckDB refuses")
            self.rows = self.rows or bool(p.labels)
            self.bounded = self.bounded and p.bounded
            self.metrics += p.metrics
            yield p
            del p


def compare(opts: CompareOptions, limits: RouteLimits) -> Comparisons:
    """``compare --store --engine dask`` (module doc); declines when the store must be read as a table."""
    from evaladdon.routes.dask import dask_client, lazy_submitter
    from evaladdon.routes.results import Comparisons, Decline
    from evaladdon.routes.store_arrays import FastStore
    from evaladdon.store.chunks import file_groups
    from evaladdon.store.query import _may_clash, select
    from evaladdon.table.checks import check_metric_name
    from evaladdon.table.loaded import Loaded

    i = opts.inputs
    sel = select(str(i.store), i.where)
    if _may_clash(sel.manifest, sel.files):
        raise Decline("a run's (task, metric) may lie in two stored logs")
    with dask_client(i.scheduler) as client:
        threads = sum(int(w.get("nthreads", 1)) for w in client.scheduler_info()["workers"].values())
        total = sum(int(e.get("n_rows", 0)) for e in sel.entries())
        # groups of at most a tenth of store_group_rows (200k rows by default), and fewer rows when
        # that gives each thread two groups: a worker's peak is its group's rows as arrays (~120
        # bytes a row), while what it sends is per item whatever the group's size
        per_group = min(limits.store_group_rows // 10, -(-total // (2 * max(threads, 1))))
        groups = file_groups(sel, max(1, per_group))
        jobs = [(str(i.store), i.where, i.metric, [str(f) for f in g]) for g in groups]
        seen = _Seen()
        # each group's sides folded in as it arrives (lazy_submitter): never every group's at once
        reduced = ReducedGroups(seen.watch(lazy_submitter(client)(reduce_group, jobs)))
    if not seen.rows:
        raise Decline("no rows")
    check_metric_name(i.metric, lambda: list(dict.fromkeys(seen.metrics)))
    fast = FastStore(reduced, sel.notes(), seen.bounded, sel.declared())
    skipped: list[Any] = []
    results = fast.compare(opts.baseline, opts.all_pairs, **opts.pairing(), skipped=skipped, needs=opts.needs)
    return Comparisons(results, Loaded(None, list(fast.notes)), all(r.points for r in results), skipped)  # type: ignore[arg-type]
