"""``summarize --engine dask PATH...``: each worker reads its share of the input files itself and
sends back only summaries (issue 31, item 1): no temporary store is written.

The files the table route would read (:func:`evaladdon.adapters.registry.inputs`, in its order)
are cut into contiguous groups of about equal bytes, about two per worker thread; each group is
one task.  On the worker each file is read alone (:func:`evaladdon.adapters.read_runs` of that
one file, the reader every route ends in) and summarized alone (``summarize_table``, whose
(run, task, metric) groups are in order of first appearance), then dropped: a worker holds one
file's rows at a time, never its share of the inputs, and sends back a few KB per file (the
summaries, the (run, model, task, source) label rows, the notes, the incomplete-log marks, the
(run, task, metric) keys it saw).

The driver checks what the one-table path decides across files and declines (the table route
answers) when a file would be read differently together than alone: two files giving one run
the same (task, metric) (the table route renames such runs), ``NAME=PATH`` inputs, lm-eval
results-only files (harness-reported values).  A file that cannot be read alone gets the table
route's reading on the driver, which gives the user's error, or declines when the files read
together (a log with no rows among others is no error there).  Otherwise every (run, task,
metric) lies in one file, so a file's summaries are the one-table path's, number for number, and
concatenated in file order they come in its order; run labels are decided over all runs
(:func:`evaladdon.routes.dask_store._finish`).  ``tests/routes/test_dask_paths.py`` and the
route-equality suite hold the output equal to the local engine's.

One huge file is one task: it cannot be split across workers by whole files, and a worker then
holds that file's rows as the local path does (``docs/performance.md``).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from evaladdon.errors import EvalAddonError

if TYPE_CHECKING:  # pragma: no cover
    from evaladdon.analysis.options import SummarizeOptions
    from evaladdon.routes.dask_store import GroupResult, Submit
    from evaladdon.routes.results import Summaries


@dataclasses.dataclass(frozen=True)
class PathOptions:
    """What a worker needs to read and summarize its files."""

    cluster: str | None
    metric: str | None
    level: float
    method: str
    cluster_method: str


@dataclasses.dataclass
class FileResult:
    """A file's :class:`~evaladdon.routes.dask_store.GroupResult`, its read notes, its marks of an
    incomplete log, its (run, task, metric) keys; or why it must be read with the others."""

    group: GroupResult | None
    read_notes: list[str]
    marks: dict[tuple[str, str, str], dict[str, Any]]
    keys: list[tuple[str, str, str]]
    problem: str | None = None


def summarize_file(opts: PathOptions, path: str) -> FileResult:
    """Runs on a worker: one file read alone and summarized alone (module doc)."""
    from evaladdon.adapters import read_runs
    from evaladdon.analysis.summarize import incomplete_marks, summarize_table
    from evaladdon.routes.dask_store import NO_SCORED, GroupResult
    from evaladdon.table import distinct_rows, distinct_tuples

    try:
        loaded = read_runs([path], cluster=opts.cluster, results_only=True)
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as exc:  # the table route's reading decides: the user's error, or a read together
        return FileResult(None, [], {}, [], f"{path}: {' '.join(str(exc).split())[:200]}")
    if loaded.reported:
        return FileResult(None, [], {}, [], f"{path}: harness-reported values (a results-only lm-eval file)")
    table = loaded.table
    keys = [(str(r), str(t), str(m)) for r, t, m in distinct_tuples(table, ("run", "task", "metric"))]
    label_rows = distinct_rows(table, ("run", "model", "task", "source")).astype(object)
    if opts.metric is not None and not (table["metric"] == opts.metric).any():
        seen = frozenset(str(m) for m in table["metric"].unique())
        return FileResult(GroupResult([], label_rows, [], True, False, seen), list(loaded.notes), {}, keys)
    notes: list[str] = []
    try:
        summaries = summarize_table(table, metric=opts.metric, level=opts.level, method=opts.method,
                                    cluster_method=opts.cluster_method, notes=notes)
    except EvalAddonError as exc:
        if not exc.message.startswith(NO_SCORED):
            raise
        summaries = []
    marks = incomplete_marks(summaries, loaded)
    return FileResult(GroupResult(summaries, label_rows, notes, True), list(loaded.notes), marks, keys)


def summarize_files(opts: PathOptions, paths: Sequence[str]) -> list[FileResult]:
    """Runs on a worker: :func:`summarize_file` of each of ``paths`` in turn (one file's rows held
    at a time); stops at the first file that must be read with the others."""
    out: list[FileResult] = []
    for path in paths:
        out.append(summarize_file(opts, path))
        if out[-1].problem is not None:
            break
    return out


def file_groups(files: Sequence[Path], parts: int) -> list[list[str]]:
    """``files`` cut into at most ``parts`` contiguous groups of about equal bytes (file order
    kept, so that results gathered group by group come in file order)."""
    import numpy as np

    if not files:
        return []
    sizes = np.array([max(f.stat().st_size, 1) for f in files], dtype=float)
    ends = np.cumsum(sizes)
    # group k takes the files whose bytes end in the k-th of `parts` equal slices of the total
    group = np.minimum((ends - sizes / 2) * parts // ends[-1], parts - 1).astype(int)
    cuts = np.flatnonzero(np.diff(group)) + 1
    return [[str(f) for f in chunk] for chunk in np.split(np.array(files, dtype=object), cuts)]


def gather(submit: Submit, opts: PathOptions, files: Sequence[Path],
           threads: int) -> tuple[list[FileResult], str | None]:
    """Every file's result in file order, and the first problem (None when the files may be
    summarized apart)."""
    groups = file_groups(files, 2 * max(threads, 1))
    results = [r for got in submit(summarize_files, [(opts, g) for g in groups]) for r in got]
    problem = next((r.problem for r in results if r.problem is not None), None)
    if problem is None:
        keys = [k for r in results for k in r.keys]
        if len(set(keys)) < len(keys):
            problem = "two files give one run the same (task, metric): the table route names them apart"
    return results, problem


def summarize(opts: SummarizeOptions, client: Any) -> Summaries:
    """``summarize --engine dask PATH...`` on ``client``'s workers (module doc); raises
    :class:`~evaladdon.routes.results.Decline` when the files must be read together."""
    from evaladdon.adapters.registry import inputs as input_files
    from evaladdon.routes.dask import submitter
    from evaladdon.routes.dask_store import _finish
    from evaladdon.routes.results import Decline, Summaries
    from evaladdon.table import empty_table
    from evaladdon.table.loaded import Loaded

    i = opts.inputs
    files, notes, name_of, skipped = input_files(list(i.paths))
    if name_of:
        raise Decline("NAME=PATH inputs: the table route names their runs")
    threads = sum(int(w.get("nthreads", 1)) for w in client.scheduler_info()["workers"].values())
    popts = PathOptions(i.cluster, i.metric, opts.level, opts.method, opts.cluster_method)
    results, problem = gather(submitter(client), popts, [f for f, _, _ in files], threads)
    if problem is not None or not results:
        from evaladdon.routes.table import load

        load(dataclasses.replace(i, engine="local"))  # the user's error (the local engine's words), if any
        raise Decline(f"files read together differ from files read alone ({problem or 'no file'})")
    notes = list(notes) + [n for r in results for n in r.read_notes]
    groups = [r.group for r in results if r.group is not None]
    summaries = _finish(groups, notes, i.metric, None)
    marks = {k: v for r in results for k, v in r.marks.items()}
    return Summaries(summaries, Loaded(empty_table(), list(notes), skipped=skipped), notes, marks, [],
                     route_detail="dask paths")
