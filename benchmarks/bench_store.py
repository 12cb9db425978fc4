"""A store of many runs: ingest cost per file, and comparing two checkpoints out of it.

Usage: python benchmarks/bench_store.py [RUNS] [ROWS_PER_RUN] [--keep DIR] [--repeat N] [--no-ingest]
       [--code CHECKOUT]  (time that checkout's evaladdon instead of this one)
(default 1000 runs x 20,000 rows, best of 3)

Builds a synthetic store directly (one Parquet file per run, as `ingest` writes them, plus
its manifest; with ``--keep DIR`` it is built there once and reused), then times in fresh
processes, best of N wall time and best of N CPU time (user + sys):
  compare:   `evaladdon compare --store DIR --where "model IN ('ckpt-0010','ckpt-0011')"` (the
             pandas-free route, `routes/store_arrays.py`), and the same by the table path
  summarize: `evaladdon summarize --store DIR --where "model = 'ckpt-0010'"`
  row filter: the same compare with a per-row condition (every file opened, DuckDB prunes)
  many runs: one baseline against 9 and 99 stored checkpoints (`compare --baseline`), once each
and ingest of 1, 10, 100 small CSV logs (per-file cost), against the floors measured in the
same run: `python -c pass`, `import pandas`, `import duckdb`, the imports the table path cannot
avoid (`import pandas, duckdb, scipy.special`) and those the pandas-free path cannot
(`import numpy, duckdb, scipy.special`).  The child processes may write
bytecode (to a private ``PYTHONPYCACHEPREFIX``) even when the caller sets
``PYTHONDONTWRITEBYTECODE``: an installed package has its ``.pyc`` files, and compiling
evaladdon's ~60 modules on every run would otherwise be timed too.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def build_store(root: Path, runs: int, rows: int) -> None:
    import numpy as np
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    from evaladdon.store import DATA, Manifest

    (root / DATA).mkdir(parents=True)
    m = Manifest(root)
    rng = np.random.default_rng(0)
    items = np.array([f"q{i:05d}" for i in range(rows)], dtype=object)
    base = rng.uniform(0.2, 0.9, rows)
    now = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    for r in range(runs):
        model = f"ckpt-{r:04d}"
        value = (rng.uniform(size=rows) < base).astype(float)
        df = pd.DataFrame({
            "run": model, "source": f"/logs/{model}.csv", "harness": "table", "task": "gsm8k", "model": model,
            "metric": "acc", "item": items, "epoch": np.ones(rows, dtype=np.int64), "value": value,
            "raw": np.where(value == 1, "1", "0"), "cluster": None, "item_hash": None, "error": None,
        })
        key = f"{r:032x}"
        pq.write_table(pa.Table.from_pandas(df, preserve_index=False), root / DATA / f"{key}.parquet",
                       compression="zstd")
        m.entries[f"/logs/{model}.csv"] = {
            "key": key, "file": f"{key}.parquet", "source": f"/logs/{model}.csv", "runs": [model], "models": [model],
            "tasks": ["gsm8k"], "metrics": ["acc"], "harness": ["table"], "n_rows": rows, "n_items": rows,
            "combos": [[model, model, "gsm8k", "acc", "table"]],
            "run_detail": [{"run": model, "model": model, "n_items": rows, "n_rows": rows, "tasks": ["gsm8k"],
                            "metrics": ["acc"]}],
            "ingested_at": now,
        }
    m.save()


ENV: dict[str, str] = {}
CWD: list[str] = [str(ROOT)]  # `python -m` puts the working directory first on sys.path: run in the timed checkout
REPEAT = 3


def _child_env(cache: str, code: Path = ROOT) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(code), PYTHONPYCACHEPREFIX=cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def timed_run(*args: str, repeat: int | None = None) -> tuple[float, float]:
    """Best wall time and best CPU time (user + sys) of ``repeat`` fresh processes."""
    best = (float("inf"), float("inf"))
    for _ in range(repeat or REPEAT):
        before = os.times()
        t = time.perf_counter()
        subprocess.run([sys.executable, *args], env=ENV, check=True, capture_output=True, cwd=CWD[0])
        wall = time.perf_counter() - t
        after = os.times()
        cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
        best = (min(best[0], wall), min(best[1], cpu))
    return best


def timed(*args: str) -> float:
    return timed_run(*args, repeat=1)[0]


def show(label: str, *args: str) -> float:
    wall, cpu = timed_run(*args)
    print(f"{label:46s} {wall:6.2f} s wall  {cpu:6.2f} s cpu")
    return wall


def main() -> None:
    global REPEAT
    argv = sys.argv[1:]
    keep = None
    ingest = "--no-ingest" not in argv
    argv = [a for a in argv if a != "--no-ingest"]
    if "--keep" in argv:
        i = argv.index("--keep")
        keep = argv[i + 1]
        del argv[i:i + 2]
    code = ROOT
    if "--code" in argv:  # time another checkout's evaladdon (e.g. main, for before/after in one run)
        i = argv.index("--code")
        code = Path(argv[i + 1]).resolve()
        del argv[i:i + 2]
    if "--repeat" in argv:
        i = argv.index("--repeat")
        REPEAT = int(argv[i + 1])
        del argv[i:i + 2]
    runs = int(float(argv[0])) if len(argv) > 0 else 1000
    rows = int(float(argv[1])) if len(argv) > 1 else 20_000
    cli = ["-m", "evaladdon.cli.main"]
    with tempfile.TemporaryDirectory() as tmp:
        ENV.update(_child_env(str(Path(tmp) / "pycache"), code))
        CWD[0] = str(code)
        store = Path(keep) if keep else Path(tmp) / "store"
        t = time.perf_counter()
        if not (store / "manifest.json").exists():
            build_store(store, runs, rows)
        size = sum(f.stat().st_size for f in (store / "data").iterdir()) / 2**20
        print(f"store: {runs} runs x {rows} rows = {runs * rows / 1e6:.1f}M rows, {size:.0f} MB parquet "
              f"(ready in {time.perf_counter() - t:.1f} s); best of {REPEAT} fresh processes; "
              f"load {os.getloadavg()[0]:.2f}")
        timed(*cli, "--help")  # writes the bytecode cache once
        show("python -c pass", "-c", "pass")
        show("python -c 'import pandas'", "-c", "import pandas")
        show("python -c 'import duckdb'", "-c", "import duckdb")
        show("import pandas, duckdb, scipy.special", "-c", "import pandas, duckdb, scipy.special")
        show("... and scipy.optimize (Tango, MDE roots)", "-c", "import pandas, duckdb, scipy.special, scipy.optimize")
        a, b = f"ckpt-{min(10, runs - 2):04d}", f"ckpt-{min(11, runs - 1):04d}"
        w = f"model IN ('{a}', '{b}')"
        show("compare two checkpoints (--where model)", *cli, "compare", "--store", str(store), "--where", w)
        table_path = ("from evaladdon.analysis.options import RoutePolicy; from evaladdon.cli.main import main; "
                      "main(['compare', '--store', %r, '--where', %r], routes=RoutePolicy(only='table'))")
        show("  the same by the table path (pandas)", "-c", table_path % (str(store), w))
        show("import numpy, duckdb, scipy.special", "-c", "import numpy, duckdb, scipy.special")
        show("summarize one checkpoint", *cli, "summarize", "--store", str(store), "--where", f"model = {a!r}")
        show("compare, per-row --where (all files)", *cli, "compare", "--store", str(store), "--where",
             f"{w} AND epoch >= 1")
        show(f"runs --store (list {runs} runs)", *cli, "runs", "--store", str(store), "--json")
        for k in (10, 100):  # one baseline against many stored checkpoints: cost grows with the runs
            if k <= runs:
                wall, cpu = timed_run(*cli, "compare", "--store", str(store), "--where", f"model < 'ckpt-{k:04d}'",
                                      "--baseline", "ckpt-0000", "--json", repeat=1)
                print(f"{'compare --baseline vs ' + str(k - 1) + ' runs':46s} {wall:6.2f} s wall  {cpu:6.2f} s cpu"
                      f"  ({cpu / (k - 1):.2f} s cpu a pair)")
        if not ingest:
            return
        logs = Path(tmp) / "logs"
        logs.mkdir()
        for n in (1, 10, 100):
            for f in logs.iterdir():
                f.unlink()
            for i in range(n):
                (logs / f"r{i}.csv").write_text("model,id,score\n" + "".join(f"m{i},q{k},{k % 2}\n" for k in range(100)))
            st = Path(tmp) / f"st{n}"
            first = timed(*cli, "ingest", str(logs), "--store", str(st))
            again = timed(*cli, "ingest", str(logs), "--store", str(st))
            print(f"ingest {n:>3} logs of 100 rows: {first:6.2f} s ({first / n * 1000:6.1f} ms/file), "
                  f"again (no-op) {again:6.2f} s")


if __name__ == "__main__":
    main()
