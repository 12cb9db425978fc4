"""``summarize --store --engine dask`` (the ``dask_store`` route, issue 31 item 1): each worker
summarizes a group of stored logs and sends back only the summaries.

Oracle: the local engine on the same store (``summarize_table`` of the whole table read at once,
and the command's output byte for byte).  The cluster: two in-process workers, each under a
Dask ``memory_limit`` a fraction of the store's rows in memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from built_logs import synthetic
from typing import Any, Callable

from evaladdon.cli.main import main

pytest.importorskip("distributed", reason="the Dask engine needs distributed (pip install 'evaladdon[dask]')")

N_LOGS = 6
LIMIT = 4 * 2**20  # bytes a worker may manage before it spills to disk


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("dask_store")
    logs = root / "logs"
    logs.mkdir()
    for k in range(N_LOGS):  # 6 logs of 20,000-40,000 rows: 0/1 and continuous, 1 to 2 epochs
        synthetic(logs / f"m{k}.csv", f"m{k}", k, n_items=20_000, epochs=1 + k % 2, binary=k % 2 == 0)
    assert main(["ingest", str(logs), "--store", str(root / "store"), "--cluster", "passage"]) in (0, None)
    return root / "store"


def test_two_workers_under_a_memory_limit_give_the_local_numbers(store: Path) -> None:
    import dask
    from dask.sizeof import sizeof

    from evaladdon.analysis.summarize import summarize_table
    from evaladdon.routes.dask import dask_client, submitter
    from evaladdon.routes.dask_store import GroupOptions, summarize_store
    from evaladdon.store.query import load_store
    from evaladdon.table import run_labels

    table = load_store(store).table
    rows_bytes = int(table.memory_usage(deep=True).sum())
    assert rows_bytes > 4 * LIMIT  # the store's rows do not fit one worker
    want = summarize_table(table, notes=[])
    labels = run_labels(table)
    want = [s.flat() | {"label": labels[s.run]} for s in want]
    sent: list[int] = []
    opts = GroupOptions(str(store), None, None, 0.95, "auto", "cr2")
    # in-process workers: the process's memory is the test's, so no pausing; spilling stays on
    with dask.config.set({"distributed.worker.memory.pause": False, "distributed.worker.memory.terminate": False}):
        with dask_client(None, n_workers=2, memory_limit=LIMIT) as client:
            workers = client.scheduler_info()["workers"]
            assert len(workers) == 2 and all(w["memory_limit"] == LIMIT for w in workers.values())

            def submit(fn, jobs):  # type: ignore[no-untyped-def]
                got = list(submitter(client)(fn, jobs))
                sent.extend(sizeof(g) for g in got)
                return iter(got)

            summaries, notes = summarize_store(opts, submit, max_rows=30_000, check_metric=lambda df, m: None)
    got = [s.flat() | {"label": s.label} for s in summaries]
    assert got == want  # identical numbers, not merely close: the same kernel on the same rows
    assert len(sent) == N_LOGS and max(sent) < LIMIT / 100  # each task sends back a few KB
    assert len(got) == N_LOGS and all(g["n_clusters"] for g in got)


def test_the_command_gives_the_local_output_byte_for_byte(store: Path, cli: Callable[..., Any]) -> None:
    for extra in ((), ("--json",), ("--where", "model IN ('m1', 'm4')", "--markdown")):
        local = cli("summarize", "--store", store, *extra)
        dask = cli("summarize", "--store", store, "--engine", "dask", *extra)
        assert local[0] == 0 and dask == local, extra


def test_the_route_that_answers_is_dask_store(store: Path) -> None:
    from evaladdon.analysis.options import InputOptions, RoutePolicy, SummarizeOptions
    from evaladdon.routes.plan import plan_summarize, run

    seen = []
    inputs = InputOptions(store=str(store), engine="dask", command="summarize", routes=RoutePolicy(observe=seen.append))
    outcome = run(plan_summarize(SummarizeOptions(inputs)), inputs.routes)
    assert outcome.route == "dask_store" and outcome.detail == "dask" and not outcome.declined
    assert len(outcome.value.summaries) == N_LOGS
