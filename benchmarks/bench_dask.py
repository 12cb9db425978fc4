"""``summarize --store --engine dask`` against the local engine on the same store (issue 31 item 1).

Usage: python benchmarks/bench_dask.py [RUNS] [ROWS_PER_RUN ...] [--old] [--repeat N]
       [--paths | --compare | --table | --reduce | --processes] [--where SQL]
(default 20 runs x 50,000 and 200,000 rows: 1M and 4M rows; best of 2)

``--paths``: the same runs written as CSV tables (one a run) and read from PATHs instead of a
store: ``local`` is ``evaladdon summarize DIR``, ``dask (cli)`` the ``dask_store`` route reading
each worker's share of the files itself (:mod:`evaladdon.routes.dask_paths`), ``old dask``
(with ``--old``) the former reading, ingesting into a temporary store on the workers first;
the floor reads the CSVs with pyarrow.

``--compare``: ``compare --store DIR --baseline ckpt-0000`` of every run against the first:
``local`` (the ``store_arrays`` or ``store_groups`` route), ``dask (cli)`` the ``dask_compare``
route (per-item sides reduced on the workers), ``old dask`` (with ``--old``) the table route
under ``--engine dask`` (per-item reduction, every row rebuilt on the driver).  ``--where SQL``
adds the filter to both (a per-row term such as ``value >= 0``: the workers read through DuckDB).

``--table``: ``compare DIR --baseline model-0`` of the runs written as CSV tables: ``local`` the
local engine, ``dask (cli)`` the ``dask_compare`` route on PATHs
(:mod:`evaladdon.routes.dask_compare_paths`: each worker reads its share of the files and sends
per-item sides, paired on the driver), ``table route`` the ``table`` route's reading under
``--engine dask`` (:mod:`evaladdon.routes.dask_reduce`: each file reduced to per-item records on a
worker, every row rebuilt on the driver, ``compare_table``), ``old dask`` (with ``--old``) the
reading before that (the files ingested into a temporary store on the workers, each stored file
reduced by DuckDB's group-by, the SQL below); the floor reads the CSVs with pyarrow.

``--processes``: ``summarize --store DIR`` and ``compare --store DIR --baseline ckpt-0000`` on a
LocalCluster of 1 and of 2 worker *processes* (``processes=True``, one thread each, started in the
measured process and reached with ``--scheduler``), beside the local engine: each worker
process's own peak RSS (``client.run`` of ``getrusage(RUSAGE_SELF).ru_maxrss``) and the driver's,
against the local engine's peak, to check issue 31's goal "with 2 workers each holding half the
data, each worker under half of local memory" (and one worker under local's); the CPU of the
whole command, its worker processes included (reaped by it when the cluster closes: ``dask cpu``,
which counts starting the cluster -- interpreters and imports -- once a command); and, as a deployed
cluster runs commands (started once), the command alone on the running cluster: ``run cpu`` the
driver's CPU over ``main()`` plus each worker's over it (``client.run(time.process_time)`` before and
after), ``run/local`` that against the local command's CPU and ``wall/loc`` its wall time against
the local command's (the local process's interpreter start is in its time, ~0.02 s).  A worker's peak includes its interpreter and
libraries (the ``worker libs`` column: a worker's peak after the route's own worker function --
``dask_store.summarize_files`` or ``dask_compare.reduce_group`` -- ran once on a tiny store of 2
runs x 100 rows, before the command: what that route's tasks import, no more); ``worker
imports``: which of pandas, DuckDB and scipy the workers hold after the command (``-``: none).

``--reduce``: each stored file of the store reduced to per-item records in one process, no Dask:
``reduce_file`` (pyarrow columns + ``reduce_table``, numpy on codes) against ``old reduce``, the
former DuckDB group-by (:data:`FORMER_REDUCE`), and the floor.

For each size, builds a synthetic store (``bench_store.build_store``: one Parquet file per run,
0/1 scores, one epoch) and times in fresh processes, side by side in one run, the wall time, the
CPU time (user + sys, the process and its children) and the peak RSS of:

  floor        reading the selection's columns the statistics need (pyarrow) + ``import pandas,
               scipy.special``: what any path must do
  local        ``evaladdon summarize --store DIR`` (the ``store_groups`` route, or ``table``)
  dask 1 / 2   the ``dask_store`` route on an in-process LocalCluster of 1 and 2 workers
  old dask     (``--old``) the ``table`` route under ``--engine dask``: per-item reduction on the
               workers, every row rebuilt on the driver (the path issue 31 measured at 119 s / 13.4 GB
               for 10M rows)

and prints each one's ratio to the floor and to local.  The workers are threads of the one
process, so the peak RSS is the whole cluster's.  Numbers are checked identical (JSON output).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

FLOOR = """
import sys, pyarrow.parquet as pq, pathlib, pandas, scipy.special
for f in sorted(pathlib.Path(sys.argv[1], 'data').glob('*.parquet')):
    t = pq.read_table(f, columns=['run', 'task', 'metric', 'item', 'value', 'error'])
    t.column('value').to_numpy(); del t
