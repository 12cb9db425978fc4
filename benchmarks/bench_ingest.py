"""``ingest`` against its floor, and how it grows with the number of logs (issue 31 item 3).

Usage: python benchmarks/bench_ingest.py [FILES ...] [--rows N] [--repeat N] [--code CHECKOUT]
(default 20 and 200 CSV logs of 5,000 rows each; best of 2; ``--code``: also time that
checkout's evaladdon, e.g. /work/main, side by side in the same run)

Writes FILES long-table CSV logs (``model, task, question_id, epoch, score``; one run a file,
0/1 scores, string item ids) and times in fresh processes, one process each (``--workers 1``,
so the CPU is comparable), the CPU (user + sys) and peak RSS of:

  floor    the same reader (``evaladdon.adapters.read_runs``, one file at a time) and pyarrow
           writing each file's canonical table to Parquet (zstd) -- what any ingest must do
  ingest   ``evaladdon ingest DIR --store NEW --workers 1 --quiet`` (hash, read, write, manifest)

and prints each one's ratio to the floor, and the growth from the first size to the others.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_args import take

ROOT = Path(__file__).resolve().parent.parent

FLOOR = """
import sys
from pathlib import Path
import pyarrow as pa, pyarrow.parquet as pq
from evaladdon.adapters import read_runs
out = Path(sys.argv[2]); out.mkdir()
for i, f in enumerate(sorted(Path(sys.argv[1]).iterdir())):
    df = read_runs([str(f)]).table
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), out / f"{i}.parquet", compression="zstd")
"""


def measure(args: list[str], env: dict[str, str], repeat: int, cwd: Path,
            fresh: Path | None = None) -> tuple[float, float]:
    """Best CPU (s) and largest peak RSS (MB) of ``repeat`` fresh processes; ``fresh``: a
    directory the command creates, removed before each run."""
    import shutil

    cpu, peak = float("inf"), 0.0
    for _ in range(repeat):
        if fresh is not None:
            shutil.rmtree(fresh, ignore_errors=True)
        proc = subprocess.Popen([sys.executable, *args], env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, cwd=str(cwd))
        _, status, usage = os.wait4(proc.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{args[:3]} failed: {proc.stderr.read().decode() if proc.stderr else ''}")
        cpu, peak = min(cpu, usage.ru_utime + usage.ru_stime), max(peak, usage.ru_maxrss / 1024)
    return cpu, peak


def write_logs(root: Path, files: int, rows: int) -> Path:
    import numpy as np
    import pandas as pd

    d = root / f"logs{files}"
    d.mkdir()
    rng = np.random.default_rng(0)
    items = np.array([f"q{i:05d}" for i in range(rows)], dtype=object)
    base = rng.uniform(0.2, 0.9, rows)
    for r in range(files):
        score = (rng.uniform(size=rows) < base).astype(np.int8)
        pd.DataFrame({"model": f"ckpt-{r:04d}", "task": "gsm8k", "question_id": items, "epoch": 1,
                      "score": score}).to_csv(d / f"run{r:04d}.csv", index=False)
    return d


def main() -> None:
    argv = sys.argv[1:]
    repeat = int(take(argv, "--repeat") or 2)
    rows = int(float(take(argv, "--rows") or 5000))
    code = take(argv, "--code")
    others = {f"ingest ({Path(code).name})": Path(code).resolve()} if code else {}
    sizes = [int(a) for a in argv] or [20, 200]
    print(f"load {os.getloadavg()[0]:.2f}; {rows:,} rows a log; best of {repeat} fresh processes; CPU = user + sys")
    print(f"{'logs':>6} {'path':22} {'cpu s':>7} {'peak MB':>8} {'cpu/floor':>9} {'MB/floor':>8}")
    first: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        def env(code: Path) -> dict[str, str]:
            e = dict(os.environ, PYTHONPATH=str(code), PYTHONPYCACHEPREFIX=str(Path(tmp) / "pycache" / code.name))
            e.pop("PYTHONDONTWRITEBYTECODE", None)
            return e

        codes = {"ingest": ROOT, **others}
        out = Path(tmp) / "out"
        for n in sizes:
            t = time.perf_counter()
            logs = write_logs(Path(tmp), n, rows)
            print(f"({n} logs written in {time.perf_counter() - t:.1f} s)")
            for c in codes.values():  # the bytecode caches, before anything is timed
                measure(["-m", "evaladdon.cli.main", "--help"], env(c), 1, c)
            got = {"floor": measure(["-c", FLOOR, str(logs), str(out)], env(ROOT), repeat, ROOT, out)}
            for name, c in codes.items():
                got[name] = measure(["-m", "evaladdon.cli.main", "ingest", str(logs), "--store", str(out),
                                     "--workers", "1", "--quiet"], env(c), repeat, c, out)
            for name, (cpu, mb) in got.items():
                grow = ""
                if name in first:
                    grow = f"  x{cpu / first[name][0]:.1f} cpu, x{mb / first[name][1]:.1f} MB since {sizes[0]:,}"
                print(f"{n:>6,} {name:22} {cpu:7.2f} {mb:8.0f} {cpu / got['floor'][0]:9.2f} "
                      f"{mb / got['floor'][1]:8.2f}{grow}")
                first.setdefault(name, (cpu, mb))


if __name__ == "__main__":
    main()
