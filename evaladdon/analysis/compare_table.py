"""Paired comparisons of runs in a canonical table: alignment on items, then statistics.

Two runs are paired on (task, metric, item) after averaging epochs within each item.  Items
only in one run are counted and left out; items whose content hash differs are paired with
a warning (or refused with ``strict``); nothing different is paired silently.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
import pandas as pd

from evaladdon.analysis.options import Margin
from evaladdon.errors import EvalAddonError
from evaladdon.analysis.results import Alignment, RunComparison, Skipped  # noqa: F401 - re-exported
from evaladdon.analysis.compare import Paired, compare_groups, finish_comparisons, why_unpaired_text  # noqa: F401
from evaladdon.stats.item_means import item_table as per_item
from evaladdon.table.codes import first_present  # noqa: F401 - its old place
from evaladdon.table.codes import first_present_in, group_positions, values_at
from evaladdon.table.columns import _is_none
from evaladdon.table.direction import declared_in
from evaladdon.table.errored import apply_policy, errored_mask
from evaladdon.table.usable import usable_rows
from evaladdon.table.names import choose_pairs_in as choose_pairs  # noqa: F401 - the names on a table
from evaladdon.table.names import resolve_run_in as resolve_run  # noqa: F401
from evaladdon.table.names import run_order_in as run_order  # noqa: F401
from evaladdon.table.names import runs_in as run_info  # noqa: F401
from evaladdon.table import GROUP, run_labels


def item_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per-item mean over epochs, epoch count, cluster and content hash (the first of each
    item's rows that has one), items in order of first appearance
    (:func:`evaladdon.stats.item_table.item_table`: pandas' group-by mean, bit for bit)."""
    return coded_item_table(rows, None)[0]


def coded_item_table(rows: pd.DataFrame, item_codes: np.ndarray | None) -> tuple[pd.DataFrame, np.ndarray | None]:
    """:func:`item_table`, and each item's code when ``item_codes`` gives the rows' items as
    integer codes already (equal code = equal item; the whole table's, found once): then they
    are factorized as integers and the labels taken at each item's first row, instead of
    hashing the item strings again."""
    if item_codes is None:
        codes, uniques = pd.factorize(rows["item"])
        index, own = pd.Index(uniques, name="item"), None
    elif _distinct(item_codes):  # one row per item (one epoch): pd.factorize's codes are 0..n-1
        codes, own = np.arange(len(item_codes), dtype=np.int64), np.asarray(item_codes, dtype=np.int64)
        index = pd.Index(rows["item"].array, name="item")
    else:
        codes, own = pd.factorize(item_codes)
        first = np.unique(codes, return_index=True)[1] if len(codes) else np.zeros(0, dtype=np.int64)
        index = pd.Index(rows["item"].array.take(first), name="item")
        own = np.asarray(own, dtype=np.int64)
    t = per_item(codes, rows["value"].to_numpy(dtype=float))
    return pd.DataFrame({"value": t.mean, "n_epochs": t.n_rows,
                         "cluster": first_present_in(codes, len(index), rows["cluster"]),
                         "item_hash": first_present_in(codes, len(index), rows["item_hash"])},
                        index=index, copy=False), own  # fresh arrays: no copy, no consolidation


def _distinct(codes: np.ndarray) -> bool:
    """Whether the non-negative integer ``codes`` all differ (one ``bincount``, no hash table)."""
    if len(codes) < 2:
        return len(codes) == 0 or int(codes[0]) >= 0
    if int(codes[0]) >= 0 and bool((codes[1:] > codes[:-1]).all()):  # ascending: no bincount needed
        return True
    return int(codes.min()) >= 0 and int(np.bincount(codes).max()) == 1


def align_runs(
    df: pd.DataFrame, run_a: str, run_b: str, task: str, metric: str, strict: bool = False
) -> tuple[pd.DataFrame, Alignment]:
    """Shared items of two runs for one (task, metric): columns a, b, cluster."""
    sel = (df["task"] == task) & (df["metric"] == metric)
    return align_rows(df[sel & (df["run"] == run_a)], df[sel & (df["run"] == run_b)], run_a, run_b, task, metric,
                      strict)


@dataclass(frozen=True)
class Side:
    """One run's rows of a (task, metric), ready to pair: its per-item table (:func:`item_table`
    of the usable rows), the rows left out, by reason, the items with an errored row
    (:mod:`evaladdon.table.errored`; under ``--errors fail`` they are among the usable items too), and
    (when known) the items' integer codes in the table they came from, ``space`` (the table's codes
    array: two sides of one table are aligned on their codes, without hashing the items)."""

    items: pd.DataFrame
    dropped: dict[str, int]
    errored: pd.Index = field(default_factory=lambda: pd.Index([]))
    codes: np.ndarray | None = None
    space: np.ndarray | None = None


