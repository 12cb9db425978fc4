"""The ``dask_store`` route: ``summarize --store --engine dask``, each worker summarizing its
stored logs and sending back only the summaries (issue 31, item 1).

The former Dask path (:func:`evaladdon.routes.dask_reduce.load_reduced`, still the ``table`` route's
reading under ``--engine dask``) reduced each stored file on a worker to per-item statistics and
then *rebuilt every row* on the driver (object arrays of strings) to run ``summarize_table``:
measured 119 s and 13.4 GB for 10M rows where the local path takes 3.8 s and 1.0 GB.

Here the selection's files are cut into the ``store_groups`` route's groups
(:func:`evaladdon.store.chunks.file_groups`, at most ``RouteLimits.store_group_rows`` stored rows
each and fewer when that gives every worker thread about two groups, a larger log alone) and
each group is one task: the worker streams the group's Parquet
files a batch at a time, one file after the other, keeping ~20 bytes a row of the file it is on
(:mod:`evaladdon.routes.store_stream`), and runs the same ``summarize_groups`` on each file's
(run, task, metric) groups (``estimate_mean``, the kernel every route ends in); with a per-row
``--where`` (or a file not as the store writes it) it reads the group as one table (DuckDB or
pyarrow, :func:`summarize_read`) and runs ``summarize_table`` as before.  It returns the
group's :class:`~evaladdon.analysis.summarize.GroupSummary` records, its (run, model, task,
source) label rows, its notes and the metrics it saw: a few KB a group, whatever its rows.  The
driver decides over all runs what the one-table path decides over all rows: the run labels, the
check of ``--metric``, the notes in file order.  So a worker holds one stored log's arrays at a
time per thread (a group's rows when it reads them as a table), never the selection; with
several workers the groups are shared out.  The workers must see the store (a shared disk, or object storage mounted through fsspec).

Every (run, task, metric) lies in one stored log when this route runs (it declines on a store
whose runs may clash, or a log without combinations in the manifest: the table route answers),
so a group's summaries are the one-table path's, number for number;
``tests/routes/test_dask_store.py`` and the route-equality suite hold the output equal.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from evaladdon.errors import EvalAddonError

if TYPE_CHECKING:  # pragma: no cover
    from evaladdon.analysis.options import RouteLimits, SummarizeOptions
    from evaladdon.routes.results import Summaries

NO_ROWS = "--where matches no stored rows"
NO_SCORED = "no scored rows to summarize"
LABEL_COLUMNS = ("run", "model", "task", "source")

Submit = Callable[[Callable[..., Any], Sequence[tuple[Any, ...]]], Iterator[Any]]


@dataclasses.dataclass(frozen=True)
class GroupOptions:
    """What a worker needs to summarize a group: the store, the filter, the statistics' options."""

    root: str
    where: str | None
    metric: str | None
    level: float
    method: str
    cluster_method: str


@dataclasses.dataclass
class GroupResult:
    """A group's summaries (labels still to be set), label rows, notes, whether ``--where`` left
    it any row, whether it has ``--metric`` (when not, the metrics it has)."""

    summaries: list[Any]
    label_rows: Any  # a DataFrame of LABEL_COLUMNS, or a list of such tuples (a streamed group)
    notes: list[str]
    had_rows: bool
    has_metric: bool = True
    seen: frozenset[str] = frozenset()


def summarize_files(opts: GroupOptions, files: Sequence[str]) -> GroupResult:
    """Runs on a worker: the summaries of the stored rows of ``files`` (module doc), streamed a
    batch at a time (:mod:`evaladdon.routes.store_stream`) when every row of them matches
    ``--where``, else ``summarize_table`` of them read as one table."""
    from evaladdon._util.memory import give_back
    from evaladdon.store.query import select

    if select(opts.root, opts.where).whole:
        got = streamed(opts, files)
        give_back()  # the files' arrays, freed: handed back before the worker's next group
        if got is not None:
            return got
    return summarize_read(opts, files)


