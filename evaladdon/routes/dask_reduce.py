"""The ``table`` route's reading of PATHs under ``--engine dask`` (``compare``, ``report``, and
``summarize`` when its fast route declines): each worker reads its share of the files and
reduces each file in memory to per-item sufficient statistics; nothing is written to disk
(issue 31, item 1).

The files are the ones ``ingest`` would read (:func:`evaladdon.adapters.expand_paths`, each
file named once), cut into contiguous groups of about equal bytes, about two per worker thread
(:func:`evaladdon.routes._file_groups.file_groups`); each group is one task.  On the worker each
file is read alone, as ``ingest`` reads it (:func:`evaladdon.adapters.read_runs` of that one
file), reduced to the per-(run, task, metric, item) records and the per-(item, reason) counts of
the rows left out (:func:`evaladdon.store.reduce.reduce_table`, the records :func:`reduce_file`
gives for a stored file), and dropped: a worker holds one file's rows at a time and sends back a
few numbers per item, its reader notes and incomplete-log marks.  The driver takes the files in the order the local reader
reads them (the inputs as given; a directory's files sorted), lets :func:`evaladdon.store.reduce.reduced_table` name apart runs two
files share and rebuild the rows: the table, notes and errors of the former reading, which first
ingested the files into a temporary store on the workers and reduced each stored file (except
that two copies of one log under two names are two runs, as the local engine reads them, where
the content-keyed store kept one).

A file that cannot be read is one line naming it as given (exit 2) when it was named, a
``skipped`` note and record when it was found in a directory, as the local reader says.  With ``--scheduler`` the workers open the files themselves:
the PATHs must be on a disk every worker sees at the same absolute path, and a file a worker
cannot open says so.  Without ``--scheduler`` a single file is read and reduced on the driver,
without starting a cluster.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from evaladdon.errors import EvalAddonError

if TYPE_CHECKING:  # pragma: no cover
    from evaladdon.routes.dask_store import Submit

REMOTE = "; with --scheduler, PATHs must be on a disk every Dask worker sees, at the same path"


@dataclasses.dataclass
class Reduced:
    """One file's per-item records and left-out counts, its reader notes; or its error (one line
    naming the file)."""

    items: Any
    dropped: Any
    notes: list[str]
    error: str | None = None
    reason: str | None = None
    """Why the file could not be read, without its path (a ``skipped`` record's ``reason``)."""
    incomplete: dict[str, dict] = dataclasses.field(default_factory=dict)
    """The reader's incomplete-log marks (``Loaded.incomplete``), by source."""
    declared: dict[str, dict[str, bool]] | None = None
    """The directions the file declares (:mod:`evaladdon.table.direction`)."""


def load_reduced(paths: Sequence[str], store: str | None, where: str | None, cluster: str | None,
                 scheduler: str | None) -> Any:
    """The :class:`Loaded` of the Dask engine: a store's files reduced on the workers
    (:func:`evaladdon.routes.dask.reduce_store`), or PATHs read and reduced on the workers without
    a store (:func:`reduce_inputs`; the workers must see the files); the driver rebuilds the rows."""
    from evaladdon.routes.dask import dask_client, reduce_store
    from evaladdon.table import validate
    from evaladdon.table.loaded import Loaded

    if cluster is not None and store:
        raise EvalAddonError("with --engine dask and --store, clusters are set when ingesting (ingest --cluster)")
    if not store:
        return reduce_inputs(paths, cluster, scheduler)
    with dask_client(scheduler) as client:
        table, notes = reduce_store(client, store, where)
    return Loaded(validate(table), notes)


def reduce_path(path: str, cluster: str | None, remote: bool = False) -> Reduced:
    """Runs on a worker: ``path`` read alone (as ``ingest`` reads it) and reduced in memory."""
    from evaladdon.adapters import read_runs
    from evaladdon.store.reduce import reduce_table

    try:
        with open(path, "rb"):
            pass
    except OSError as exc:
        why = f"cannot read: {exc.strerror or exc}" + (REMOTE if remote else "")
        return Reduced(None, None, [], f"{path}: {why}", why)
    try:
        loaded = read_runs([path], cluster=cluster)
    except MemoryError:
        return Reduced(None, None, [], f"{path}: not enough memory to read this log", "not enough memory to read this log")
    except EvalAddonError as exc:
        return Reduced(None, None, [], str(exc), exc.message)
    except (ValueError, OSError) as exc:
        return Reduced(None, None, [], " ".join(str(exc).split()), " ".join(str(exc).split()))
    from evaladdon.table.direction import declared_in

    items, dropped = reduce_table(loaded.table, Path(path).name)
    return Reduced(items, dropped, list(loaded.notes), incomplete=dict(loaded.incomplete),
                   declared=declared_in(loaded.table) or None)


def reduce_paths(paths: Sequence[str], cluster: str | None, remote: bool = False) -> list[Reduced]:
    """Runs on a worker: :func:`reduce_path` of each of ``paths`` in turn (one file's rows held
    at a time)."""
    return [reduce_path(p, cluster, remote) for p in paths]


def reduce_inputs(paths: Sequence[str], cluster: str | None, scheduler: str | None) -> Any:
    """The :class:`~evaladdon.table.loaded.Loaded` of ``paths`` (module doc): the files reduced on
    the workers of ``scheduler`` (or of a local cluster; a single file on the driver), the rows
    rebuilt, with the local reader's notes, ``skipped`` records (files found in a directory that
    could not be read, named as given) and incomplete-log marks."""
    import os

    from evaladdon.adapters.registry import inputs
    from evaladdon.routes.dask import dask_client
    from evaladdon.store.reduce import reduced_table
    from evaladdon.table import validate
    from evaladdon.table.loaded import Loaded

    files, notes, name_of, skipped = inputs([os.fspath(p) for p in paths])
    given: dict[str, str] = {}  # each file once (by its resolved path), named as the user gave it
    named: dict[str, bool] = {}
    for f, _, explicit in files:
        source = str(Path(f).resolve())
        given.setdefault(source, str(f))
        named[source] = named.get(source, False) | explicit
    sources = list(given)
    if len(sources) <= 1 and not scheduler:  # one file is one task: no cluster to start
        results = reduce_paths(sources, cluster)
    else:
        with dask_client(scheduler) as client:
            results = _on_workers(client, sources, cluster, remote=bool(scheduler))
    errors = []
    incomplete: dict[str, dict] = {}
    for source, r in zip(sources, results, strict=True):
        if r.error is None:
            notes.extend(r.notes)
            incomplete.update(r.incomplete)
            continue
        error = given[source] + r.error[len(source):] if r.error.startswith(source) else r.error
        if named[source]:
            errors.append(error)
        else:
            notes.append(f"skipped {error}")
            skipped.append({"path": given[source], "reason": r.reason or error})
    if errors:
        raise EvalAddonError(errors[0])
    # in the order the local reader reads them (the inputs as given, a directory's files sorted): the
    # runs' order, and so which run is A, is the local engine's
    got = [(s, r) for s, r in zip(sources, results, strict=True) if r.error is None]
    if not got:
        raise EvalAddonError("no log could be read" + (f": {'; '.join(notes)}" if notes else ""))
    items, dropped = [r.items for _, r in got], [r.dropped for _, r in got]
    names: dict[str, str] = {}
    if name_of:  # NAME=PATH: the runs of PATH are called NAME, as the local engine's reader names them
        from evaladdon.adapters.read import name_runs

        sources_got = [Path(source) for source, _ in got]
        tables = items + dropped
        name_runs(tables, sources_got + sources_got, {Path(f).resolve(): n for f, n in name_of.items()})
        items, dropped = tables[:len(got)], tables[len(got):]
        given_names = set(name_of.values())
        names = {str(r): str(r) for t in items for r in t["run"].unique()
                 if str(r) in given_names or str(r).split("/")[0] in given_names}
    from evaladdon.table.direction import ATTR, merge_declared

    table = reduced_table(list(zip(items, dropped, strict=True)))
    table.attrs["run_names"] = names
    declared = merge_declared((r.declared for _, r in got), notes)
    if declared:
        table.attrs[ATTR] = declared
    return Loaded(validate(table), notes, skipped=skipped, names=names, incomplete=incomplete)


def _on_workers(client: Any, sources: list[str], cluster: str | None, remote: bool) -> list[Reduced]:
    """:func:`reduce_path` of every source, a group of files a task, results in source order."""
    from evaladdon.routes._file_groups import file_groups
    from evaladdon.routes.dask import submitter

    threads = sum(int(w.get("nthreads", 1)) for w in client.scheduler_info()["workers"].values())
    groups = file_groups([Path(s) for s in sources], 2 * max(threads, 1))
    submit: Submit = submitter(client)
    return [r for got in submit(reduce_paths, [(g, cluster, remote) for g in groups]) for r in got]
