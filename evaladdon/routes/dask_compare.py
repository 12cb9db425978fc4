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
the freed rows back to the OS before its next group.  The driver codes the groups' item labels
once (pyarrow's hash) and maps each group's codes onto them and runs the ``store_arrays``
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
from typing import TYPE_CHECKING, Any, Sequence

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
        import pyarrow as pa

        groups.item_labels = item_labels.take(pa.array(groups.item_labels))
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
    """:class:`FastGroups` over the workers' sides: item labels coded once over all sides."""

    def __init__(self, parts: list[GroupSides]) -> None:
        from evaladdon._util.memory import give_back

        remaps, self.item_labels = _all_labels([p.item_labels for p in parts])
        self._sides: dict[tuple[str, str, str], Side] = {}
        small = np.int32 if len(self.item_labels) < 2**31 else np.int64
        for p, remap in zip(parts, remaps, strict=True):  # each group's codes mapped onto the codes of all
            remap = remap.astype(small, copy=False)
            for key, s in p.sides.items():
                items = remap[s.items]
                self._sides[key] = dataclasses.replace(
                    s, items=items, errored=remap[s.errored],
                    attempted=items if s.attempted is s.items else remap[s.attempted])  # unique, in any order
            p.sides, p.item_labels = {}, NONE  # the group's own codes and labels: released once mapped
        del remaps
        give_back()  # pyarrow's hash table and codes of all groups' labels
        sides = self._sides
        self._keys: dict[str, list[tuple[str, str]]] = {}
        for run, task, name in sides:
            self._keys.setdefault(run, []).append((task, name))
        self._models = {r: m for p in reversed(parts) for r, m in p.models.items()}  # the first file's
        self._labels = list(dict.fromkeys(t for p in parts for t in p.labels))

    def model_of(self, run: Any) -> Any:
        return self._models[run]

    def side(self, run: str, task: str, metric: str) -> Side:
        return self._sides[(run, task, metric)]

    def info(self) -> RunInfo:
        from evaladdon.table.names import run_info

        return run_info(self._labels)


def _all_labels(every: list[Any]) -> tuple[list[np.ndarray], np.ndarray]:
    """Each group's codes of its item labels into the labels of all groups (coded once, in order
    of first appearance), and those labels: hashed by pyarrow when every group sent an Arrow
    array (each group's codes as they come, never all groups' together), else as object
    arrays (:func:`_codes`)."""
    if every and all(not isinstance(e, np.ndarray) for e in every):
        import pyarrow as pa
        import pyarrow.compute as pc

        coded = pc.dictionary_encode(pa.chunked_array(every, type=pa.large_string()))
        del every[:]
        return ([ch.indices.to_numpy() for ch in coded.chunks],
                coded.chunk(0).dictionary.to_numpy(zero_copy_only=False))
    plain = [e if isinstance(e, np.ndarray) else e.to_numpy(zero_copy_only=False) for e in every]
    codes, labels = _codes(np.concatenate(plain) if plain else NONE)
    return np.split(codes, np.cumsum([len(e) for e in plain])[:-1]) if plain else [], labels


def compare(opts: CompareOptions, limits: RouteLimits) -> Comparisons:
    """``compare --store --engine dask`` (module doc); declines when the store must be read as a table."""
    from evaladdon.routes.dask import dask_client, submitter
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
        parts = list(submitter(client)(reduce_group, jobs))
    if not all(p.ok for p in parts) or not any(p.labels for p in parts):
        raise Decline("rows that are not a canonical store's, a query DuckDB refuses, or no rows")
    check_metric_name(i.metric, lambda: list(dict.fromkeys(m for p in parts for m in p.metrics)))
    fast = FastStore(ReducedGroups([p for p in parts if p.labels]), sel.notes(), all(p.bounded for p in parts),
                     sel.declared())
    skipped: list[Any] = []
    results = fast.compare(opts.baseline, opts.all_pairs, **opts.pairing(), skipped=skipped, needs=opts.needs)
    return Comparisons(results, Loaded(None, list(fast.notes)), all(r.points for r in results), skipped)  # type: ignore[arg-type]