def summarize_read(opts: GroupOptions, files: Sequence[str]) -> GroupResult:
    """:func:`summarize_files` by reading the files as one table (``load_selection``, every stored
    column; DuckDB under a per-row ``--where``) and ``summarize_table`` of it."""
    from evaladdon.store.query import load_selection, select
    from evaladdon.table import distinct_rows

    sel = select(opts.root, opts.where)
    try:
        table = load_selection(sel, [Path(f) for f in files]).table
    except EvalAddonError as exc:
        if exc.message.startswith(NO_ROWS):
            return GroupResult([], None, [], False, False)
        raise
    label_rows = distinct_rows(table, ("run", "model", "task", "source")).astype(object)
    notes: list[str] = []
    if opts.metric is not None and not (table["metric"] == opts.metric).any():
        return GroupResult([], label_rows, notes, True, False, frozenset(str(m) for m in table["metric"].unique()))
    return GroupResult(summaries_of(table, opts, notes), label_rows, notes, True)


def streamed(opts: GroupOptions, files: Sequence[str]) -> GroupResult | None:
    """:func:`summarize_files` a batch of rows at a time; None when a file is not as a canonical
    store writes it (the caller reads the files as a table).  Imports neither pandas nor DuckDB
    (a worker process without them is ~45 MB smaller; ``tests/routes/test_lean_worker.py``): the
    label rows go back as plain tuples, made a table on the driver (:func:`_finish`)."""
    from evaladdon.analysis.summarize import summarize_groups
    from evaladdon.routes.store_stream import NotStreamable, file_groups

    seen: set[str] = set()
    rows: list[tuple[str, ...]] = []
    counts: list[int] = []
    notes: list[str] = []
    from evaladdon.store.query import select

    stored = {e["file"]: e for e in select(opts.root, None).manifest.entries.values()}
    distinct = frozenset(Path(f).name for f in files if _distinct(stored.get(Path(f).name)))
    groups = file_groups(files, opts.metric, seen, rows, counts, distinct)
    try:
        summaries = summarize_groups(groups, _NoLabels(), level=opts.level, method=opts.method,
                                     cluster_method=opts.cluster_method, notes=notes)
    except NotStreamable:
        return None
    except EvalAddonError as exc:
        if not exc.message.startswith(NO_SCORED):
            raise
        summaries = []
    if not sum(counts):
        return GroupResult([], None, [], False, False)
    label_rows = list(rows)
    if opts.metric is not None and opts.metric not in seen:
        return GroupResult([], label_rows, [], True, False, frozenset(seen))
    return GroupResult(summaries, label_rows, notes, True)


def _distinct(entry: dict[str, Any] | None) -> bool:
    """Whether the manifest says every row of the stored log is another item (one epoch)."""
    return entry is not None and int(entry.get("n_items", -1)) == int(entry.get("n_rows", -2))


class _NoLabels(dict):  # type: ignore[type-arg]
    """Run labels are set on the driver over all runs (:func:`_finish`): '' meanwhile."""

    def __missing__(self, key: str) -> str:
        return ""


def summaries_of(table: Any, opts: Any, notes: list[str]) -> list[Any]:
    """A worker's :func:`summarize_table` of its rows; none when it holds no scored row (the driver
    says so once, over every worker's result)."""
    from evaladdon.analysis.summarize import summarize_table

    try:
        return summarize_table(table, metric=opts.metric, level=opts.level, method=opts.method,  # type: ignore[no-any-return]
                               cluster_method=opts.cluster_method, notes=notes)
    except EvalAddonError as exc:
        if not exc.message.startswith(NO_SCORED):
            raise
        return []