"""
WORKERS = """
import sys, json
from evaladdon.routes.dask import dask_client, submitter
from evaladdon.routes.dask_store import GroupOptions, summarize_store
from evaladdon.analysis.options import RouteLimits
with dask_client(None, n_workers=int(sys.argv[2])) as client:
    s, _ = summarize_store(GroupOptions(sys.argv[1], None, None, 0.95, 'auto', 'cr2'), submitter(client),
                           RouteLimits().store_group_rows, lambda df, m: None, threads=int(sys.argv[2]))
print(json.dumps(sorted([x.run, x.estimate.mean, x.estimate.se] for x in s)))
"""
FLOOR_PATHS = """
import sys, pathlib, pyarrow.csv as pc, pandas, scipy.special
for f in sorted(pathlib.Path(sys.argv[1]).glob('*.csv')):
    t = pc.read_csv(f); t.column('score').to_numpy(); del t
"""
OLD_PATHS = """
import sys
from evaladdon.analysis.options import RoutePolicy
from evaladdon.cli.main import main
main(['summarize', sys.argv[1], '--engine', 'dask', '--json'], routes=RoutePolicy(only='table'))
"""
OLD = """
import sys
from evaladdon.analysis.options import RoutePolicy
from evaladdon.cli.main import main
main(['summarize', '--store', sys.argv[1], '--engine', 'dask', '--json'], routes=RoutePolicy(only='table'))
"""


def measure(args: list[str], env: dict[str, str], repeat: int) -> tuple[float, float, float, str]:
    """Best wall (s), best CPU (s) and the largest peak RSS (MB) of ``repeat`` fresh processes."""
    best_wall = best_cpu = float("inf")
    peak = 0.0
    out = ""
    for _ in range(repeat):
        t = time.perf_counter()
        proc = subprocess.Popen([sys.executable, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                cwd=str(ROOT), text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
        out = proc.stdout.read() if proc.stdout else ""
        if os.waitstatus_to_exitcode(status) not in (0, 1):
            raise SystemExit(f"{args[:3]} failed: {proc.stderr.read() if proc.stderr else ''}")
        best_wall, best_cpu = min(best_wall, wall), min(best_cpu, usage.ru_utime + usage.ru_stime)
        peak = max(peak, usage.ru_maxrss / 1024)
    return best_wall, best_cpu, peak, out


BUILD = """
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import bench_dask, bench_store
(bench_dask.build_csvs if sys.argv[2] == "csv" else bench_store.build_store)(Path(sys.argv[3]), int(sys.argv[4]),
                                                                             int(sys.argv[5]))
