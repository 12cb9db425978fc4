"""What imports cost the sub-second commands (issue 31 item 5), side by side with another checkout.

Usage: python benchmarks/bench_imports.py [--repeat N] [--code CHECKOUT]
(best of 5; ``--code``: also measure that checkout, e.g. /work/main, in the same run)

For each command (``summarize`` and ``compare`` of the sample Inspect logs, ``ci 3 10``,
``power --n 200 --paired --discordance 0.2``, ``runs --store`` of a small store, ``compare --help``) and each checkout, in fresh
processes (CPU = user + sys, best of N):

  command   ``python -m evaladdon.cli.main ARGS``
  imports   a process that imports exactly the modules the command ended with (its
            ``sys.modules``, collected once) and does nothing else

and prints both, the imports' share of the command, the number of modules and whether
``scipy.special`` / ``pandas`` / ``pyarrow`` were loaded; first the floors: ``python -c pass``
(any process), and ``import numpy`` alone, with ``scipy.special``, with ``pandas``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_args import take

ROOT = Path(__file__).resolve().parent.parent
INSPECT = ROOT / "sample_logs" / "inspect"
COMMANDS = {
    "summarize .eval": ["summarize", str(INSPECT / "baseline.eval")],
    "compare .eval .eval": ["compare", str(INSPECT / "baseline.eval"), str(INSPECT / "candidate.eval")],
    "ci 3 10": ["ci", "3", "10"],
    "power --n --paired": ["power", "--n", "200", "--paired", "--discordance", "0.2"],
    "runs --store": ["runs", "--store", "{store}"],
    "compare --help": ["compare", "--help"],
}
FLOORS = ("pass", "import numpy", "import numpy, scipy.special", "import numpy, pandas")
DUMP = """
import atexit, json, os, runpy, sys
atexit.register(lambda: open(os.environ["BENCH_MODS"], "w").write(json.dumps(sorted(sys.modules))))
sys.argv = ["evaladdon", *sys.argv[1:]]
runpy.run_module("evaladdon.cli.main", run_name="__main__")
"""
IMPORT = """
import importlib, json, os, sys
for name in json.load(open(os.environ["BENCH_MODS"])):
    if name not in sys.modules and not name.startswith("__"):
        try:
            importlib.import_module(name)
        except Exception:
            pass
"""


def cpu(args: list[str], env: dict[str, str], repeat: int, cwd: Path) -> float:
    """Best CPU (s) of ``repeat`` fresh processes."""
    best = float("inf")
    for _ in range(repeat):
        proc = subprocess.Popen([sys.executable, *args], env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, cwd=str(cwd))
        _, status, usage = os.wait4(proc.pid, 0)
        if os.waitstatus_to_exitcode(status) not in (0, 1):
            raise SystemExit(f"{args[:4]} failed")
        best = min(best, usage.ru_utime + usage.ru_stime)
    return best


def main() -> None:
    argv = sys.argv[1:]
    repeat = int(take(argv, "--repeat") or 5)
    code = take(argv, "--code")
    codes = {"this": ROOT, **({Path(code).name: Path(code).resolve()} if code else {})}
    print(f"load {os.getloadavg()[0]:.2f}; best of {repeat} fresh processes; CPU = user + sys")
    with tempfile.TemporaryDirectory() as tmp:
        mods = Path(tmp) / "mods.json"

        def env(c: Path) -> dict[str, str]:
            e = dict(os.environ, PYTHONPATH=str(c), BENCH_MODS=str(mods),
                     PYTHONPYCACHEPREFIX=str(Path(tmp) / "pycache" / c.name))
            e.pop("PYTHONDONTWRITEBYTECODE", None)
            return e

        store = Path(tmp) / "store"
        subprocess.run([sys.executable, "-m", "evaladdon.cli.main", "ingest", str(INSPECT), "--store", str(store),
                        "--quiet"], env=env(ROOT), cwd=str(ROOT), check=True, capture_output=True)
        for floor in FLOORS:
            print(f"{floor:36} {cpu(['-c', floor], env(ROOT), repeat, ROOT):6.3f} s")
        print(f"{'command':24} {'code':10} {'cmd s':>6} {'imports s':>9} {'share':>6} {'modules':>7}  loaded")
        for name, args in COMMANDS.items():
            args = [a.format(store=store) for a in args]
            for label, c in codes.items():
                cpu(["-m", "evaladdon.cli.main", "--help"], env(c), 1, c)  # the bytecode cache
                subprocess.run([sys.executable, "-c", DUMP, *args], env=env(c), cwd=str(c), capture_output=True)
                names = json.loads(mods.read_text())
                loaded = [m for m in ("scipy.special", "pandas", "pyarrow") if m in names]
                total = cpu(["-m", "evaladdon.cli.main", *args], env(c), repeat, c)
                imports = cpu(["-c", IMPORT], env(c), repeat, c)
                print(f"{name:24} {label:10} {total:6.3f} {imports:9.3f} {imports / total:6.0%} {len(names):7d}  "
                      f"{', '.join(loaded) or '-'}")


if __name__ == "__main__":
    main()
