"""``--engine dask``: the cluster, and the ``table`` route's reading on it.

``ingest``: each log is read on a worker and written into the store's Parquet dataset (the
workers must see the store: a shared disk, or object storage mounted through fsspec).
Statistics: each stored file, or each input file read on a worker without a store
(:mod:`evaladdon.routes.dask_reduce`), is reduced there to per-item sufficient statistics
(:mod:`evaladdon.store.reduce`); the driver gathers those small tables, rebuilds the rows and
runs the same stats core.  Without ``--scheduler`` a ``distributed.LocalCluster`` is started in
the process.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator, Sequence

from evaladdon.errors import EvalAddonError


@contextlib.contextmanager
def dask_client(scheduler: str | None = None, n_workers: int = 2, memory_limit: str | int | None = None) -> Iterator[Any]:
    """A ``distributed.Client`` on ``scheduler``, or on a new local cluster (threads; each worker
    under ``memory_limit``, Dask's: the managed memory above which it spills to disk)."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise EvalAddonError("--engine dask needs dask: pip install 'evaladdon[dask]'") from None
    import logging

    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    if scheduler:
        from distributed.comm import get_address_host_port

        try:  # checked before a Client exists: a half-made one lingers and closes itself later
            get_address_host_port(scheduler)
        except (ValueError, TypeError) as exc:
            raise EvalAddonError(f"not a Dask scheduler address: {' '.join(str(exc).split())}", scheduler) from None
        try:
            client = Client(scheduler, timeout="10s")
        except (OSError, TimeoutError) as exc:
            raise EvalAddonError(f"cannot reach the Dask scheduler: {' '.join(str(exc).split())}", scheduler) from None
        except (ValueError, TypeError) as exc:  # a malformed address: the error is the address's, not an input's
            raise EvalAddonError(f"not a Dask scheduler address: {' '.join(str(exc).split())}", scheduler) from None
        with client:
            yield client
        return
    limit: dict[str, Any] = {} if memory_limit is None else {"memory_limit": memory_limit}
    with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=False, dashboard_address=None,
                      **limit) as cluster:
        with Client(cluster) as client:
            yield client


def submitter(client: Any) -> Callable[[Callable[..., Any], Sequence[tuple[Any, ...]]], Iterator[Any]]:
    """``(fn, jobs) -> results in job order``, computed on the cluster's workers."""

    def submit(fn: Callable[..., Any], jobs: Sequence[tuple[Any, ...]]) -> Iterator[Any]:
        if not jobs:
            return iter(())
        futures = client.map(fn, *zip(*jobs, strict=True), pure=False)
        return iter(client.gather(futures))

    return submit


def lazy_submitter(client: Any) -> Callable[[Callable[..., Any], Sequence[tuple[Any, ...]]], Iterator[Any]]:
    """As :func:`submitter`, but each result is fetched when the caller asks for it and its future
    released then: a worker keeps a finished task's result only until the driver has taken it,
    and the driver holds only the results it keeps (``client.gather`` of all futures holds every
    result at once, on the workers until then and on the driver after)."""

    def submit(fn: Callable[..., Any], jobs: Sequence[tuple[Any, ...]]) -> Iterator[Any]:
        if not jobs:
            return
        futures = client.map(fn, *zip(*jobs, strict=True), pure=False)
        try:
            for k in range(len(futures)):
                got = futures[k].result()
                futures[k].release()
                futures[k] = None
                yield got
                del got
        finally:
            client.cancel([f for f in futures if f is not None])

    return submit


def reduce_store(client: Any, store: str, where: str | None) -> Any:
    from evaladdon.store.reduce import reduce_file, reduced_table
    from evaladdon.store import Manifest
    from evaladdon.store.query import check_where, pick_files
    from evaladdon.table.direction import ATTR, merge_declared

    manifest = Manifest.load(store)
    where = check_where(where) if where else None
    files = pick_files(manifest, where)
    if not files:
        raise EvalAddonError(f"--where matches no stored run ({where})")
    parts = list(submitter(client)(reduce_file, [(str(f), where) for f in files]))
    picked = [e for e in manifest.entries.values() if e["file"] in {f.name for f in files}]
    notes = [n for e in picked for n in e.get("notes", [])]
    table = reduced_table(parts)
    declared = merge_declared(e.get(ATTR) for e in picked)  # the directions the logs declare, as stored
    if declared:
        table.attrs[ATTR] = declared
    return table, notes
