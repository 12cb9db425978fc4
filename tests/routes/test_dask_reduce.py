"""``--engine dask`` on PATHs for the commands that read the canonical table (``compare``,
``report``, ``summarize`` when its fast route declines): each worker reads its share of the files
and reduces each in memory (``routes/dask_reduce.py``, issue 31 item 1); nothing is written.

Oracles: the former reading, rebuilt here step by step (the files ingested into a store on the
same cluster, each stored file reduced by DuckDB, ``reduce_store``): the same table (rows,
dtypes, order; values to 1e-12) and notes; and the local engine's output of each command, byte
for byte in text, to 1e-12 in JSON."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Callable

import pandas as pd
import pytest

from built_logs import synthetic
from closeness import mismatches
from conftest import REPO
from route_cases import edge_json, errored_logs, two_cluster_log

pytest.importorskip("distributed", reason="the Dask engine needs distributed (pip install 'evaladdon[dask]')")

SAMPLE = REPO / "sample_logs"


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Long tables (0/1 and continuous, 1 to 3 epochs, clustered), two of which give run ``m0``
    the same task and metric (named apart by file), and a broken file found in the directory."""
    root = tmp_path_factory.mktemp("dask_reduce") / "logs"
    (root / "b").mkdir(parents=True)
    for k in range(5):
        synthetic(root / f"m{k}.csv", f"m{k}", k, n_items=400 + 10 * k, epochs=1 + k % 3, binary=k % 2 == 0)
    synthetic(root / "b" / "m0.csv", "m0", 9, n_items=300, epochs=2)
    (root / "b" / "zz.json").write_text('{"samples": [')
    return root