def _finish(results: list[GroupResult], notes: list[str], metric: str | None, where: str | None) -> list[Any]:
    """The summaries of every group with the labels decided over all runs; the errors the
    one-table path gives when no group has a row, the metric or a scored row."""
    import pandas as pd

    from evaladdon.table import run_labels

    if not any(r.had_rows for r in results):
        raise EvalAddonError(f"{NO_ROWS} ({where})")
    if metric is not None and not any(r.has_metric and r.had_rows for r in results):
        from evaladdon.table.checks import closest

        seen: set[str] = set().union(*(r.seen for r in results))
        raise EvalAddonError(f"no rows with metric {metric!r}{closest(str(metric), seen)}")
    summaries = [s for r in results for s in r.summaries]
    notes.extend(n for r in results for n in r.notes)
    if not summaries:
        raise EvalAddonError(NO_SCORED + (f": {'; '.join(notes)}" if notes else ""))
    labels = run_labels(pd.concat([_frame(r.label_rows) for r in results if r.had_rows], ignore_index=True))
    return [dataclasses.replace(s, label=labels[s.run]) for s in summaries]


def _frame(rows: Any) -> Any:
    """A group's label rows as a table: a streamed group sends (run, model, task, source) tuples
    (no pandas on the worker), a group read as a table its rows' distinct labels already."""
    import pandas as pd

    if isinstance(rows, pd.DataFrame):
        return rows
    return pd.DataFrame(rows, columns=list(LABEL_COLUMNS), dtype=object)


def summarize_store(opts: GroupOptions, submit: Submit, max_rows: int,
                    check_metric: Callable[[Any, str | None], None],
                    threads: int = 1) -> tuple[list[Any], list[str]] | None:
    """(summaries, notes) of the store's selection, a group of files a task (``submit`` maps the
    tasks onto the workers, results in task order); None when the route must decline.  Groups
    hold at most ``max_rows`` stored rows, and fewer when that gives each of the cluster's
    ``threads`` about two groups (a log of more rows is a group of its own)."""
    import pandas as pd

    from evaladdon.store.chunks import file_groups
    from evaladdon.store.query import _may_clash, select

    sel = select(opts.root, opts.where)
    picked = sel.entries()
    names = {f.name for f in sel.files}
    with_combos = {e["file"] for e in picked if "combos" in e}
    if _may_clash(sel.manifest, sel.files) or not names <= with_combos:
        return None
    notes = sel.notes()
    check_metric(pd.DataFrame({"metric": [c[3] for e in picked for c in e["combos"]]}), opts.metric)
    total = sum(int(e.get("n_rows", 0)) for e in picked)
    groups = file_groups(sel, max(1, min(max_rows, -(-total // (2 * max(threads, 1))))))
    results = list(submit(summarize_files, [(opts, [str(f) for f in files]) for files in groups]))
    return _finish(results, notes, opts.metric, sel.where), notes


# ---------------------------------------------------------------- the route


def summarize(opts: SummarizeOptions, limits: RouteLimits) -> Summaries:
    """``summarize --engine dask`` of a store: the groups summarized on the workers (PATHs:
    :mod:`evaladdon.routes.dask_paths`).  Declines on a store whose runs may clash or a log the
    manifest does not describe."""
    from evaladdon.routes.dask import dask_client, submitter
    from evaladdon.routes.results import Decline, Summaries
    from evaladdon.table import empty_table
    from evaladdon.table.checks import check_metric
    from evaladdon.table.loaded import Loaded

    i = opts.inputs
    with dask_client(i.scheduler) as client:
        notes: list[str] = []
        group = GroupOptions(str(i.store), i.where, i.metric, opts.level, opts.method, opts.cluster_method)
        threads = sum(int(w.get("nthreads", 1)) for w in client.scheduler_info()["workers"].values())
        got = summarize_store(group, submitter(client), limits.store_group_rows, check_metric, threads)
    if got is None:
        raise Decline("a store whose runs may clash, or a log without combinations in the manifest")
    summaries, more = got
    notes += more
    return Summaries(summaries, Loaded(empty_table(), list(notes)), notes, {}, [], route_detail="dask")
