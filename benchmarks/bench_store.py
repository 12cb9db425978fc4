"""A store of many runs: ingest cost per file, and comparing two checkpoints out of it.

Usage: python benchmarks/bench_store.py [RUNS] [ROWS_PER_RUN]   (default 1000 runs x 20,000 rows)

Builds a synthetic store directly (one Parquet file per run, as `ingest` writes them, plus
its manifest), then times in fresh processes:
  compare:   `evaladdon compare --store DIR --where "model IN ('ckpt-0010','ckpt-0011')"`
  summarize: `evaladdon summarize --store DIR --where "model = 'ckpt-0010'"`
  row filter: the same compare with a per-row condition (every file opened, DuckDB prunes)
and ingest of 1, 10, 100 small CSV logs (per-file cost), each against `python -c pass`.
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


def timed(*args: str) -> float:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    t = time.perf_counter()
    subprocess.run([sys.executable, *args], env=env, check=True, capture_output=True)
    return time.perf_counter() - t


def main() -> None:
    runs = int(float(sys.argv[1])) if len(sys.argv) > 1 else 1000
    rows = int(float(sys.argv[2])) if len(sys.argv) > 2 else 20_000
    cli = ["-m", "evaladdon.cli.main"]
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "store"
        t = time.perf_counter()
        build_store(store, runs, rows)
        size = sum(f.stat().st_size for f in (store / "data").iterdir()) / 2**20
        print(f"store: {runs} runs x {rows} rows = {runs * rows / 1e6:.1f}M rows, {size:.0f} MB parquet "
              f"(built in {time.perf_counter() - t:.1f} s)")
        floor = timed("-c", "pass")
        print(f"python -c pass                           {floor:6.2f} s")
        a, b = f"ckpt-{min(10, runs - 2):04d}", f"ckpt-{min(11, runs - 1):04d}"
        w = f"model IN ('{a}', '{b}')"
        print(f"compare two checkpoints (--where model)  {timed(*cli, 'compare', '--store', str(store), '--where', w):6.2f} s")
        print(f"summarize one checkpoint                 "
              f"{timed(*cli, 'summarize', '--store', str(store), '--where', f'model = {a!r}'):6.2f} s")
        w_row = f"{w} AND epoch >= 1"
        print(f"compare, per-row --where (all files)     "
              f"{timed(*cli, 'compare', '--store', str(store), '--where', w_row):6.2f} s")
        print(f"runs --store (list {runs} runs)            {timed(*cli, 'runs', '--store', str(store), '--json'):6.2f} s")
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