"""


def build_apart(kind: str, root: Path, runs: int, rows: int, env: dict[str, str]) -> None:
    """The synthetic inputs written by a child process: a child's peak RSS (``ru_maxrss``) starts
    at its parent's resident size when forked, so this process must stay small (a 10M-row store
    built here made every child report at least its 366 MB)."""
    subprocess.run([sys.executable, "-c", BUILD, str(ROOT / "benchmarks"), kind, str(root), str(runs), str(rows)],
                   env=env, check=True, cwd=str(ROOT))


def build_csvs(root: Path, runs: int, rows: int) -> None:
    """``runs`` CSV tables of ``rows`` 0/1 scores each (one epoch, items clustered by tens)."""
    import numpy as np
    import pandas as pd

    root.mkdir(parents=True)
    rng = np.random.default_rng(0)
    items = np.arange(rows)
    ids = pd.Series(items).map("q{}".format)
    passage = pd.Series(items // 10).map("p{}".format)
    for r in range(runs):
        score = (rng.uniform(size=rows) < rng.uniform(0.2, 0.9)).astype(int)
        pd.DataFrame({"model": f"model-{r}", "task": "t", "id": ids, "epoch": 0, "score": score,
                      "passage": passage}).to_csv(root / f"run{r:03d}.csv", index=False)


def paths_cases(d: str, old: bool) -> dict[str, list[str]]:
    """The ``--paths`` rows of the table (module doc)."""
    cli = ["-m", "evaladdon.cli.main", "summarize", d, "--json"]
    got = {"floor": ["-c", FLOOR_PATHS, d], "local": cli, "dask (cli)": [*cli, "--engine", "dask"]}
    if old:
        got["old dask"] = ["-c", OLD_PATHS, d]
    return got


OLD_COMPARE = """
import sys
from evaladdon.analysis.options import RoutePolicy
from evaladdon.cli.main import main
main(['compare', '--store', sys.argv[1], '--baseline', 'ckpt-0000', '--engine', 'dask', '--json', *sys.argv[2:]],
     routes=RoutePolicy(only='table'))