def side_of(rows: pd.DataFrame, errors: str = "exclude", item_codes: np.ndarray | None = None,
            fill: float = 0.0) -> Side:
    """:class:`Side` of one run's rows of a (task, metric) under the policy ``errors`` (``fail``:
    errored rows scored ``fill``, 0 unless the worst/best case of ``--errors bounds`` asks for 1);
    ``item_codes``: integer codes of the table's items indexed by row label (``rows``' index), see
    :func:`item_table`."""
    has_error = rows["error"].notna().to_numpy()
    if not has_error.any() and bool(np.isfinite(rows["value"].to_numpy(dtype=float)).all()):
        # the usual group: every row usable, none errored (no object array of the errors, no copy)
        dropped: dict[str, int] = {}
        good, errored = rows, np.zeros(len(rows), dtype=bool)
    else:
        error = rows["error"].to_numpy(dtype=object)
        errored = errored_mask(error, has_error)
        if errors == "fail" and errored.any():
            values, error, has_error, _ = apply_policy(rows["value"].to_numpy(dtype=float), error, has_error, "fail",
                                                  fill=fill)
            rows = rows.assign(value=values, error=error)
        good, dropped = usable_rows(rows)
    items, codes = coded_item_table(good, None if item_codes is None else item_codes[_positions(good.index)])
    errored_items = np.asarray(rows["item"].array.take(np.flatnonzero(errored)), dtype=object)
    return Side(items, dropped, pd.Index(pd.unique(errored_items)), codes, item_codes)


def _positions(index: pd.Index) -> np.ndarray | slice:
    """Row labels as what indexes an array: a slice for a range (a group's contiguous rows)."""
    if isinstance(index, pd.RangeIndex) and index.step == 1:
        return slice(index.start, index.stop)
    return index.to_numpy()


def align_rows(
    rows_a: pd.DataFrame, rows_b: pd.DataFrame, run_a: str, run_b: str, task: str, metric: str, strict: bool = False
) -> tuple[pd.DataFrame, Alignment]:
    """:func:`align_runs` given each run's rows of the (task, metric) (in table order)."""
    return align_sides(side_of(rows_a), side_of(rows_b), run_a, run_b, task, metric, strict)


def shared_positions(items_a: pd.Index, items_b: pd.Index) -> tuple[np.ndarray, np.ndarray]:
    """Positions in ``items_a`` and ``items_b`` (each of distinct items) of the items both hold,
    in ``items_a``'s order: one hash of the items of both (``pd.factorize``), then a numpy join
    on the integer codes (``Index.intersection`` and two ``.loc`` hashed them three times)."""
    na = len(items_a)
    codes, uniques = pd.factorize(items_a.append(items_b) if len(items_b) else items_a, use_na_sentinel=False)
    at_b = np.full(len(uniques), -1, dtype=np.int64)
    at_b[codes[na:]] = np.arange(len(items_b))
    in_b = at_b[codes[:na]]
    at_a = np.flatnonzero(in_b >= 0)
    return at_a, in_b[at_a]


