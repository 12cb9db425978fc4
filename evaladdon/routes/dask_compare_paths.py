"""``compare PATH... --engine dask``: each worker reads its share of the input files and sends
back only per-item sides, as the ``dask_compare`` route's workers do for a store (issue 31, item 1).

The former reading (the table route's, :mod:`evaladdon.routes.dask_reduce`) reduced each file on
a worker to per-item records and then rebuilt every row on the driver as a table and ran
``compare_table`` on it.  Here the files the table route would read
(:func:`evaladdon.adapters.registry.inputs`, in its order) are cut into contiguous groups of
about equal bytes, about two per worker thread (:func:`evaladdon.routes._file_groups.file_groups`),
a task a group.  On the worker each file is read alone, by the reader the local engine uses
(:func:`evaladdon.adapters.read_runs` of that one file), its canonical table turned into the
arrays a group of stored logs gives (:func:`evaladdon.routes.store_columns.from_frame`), reduced
to the ``dask_compare`` route's :class:`~evaladdon.routes.dask_compare.GroupSides` (the same
function, :func:`evaladdon.routes.dask_compare._reduce`) and dropped: a worker holds one file's
rows at a time and sends back O(items) per (run, task, metric).  The driver pairs the sides
exactly as for a store (:class:`~evaladdon.routes.dask_compare.ReducedGroups`, the ``store_arrays``
route's pairing and the shared comparison loop).

Every (run, task, metric) then lies in one file, so a file's sides are the one-table path's and,
gathered in file order, the runs come in its order.  Where a file would be read differently
together than alone -- two files giving one run the same (task, metric), which the table route
renames; ``NAME=PATH`` inputs; a named file that cannot be read alone (its error is the user's);
a file with no per-item rows; no file read -- and where the rows are not a canonical table's
arrays, the route declines and the table route answers.  The notes and skipped-file records are
the local reading's (the inputs' notes, then each file's in file order).  One input file is read
and reduced on the driver, without starting a cluster.  With ``--scheduler`` the workers open the
files themselves (a disk every worker sees, at the same path); a file a worker cannot open is a
problem like any other: the route declines and the table route's reading names the file.
``--cluster`` is read by each worker's reader and carried by the sides (each item's first cluster).  ``tests/routes/test_route_equality.py`` holds the output equal to the
local engine's byte for byte; ``tests/routes/test_dask_compare_paths.py`` under a per-worker
Dask ``memory_limit``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from evaladdon.errors import EvalAddonError, InputError

if TYPE_CHECKING:  # pragma: no cover
    from evaladdon.analysis.options import CompareOptions, RouteLimits
    from evaladdon.routes.dask_compare import GroupSides
    from evaladdon.routes.results import Comparisons


@dataclasses.dataclass
class FileSides:
    """A file's sides, its read notes, its (run, task, metric) keys; or why it must be read with
    the others; the skipped-file record of a file found in a directory that cannot be read."""

    sides: GroupSides | None
    read_notes: list[str]
    keys: list[tuple[str, str, str]]
    problem: str | None = None
    skipped: list[dict[str, str]] = dataclasses.field(default_factory=list)
    declared: dict[str, dict[str, bool]] = dataclasses.field(default_factory=dict)
    """The directions the file declares (:mod:`evaladdon.table.direction`)."""


def sides_of_file(cluster: str | None, metric: str | None, path: str, explicit: bool = True) -> FileSides:
    """Runs on a worker: one file read alone and reduced to its sides (module doc).  A file found
    in a directory (not ``explicit``) that cannot be read is skipped with the table route's note."""
    from evaladdon._util.memory import give_back
    from evaladdon.adapters import read_runs
    from evaladdon.routes.dask_compare import GroupSides, _reduce
    from evaladdon.routes.dask_paths import NO_PER_ITEM
    from evaladdon.routes.store_columns import from_frame
    from evaladdon.table import distinct_tuples
    from evaladdon.table.direction import declared_in

    try:
        loaded = read_runs([path], cluster=cluster)
    except (KeyboardInterrupt, SystemExit):
        raise
    except InputError as exc:
        if explicit or exc.message.startswith(NO_PER_ITEM):  # the user's error, or no error read together
            return FileSides(None, [], [], f"{path}: {exc.message}")
        return FileSides(None, [f"skipped {exc}"], [], skipped=[{"path": path, "reason": exc.message}])
    except Exception as exc:  # the table route's reading decides
        return FileSides(None, [], [], f"{path}: {' '.join(str(exc).split())[:200]}")
    if loaded.names:
        return FileSides(None, [], [], f"{path}: named runs")
    table = loaded.table
    keys = [(str(r), str(t), str(m)) for r, t, m in distinct_tuples(table, ("run", "task", "metric"))]
    got = from_frame(table)
    notes = list(loaded.notes)
    declared = declared_in(table)
    del loaded, table
    if got is None:
        sides = GroupSides({}, None, [], {}, True, [], ok=False)
    else:
        sides = _reduce(got.cols, got.item_labels, metric)
    del got
    give_back()  # the file's rows, freed before the worker's next file
    return FileSides(sides, notes, keys, declared=declared)


