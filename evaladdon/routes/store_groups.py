"""The ``store_groups`` route: ``summarize --store`` and ``compare --store --baseline RUN`` over a
large selection, a group of stored logs at a time.

Summarize: :func:`summarize_store` (each group through ``summarize_table``; labels decided
over all runs at the end); the grouping is :func:`evaladdon.store.chunks.groups_of`.

Compare:

Read at once, one baseline against 99 stored checkpoints of 20k items holds 2M rows (676 MB);
against all 999 others of a 1,000-run store, 20M rows (several GB).  A comparison needs only
the two runs' rows of a (task, metric), so when the selection can be read in groups
(:func:`evaladdon.store.chunks.groups_of`: every row of the picked files matches ``--where``,
no run's (task, metric) in two logs) and every run lies in one stored log, the baseline's log
is read once and the others a group of about ``RouteLimits.store_group_rows`` rows at a time, each group's pairs
compared (:func:`evaladdon.analysis.compare.compare_groups`) and its rows released.

What the one-table path decides over all rows is decided over all runs here: the run order,
labels and the baseline from the manifest's combinations (checked against each group's rows:
a disagreement raises :class:`ManifestMismatch`: the route declines and the next reads at once),
p-values adjusted over all comparisons at the end (each comparison's units are decided by the
pairing loop on the values it compares).  ``tests/routes/test_store_compare_groups.py`` forces small groups and holds
text and JSON output equal to the one-table path.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from evaladdon.analysis.options import Margin
from evaladdon.errors import EvalAddonError
from evaladdon.store.chunks import groups_of
from evaladdon.store.query import Selection, load_selection, select


if TYPE_CHECKING:  # pragma: no cover
    from evaladdon.analysis.options import CompareOptions, SummarizeOptions
    from evaladdon.analysis.options import RouteLimits
    from evaladdon.routes.results import Comparisons, Summaries


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
                  check_metric: Callable[[Any, str | None], None], max_rows: int) -> GroupedStore | None:
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


def compare_store(gs: GroupedStore, baseline: str, *, level: float, test: str, interval: str, cluster_method: str,
                  strict: bool, adjust: str, margin: Margin, seed: int | None,
                  skipped: list[Any] | None, better: str | None = None) -> list[Any]:
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
    file_of = dict(zip(runs["run"], runs["file"], strict=True))
    expected: dict[Any, set[tuple[Any, ...]]] = {f: set() for f in runs["file"]}
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
    declared = gs.sel.declared()  # the directions the selected logs declare (as ingest stored them)
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
                                   seed=seed, raise_first=skipped is None, declared=declared, better=better)
        results += got
        missed += lost
        del part
    return finish_comparisons(results, missed, skipped, adjust)


def summarize_store(
    root: str,
    where: str | None,
    cluster: str | None,
    metric: str | None,
    *,
    level: float,
    method: str,
    cluster_method: str,
    check_metric: Any,
    max_rows: int,
) -> tuple[list[Any], list[str]] | None:
    """(summaries, notes) of ``summarize`` over the store, group by group; None when the
    selection is small, has per-row terms, or may hold one run in two logs (then the caller
    reads it at once).  ``check_metric(df, metric)`` is the CLI's check of ``--metric``."""
    import pandas as pd

    from evaladdon.analysis.summarize import summarize_table
    from evaladdon.table import distinct_rows, run_labels

    sel = select(root, where)
    groups = groups_of(sel, cluster, max_rows)
    if groups is None:
        return None
    picked = sel.entries()
    notes = sel.notes()  # as load_store gives them
    check_metric(pd.DataFrame({"metric": [c[3] for e in picked for c in e["combos"]]}), metric)
    summaries: list[Any] = []
    label_rows: list[pd.DataFrame] = []
    has_metric = metric is None
    seen: set[str] = set()  # the metrics that exist, for the error of a --metric none has
    for files in groups:
        table = load_selection(sel, files, cluster).table
        label_rows.append(distinct_rows(table, ("run", "model", "task", "source")).astype(object))
        if metric is not None and not (table["metric"] == metric).any():
            seen.update(str(m) for m in table["metric"].unique())
            continue
        has_metric = True
        try:
            summaries += summarize_table(table, metric=metric, level=level, method=method,
                                         cluster_method=cluster_method, notes=notes)
        except EvalAddonError as exc:
            if not exc.message.startswith("no scored rows to summarize"):
                raise
        del table
    if not has_metric:  # e.g. a metric family name, which check_metric lets through
        from evaladdon.table.checks import closest

        raise EvalAddonError(f"no rows with metric {metric!r}{closest(str(metric), seen)}")
    if not summaries:
        raise EvalAddonError("no scored rows to summarize" + (f": {'; '.join(notes)}" if notes else ""))
    labels = run_labels(pd.concat(label_rows, ignore_index=True))
    return [dataclasses.replace(s, label=labels[s.run]) for s in summaries], notes


# ---------------------------------------------------------------- the route


def summarize(opts: SummarizeOptions, limits: RouteLimits) -> Summaries:
    """``summarize --store`` a group of logs at a time; declines when the selection is read at once."""
    from evaladdon.routes.results import Decline, Summaries
    from evaladdon.table import empty_table
    from evaladdon.table.checks import check_metric
    from evaladdon.table.loaded import Loaded

    i = opts.inputs
    got = summarize_store(str(i.store), i.where, i.cluster, i.metric, level=opts.level, method=opts.method,
                          cluster_method=opts.cluster_method, check_metric=check_metric,
                          max_rows=limits.store_group_rows)
    if got is None:
        raise Decline("the selection is small, has per-row terms, or may hold a run in two logs")
    summaries, notes = got
    return Summaries(summaries, Loaded(empty_table(), list(notes)), notes, {}, [])


def compare(opts: CompareOptions, limits: RouteLimits) -> Comparisons:
    """``compare --store --baseline RUN`` a group of logs at a time; declines when the selection
    is read at once, or when a group's rows differ from the manifest."""
    from evaladdon.routes.results import Comparisons, Decline
    from evaladdon.table import empty_table
    from evaladdon.table.checks import check_metric
    from evaladdon.table.loaded import Loaded

    i = opts.inputs
    grouped = grouped_store(str(i.store), i.where, i.cluster, i.metric, opts.baseline, check_metric,
                            max_rows=limits.store_group_rows)
    if grouped is None:
        raise Decline("no --baseline, a small selection, per-row terms, a run in two logs or a log stored twice")
    loaded = Loaded(empty_table(), list(grouped.notes))
    assert opts.baseline is not None
    skipped: list[Any] = []
    try:
        results = compare_store(grouped, opts.baseline, **opts.pairing(), skipped=skipped)
    except ManifestMismatch as exc:  # the manifest does not describe the stored rows: read them at once
        raise Decline(str(exc)) from None
    return Comparisons(results, loaded, all(r.points for r in results), skipped)
