"""The ``store_arrays`` route: ``compare --store`` without pandas, for the common case.

Why a second way to read a store: in a fresh process, importing pandas (with pyarrow, ~1 s
on the benchmark machine) was half of a 2 s ``compare`` of two checkpoints out of a
1,000-run store, whose own work is ~0.3 s.  DuckDB gives the selected rows as numpy arrays
without pandas (``fetchnumpy``), and the statistics core takes numpy arrays.

The paired arrays are the table path's by construction: usable rows by the same rule, each
item's mean over epochs by the same kernel (:func:`evaladdon.stats.item_table.item_table`),
its cluster and hash the first present, A's items in A's order and B's values at them, the same
checks and messages as :func:`evaladdon.analysis.compare_table.align_sides`.  The run names, the pairing
loop, the records and the output are the shared ones (:mod:`evaladdon.table.names`,
:mod:`evaladdon.analysis.compare`).  Anything else -- a run's (task, metric) in two logs, ``--cluster``
at query time, a metric family, ``--engine dask``, no rows, a repeated (item, epoch), a
selection above ``RouteLimits.store_array_rows`` rows, a query DuckDB refuses -- declines and
the table route runs (and gives its own errors).  ``tests/routes/test_store_fast_compare.py`` holds the text,
markdown and JSON output equal to the table path's and checks that pandas is not imported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from evaladdon.analysis.options import Margin
from evaladdon.analysis.results import Alignment
from evaladdon.errors import EvalAddonError
from evaladdon.analysis.compare import Paired, compare_groups, finish_comparisons, why_unpaired_text
from evaladdon.table.codes import first_present
from evaladdon.table.scale import unit_interval
from evaladdon.table.names import COMPARE_NEEDS, RunInfo, choose_pairs, run_info
from evaladdon.stats._base.checks import first_appearance
from evaladdon.stats.item_means import item_table
from evaladdon.table.errored import errored_mask
from evaladdon.table.usable import unusable

if TYPE_CHECKING:  # pragma: no cover
    from evaladdon.analysis.options import CompareOptions
    from evaladdon.analysis.options import RouteLimits
    from evaladdon.routes.results import Comparisons

COLUMNS = ("run", "model", "task", "metric", "source", "item", "epoch", "value", "error", "cluster", "item_hash")


@dataclass
class Side:
    """One run's usable rows of a (task, metric) as items (in order of first appearance): item
    codes, means over epochs, numbers of epochs, clusters and content hashes (the first of the
    item's rows that has one, else None), and the rows left out by reason."""

    items: np.ndarray
    values: np.ndarray
    n_epochs: np.ndarray
    clusters: np.ndarray
    hashes: np.ndarray
    dropped: dict[str, int]
    errored: np.ndarray  # item codes (of the selection) with an errored row (evaladdon.table.errored)
    attempted: np.ndarray  # item codes scored or errored


def _plain(a: Any, fill: Any) -> np.ndarray:
    """A DuckDB ``fetchnumpy`` column as a plain array, NULLs as ``fill``."""
    if isinstance(a, np.ma.MaskedArray):
        mask = np.ma.getmaskarray(a)
        a = a.data.copy()
        if mask.any():
            a[mask] = fill
    return np.asarray(a)


def _codes(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(codes, labels) of a column without missing values, labels in order of first appearance
    (as pandas' factorize).  A column that changes value in few places (run, model, task,
    metric, source: one value per stored log, rows of a log together) is coded by its runs of
    equal values, without sorting every row's string."""
    n = len(a)
    if n > 1 and a.strides == (0,):  # one value broadcast (routes.store_columns): one code
        return np.zeros(n, dtype=np.int64), a[:1].copy()
    change = np.flatnonzero(a[1:] != a[:-1]) + 1 if n else np.zeros(0, dtype=np.int64)
    if len(change) < n // 64:
        starts = np.concatenate(([0], change))
        seen: dict[Any, int] = {}
        head_codes = np.array([seen.setdefault(v, len(seen)) for v in a[starts].tolist()], dtype=np.int64)
        labels = np.empty(len(seen), dtype=object)
        labels[:] = list(seen)
        return np.repeat(head_codes, np.diff(np.append(starts, n))), labels
    return first_appearance(a)


def sorted_unique(a: np.ndarray) -> np.ndarray:
    """``np.unique(a)`` of integer codes by one sort: numpy 2.4's ``np.unique`` hashes, ~10x
    slower on 150k codes (23 ms against 2 ms), and ``union1d``/``intersect1d`` call it."""
    a = np.sort(a)
    return a[np.concatenate(([True], a[1:] != a[:-1]))] if len(a) else a


class FastGroups:
    """The (run, task, metric) groups of the selected rows, for :func:`compare_groups`;
    ``names``: the runs the user named (``NAME=PATH``, :func:`~evaladdon.table.names.labels_of`)."""

    def __init__(self, cols: dict[str, np.ndarray], metric: str | None, names: dict[str, str] | None = None) -> None:
        self.cols = cols
        self.names = names or {}
        key_c, firsts = _combined(cols, ("run", "task", "metric"))
        order = np.argsort(key_c, kind="stable")
        bounds = np.cumsum(np.bincount(key_c, minlength=len(firsts)))[:-1]
        self._rows: dict[tuple[str, str, str], np.ndarray] = {}
        self._keys: dict[str, list[tuple[str, str]]] = {}
        self._first: dict[str, int] = {}
        for at, rows in zip(firsts.tolist(), np.split(order, bounds), strict=True):
            run, task, name = (str(cols[c][at]) for c in ("run", "task", "metric"))
            if metric is not None and name != metric:
                continue
            self._first.setdefault(run, at)  # the model of a run's first row of the metric compared
            self._rows[(run, task, name)] = rows
            self._keys.setdefault(run, []).append((task, name))
        self.item_codes, self.item_labels = _codes(cols["item"])
        self._group_codes = key_c
        self._sides: dict[tuple[str, str, str], Side] = {}

    def rows_unique(self) -> bool:
        """Whether no (run, task, metric, item, epoch) occurs twice (else the table path
        refuses the rows with its own message)."""
        epoch_c, _ = _codes(self.cols["epoch"])
        n_epochs = int(epoch_c.max()) + 1
        keys = np.sort((self._group_codes * (int(self.item_codes.max()) + 1) + self.item_codes) * n_epochs + epoch_c)
        return not bool((keys[1:] == keys[:-1]).any())

    def keys_of(self, run: Any) -> list[tuple[Any, Any]]:
        return self._keys.get(run, [])

    def model_of(self, run: Any) -> Any:
        return self.cols["model"][self._first[run]]

    def side(self, run: str, task: str, metric: str) -> Side:
        key = (run, task, metric)
        if key not in self._sides:
            rows = self._rows[key]
            error = self.cols["error"][rows]  # str or None (DuckDB's NULL)
            has_error = np.not_equal(error, None)  # type: ignore[call-overload]
            bad, dropped = unusable(self.cols["value"][rows], error, has_error)
            good = rows[~bad]
            errored = sorted_unique(self.item_codes[rows[errored_mask(error, has_error)]])
            local, labels = _codes(self.item_codes[good])  # items in order of first appearance
            t = item_table(local, self.cols["value"][good])
            k = len(labels)
            self._sides[key] = Side(labels.astype(np.int64), t.mean, t.n_rows,
                                    first_present(local, k, self.cols["cluster"][good]),
                                    first_present(local, k, self.cols["item_hash"][good]), dropped, errored,
                                    sorted_unique(np.concatenate((labels.astype(np.int64), errored))))
        return self._sides[key]

    def errored(self, run_a: str, run_b: str, task: str, metric: str) -> tuple[np.ndarray, np.ndarray]:
        """Whether each item both runs attempted errored in A and in B (``_Pairs.errored``)."""
        sa, sb = self.side(run_a, task, metric), self.side(run_b, task, metric)
        shared = np.intersect1d(sa.attempted, sb.attempted, assume_unique=True)  # both sorted, unique
        return np.isin(shared, sa.errored), np.isin(shared, sb.errored)

    def pair(self, run_a: str, run_b: str, task: str, metric: str, strict: bool) -> Paired:
        """:func:`evaladdon.analysis.compare_table.align_sides` on the two sides (same checks, messages)."""
        where = f"task {task!r}, metric {metric!r}, runs {run_a!r} vs {run_b!r}"
        sa, sb = self.side(run_a, task, metric), self.side(run_b, task, metric)
        in_b = np.isin(sa.items, sb.items)
        if not in_b.any():
            raise EvalAddonError(f"{where}: no items in common; nothing to pair")
        at_a = np.flatnonzero(in_b)  # A's order
        sorter = np.argsort(sb.items, kind="stable")
        at_b = sorter[np.searchsorted(sb.items, sa.items[at_a], sorter=sorter)]
        shared_labels = self.item_labels[sa.items[at_a]]
        ha, hb = sa.hashes[at_a], sb.hashes[at_b]
        both = np.not_equal(ha, None) & np.not_equal(hb, None)  # type: ignore[call-overload]
        mismatch = both & (ha != hb)
        examples = tuple(str(i) for i in shared_labels[mismatch][:5])
        if mismatch.any() and strict:
            raise EvalAddonError(
                f"{where}: {int(mismatch.sum())} shared item(s) have different content hashes (e.g. {', '.join(examples)}); "
                "refusing to pair them (--strict)"
            )
        ca, cb = sa.clusters[at_a], sb.clusters[at_b]
        has_a, has_b = np.not_equal(ca, None), np.not_equal(cb, None)  # type: ignore[call-overload]
        cluster = np.where(has_a, ca, cb)
        clash = has_a & has_b & (ca != cb)
        if clash.any():
            raise EvalAddonError(f"{where}: item {shared_labels[clash][0]!r} has different clusters in the two runs")
        present = has_a | has_b
        if present.any() and not present.all():
            raise EvalAddonError(f"{where}: {int((~present).sum())} shared item(s) have no cluster id")
        alignment = Alignment(
            n_shared=len(at_a),
            only_a=int(len(sa.items) - len(at_a)),
            only_b=int(len(sb.items) - len(at_a)),
            hash_mismatch=int(mismatch.sum()),
            hash_mismatch_examples=examples,
            dropped_a=sa.dropped,
            dropped_b=sb.dropped,
            one_epoch=bool(sa.n_epochs.max() == 1 and sb.n_epochs.max() == 1),
        )
        # clusters as first-appearance codes: the same codes the stats core makes of the labels
        # (pd.factorize), without importing pandas to make them
        return Paired(sa.values[at_a], sb.values[at_b], first_appearance(cluster)[0] if present.all() else None,
                      alignment)

    def why_unpaired(self, run_a: str, run_b: str, task: str, metric: str, exc: EvalAddonError) -> str:
        sides = [(len(s.items), s.dropped) for s in (self.side(run_a, task, metric), self.side(run_b, task, metric))]
        return why_unpaired_text(exc, sides)

    def info(self) -> RunInfo:
        """The runs, their labels, first models and sources (table order)."""
        _, firsts = _combined(self.cols, ("run", "model", "task", "source"))
        columns = ("run", "model", "task", "source")
        return run_info(list(zip(*(self.cols[c][firsts].tolist() for c in columns), strict=True)), self.names)


def _combined(cols: dict[str, np.ndarray], names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Codes of the combinations of ``names`` (in order of first appearance) and the first row
    of each combination."""
    codes, labels = _codes(cols[names[0]])
    for name in names[1:]:
        more, more_labels = _codes(cols[name])
        codes = _codes(codes * len(more_labels) + more)[0]
    firsts = np.full(int(codes.max()) + 1 if len(codes) else 0, len(codes), dtype=np.int64)
    np.minimum.at(firsts, codes, np.arange(len(codes)))
    return codes, firsts


@dataclass
class FastStore:
    """The selected rows of a store, ready to compare without pandas."""

    groups: FastGroups
    notes: list[str]
    bounded: bool
    declared: dict[str, dict[str, bool]] = field(default_factory=dict)
    """The directions the logs declare (:mod:`evaladdon.table.direction`)."""

    def compare(self, baseline: str | None, all_pairs: bool, *, level: float, test: str, interval: str,
                cluster_method: str, strict: bool, adjust: str, margin: Margin, seed: int | None,
                skipped: list[Any] | None, needs: str = COMPARE_NEEDS, better: str | None = None) -> list[Any]:
        """``compare_table`` of the rows (``choose_pairs`` first, as the command does; ``needs`` its
        refusal's end, :func:`~evaladdon.table.names.pairs_needed`)."""
        info = self.groups.info()
        pairs = choose_pairs(info, baseline, all_pairs, needs)
        results, missed = compare_groups(self.groups, pairs, info.labels, level=level, test=test, interval=interval,
                                         cluster_method=cluster_method, strict=strict, margin=margin, seed=seed,
                                         raise_first=skipped is None, declared=self.declared, better=better)
        return finish_comparisons(results, missed, skipped, adjust)


def fast_store(root: str, where: str | None, metric: str | None,
               check_metric_name: Any, max_rows: int) -> FastStore | None:
    """The selection as a :class:`FastStore`, or None when the table path must read it."""
    import duckdb

    from evaladdon.store.query import _may_clash, connect, select, select_sql

    sel = select(root, where)
    entries = sel.entries()
    if sum(int(e.get("n_rows", max_rows + 1)) for e in entries) > max_rows or _may_clash(sel.manifest, sel.files):
        return None
    con = connect(sel.files)
    try:
        got = con.sql(select_sql(sel.files, sel.where, ", ".join(f'"{c}"' for c in COLUMNS))).fetchnumpy()
    except duckdb.Error:
        return None
    finally:
        con.close()
    cols = {c: _plain(got[c], np.nan if c == "value" else None) for c in COLUMNS}
    if len(cols["run"]) == 0 or cols["value"].dtype != np.float64:
        return None
    check_metric_name(metric, lambda: list(dict.fromkeys(_codes(cols["metric"])[1].tolist())))
    try:
        groups = FastGroups(cols, metric)
    except TypeError:  # a None among labels (np.unique cannot sort it): not a canonical store
        return None
    if not groups.rows_unique():
        return None
    bounded = unit_interval(cols["value"] if metric is None else cols["value"][cols["metric"] == metric])
    return FastStore(groups, sel.notes(), bounded, sel.declared())


# ---------------------------------------------------------------- the route


def compare(opts: CompareOptions, limits: RouteLimits) -> Comparisons:
    """``compare --store`` from DuckDB's arrays; declines (then the store is read as a table) on
    a large selection, a query DuckDB refuses, or rows that are not a canonical store's."""
    from evaladdon.routes.results import Comparisons, Decline
    from evaladdon.table.checks import check_metric_name
    from evaladdon.table.loaded import Loaded

    i = opts.inputs
    fast = fast_store(str(i.store), i.where, i.metric, check_metric_name, max_rows=limits.store_array_rows)
    if fast is None:
        raise Decline("a large selection, a query DuckDB refuses, or rows that are not a canonical store's")
    skipped: list[Any] = []
    results = fast.compare(opts.baseline, opts.all_pairs, **opts.pairing(), skipped=skipped, needs=opts.needs)
    return Comparisons(results, Loaded(None, list(fast.notes)), all(r.points for r in results), skipped)  # type: ignore[arg-type]
