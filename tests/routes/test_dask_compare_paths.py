"""``compare PATH... --engine dask`` (the ``dask_compare`` route on PATHs, issue 31 item 1): each
worker reads its share of the files, turns each file's canonical table into the arrays a stored
group gives and sends back only per-item sides; the driver pairs them as for a store.

Oracle: the local engine on the same files (the table route: every file read into one table,
``compare_table``), its output byte for byte.  The cluster: two in-process workers, each under a
Dask ``memory_limit`` below the rows of the files together."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest

from route_cases import dask_path_logs, observe_route

pytest.importorskip("distributed", reason="the Dask engine needs distributed (pip install 'evaladdon[dask]')")

N_LOGS = 6
LIMIT = 4 * 2**20  # bytes a worker may manage before it spills to disk


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return dask_path_logs(tmp_path_factory.mktemp("dask_compare_paths"), N_LOGS)


_observe = observe_route


ARGS = [("--baseline", "m0"), ("--baseline", "m1", "--json", "--cluster", "passage"), ("--all-pairs", "--markdown"),
        ("--baseline", "m0", "--test", "permutation", "--interval", "bootstrap", "--seed", "3", "--json"),
        ("--baseline", "m0", "--metric", "scor"), ("--baseline", "m9"), ("--json",)]


@pytest.mark.parametrize("args", ARGS, ids=" ".join)
def test_the_command_gives_the_local_output_byte_for_byte(logs: Path, cli: Callable[..., Any],
                                                          args: tuple[str, ...]) -> None:
    local = cli("compare", logs, *args)
    dask, seen = _observe(cli, "compare", logs, "--engine", "dask", *args)
    assert dask == local, args
    assert seen.route == "dask_compare" and not seen.declined, (args, seen.declined)
    if "scor" in args or "m9" in args or args == ("--json",):
        assert local[0] == 2 and len(local[2].strip().splitlines()) == 1  # the local one-line error
    else:
        assert local[0] == 0 and local[1] and "broken.json" in local[1] + local[2]  # the skipped file, noted


def test_files_read_together_decline_to_the_table_route(logs: Path, tmp_path: Path, cli: Callable[..., Any]) -> None:
    """One run's (task, metric) in two files (the table route names the runs apart), ``NAME=PATH``
    and a named file that cannot be read: the route declines, the table route answers."""
    (tmp_path / "again").mkdir()
    (tmp_path / "again" / "m0.csv").write_bytes((logs / "m0.csv").read_bytes())
    (tmp_path / "bad.csv").write_text("x,y\n1,2\n")  # a table without the needed columns
    for argv in ((logs / "m0.csv", tmp_path / "again" / "m0.csv", "--json"),
                 (f"a={logs / 'm0.csv'}", f"b={logs / 'm2.csv'}", "--json"),
                 (logs / "m0.csv", tmp_path / "bad.csv")):
        (rc, out, err), seen = _observe(cli, "compare", *argv, "--engine", "dask")
        assert seen.route == "table" and [n for n, _ in seen.declined] == ["dask_compare"], (argv, seen)
        if "=" not in str(argv[0]):  # NAME=PATH: the table route's Dask reading does not name runs (a known gap)
            assert (rc, err) == cli("compare", *argv)[::2], argv


def test_paths_on_a_scheduler_under_a_memory_limit_give_the_local_output(logs: Path, cli: Callable[..., Any]) -> None:
    """``compare PATH... --engine dask --scheduler`` on a 2-worker cluster each of whose workers
    may manage less than a quarter of the files' rows in memory: the local output byte for byte,
    from the ``dask_compare`` route; each task sends back per-item sides, not rows."""
    import dask
    from dask.sizeof import sizeof
    from distributed import LocalCluster

    from evaladdon.adapters import read_runs
    from evaladdon.routes.dask import submitter
    from evaladdon.routes.dask_compare_paths import sides_of_files

    table = read_runs([str(logs)], cluster="passage").table
    rows_bytes = int(table.memory_usage(deep=True).sum())
    assert rows_bytes > 4 * LIMIT  # the rows do not fit one worker
    argv = ("compare", logs, "--all-pairs", "--cluster", "passage", "--json")
    local = cli(*argv)
    assert local[0] == 0 and local[1]
    with dask.config.set({"distributed.worker.memory.pause": False, "distributed.worker.memory.terminate": False}):
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp", host="127.0.0.1",
                          dashboard_address=None, memory_limit=LIMIT) as cluster:
            workers = cluster.scheduler_info["workers"]
            assert len(workers) == 2 and all(w["memory_limit"] == LIMIT for w in workers.values())
            got, seen = _observe(cli, *argv, "--engine", "dask", "--scheduler", cluster.scheduler_address)
            from distributed import Client

            files = sorted(str(f) for f in logs.glob("m*.csv"))
            with Client(cluster) as client:
                parts = list(submitter(client)(sides_of_files, [("passage", None, files[:3], [True] * 3),
                                                                ("passage", None, files[3:], [True] * 3)]))
    assert got == local
    assert seen.route == "dask_compare" and not seen.declined, seen.declined
    assert all(sizeof(p) < rows_bytes / 8 for p in parts)  # per-item sides, not rows


def test_a_file_the_workers_cannot_open_declines(logs: Path, cli: Callable[..., Any]) -> None:
    from evaladdon.routes.dask_compare_paths import sides_of_file

    got = sides_of_file(None, None, str(logs / "elsewhere.csv"))
    assert got.sides is None and got.problem is not None and "elsewhere.csv" in got.problem
