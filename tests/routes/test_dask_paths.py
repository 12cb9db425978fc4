"""``summarize --engine dask PATH...`` (issue 31 item 1): each worker reads its share of the files
itself and sends back only summaries; no temporary store is written.

Oracle: the local engine on the same files (the table route: every file read into one table,
``summarize_table``), its output byte for byte and its numbers exactly.  The cluster: two
in-process workers, each under a Dask ``memory_limit`` below the rows of the files together."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest

from built_logs import synthetic
from route_cases import dask_path_logs, observe_route

pytest.importorskip("distributed", reason="the Dask engine needs distributed (pip install 'evaladdon[dask]')")

N_LOGS = 6
LIMIT = 4 * 2**20  # bytes a worker may manage before it spills to disk


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return dask_path_logs(tmp_path_factory.mktemp("dask_paths"), N_LOGS)


_observe = observe_route


def test_the_command_gives_the_local_output_byte_for_byte(logs: Path, cli: Callable[..., Any],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import evaladdon.routes.ingest as ingest

    def no_store(*a: Any, **k: Any) -> None:
        raise AssertionError("a store was written")

    monkeypatch.setattr(ingest, "ingest", no_store)
    shown = ""
    for extra in ((), ("--json",), ("--cluster", "passage", "--markdown"), ("--metric", "score", "--json")):
        local = cli("summarize", logs, *extra)
        shown += local[1] + local[2]
        dask, outcome = _observe(cli, "summarize", logs, "--engine", "dask", *extra)
        assert local[0] == 0 and dask == local, extra
        assert (outcome.route, outcome.detail, outcome.declined) == ("dask_store", "dask paths", []), extra
    assert "broken.json" in shown  # the skipped file is counted in both


def test_errors_are_the_local_engines(logs: Path, cli: Callable[..., Any]) -> None:
    for extra in (("--metric", "scor"), ("--cluster", "pasage")):
        local = cli("summarize", logs, *extra)
        dask = cli("summarize", logs, "--engine", "dask", *extra)
        assert local[0] == 2 and dask == local, extra
        assert len(local[2].strip().splitlines()) == 1


def test_files_read_together_are_read_on_the_driver(logs: Path, tmp_path: Path, cli: Callable[..., Any]) -> None:
    clash = tmp_path / "clash"  # two files giving run m0 the same (task, metric): the table route renames them
    clash.mkdir()
    synthetic(clash / "a.csv", "m0", 1, n_items=500)
    synthetic(clash / "b.csv", "m0", 2, n_items=500)
    for args in ((clash,), (f"x={logs / 'm0.csv'}", f"y={logs / 'm1.csv'}")):
        local = cli("summarize", *args)
        dask, outcome = _observe(cli, "summarize", *args, "--engine", "dask")
        assert local[0] == 0 and dask == local, args
        assert (outcome.route, outcome.detail) == ("dask_store", "read together on the driver"), args


def test_two_workers_under_a_memory_limit_give_the_local_numbers(logs: Path) -> None:
    import dask
    from dask.sizeof import sizeof

    from evaladdon.adapters import read_runs
    from evaladdon.analysis.summarize import summarize_table
    from evaladdon.routes.dask import dask_client, submitter
    from evaladdon.routes.dask_paths import PathOptions, gather
    from evaladdon.routes.dask_store import _finish
    from evaladdon.table import run_labels

    files = sorted(logs.glob("*.csv"))
    table = read_runs([str(f) for f in files]).table
    assert int(table.memory_usage(deep=True).sum()) > 4 * LIMIT  # the rows do not fit one worker
    labels = run_labels(table)
    want = [s.flat() | {"label": labels[s.run]} for s in summarize_table(table, notes=[])]
    sent: list[int] = []
    with dask.config.set({"distributed.worker.memory.pause": False, "distributed.worker.memory.terminate": False}):
        with dask_client(None, n_workers=2, memory_limit=LIMIT) as client:

            def submit(fn, jobs):  # type: ignore[no-untyped-def]
                got = list(submitter(client)(fn, jobs))
                sent.extend(sizeof(g) for g in got)
                return iter(got)

            results, problem = gather(submit, PathOptions(None, None, 0.95, "auto", "cr2"), files, threads=2)
    assert problem is None and len(results) == N_LOGS and 2 <= len(sent) <= 4  # ~2 groups a worker thread
    got = [s.flat() | {"label": s.label} for s in _finish([r.group for r in results if r.group], [], None, None)]
    assert got == want  # identical numbers: the same kernel on the same rows
    assert max(sent) < LIMIT / 50  # each task sends back a few KB, whatever its rows


def test_file_groups_are_contiguous_and_balanced(tmp_path: Path) -> None:
    from evaladdon.routes.dask_paths import file_groups

    files = []
    for k, size in enumerate([10, 10, 10, 10, 100, 10, 10, 10]):
        f = tmp_path / f"f{k}"
        f.write_bytes(b"x" * size)
        files.append(f)
    groups = file_groups(files, 4)
    assert [p for g in groups for p in g] == [str(f) for f in files]  # every file once, in order
    assert 2 <= len(groups) <= 4 and any(g == [str(files[4])] for g in groups)  # the large one alone
    assert file_groups(files, 1) == [[str(f) for f in files]] and file_groups([], 3) == []


def test_one_file_is_read_on_the_driver_without_a_cluster(logs: Path, cli: Callable[..., Any],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import evaladdon.routes.dask as dask_route

    def no_cluster(*a: Any, **k: Any) -> None:
        raise AssertionError("a cluster was started for one file")

    monkeypatch.setattr(dask_route, "dask_client", no_cluster)
    one = logs / "m1.csv"
    local = cli("summarize", one, "--json")
    dask, outcome = _observe(cli, "summarize", one, "--json", "--engine", "dask")
    assert local[0] == 0 and dask == local
    assert (outcome.route, outcome.detail) == ("dask_store", "one file: read on the driver")