def shared_codes(codes_a: np.ndarray, codes_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`shared_positions` of items given as integer codes of one table (no hash at all)."""
    if codes_a.shape == codes_b.shape and np.array_equal(codes_a, codes_b):  # the same items in the same order
        every = np.arange(len(codes_a), dtype=np.int64)  # (codes of distinct items: each is at its own position)
        return every, every
    top = int(max(codes_a.max(initial=-1), codes_b.max(initial=-1))) + 1
    at_b = np.full(top, -1, dtype=np.int64)
    at_b[codes_b] = np.arange(len(codes_b))
    in_b = at_b[codes_a]
    at_a = np.flatnonzero(in_b >= 0)
    return at_a, in_b[at_a]


def shared_items(side_a: Side, side_b: Side) -> tuple[np.ndarray, np.ndarray]:
    """Positions in each side's item table of the items both hold, in A's order: on the
    table's integer codes when both sides come from one table (:func:`shared_codes`), else on
    one hash of both sides' items (:func:`shared_positions`)."""
    if side_a.codes is not None and side_b.codes is not None and side_a.space is side_b.space:  # one table
        return shared_codes(side_a.codes, side_b.codes)
    return shared_positions(side_a.items.index, side_b.items.index)


def align_sides(
    side_a: Side, side_b: Side, run_a: str, run_b: str, task: str, metric: str, strict: bool = False
) -> tuple[pd.DataFrame, Alignment]:
    """:func:`align_runs` given each run's :class:`Side`: the shared items in A's order, found on
    integer codes (:func:`shared_positions`)."""
    where = f"task {task!r}, metric {metric!r}, runs {run_a!r} vs {run_b!r}"
    ia, ib = side_a.items, side_b.items
    dropped_a, dropped_b = side_a.dropped, side_b.dropped
    at_a, at_b = shared_items(side_a, side_b)
    if len(at_a) == 0:
        raise EvalAddonError(f"{where}: no items in common; nothing to pair")
    whole_a, whole_b = _everything(at_a, len(ia)), _everything(at_b, len(ib))
    shared = ia.index if whole_a else ia.index[at_a]
    ha, hb = _shared_values(ia["item_hash"], at_a), _shared_values(ib["item_hash"], at_b)
    mismatch = (np.zeros(len(at_a), dtype=bool) if ha is None or hb is None
                else _differ(ha, hb, pd.notna(ha) & pd.notna(hb)))
    examples = tuple(str(i) for i in shared[mismatch][:5])
    if mismatch.any() and strict:
        raise EvalAddonError(
            f"{where}: {int(mismatch.sum())} shared item(s) have different content hashes (e.g. {', '.join(examples)}); "
            "refusing to pair them (--strict)"
        )
    ca, cb = _shared_values(ia["cluster"], at_a), _shared_values(ib["cluster"], at_b)
    if ca is None and cb is None:  # neither run has a cluster id (no pass over the items)
        cluster = np.full(len(at_a), None, dtype=object)
    else:
        ca = np.full(len(at_a), None, dtype=object) if ca is None else ca
        cb = np.full(len(at_b), None, dtype=object) if cb is None else cb
        has_a, has_b = pd.notna(ca), pd.notna(cb)
        cluster = np.where(has_a, ca, cb)
        clash = _differ(ca, cb, has_a & has_b)
        if clash.any():
            raise EvalAddonError(f"{where}: item {shared[clash][0]!r} has different clusters in the two runs")
        present = has_a | has_b
        if present.any() and not present.all():
            raise EvalAddonError(f"{where}: {int((~present).sum())} shared item(s) have no cluster id")
    one_epoch = bool(ia["n_epochs"].max() == 1 and ib["n_epochs"].max() == 1)
    aligned = pd.DataFrame({"a": ia["value"].to_numpy() if whole_a else ia["value"].to_numpy()[at_a],
                            "b": ib["value"].to_numpy() if whole_b else ib["value"].to_numpy()[at_b],
                            "cluster": cluster}, index=shared, copy=False)  # (read-only views: pandas' CoW)
    alignment = Alignment(
        n_shared=len(shared),
        only_a=int(len(side_a.items) - len(shared)),  # the item table has one row per distinct item
        only_b=int(len(side_b.items) - len(shared)),
        hash_mismatch=int(mismatch.sum()),
        hash_mismatch_examples=examples,
        dropped_a=dropped_a,
        dropped_b=dropped_b,
        one_epoch=one_epoch,
    )
    return aligned, alignment


def _everything(at: np.ndarray, n: int) -> bool:
    """Whether the distinct positions ``at`` are ``0..n-1`` in order (every item: no take needed)."""
    return len(at) == n and (n == 0 or int(at[0]) == 0 and int(at[-1]) == n - 1 and bool((at[1:] > at[:-1]).all()))


def _shared_values(column: pd.Series, at: np.ndarray) -> np.ndarray | None:
    """``column``'s values (object) at the shared items' positions ``at``; ``None`` when the
    column holds ``None`` in every row (told by one pass over its pointers, no copy)."""
    values = column.to_numpy(dtype=object)
    if values.dtype == object and values.size and bool(_is_none(values).all()):
        return None
    return values[at]


def _differ(x: np.ndarray, y: np.ndarray, both: np.ndarray) -> np.ndarray:
    """``both & (x != y)`` for object arrays, comparing only where ``both`` holds (no Python
    comparison a row for a million items that have no hash or cluster)."""
    out = np.zeros(len(both), dtype=bool)
    if both.any():
        out[both] = np.asarray(x[both] != y[both], dtype=bool)
    return out


def _why_unpaired(rows_a: pd.DataFrame, rows_b: pd.DataFrame, exc: EvalAddonError) -> str:
    """The reason a (task, metric) could not be paired, in the user's terms (``rows_a``,
    ``rows_b``: each run's rows of it)."""
    sides = []
    for rows in (rows_a, rows_b):
        good, dropped = usable_rows(rows)
        sides.append((len(good), dropped))
    return why_unpaired_text(exc, sides)


ALIGN_COLUMNS = ("item", "value", "error", "cluster", "item_hash")
"""The columns :func:`align_rows` reads (taking the others for each pair costs time)."""


class _Pairs:
    """``pair`` and ``why_unpaired`` (:mod:`evaladdon.analysis.compare`) from a class's ``side`` and ``rows``."""

    def pair(self, run_a: Any, run_b: Any, task: Any, metric: Any, strict: bool) -> Paired:
        return paired_of(self, run_a, run_b, task, metric, strict)  # type: ignore[arg-type]

    def pair_filled(self, run_a: Any, run_b: Any, task: Any, metric: Any, fill_a: float, fill_b: float) -> Paired:
        """The pair with A's errored rows scored ``fill_a`` and B's ``fill_b`` (``--errors bounds``)."""
        rows = self.rows  # type: ignore[attr-defined]
        return _as_paired(*align_sides(side_of(rows(run_a, task, metric), "fail", fill=fill_a),
                                       side_of(rows(run_b, task, metric), "fail", fill=fill_b), run_a, run_b, task, metric))

    def errored(self, run_a: Any, run_b: Any, task: Any, metric: Any) -> tuple[np.ndarray, np.ndarray]:
        """Whether each item both runs attempted (scored or errored) errored in A and in B."""
        side = self.side  # type: ignore[attr-defined]
        sa, sb = side(run_a, task, metric), side(run_b, task, metric)
        if len(sa.errored) == 0 and len(sb.errored) == 0:  # the attempted items are the scored ones
            n = len(shared_items(sa, sb)[0])
            return np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
        shared = sa.items.index.union(sa.errored, sort=False).intersection(
            sb.items.index.union(sb.errored, sort=False), sort=False)
        return shared.isin(sa.errored), shared.isin(sb.errored)

    def why_unpaired(self, run_a: Any, run_b: Any, task: Any, metric: Any, exc: EvalAddonError) -> str:
        rows = self.rows  # type: ignore[attr-defined]
        return _why_unpaired(rows(run_a, task, metric), rows(run_b, task, metric), exc)


class GroupRows(_Pairs):
    """Row positions of each (run, task, metric) of a table, found once on integer codes (in
    order of first appearance; each group's rows in table order), so that each pair of a
    compare takes its own rows instead of masking the whole table: with masks, one baseline
    against 100 runs of 20,000 items (2M rows) cost ~1 s a pair, growing with the table."""

    def __init__(self, df: pd.DataFrame, errors: str = "exclude") -> None:
        self.df = df
        self.errors = errors  # the policy for errored samples (evaladdon.table.errored)
        self._narrow = df[list(ALIGN_COLUMNS)]
        self._sides: OrderedDict[tuple[Any, Any, Any], Side] = OrderedDict()
        self._rows: dict[tuple[Any, Any, Any], np.ndarray | slice] = {}
        self._keys: dict[Any, list[tuple[Any, Any]]] = {}
        self._first: dict[Any, int] = {}
        self._item_codes: np.ndarray | None = None
        if df.empty:
            return
        index = df.index
        if isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1:
            from evaladdon.table.codes import label_codes

            self._item_codes = label_codes(df["item"])[0]  # the hash validate made (cached), or one now
        positions = group_positions(df)[1]  # slices or row positions, as the summary groups
        first = np.array([p.start if isinstance(p, slice) else int(p[0]) for p in positions])
        keys = zip(*(values_at(df[c], first) for c in GROUP), strict=True)
        for (run, task, metric), pos, at in zip(keys, positions, first, strict=True):
            self._rows[(run, task, metric)] = pos
            self._keys.setdefault(run, []).append((task, metric))
            self._first.setdefault(run, int(at))  # groups come in order of first appearance

    def runs(self) -> list[Any]:
        """The runs of the table, in order of first appearance."""
        return list(self._keys)

    def keys_of(self, run: Any) -> list[tuple[Any, Any]]:
        """The (task, metric) combinations ``run`` has."""
        return self._keys.get(run, [])

    def rows(self, run: Any, task: Any, metric: Any) -> pd.DataFrame:
        """``run``'s rows of (task, metric), in table order, with the columns pairing reads."""
        return self._narrow.iloc[self._rows[(run, task, metric)]]

    def side(self, run: Any, task: Any, metric: Any) -> Side:
        """:func:`side_of` ``run``'s rows of (task, metric); the last few are kept, so a
        baseline paired with every other run is tabulated once."""
        key = (run, task, metric)
        if key in self._sides:
            self._sides.move_to_end(key)
            return self._sides[key]
        out = self._sides[key] = side_of(self.rows(run, task, metric), self.errors, self._item_codes)
        if len(self._sides) > 8:
            self._sides.popitem(last=False)
        return out

    def model_of(self, run: Any) -> Any:
        """The model of ``run``'s first row."""
        return self.df["model"].iat[self._first[run]]


class JoinedGroups(_Pairs):
    """:class:`GroupRows` of several tables read apart (a store read a group of logs at a time,
    the baseline's rows on their own), answering for each run from the table that holds it."""

    def __init__(self, parts: Sequence[GroupRows]) -> None:
        self._of: dict[Any, GroupRows] = {}
        for part in parts:
            for run in part.runs():
                self._of.setdefault(run, part)

    def keys_of(self, run: Any) -> list[tuple[Any, Any]]:
        part = self._of.get(run)
        return part.keys_of(run) if part is not None else []

    def rows(self, run: Any, task: Any, metric: Any) -> pd.DataFrame:
        return self._of[run].rows(run, task, metric)

    def side(self, run: Any, task: Any, metric: Any) -> Side:
        return self._of[run].side(run, task, metric)

    def model_of(self, run: Any) -> Any:
        return self._of[run].model_of(run)


def paired_of(groups: GroupRows | JoinedGroups, run_a: Any, run_b: Any, task: Any, metric: Any,
              strict: bool) -> Paired:
    """:func:`align_sides` of the two runs' sides as the paired arrays the stats core takes."""
    return _as_paired(*align_sides(groups.side(run_a, task, metric), groups.side(run_b, task, metric), run_a,
                                   run_b, task, metric, strict))


def _as_paired(aligned: pd.DataFrame, alignment: Alignment) -> Paired:
    """The aligned frame of :func:`align_sides` as the paired arrays the stats core takes."""
    has_cluster = aligned["cluster"].notna().all()
    return Paired(aligned["a"].to_numpy(), aligned["b"].to_numpy(),
                  aligned["cluster"].to_numpy() if has_cluster else None, alignment)


def compare_table(
    df: pd.DataFrame,
    pairs: Sequence[tuple[str, str]],
    metric: str | None = None,
    *,
    level: float = 0.95,
    test: str = "auto",
    interval: str = "auto",
    cluster_method: str = "cr2",
    strict: bool = False,
    adjust: str = "holm",
    margin: Margin = None,
    n_permutations: int = 10_000,
    seed: int | None = 0,
    skipped: list[Skipped] | None = None,
    errors: str = "exclude",
    better: str | None = None,
) -> list[RunComparison]:
    """Every pair on every (task, metric) both runs have, with adjusted p-values; errored samples
    under the policy ``errors`` (:mod:`evaladdon.table.errored`).

    Clustered differences use CR2 with the Bell-McCaffrey df by default (``cluster_method``);
    the ``df`` of each record is the one actually used.

    What cannot be compared (a pair sharing no task and metric, a metric with no shared
    scored items, an impossible test) is appended to ``skipped`` as :class:`Skipped` and the
    rest is compared; with ``skipped=None`` the first such problem is raised instead.  When
    nothing at all can be compared an :class:`EvalAddonError` summarises why.
    """
    labels = run_labels(df)
    declared = declared_in(df)  # before any selection (a copy may not keep the table's attrs)
    if metric is not None:
        from evaladdon.table.checks import rows_of_metric

        df = rows_of_metric(df, metric)
    groups = GroupRows(df, errors)
    results, missed = compare_groups(groups, pairs, labels, level=level, test=test, interval=interval,
                                     cluster_method=cluster_method, strict=strict, margin=margin,
                                     n_permutations=n_permutations, seed=seed, raise_first=skipped is None,
                                     declared=declared, better=better)
    if errors != "exclude":
        from dataclasses import replace

        results = [replace(r, errors=errors) for r in results]
    results = finish_comparisons(results, missed, skipped, adjust)
    if errors == "bounds":  # the worst and best case beside each difference, at its (family) level
        from evaladdon.analysis.compare_bounds import with_bounds

        results = with_bounds(groups, results, test=test, interval=interval, cluster_method=cluster_method,
                              n_permutations=n_permutations, seed=seed)
    return results
