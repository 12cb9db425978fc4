"""``evaladdon ingest``: read logs (files or directories) into a store, in parallel over files.

Each log is read by the adapters (:func:`evaladdon.adapters.read_runs`) in a worker process or
on a Dask worker and written by the store (:func:`evaladdon.store.store_table`); the manifest
is updated last (:func:`evaladdon.store.record_results`).  The whole ingest holds the store's
writer lock (:func:`evaladdon.store.open_for_writing`), so ingests into one store queue.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Iterable

from evaladdon.errors import EvalAddonError
from evaladdon.store import IngestReport, Manifest, content_key, open_for_writing, record_results, store_table

__all__ = ["IngestReport", "ingest", "ingest_one"]


def ingest_one(path: str, cluster: str | None, known: dict[str, str], root: str) -> dict[str, Any]:
    """Read one log and store its rows (run in a worker process or on a Dask worker).

    ``known`` maps existing keys to their data file names, so an unchanged log costs one
    hash.  Returns the manifest entry, with ``status`` ``stored``/``unchanged`` or
    ``error`` (one line).
    """
    try:
        key = content_key(path, cluster)
    except OSError as exc:
        return {"status": "error", "message": f"{path}: cannot read: {exc.strerror or exc}"}
    if key in known:
        return {"status": "unchanged", "key": key, "file": known[key]}
    from evaladdon.adapters import read_runs

    try:
        loaded = read_runs([path], cluster=cluster)
    except MemoryError:
        return {"status": "error", "message": f"{path}: not enough memory to read this log"}
    except (EvalAddonError, ValueError, OSError) as exc:
        return {"status": "error", "message": " ".join(str(exc).split())}
    return store_table(loaded.table, key, root, list(loaded.notes))


def ingest(
    paths: Iterable[str | os.PathLike[str]],
    root: str | os.PathLike[str],
    cluster: str | None = None,
    workers: int | None = None,
    progress: bool = False,
    submit: Callable[..., Any] | None = None,
    wait: float | None = None,
    on_wait: Callable[[], None] | None = None,
) -> IngestReport:
    """Ingest logs (files or directories) into the store at ``root``, in parallel over files.

    ``submit``: a callable ``(fn, list_of_arg_tuples) -> iterator of results`` to run the
    per-file work elsewhere (the Dask engine); by default a ``ProcessPoolExecutor``.
    ``wait``/``on_wait``: how long to wait for another ingest into the same store, and what to
    call when waiting starts (:func:`evaladdon.store.lock.writer_lock`).
    """
    from evaladdon.adapters import expand_paths

    with open_for_writing(root, wait, on_wait) as manifest:
        files, notes = expand_paths([os.fspath(p) for p in paths])
        own = manifest.root.resolve()
        files = [f for f in files if own not in Path(f[0]).resolve().parents]  # never the store's own files
        notes = [n for n in notes if str(own) not in n]
        report = IngestReport(notes=list(notes))
        sources = [str(Path(f).resolve()) for f, _, _ in files]
        explicit = [e for _, _, e in files]
        known = _present_keys(manifest, set(sources), report)
        jobs = [(s, cluster, known, str(manifest.root)) for s in sources]
        if submit is not None:
            results: Iterable[Any] = submit(ingest_one, jobs)
        elif len(jobs) <= 1 or workers == 1:
            results = (ingest_one(*j) for j in jobs)
        else:
            results = _pool(jobs, workers)
        return record_results(manifest, sources, explicit, _with_progress(results, len(jobs), progress), report)


def _present_keys(manifest: Manifest, sources: set[str], report: IngestReport) -> dict[str, str]:
    """Content key -> data file of the stored logs whose data file is there.  An entry whose
    data file is missing (lost to parallel ingests before the writer lock, deleted by hand) is
    read again when its log is among ``sources``, and dropped from the manifest otherwise, with
    a note."""
    missing = set(manifest.missing())
    for source in sorted(missing - sources):
        entry = manifest.entries.pop(source)
        report.notes.append(f"{source}: dropped from the store: its data file {entry['file']} is missing "
                            "(ingest the log again)")
    return {e["key"]: e["file"] for s, e in manifest.entries.items() if s not in missing}


def _pool(jobs: list[tuple[Any, ...]], workers: int | None) -> Iterable[dict[str, Any]]:
    from concurrent.futures import ProcessPoolExecutor

    n = workers or min(len(jobs), os.cpu_count() or 1)
    with ProcessPoolExecutor(max_workers=n) as pool:
        yield from pool.map(ingest_one, *zip(*jobs, strict=True), chunksize=max(1, len(jobs) // (8 * n)))


def _with_progress(results: Iterable[Any], total: int, show: bool) -> Iterable[Any]:
    if not show or total < 2:
        yield from results
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn

    with Progress(TextColumn("ingesting"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("ingest", total=total)
        for r in results:
            yield r
            bar.advance(task)
