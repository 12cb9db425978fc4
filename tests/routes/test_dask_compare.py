"""``compare --store --engine dask`` (the ``dask_compare`` route, issue 31 item 1b): each worker
reduces a group of stored logs to per-item statistics of each (run, task, metric) and sends back
only those; the driver pairs them.

Oracle: the local engine on the same store (its output byte for byte: the ``store_arrays`` or
table route).  The cluster: two in-process workers, each under a Dask ``memory_limit`` below the
store's rows in memory."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest

from built_logs import synthetic
from evaladdon.cli.main import main

pytest.importorskip("distributed", reason="the Dask engine needs distributed (pip install 'evaladdon[dask]')")

N_LOGS = 5
LIMIT = 4 * 2**20  # bytes a worker may manage before it spills to disk


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("dask_compare")
    logs = root / "logs"
    logs.mkdir()
    for k in range(N_LOGS):  # 5 logs of 20,000-40,000 rows: 0/1 and continuous, 1 to 2 epochs
        synthetic(logs / f"m{k}.csv", f"m{k}", k, n_items=20_000, epochs=1 + k % 2, binary=k % 2 == 0)
    assert main(["ingest", str(logs), "--store", str(root / "store"), "--cluster", "passage"]) in (0, None)
    return root / "store"


ARGS = [("--baseline", "m0"), ("--baseline", "m1", "--json"), ("--all-pairs", "--markdown"),
        ("--baseline", "m3", "--where", "model IN ('m1', 'm3', 'm4')", "--json"),
        ("--baseline", "m0", "--test", "permutation", "--interval", "bootstrap", "--seed", "3", "--json"), ("--baseline", "m0", "--metric", "scor"),
        ("--baseline", "m9",), ("--json",)]


@pytest.mark.parametrize("args", ARGS, ids=" ".join)
def test_the_command_gives_the_local_output_byte_for_byte(store: Path, cli: Callable[..., Any],
                                                          args: tuple[str, ...]) -> None:
    from evaladdon.analysis.options import RoutePolicy

    seen: list[Any] = []
    local = cli("compare", "--store", store, *args)
    dask = cli("compare", "--store", store, "--engine", "dask", *args, routes=RoutePolicy(observe=seen.append))
    assert dask == local, args
    assert seen[0].route == "dask_compare" and not seen[0].declined, args
    if "scor" in args or "m9" in args or args == ("--json",):
        assert local[0] == 2 and len(local[2].strip().splitlines()) == 1  # the local one-line error
    else:
        assert local[0] == 0 and local[1]


def test_two_workers_under_a_memory_limit_send_only_per_item_statistics(store: Path) -> None:
    import dask
    from dask.sizeof import sizeof

    from evaladdon.routes.dask import dask_client, submitter
    from evaladdon.routes.dask_compare import ReducedGroups, reduce_group
    from evaladdon.routes.store_arrays import FastStore, fast_store
    from evaladdon.store.query import load_store, select

    table = load_store(store).table
    assert int(table.memory_usage(deep=True).sum()) > 3 * LIMIT  # the rows do not fit one worker
    local = fast_store(str(store), None, None, lambda m, names: None, max_rows=10**9)
    assert local is not None
    files = [str(f) for f in select(str(store)).files]
    with dask.config.set({"distributed.worker.memory.pause": False, "distributed.worker.memory.terminate": False}):
        with dask_client(None, n_workers=2, memory_limit=LIMIT) as client:
            parts = list(submitter(client)(reduce_group, [(str(store), None, None, files[:2]),
                                                          (str(store), None, None, files[2:])]))
    rows_bytes = int(table.memory_usage(deep=True).sum())
    assert all(sizeof(p) < rows_bytes / 4 for p in parts)  # per-item statistics, not rows
    fast = FastStore(ReducedGroups(parts), [], all(p.bounded for p in parts))
    kw = dict(level=0.95, test="auto", interval="auto", cluster_method="cr2", strict=False, adjust="none",
              margin=None, seed=0, skipped=[])
    want = [r.flat() for r in local.compare(None, True, **kw)]  # type: ignore[arg-type]
    got = [r.flat() for r in fast.compare(None, True, **kw)]  # type: ignore[arg-type]
    assert len(got) == N_LOGS * (N_LOGS - 1) // 2
    assert got == want  # identical numbers: the same per-item means, pairing and statistics


@pytest.mark.parametrize("args", [("--baseline", "m0", "--json"), ("--all-pairs", "--markdown")], ids=" ".join)
def test_the_command_on_two_workers_under_a_memory_limit_gives_the_local_output(
        store: Path, cli: Callable[..., Any], args: tuple[str, ...]) -> None:
    """``compare --store --engine dask --scheduler`` on a 2-worker cluster each of whose workers
    may manage less than a third of the store's rows in memory: the local output byte for byte."""
    import dask
    from distributed import LocalCluster

    from evaladdon.analysis.options import RoutePolicy
    from evaladdon.store.query import load_store

    assert int(load_store(store).table.memory_usage(deep=True).sum()) > 3 * LIMIT
    local = cli("compare", "--store", store, *args)
    seen: list[Any] = []
    with dask.config.set({"distributed.worker.memory.pause": False, "distributed.worker.memory.terminate": False}):
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp", host="127.0.0.1",
                          dashboard_address=None, memory_limit=LIMIT) as cluster:
            workers = cluster.scheduler_info["workers"]
            assert len(workers) == 2 and all(w["memory_limit"] == LIMIT for w in workers.values())
            dask_out = cli("compare", "--store", store, "--engine", "dask", "--scheduler", cluster.scheduler_address,
                           *args, routes=RoutePolicy(observe=seen.append))
    assert local[0] == 0 and local[1]
    assert dask_out == local
    assert seen[0].route == "dask_compare" and not seen[0].declined


def test_item_labels_coded_a_group_at_a_time_as_all_at_once() -> None:
    """:class:`_LabelCoder` (groups folded in as they arrive) against the former coding, one
    ``dictionary_encode`` of every group's labels in order: the same codes and labels, for groups
    that repeat the previous one's labels, share some, add new ones, or are object arrays."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    from evaladdon.routes.dask_compare import _LabelCoder

    groups = [pa.array(["a", "b", "c"]), pa.array(["a", "b", "c"]), pa.array(["c", "d", "a"]),
              np.array(["e", "b"], dtype=object), pa.array(["f"], type=pa.large_string()),
              pa.array(["f"], type=pa.large_string())]
    want = pc.dictionary_encode(pa.chunked_array([pa.array(g, type=pa.large_string()) for g in groups]))
    coder = _LabelCoder()
    got = [coder.code(g) for g in groups]
    assert coder.code(pa.array([], type=pa.string())).tolist() == []  # (dictionary_encode drops an empty chunk)
    for codes, chunk in zip(got, want.chunks, strict=True):
        assert codes.tolist() == chunk.indices.to_pylist()
    assert coder.labels().tolist() == want.chunk(0).dictionary.to_pylist()


def test_a_group_s_results_are_taken_one_at_a_time() -> None:
    """:func:`lazy_submitter`: results in job order, each fetched when asked for; the tasks left
    when the caller stops are cancelled."""
    from evaladdon.routes.dask import dask_client, lazy_submitter

    with dask_client(None, n_workers=2) as client:
        results = lazy_submitter(client)(pow, [(k, 2) for k in range(6)])
        assert next(results) == 0
        assert list(results) == [1, 4, 9, 16, 25]
        stopped = lazy_submitter(client)(pow, [(k, 2) for k in range(6)])
        assert next(stopped) == 0
        stopped.close()  # type: ignore[attr-defined]