@pytest.fixture(scope="module")
def inspect_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Inspect logs: errors, limits, unscored samples, epochs; an item in two clusters."""
    root = tmp_path_factory.mktemp("dask_reduce_inspect")
    errored_logs(root)
    edge_json(root)
    two_cluster_log(root / "two.json", 3)
    return root


def _former(paths: list[str], cluster: str | None) -> tuple[pd.DataFrame, list[str]]:
    """The former reading: ingest into a temporary store on the workers, reduce each stored file."""
    import tempfile

    from evaladdon.routes.dask import dask_client, reduce_store, submitter
    from evaladdon.routes.ingest import ingest

    from evaladdon.errors import EvalAddonError

    with dask_client(None) as client, tempfile.TemporaryDirectory() as store:
        report = ingest(paths, store, cluster=cluster, submit=submitter(client))
        if report.errors:
            raise EvalAddonError(report.errors[0])
        table, more = reduce_store(client, store, None)
    return table, report.notes + more


def _former_load(paths: list[str], store: Any, where: Any, cluster: str | None, scheduler: Any) -> Any:
    """``load_reduced`` as it was (PATHs only)."""
    from evaladdon.table import validate
    from evaladdon.table.loaded import Loaded

    table, notes = _former(list(paths), cluster)
    return Loaded(validate(table), notes)


@pytest.mark.parametrize("which,cluster", [("logs", None), ("logs", "passage"), ("inspect", None),
                                           ("inspect", "passage.id")])
def test_the_table_is_the_former_readings(logs: Path, inspect_logs: Path, which: str, cluster: str | None) -> None:
    from evaladdon.adapters import read_runs
    from evaladdon.routes.dask_reduce import load_reduced

    paths = [str(logs)] if which == "logs" else [str(inspect_logs), str(SAMPLE / "inspect")]
    if cluster == "passage.id":
        paths = [str(SAMPLE / "inspect" / "baseline.eval"), str(SAMPLE / "inspect" / "candidate.eval")]
    # the former reading took the files sorted by absolute path, the new one in the inputs' order
    # (the local reader's): inputs given in path order make the two orders one, wherever the
    # checkout and the temporary directory lie
    paths = sorted(paths)
    got = load_reduced(paths, None, None, cluster, None)
    want, notes = _former(paths, cluster)
    pd.testing.assert_frame_equal(got.table, want, check_exact=False, rtol=1e-12, atol=1e-12)
    assert got.notes == notes
    local = read_runs(paths, cluster=cluster)
    key = ["run", "task", "metric", "item", "error"]

    def left_out(t: pd.DataFrame) -> pd.Series:
        t = t[t["error"].notna()].astype({c: str for c in key})
        return t.groupby(key).size().sort_index()

    pd.testing.assert_series_equal(left_out(got.table), left_out(local.table))  # which items, why, how often
    assert got.incomplete == local.incomplete and got.skipped == local.skipped
    if which == "inspect" and cluster is None:  # the crafted logs: errored samples, incomplete logs
        assert len(left_out(got.table)) > 100 and len(got.incomplete) == 2
    if which == "logs":
        assert [s["path"] for s in got.skipped] == [str(logs / "b" / "zz.json")]
    if which == "logs":
        assert any(n.startswith("skipped ") and "zz.json" in n for n in notes)
        assert {"b/m0.csv/m0", "logs/m0.csv/m0"} <= set(got.table["run"])  # named apart, as read_runs does


def _json(text: str) -> Any:
    return json.loads(text)


CASES = [  # (argv, whether the former reading gave the local engine's output)
    (("compare", "{logs}", "--all-pairs", "--json"), False),  # the skipped file: a note, not a record
    (("compare", "{logs}", "--baseline", "m2", "--cluster", "passage"), True),
    (("compare", "{inspect}", "--baseline", "errbase", "--json"), False),  # errored items were reduced away
    (("compare", "{inspect}/base.json", "{inspect}/cand.json", "--markdown"), False),
    (("compare", "{inspect}/base.json", "{inspect}/epochs.json"), False),  # path order: the former sorted the files
    (("compare", str(SAMPLE / "inspect" / "baseline.eval"), str(SAMPLE / "inspect" / "candidate.eval"), "--cluster",
      "passage.id", "--json"), True),
    (("compare", str(SAMPLE / "inspect"), "--all-pairs", "--json"), True),
    (("compare", str(SAMPLE / "table"), "--all-pairs"), True),
    (("summarize", "{logs}", "--json"), False),
    (("summarize", "{inspect}", "--markdown"), False),  # incomplete logs were not marked
    (("summarize", "{inspect}/edge.json", "--cluster", "grp", "--json"), False),
    (("summarize", str(SAMPLE / "inspect"), "--json"), True),
]


def _close(got: tuple[int, str, str], want: tuple[int, str, str], argv: list[str]) -> None:
    assert (got[0], got[2]) == (want[0], want[2]), argv
    if "--json" in argv and want[0] == 0:
        assert not (m := mismatches(_json(got[1]), _json(want[1]), atol=1e-12, ordered_keys=True)), (argv, m)
    else:
        assert got[1] == want[1], argv


@pytest.mark.parametrize("args,former_was_local", CASES, ids=[" ".join(c[0]) for c in CASES])
def test_commands_give_the_local_output(logs: Path, inspect_logs: Path, cli: Callable[..., Any],
                                        monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...],
                                        former_was_local: bool) -> None:
    """The local engine's output (the table route: ``summarize`` forced onto it), nothing written
    to disk: the left-out rows keep their items and reasons (the error-rate comparison pairs them),
    the skipped files their records and incomplete logs their marks.  Where the former reading
    (a temporary store) gave the local output, it is held to it too."""
    import evaladdon.routes.dask_reduce as dask_reduce
    import evaladdon.routes.ingest as ingest
    import evaladdon.store as store
    from evaladdon.analysis.options import RoutePolicy

    table = RoutePolicy(only="table")
    argv = [a.replace("{logs}", str(logs)).replace("{inspect}", str(inspect_logs)) for a in args]
    if former_was_local:
        with monkeypatch.context() as m:
            m.setattr(dask_reduce, "load_reduced", _former_load)
            former = cli(*argv, "--engine", "dask", routes=table)

    def no_store(*a: Any, **k: Any) -> None:
        raise AssertionError("a store was written")

    monkeypatch.setattr(ingest, "ingest", no_store)
    monkeypatch.setattr(store, "_table_to_parquet", no_store)
    dask = cli(*argv, "--engine", "dask", routes=table)
    assert dask[0] == 0
    _close(dask, cli(*argv, routes=table), argv)
    if former_was_local:
        _close(dask, former, argv)


def test_a_bad_file_is_one_line_naming_it(logs: Path, tmp_path: Path, cli: Callable[..., Any]) -> None:
    broken = logs / "b" / "zz.json"
    for args in ((logs / "m1.csv", broken), (logs / "m1.csv", tmp_path / "absent.csv")):
        code, out, err = cli("compare", *args, "--engine", "dask")
        assert code == 2 and out == "" and err.count("\n") == 1 and str(args[1]) in err, err
    got = cli("compare", logs / "m1.csv", logs / "m3.csv", "--engine", "dask")  # found in no directory: fine
    assert got[0] == 0


def test_two_copies_of_a_log_are_two_runs_as_read_locally(tmp_path: Path, cli: Callable[..., Any]) -> None:
    """The content-keyed temporary store kept one of two identical logs; the local engine reads
    two runs, named apart by their files, and so does the Dask engine now."""
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        shutil.copy(SAMPLE / "inspect" / "baseline.eval", tmp_path / d / "baseline.eval")
    argv = ("compare", tmp_path / "a", tmp_path / "b", "--json")
    local, dask = cli(*argv), cli(*argv, "--engine", "dask")
    assert local[0] == dask[0] == 0 and dask[2] == local[2]
    assert not mismatches(_json(dask[1]), _json(local[1]), atol=1e-12, ordered_keys=True)


def test_named_inputs_are_named_as_read_locally(tmp_path: Path, cli: Callable[..., Any]) -> None:
    """``NAME=PATH`` (a file, and a directory of two runs: ``NAME/run``) under ``--engine dask``:
    the table route's Dask reading names the runs as the local reader does (it failed with "no
    such file" on ``a=...``) and keeps the inputs' order (the former sorted the files by path, so
    A and B could swap), in text and JSON."""
    from evaladdon.analysis.options import RoutePolicy

    (tmp_path / "d").mkdir()
    shutil.copy(SAMPLE / "inspect" / "baseline.eval", tmp_path / "one.eval")
    shutil.copy(SAMPLE / "inspect" / "baseline.eval", tmp_path / "d" / "baseline.eval")
    shutil.copy(SAMPLE / "inspect" / "candidate.eval", tmp_path / "d" / "candidate.eval")
    for argv in (("compare", f"old={tmp_path / 'one.eval'}", f"new={tmp_path / 'd' / 'candidate.eval'}"),
                 ("compare", f"x={tmp_path / 'd'}", f"y={tmp_path / 'one.eval'}", "--baseline", "y"),
                 ("summarize", f"x={tmp_path / 'd'}")):
        for out in ((), ("--json",)):
            seen: list[Any] = []
            local = cli(*argv, *out)
            dask = cli(*argv, *out, "--engine", "dask", routes=RoutePolicy(observe=seen.append, only="table"))
            assert local[0] == 0 and dask == local, (argv, dask[2])
    assert "new vs old" in cli("compare", f"old={tmp_path / 'one.eval'}", f"new={tmp_path / 'd' / 'candidate.eval'}",
                               "--engine", "dask")[1]


def test_one_file_is_reduced_on_the_driver_without_a_cluster(cli: Callable[..., Any],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    import evaladdon.routes.dask as dask_route

    def no_cluster(*a: Any, **k: Any) -> None:
        raise AssertionError("a cluster was started for one file")

    monkeypatch.setattr(dask_route, "dask_client", no_cluster)
    one = SAMPLE / "table" / "checkpoints.csv"
    local, dask = cli("compare", one, "--all-pairs"), cli("compare", one, "--all-pairs", "--engine", "dask")
    assert local[0] == 0 and dask == local


def test_paths_on_a_scheduler(logs: Path, cli: Callable[..., Any]) -> None:
    """With ``--scheduler`` the workers read the PATHs themselves (no store needed); a file a
    worker cannot open is one line saying the workers must see the PATHs."""
    from distributed import LocalCluster

    from evaladdon.routes.dask_reduce import reduce_path

    argv = ("compare", logs / "m0.csv", logs / "m2.csv", logs / "m4.csv", "--all-pairs")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp",
                      dashboard_address=None) as cluster:
        dask = cli(*argv, "--engine", "dask", "--scheduler", cluster.scheduler_address)
    local = cli(*argv)
    assert local[0] == 0 and dask == local
    gone = str(logs / "elsewhere.csv")
    err = reduce_path(gone, None, remote=True).error
    assert err is not None and err.startswith(f"{gone}: cannot read: ") and "every Dask worker sees" in err


def test_two_workers_under_a_memory_limit_give_the_local_numbers(tmp_path: Path) -> None:
    """Six files whose rows together exceed a worker's Dask ``memory_limit`` several times over:
    each worker holds one file's rows at a time; the statistics of the rebuilt table are the
    local table's (``summarize_table``, ``compare_table``) to 1e-12."""
    import dask
    from distributed import LocalCluster

    from evaladdon.adapters import read_runs
    from evaladdon.analysis.compare_table import compare_table
    from evaladdon.analysis.summarize import summarize_table
    from evaladdon.routes.dask_reduce import reduce_inputs

    limit = 4 * 2**20
    for k in range(6):
        synthetic(tmp_path / f"m{k}.csv", f"m{k}", k, n_items=20_000, epochs=1 + k % 2, binary=k % 2 == 0)
    local = read_runs([str(tmp_path)], cluster="passage").table
    assert int(local.memory_usage(deep=True).sum()) > 4 * limit
    with dask.config.set({"distributed.worker.memory.pause": False, "distributed.worker.memory.terminate": False}):
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp", memory_limit=limit,
                          dashboard_address=None) as cluster:
            table = reduce_inputs([str(tmp_path)], "passage", cluster.scheduler_address).table
    got = [s.flat() for s in summarize_table(table, notes=[])]
    want = [s.flat() for s in summarize_table(local, notes=[])]
    assert len(want) == 6 and not mismatches(got, want, atol=1e-12)
    for pair in (("m0", "m2"), ("m1", "m3")):
        assert not mismatches([r.flat() for r in compare_table(table, [pair])],
                              [r.flat() for r in compare_table(local, [pair])], atol=1e-12)