"""


def compare_cases(d: str, old: bool, where: list[str]) -> dict[str, list[str]]:
    """The ``--compare`` rows of the table (module doc)."""
    cli = ["-m", "evaladdon.cli.main", "compare", "--store", d, "--baseline", "ckpt-0000", "--json", *where]
    got = {"floor": ["-c", FLOOR, d], "local": cli, "dask (cli)": [*cli, "--engine", "dask"]}
    if old:
        got["old dask"] = ["-c", OLD_COMPARE, d, *where]
    return got


FORMER_REDUCE = """
def former_reduce(file):  # store.reduce.reduce_file before issue 31 item 1: DuckDB's group-by
    from pathlib import Path
    from evaladdon.store.query import connect, select_sql
    GOOD = "error IS NULL AND coalesce(isfinite(value), false)"
    con = connect([Path(file)])
    try:
        rows = select_sql([Path(file)], None, columns="*, file_row_number AS _row").replace(
            "union_by_name=true", "union_by_name=true, file_row_number=true")
        items = con.execute(f\"\"\"
            SELECT run, task, metric, item, any_value(model) AS model, any_value(source) AS source,
                   any_value(harness) AS harness, count(*) AS n, sum(value) AS s,
                   var_pop(value) * count(*) AS m2,
                   count(*) FILTER (WHERE value = 1) AS ones, count(*) FILTER (WHERE value = 0) AS zeros,
                   any_value(cluster) AS cluster, count(cluster) AS n_cluster,
                   count(DISTINCT cluster) AS k_cluster, any_value(item_hash) AS item_hash, min(_row) AS first
            FROM ({rows}) WHERE {GOOD} GROUP BY run, task, metric, item ORDER BY first\"\"\").df()
        dropped = con.execute(f\"\"\"
            SELECT run, task, metric, any_value(model) AS model, any_value(source) AS source,
                   any_value(harness) AS harness, coalesce(error, 'missing value') AS reason,
                   count(*) AS n, min(_row) AS first
            FROM ({rows}) WHERE NOT ({GOOD}) GROUP BY run, task, metric, reason ORDER BY first\"\"\").df()
    finally:
        con.close()
    items["file"] = dropped["file"] = Path(file).name
    return items, dropped
"""
OLD_TABLE = FORMER_REDUCE + """
import sys, tempfile
import evaladdon.routes.dask as dask_route
import evaladdon.routes.dask_reduce as dask_reduce
from evaladdon.analysis.options import RoutePolicy
from evaladdon.cli.main import main


def former(paths, store, where, cluster, scheduler):  # load_reduced before: a temporary store
    from evaladdon.routes.ingest import ingest
    from evaladdon.store import Manifest
    from evaladdon.store.reduce import reduced_table
    from evaladdon.table import validate
    from evaladdon.table.loaded import Loaded

    with dask_route.dask_client(scheduler) as client, tempfile.TemporaryDirectory(prefix="evaladdon-store-") as tmp:
        report = ingest(paths, tmp, cluster=cluster, submit=dask_route.submitter(client))
        files = Manifest.load(tmp).data_files()
        table = reduced_table(list(dask_route.submitter(client)(former_reduce, [(str(f),) for f in files])))
    return Loaded(validate(table), report.notes)


dask_reduce.load_reduced = former
main(['compare', sys.argv[1], '--baseline', 'model-0', '--engine', 'dask', '--json'], routes=RoutePolicy(only='table'))
"""
TABLE_ROUTE = """
import sys
from evaladdon.analysis.options import RoutePolicy
from evaladdon.cli.main import main
main(['compare', sys.argv[1], '--baseline', 'model-0', '--engine', 'dask', '--json'], routes=RoutePolicy(only='table'))
"""
REDUCE = """
import sys, pathlib
from evaladdon.store.reduce import reduce_file
n = 0
for f in sorted(pathlib.Path(sys.argv[1], 'data').glob('*.parquet')):
    n += len(reduce_file(str(f))[0])
print(n)
"""
OLD_REDUCE = FORMER_REDUCE + """
import sys, pathlib
n = 0
for f in sorted(pathlib.Path(sys.argv[1], 'data').glob('*.parquet')):
    n += len(former_reduce(str(f))[0])
print(n)
"""


def table_cases(d: str, old: bool) -> dict[str, list[str]]:
    """The ``--table`` rows (module doc)."""
    cli = ["-m", "evaladdon.cli.main", "compare", d, "--baseline", "model-0", "--json"]
    got = {"floor": ["-c", FLOOR_PATHS, d], "local": cli, "dask (cli)": [*cli, "--engine", "dask"],
           "table route": ["-c", TABLE_ROUTE, d]}
    if old:
        got["old dask"] = ["-c", OLD_TABLE, d]
    return got


def reduce_cases(d: str, old: bool) -> dict[str, list[str]]:
    """The ``--reduce`` rows (module doc): ``local`` is ``reduce_file``, compared with the former SQL."""
    got = {"floor": ["-c", FLOOR, d], "local": ["-c", REDUCE, d], "dask (cli)": ["-c", REDUCE, d]}
    if old:
        got["old reduce"] = ["-c", OLD_REDUCE, d]
    return got


PROCESSES = """
import json, resource, sys, time

from distributed import Client, LocalCluster

from evaladdon.cli.main import main


def peak():
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def libraries(command, tiny):  # a worker's floor: the route's worker function on a tiny store
    from evaladdon.store.query import select

    files = [str(f) for f in select(tiny, None).files]
    if command == "summarize":
        from evaladdon.routes.dask_store import GroupOptions, summarize_files

        summarize_files(GroupOptions(tiny, None, None, 0.95, "auto", "cr2"), files)
    else:
        from evaladdon.routes.dask_compare import reduce_group

        reduce_group(tiny, None, None, files)
    return peak()


def heavy():  # the heavy libraries a worker has loaded
    return sorted({m.split(".")[0] for m in sys.modules} & {"pandas", "duckdb", "scipy"})


if __name__ == "__main__":
    argv = json.loads(sys.argv[1])
    n = int(sys.argv[3])
    with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            idle = sorted(client.run(libraries, argv[0], sys.argv[4]).values())
            # the command on the running cluster: its wall time, the driver's CPU and the workers'
            # CPU over it (a deployed cluster is started once, not for each command)
            before = client.run(time.process_time)
            c0, w0 = time.process_time(), time.perf_counter()
            rc = main([*argv, "--engine", "dask", "--scheduler", cluster.scheduler_address])
            wall, driver_cpu = time.perf_counter() - w0, time.process_time() - c0
            after = client.run(time.process_time)
            running = driver_cpu + sum(after[w] - before[w] for w in after)
            workers = sorted(client.run(peak).values())
            loaded = sorted({m for got in client.run(heavy).values() for m in got})
    with open(sys.argv[2], "w") as f:
        json.dump({"idle": idle, "workers": workers, "driver": peak(), "heavy": loaded, "running_cpu": running,
                   "running_wall": wall}, f)
    sys.exit(rc or 0)
"""


def processes_table(runs: int, sizes: list[int], repeat: int, counts: tuple[int, ...] = (1, 2)) -> None:
    """The ``--processes`` table (module doc): local peak against each worker process's peak, for
    clusters of each of ``counts`` worker processes; CPU of the whole command (its worker
    processes are its children, reaped when the cluster closes, so ``wait4`` counts them)."""
    import json

    print(f"load {os.getloadavg()[0]:.2f}; best of {repeat}; {runs} runs a store; worker processes of 1 thread")
    print(f"{'rows':>6} {'command':10} {'workers':>7} {'local MB':>8} {'local cpu':>9} {'dask cpu':>8} "
          f"{'cpu/local':>9} {'run cpu':>7} {'run/local':>9} {'wall/loc':>9} {'driver MB':>9} {'worker libs':>11} {'worker MBs':>13} {'max/local':>9} {'< 1/n?':>6} "
          "worker imports")
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONPYCACHEPREFIX=str(Path(tmp) / "pycache"))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        script = Path(tmp) / "processes.py"
        script.write_text(PROCESSES)
        tiny = Path(tmp) / "tiny"
        build_apart("store", tiny, 2, 100, env)
        for rows in sizes:
            store = Path(tmp) / f"store{rows}"
            build_apart("store", store, runs, rows, env)
            s = str(store)
            measure(["-m", "evaladdon.cli.main", "--help"], env, 1)  # the bytecode cache, written once
            for name, argv in (("summarize", ["summarize", "--store", s, "--json"]),
                               ("compare", ["compare", "--store", s, "--baseline", "ckpt-0000", "--json"])):
                local = measure(["-m", "evaladdon.cli.main", *argv], env, repeat)
                peaks = Path(tmp) / "peaks.json"
                for n in counts:
                    best: dict[str, Any] = {}
                    cpu = running_cpu = running_wall = float("inf")
                    for _ in range(repeat):
                        got = measure([str(script), json.dumps(argv), str(peaks), str(n), str(tiny)], env, 1)
                        last = lambda out: out.strip().splitlines()[-1:]  # noqa: E731 - a progress bar may come first
                        assert last(got[3]) == last(local[3]), f"{name}: the Dask output differs from the local one"
                        now = json.loads(peaks.read_text())
                        if not best or max(now["workers"]) < max(best["workers"]):
                            best = now
                        cpu = min(cpu, got[1])
                        running_cpu = min(running_cpu, now["running_cpu"])
                        running_wall = min(running_wall, now["running_wall"])
                    top = max(best["workers"])
                    print(f"{runs * rows / 1e6:5.1f}M {name:10} {n:7d} {local[2]:8.0f} {local[1]:9.2f} {cpu:8.2f} "
                          f"{cpu / local[1]:9.2f} {running_cpu:7.2f} {running_cpu / local[1]:9.2f} {running_wall / local[0]:9.2f} "
                          f"{best['driver']:9.0f} {max(best['idle']):11.0f} "
                          f"{' / '.join(f'{w:.0f}' for w in best['workers']):>13} {top / local[2]:9.2f} "
                          f"{'yes' if top < local[2] / n else 'no':>6} {','.join(best['heavy']) or '-'}", flush=True)


def main() -> None:
    argv = sys.argv[1:]
    old, on_paths, on_compare = "--old" in argv, "--paths" in argv, "--compare" in argv
    on_table, on_reduce, on_processes = "--table" in argv, "--reduce" in argv, "--processes" in argv
    argv = [a for a in argv if a not in ("--old", "--paths", "--compare", "--table", "--reduce", "--processes")]
    repeat = 2
    if "--repeat" in argv:
        i = argv.index("--repeat")
        repeat = int(argv[i + 1])
        del argv[i:i + 2]
    where: list[str] = []
    if "--where" in argv:
        i = argv.index("--where")
        where = ["--where", argv[i + 1]]
        del argv[i:i + 2]
    runs = int(float(argv[0])) if argv else 20
    sizes = [int(float(a)) for a in argv[1:]] or [50_000, 200_000]
    if on_processes:
        processes_table(runs, sizes, repeat)
        return
    print(f"load {os.getloadavg()[0]:.2f}; best of {repeat}; {runs} runs a store; peak RSS of the whole process")
    print(f"{'rows':>6} {'path':12} {'wall s':>7} {'cpu s':>7} {'peak MB':>8} {'cpu/floor':>9} {'cpu/local':>9} "
          f"{'MB/local':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONPYCACHEPREFIX=str(Path(tmp) / "pycache"))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        for rows in sizes:
            store = Path(tmp) / f"store{rows}"
            build_apart("csv" if on_paths or on_table else "store", store, runs, rows, env)
            s = str(store)
            for warm in (["-m", "evaladdon.cli.main", "--help"], ["-c", "import distributed, scipy.special"]):
                measure(warm, env, 1)  # the bytecode cache, written once
            paths = {"floor": ["-c", FLOOR, s],
                     "local": ["-m", "evaladdon.cli.main", "summarize", "--store", s, "--json"],
                     "dask 1": ["-c", WORKERS, s, "1"], "dask 2": ["-c", WORKERS, s, "2"],
                     "dask (cli)": ["-m", "evaladdon.cli.main", "summarize", "--store", s, "--json", "--engine",
                                    "dask"]}
            if old:
                paths["old dask"] = ["-c", OLD, s]
            if on_paths:
                paths = paths_cases(s, old)
            if on_compare:
                paths = compare_cases(s, old, where)
            if on_table:
                paths = table_cases(s, old)
            if on_reduce:
                paths = reduce_cases(s, old)
            got = {name: measure(args, env, 1 if name == "old dask" else repeat) for name, args in paths.items()}
            assert got["local"][3] == got["dask (cli)"][3], "the Dask route's output differs from the local one"
            last = lambda out: out.strip().splitlines()[-1:]  # noqa: E731 - DuckDB's progress bar may come first
            for former in ("old dask", "old reduce"):
                assert on_paths or former not in got or last(got[former][3]) == last(got["dask (cli)"][3]), former
            for name, (wall, cpu, mb, _) in got.items():
                print(f"{runs * rows / 1e6:5.1f}M {name:12} {wall:7.2f} {cpu:7.2f} {mb:8.0f} "
                      f"{cpu / got['floor'][1]:9.2f} {cpu / got['local'][1]:9.2f} {mb / got['local'][2]:8.2f}")
            del store
    print(f"(self: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB)")


if __name__ == "__main__":
    main()