def sides_of_files(cluster: str | None, metric: str | None, paths: Sequence[str],
                   explicit: Sequence[bool]) -> list[FileSides]:
    """Runs on a worker: :func:`sides_of_file` of each of ``paths`` in turn (one file's rows held
    at a time); stops at the first file that must be read with the others."""
    out: list[FileSides] = []
    for path, named in zip(paths, explicit, strict=True):
        out.append(sides_of_file(cluster, metric, path, named))
        if out[-1].problem is not None or (out[-1].sides is not None and not out[-1].sides.ok):
            break
    return out


def _gather(opts: CompareOptions, files: list[tuple[Path, Any, bool]]) -> list[FileSides]:
    """Every file's :class:`FileSides` in file order: on a local cluster's workers, or on the
    driver for one file."""
    from evaladdon.routes._file_groups import file_groups
    from evaladdon.routes.dask import dask_client, submitter

    i = opts.inputs
    named = {str(f): e for f, _, e in files}
    paths = [str(f) for f, _, _ in files]
    if len(paths) <= 1 and not i.scheduler:  # one file is one task: no cluster to start
        return sides_of_files(i.cluster, i.metric, paths, [named[p] for p in paths])
    with dask_client(i.scheduler) as client:
        threads = sum(int(w.get("nthreads", 1)) for w in client.scheduler_info()["workers"].values())
        groups = file_groups([Path(p) for p in paths], 2 * max(threads, 1))
        jobs = [(i.cluster, i.metric, g, [named[p] for p in g]) for g in groups]
        return [r for got in submitter(client)(sides_of_files, jobs) for r in got]


def compare(opts: CompareOptions, limits: RouteLimits) -> Comparisons:
    """``compare PATH... --engine dask`` (module doc); declines when the files must be read together."""
    from evaladdon.adapters.registry import inputs as input_files
    from evaladdon.routes.dask_compare import ReducedGroups
    from evaladdon.routes.results import Comparisons, Decline
    from evaladdon.routes.store_arrays import FastStore
    from evaladdon.table.checks import check_metric_name
    from evaladdon.table.direction import merge_declared
    from evaladdon.table.loaded import Loaded

    i = opts.inputs
    files, notes, name_of, skipped = input_files(list(i.paths))
    if name_of:
        raise Decline("NAME=PATH: the table route names their runs")
    results = _gather(opts, files)
    if len(results) < len(files) or any(r.problem is not None for r in results):
        raise Decline("a file read differently together than alone: " +
                      next((str(r.problem) for r in results if r.problem is not None), "rows not a canonical table's"))
    parts = [r.sides for r in results if r.sides is not None]
    if not all(p.ok for p in parts) or not any(p.labels for p in parts):
        raise Decline("rows that are not a canonical table's, or no rows")
    keys = [k for r in results for k in r.keys]
    if len(set(keys)) < len(keys):
        raise Decline("two files give one run the same (task, metric): the table route names them apart")
    notes = list(notes) + [n for r in results for n in r.read_notes]
    skipped = list(skipped) + [s for r in results for s in r.skipped]
    check_metric_name(i.metric, lambda: list(dict.fromkeys(m for p in parts for m in p.metrics)))
    declared = merge_declared((r.declared for r in results), notes)
    fast = FastStore(ReducedGroups([p for p in parts if p.labels]), notes, all(p.bounded for p in parts), declared)
    compared: list[Any] = []
    try:
        got = fast.compare(opts.baseline, opts.all_pairs, **opts.pairing(), skipped=compared, needs=opts.needs)
    except EvalAddonError as exc:  # the table route's words (routes.table.compare)
        if not skipped:
            raise
        first = skipped[0]
        raise EvalAddonError(f"{exc} ({len(skipped)} input(s) not read; first: {first['path']}: "
                             f"{first['reason']})") from None
    return Comparisons(got, Loaded(None, notes, skipped=skipped), all(r.points for r in got), compared)  # type: ignore[arg-type]
