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

The driver checks what the one-table path decides across files; when a file would be read
differently together than alone (two files giving one run the same (task, metric), which the
table route renames; ``NAME=PATH`` inputs; lm-eval results-only files with harness-reported
values; a named file that cannot be read alone, whose error is the user's; no file read at all),
the files are read together on the driver by the local engine's table route, so the answer and
the errors are the local engine's.  Otherwise every (run, task, metric) lies in one file, so a
file's summaries are the one-table path's, number for number, and concatenated in file order
they come in its order; run labels are decided over all runs
(:func:`evaladdon.routes.dask_store._finish`).  ``tests/routes/test_dask_paths.py`` and the
route-equality suite hold the output equal to the local engine's.

One file cannot be split across workers by whole files: a single input file is read on the driver
by the local engine's table route, without starting a cluster (the same work a worker would do,
without Dask's start-up; ``docs/performance.md``).  Among several files a huge one is a task of
its own, whose worker holds that file's rows as the local path does.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from evaladdon.errors import InputError
from evaladdon.routes._file_groups import file_groups

if TYPE_CHECKING:  # pragma: no cover
    from evaladdon.analysis.options import SummarizeOptions
    from evaladdon.routes.dask_store import GroupResult, Submit
    from evaladdon.routes.results import Summaries


NO_PER_ITEM = "no per-item rows to analyse"


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
    skipped: list[dict[str, str]] = dataclasses.field(default_factory=list)


def summarize_file(opts: PathOptions, path: str, explicit: bool = True) -> FileResult:
    """Runs on a worker: one file read alone and summarized alone (module doc).  A file found in
    a directory (not ``explicit``) that cannot be read is skipped with the table route's note."""
    from evaladdon.adapters import read_runs
    from evaladdon.analysis.summarize import incomplete_marks
    from evaladdon.routes.dask_store import GroupResult, summaries_of
    from evaladdon.table import distinct_rows, distinct_tuples

    try:
        loaded = read_runs([path], cluster=opts.cluster, results_only=True)
    except (KeyboardInterrupt, SystemExit):
        raise
    except InputError as exc:
        if explicit or exc.message.startswith(NO_PER_ITEM):  # the user's error, or no error read together
            return FileResult(None, [], {}, [], f"{path}: {exc.message}")
        skip = {"path": path, "reason": exc.message}
        return FileResult(None, [f"skipped {exc}"], {}, [], skipped=[skip])
    except Exception as exc:  # the table route's reading decides
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
    summaries = summaries_of(table, opts, notes)
    marks = incomplete_marks(summaries, loaded)
    return FileResult(GroupResult(summaries, label_rows, notes, True), list(loaded.notes), marks, keys)


def summarize_files(opts: PathOptions, paths: Sequence[str], explicit: Sequence[bool]) -> list[FileResult]:
    """Runs on a worker: :func:`summarize_file` of each of ``paths`` in turn (one file's rows held
    at a time); stops at the first file that must be read with the others."""
    out: list[FileResult] = []
    for path, named in zip(paths, explicit, strict=True):
        out.append(summarize_file(opts, path, named))
        if out[-1].problem is not None:
            break
    return out


def gather(submit: Submit, opts: PathOptions, files: Sequence[Path], threads: int,
           explicit: Sequence[bool] | None = None) -> tuple[list[FileResult], str | None]:
    """Every file's result in file order, and the first problem (None when the files may be
    summarized apart).  ``explicit``: which files were named (not found in a directory)."""
    named = dict(zip(map(str, files), explicit or [True] * len(files), strict=True))
    groups = file_groups(files, 2 * max(threads, 1))
    jobs = [(opts, g, [named[p] for p in g]) for g in groups]
    results = [r for got in submit(summarize_files, jobs) for r in got]
    problem = next((r.problem for r in results if r.problem is not None), None)
    if problem is None:
        keys = [k for r in results for k in r.keys]
        if len(set(keys)) < len(keys):
            problem = "two files give one run the same (task, metric): the table route names them apart"
    return results, problem


def _local(opts: SummarizeOptions, why: str = "read together on the driver") -> Summaries:
    """The local engine's answer (the table route, read on the driver): files that must be read
    together.  No store is written; the old reading ingested them into a temporary store."""
    from evaladdon.routes import table

    got = table.summarize(dataclasses.replace(opts, inputs=dataclasses.replace(opts.inputs, engine="local")))
    got.route_detail = why
    return got


def summarize(opts: SummarizeOptions) -> Summaries:
    """``summarize --engine dask PATH...`` on a Dask cluster's workers (module doc); files that
    must be read together are read on the driver (:func:`_local`), with the local engine's errors."""
    from evaladdon.adapters.registry import inputs as input_files
    from evaladdon.routes.dask import dask_client

    found = input_files(list(opts.inputs.paths))
    if len(found[0]) <= 1:  # one file is one task: no cluster to start
        return _local(opts, "one file: read on the driver")
    with dask_client(opts.inputs.scheduler) as client:
        return _summarize(opts, client, found)


def _summarize(opts: SummarizeOptions, client: Any, found: Any) -> Summaries:
    """:func:`summarize` on ``client`` of ``found``, the inputs' files (``adapters.registry.inputs``)."""
    from evaladdon.routes.dask import submitter
    from evaladdon.routes.dask_store import _finish
    from evaladdon.routes.results import Summaries
    from evaladdon.table import empty_table
    from evaladdon.table.loaded import Loaded

    i = opts.inputs
    files, notes, name_of, skipped = found
    if name_of:  # NAME=PATH: the table route names their runs
        return _local(opts)
    threads = sum(int(w.get("nthreads", 1)) for w in client.scheduler_info()["workers"].values())
    popts = PathOptions(i.cluster, i.metric, opts.level, opts.method, opts.cluster_method)
    results, problem = gather(submitter(client), popts, [f for f, _, _ in files], threads, [e for _, _, e in files])
    if problem is None and not any(r.group is not None for r in results):
        problem = "no file read"  # the table route's error names the skipped files
    if problem is not None:  # read together on the driver, as the local engine reads them
        return _local(opts)
    notes = list(notes) + [n for r in results for n in r.read_notes]
    groups = [r.group for r in results if r.group is not None]
    summaries = _finish(groups, notes, i.metric, None)
    marks = {k: v for r in results for k, v in r.marks.items()}
    skipped = list(skipped) + [s for r in results for s in r.skipped]
    return Summaries(summaries, Loaded(empty_table(), list(notes), skipped=skipped), notes, marks, [],
                     route_detail="dask paths")
