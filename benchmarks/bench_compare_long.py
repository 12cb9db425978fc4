"""``compare`` of two long tables against its floor, and how both grow (issue 31 item 2).

Usage: python benchmarks/bench_compare_long.py [ROWS ...] [--repeat N] [--code CHECKOUT] [--csv] [--shuffle]
(default 1M and 4M rows a file; best of 2; ``--code``: also time that checkout's evaladdon, e.g.
main, side by side in the same run; ``--csv``: the tables as CSV instead of Parquet; ``--shuffle``:
B's rows in another (seeded random) order than A's, so the items cannot be aligned by position
and take the general path: one hash of both files' item ids, as the floor's)

Writes two Parquet (or CSV) long tables of ROWS items each (``model, task, id, score``; 0/1 scores,
string item ids ``item-00000001``, one epoch) and times in fresh processes the CPU (user + sys) and
peak RSS of:

  floor    read both files' item and score columns (pyarrow; a CSV's with ``include_columns``,
           its ids as strings), one ``pd.factorize`` of both item
           columns, a numpy join on the integer codes, the paired statistics
           (``stats.compare_paired``: the paired test and interval) -- what any compare must do
  compare  ``evaladdon compare A B`` (text output)

and prints each one's ratio to the floor, and the growth from the first size to the others.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FLOOR = """
import sys, numpy as np, pandas as pd, pyarrow as pa, pyarrow.csv as pc, pyarrow.parquet as pq
from evaladdon.stats import compare_paired
def read(f):
    if f.endswith('.csv'):
        return pc.read_csv(f, convert_options=pc.ConvertOptions(include_columns=['id', 'score'],
                                                                column_types={'id': pa.string()})).to_pandas()
    return pq.read_table(f, columns=['id', 'score']).to_pandas()
a, b = (read(f) for f in sys.argv[1:3])
codes, uniques = pd.factorize(pd.concat([a['id'], b['id']], ignore_index=True))
at_b = np.full(len(uniques), -1); at_b[codes[len(a):]] = np.arange(len(b))
pos = at_b[codes[:len(a)]]; keep = pos >= 0
r = compare_paired(a['score'].to_numpy(float)[keep], b['score'].to_numpy(float)[pos[keep]])
print(r)
"""


def measure(args: list[str], env: dict[str, str], repeat: int, cwd: Path) -> tuple[float, float]:
    """Best CPU (s) and largest peak RSS (MB) of ``repeat`` fresh processes."""
    cpu, peak = float("inf"), 0.0
    for _ in range(repeat):
        proc = subprocess.Popen([sys.executable, *args], env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, cwd=str(cwd))
        _, status, usage = os.wait4(proc.pid, 0)
        if os.waitstatus_to_exitcode(status) not in (0, 1):
            raise SystemExit(f"{args[:3]} failed: {proc.stderr.read().decode() if proc.stderr else ''}")
        cpu, peak = min(cpu, usage.ru_utime + usage.ru_stime), max(peak, usage.ru_maxrss / 1024)
    return cpu, peak


def write_tables(root: Path, n: int, csv: bool = False, shuffle: bool = False) -> tuple[Path, Path]:
    import numpy as np
    import pandas as pd

    p = np.random.default_rng(0).uniform(0.2, 0.9, n)
    ids = pd.array([f"item-{i:08d}" for i in range(n)], dtype="str")
    out = []
    for model, seed in (("a", 1), ("b", 2)):
        score = (np.random.default_rng(seed).uniform(size=n) < p).astype(np.int8)
        path = root / f"{model}{n}.{'csv' if csv else 'parquet'}"
        frame = pd.DataFrame({"model": model, "task": "t", "id": ids, "score": score})
        if shuffle and model == "b":
            frame = frame.take(np.random.default_rng(3).permutation(n)).reset_index(drop=True)
        if csv:
            import pyarrow as pa
            import pyarrow.csv as pacsv

            pacsv.write_csv(pa.Table.from_pandas(frame, preserve_index=False), path)
        else:
            frame.to_parquet(path)
        out.append(path)
    return out[0], out[1]


def main() -> None:
    argv = sys.argv[1:]
    repeat, others = 2, {}
    csv, shuffle = "--csv" in argv, "--shuffle" in argv
    argv = [a for a in argv if a not in ("--csv", "--shuffle")]
    if "--repeat" in argv:
        i = argv.index("--repeat")
        repeat = int(argv[i + 1])
        del argv[i:i + 2]
    if "--code" in argv:
        i = argv.index("--code")
        others["compare (" + Path(argv[i + 1]).name + ")"] = Path(argv[i + 1]).resolve()
        del argv[i:i + 2]
    sizes = [int(float(a)) for a in argv] or [1_000_000, 4_000_000]
    print(f"load {os.getloadavg()[0]:.2f}; best of {repeat} fresh processes; CPU = user + sys; "
          f"{'CSV' if csv else 'Parquet'} tables{'; B shuffled' if shuffle else ''}")
    print(f"{'rows a file':>11} {'path':22} {'cpu s':>7} {'peak MB':>8} {'cpu/floor':>9} {'MB/floor':>8}")
    first: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        def env(code: Path) -> dict[str, str]:
            e = dict(os.environ, PYTHONPATH=str(code), PYTHONPYCACHEPREFIX=str(Path(tmp) / "pycache" / code.name))
            e.pop("PYTHONDONTWRITEBYTECODE", None)
            return e

        codes = {"compare": ROOT, **others}
        for n in sizes:
            t = time.perf_counter()
            a, b = write_tables(Path(tmp), n, csv, shuffle)
            print(f"(tables of {n} rows written in {time.perf_counter() - t:.1f} s)")
            got = {"floor": measure(["-c", FLOOR, str(a), str(b)], env(ROOT), repeat, ROOT)}
            for name, code in codes.items():
                measure(["-m", "evaladdon.cli.main", "--help"], env(code), 1, code)  # the bytecode cache
                got[name] = measure(["-m", "evaladdon.cli.main", "compare", str(a), str(b)], env(code), repeat, code)
            for name, (cpu, mb) in got.items():
                grow = ""
                if name in first:
                    grow = f"  x{cpu / first[name][0]:.1f} cpu, x{mb / first[name][1]:.1f} MB since {sizes[0]:,}"
                print(f"{n:>11,} {name:22} {cpu:7.2f} {mb:8.0f} {cpu / got['floor'][0]:9.2f} "
                      f"{mb / got['floor'][1]:8.2f}{grow}")
                first.setdefault(name, (cpu, mb))
            a.unlink()
            b.unlink()


if __name__ == "__main__":
    main()
