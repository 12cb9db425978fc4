"""``compare --store --baseline RUN`` over a large selection, a group of stored logs at a time.

Read at once, one baseline against 99 stored checkpoints of 20k items holds 2M rows (676 MB);
against all 999 others of a 1,000-run store, 20M rows (several GB).  A comparison needs only
the two runs' rows of a (task, metric), so when the selection can be read in groups
(:func:`evaladdon.store.chunks.groups_of`: every row of the picked files matches ``--where``,
no run's (task, metric) in two logs) and every run lies in one stored log, the baseline's log
is read once and the others a group of about ``MAX_ROWS`` rows at a time, each group's pairs
compared (:func:`evaladdon.analysis.compare.compare_groups`) and its rows released.

What the one-table path decides over all rows is decided over all runs here: the run order,
labels and the baseline from the manifest's combinations (checked against each group's rows:
a disagreement raises :class:`ManifestMismatch` and the caller reads at once), whether the
metric is bounded from a pass over the ``value`` column, p-values adjusted over all
comparisons at the end.  ``tests/test_store_compare_groups.py`` forces small groups and holds
text and JSON output equal to the one-table path.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from evaladdon.errors import EvalAddonError
from evaladdon.store.chunks import groups_of
from evaladdon.store.query import Selection, load_selection, select


class ManifestMismatch(Exception):
    """A group's rows are not the runs the manifest lists for its logs."""


@dataclass
class GroupedStore:
    """A store selection to be compared a group of logs at a time."""

    sel: Selection
    groups: list[list[Path]]
    runs: Any
    """pandas frame of every (run, model, task, metric, source, file) combination, in table order."""
    notes: list[str]
    cluster: str | None
    metric: str | None


def grouped_store(root: str, where: str | None, cluster: str | None, metric: str | None, baseline: str | None,
                  check_metric: Callable[[Any, str | None], None], max_rows: int | None = None) -> GroupedStore | None:
    """The selection as a :class:`GroupedStore`, or None when it is read at once (no
    ``--baseline``, a small selection, per-row terms, a run in two logs, a log stored twice)."""
    if baseline is None:
        return None
    sel = select(root, where)
    groups = groups_of(sel, cluster, max_rows)
    if groups is None:
        return None
    import pandas as pd

    picked = sel.entries()
    if len({e["file"] for e in picked}) != len(picked):  # one data file for two sources: rows name one
        return None
    order = {f.name: i for i, f in enumerate(sel.files)}
    picked.sort(key=lambda e: order[e["file"]])
    runs = pd.DataFrame([(str(c[0]), str(c[1]), str(c[2]), str(c[3]), str(e["source"]), e["file"])
                         for e in picked for c in e["combos"]],
                        columns=["run", "model", "task", "metric", "source", "file"], dtype=object)
    if (runs.groupby("run", sort=False)["file"].nunique() > 1).any():
        return None
    check_metric(runs, metric)
    return GroupedStore(sel, groups, runs, sel.notes(), cluster, metric)


def bounded(gs: GroupedStore) -> bool:
    """Whether every finite stored value (of ``gs.metric``) lies in [0, 1], one log at a time
    (``table.scale.bounded_metric`` of the whole table)."""
    import pyarrow.parquet as pq

    from evaladdon.table.scale import unit_interval

    columns = ["value"] + (["metric"] if gs.metric is not None else [])
    for f in gs.sel.files:
        t = pq.read_table(f, columns=columns)
        v = t.column("value").to_numpy().astype(float, copy=False)
        if gs.metric is not None:
            v = v[(t.column("metric").to_numpy(zero_copy_only=False) == gs.metric)]
        if not unit_interval(v):
            return False
    return True


def compare_store(gs: GroupedStore, baseline: str, *, level: float, test: str, interval: str, cluster_method: str,
                  strict: bool, adjust: str, margin: float | None, seed: int | None,
                  skipped: list[Any] | None) -> list[Any]:
    """``compare_table`` of every stored run against ``baseline``, a group of logs at a time."""
    from evaladdon.analysis.compare_table import GroupRows, JoinedGroups, compare_groups, finish_comparisons
    from evaladdon.table.names import resolve_run_in, run_order_in
    from evaladdon.table import distinct_rows, run_labels

    runs = gs.runs
    labels = run_labels(runs)
    base = resolve_run_in(runs, baseline)
    others = [r for r in run_order_in(runs) if r != base]
    if not others:
        raise EvalAddonError("only the baseline run was found; nothing to compare")
    file_of = dict(zip(runs["run"], runs["file"]))
    expected = {f: set() for f in runs["file"]}
    for row in runs[["run", "model", "task", "source", "file"]].itertuples(index=False):
        expected[row[4]].add(tuple(row[:4]))

    def read(files: list[Path]) -> Any:
        table = load_selection(gs.sel, files, gs.cluster).table
        seen = {tuple(map(str, r)) for r in distinct_rows(table, ("run", "model", "task", "source")).itertuples(
            index=False)}
        if seen != set().union(*(expected[f.name] for f in files)):
            raise ManifestMismatch(f"stored rows of {', '.join(f.name for f in files)} differ from the manifest")
        return table if gs.metric is None else table[table["metric"] == gs.metric]

    base_rows = GroupRows(read([f for f in gs.sel.files if f.name == file_of[base]]))
    results: list[Any] = []
    missed: list[Any] = []
    for files in gs.groups:
        names = {f.name for f in files}
        pairs = [(base, r) for r in others if file_of[r] in names]
        if not pairs:
            continue
        part = GroupRows(read(files))
        got, lost = compare_groups(JoinedGroups([base_rows, part]), pairs, labels, level=level, test=test,
                                   interval=interval, cluster_method=cluster_method, strict=strict, margin=margin,
                                   seed=seed, raise_first=skipped is None)
        results += got
        missed += lost
        del part
    return finish_comparisons(results, missed, skipped, adjust)
