"""What imports cost the sub-second commands (issue 31 item 5), side by side with another checkout.

Usage: python benchmarks/bench_imports.py [--repeat N] [--code CHECKOUT] [--packages]
(best of 5; ``--code``: also measure that checkout, e.g. /work/main, in the same run, the two
checkouts' processes alternating; ``--packages``: also where each command's import time goes)

For each command (``summarize`` and ``compare`` of the sample Inspect logs, ``gate`` of them
with ``examples/ci/evaladdon-policy.yml``, ``ci 3 10``, ``power --n 200 --paired --discordance 0.2``,
``runs --store`` of a small store, ``compare --help``) and each checkout, in fresh processes
(CPU = user + sys, best of N; wall = best elapsed time):

  command   ``python -m evaladdon.cli.main ARGS``
  imports   a process that imports exactly the modules the command ended with (its
            ``sys.modules``, collected once) and does nothing else

and prints both, the imports' share of the command, the number of modules and whether
``scipy.special`` / ``pandas`` / ``pyarrow`` were loaded; first the floors: ``python -c pass``
(any process), and ``import numpy`` alone, with ``scipy.special``, with ``pandas``.
With ``--packages``: the command under ``python -X importtime`` (best of N by its total), the
self times summed by top-level package (the largest first), and the cumulative time of
``numpy``, ``scipy.special``'s array-API layer (``scipy._lib._array_api``) and ``pandas``.
"""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_args import take

ROOT = Path(__file__).resolve().parent.parent
INSPECT = ROOT / "sample_logs" / "inspect"
COMMANDS = {
    "summarize .eval": ["summarize", str(INSPECT / "baseline.eval")],
    "compare .eval .eval": ["compare", str(INSPECT / "baseline.eval"), str(INSPECT / "candidate.eval")],
    "gate policy .eval .eval": ["gate", "examples/ci/evaladdon-policy.yml", str(INSPECT / "baseline.eval"),
                                str(INSPECT / "candidate.eval")],
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


CUMULATIVE = ("numpy", "scipy._lib._array_api", "pandas")


def once(args: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(CPU, wall) in s of one fresh process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, *args], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, cwd=str(cwd))
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"{args[:4]} failed")
    return usage.ru_utime + usage.ru_stime, wall


def cpu(args: list[str], env: dict[str, str], repeat: int, cwd: Path) -> float:
    """Best CPU (s) of ``repeat`` fresh processes."""
    return min(once(args, env, cwd)[0] for _ in range(repeat))


def by_package(args: list[str], env: dict[str, str], cwd: Path) -> tuple[float, dict[str, float], dict[str, float]]:
    """One ``-X importtime`` run: total self time (s), self time by top-level package, cumulative
    time of :data:`CUMULATIVE`."""
    proc = subprocess.run([sys.executable, "-X", "importtime", *args], env=env, cwd=str(cwd),
                          capture_output=True, text=True)
    per: dict[str, float] = collections.defaultdict(float)
    cumulative: dict[str, float] = {}
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, cum, name = line[len("import time:"):].split("|")
        per[name.strip().split(".")[0]] += int(own) / 1e6
        cumulative.setdefault(name.strip(), int(cum) / 1e6)
    return sum(per.values()), per, {m: cumulative[m] for m in CUMULATIVE if m in cumulative}


def main() -> None:
    argv = sys.argv[1:]
    repeat = int(take(argv, "--repeat") or 5)
    code = take(argv, "--code")
    packages = "--packages" in argv
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
        print(f"{'command':24} {'code':10} {'wall s':>6} {'cmd s':>6} {'imports s':>9} {'share':>6} {'modules':>7}  loaded")
        breakdown = []
        for name, args in COMMANDS.items():
            args = [a.format(store=store) for a in args]
            rows = {}
            for label, c in codes.items():
                cpu(["-m", "evaladdon.cli.main", "--help"], env(c), 1, c)  # the bytecode cache
                subprocess.run([sys.executable, "-c", DUMP, *args], env=env(c), cwd=str(c), capture_output=True)
                rows[label] = {"names": json.loads(mods.read_text()), "cmd": [], "imports": []}
                # the imports-only process reads the module list of this checkout's command
                (Path(tmp) / f"mods-{label}.json").write_text(mods.read_text())
            for _ in range(repeat):  # the checkouts alternate, so both see the same machine
                for label, c in codes.items():
                    e = dict(env(c), BENCH_MODS=str(Path(tmp) / f"mods-{label}.json"))
                    rows[label]["cmd"].append(once(["-m", "evaladdon.cli.main", *args], e, c))
                    rows[label]["imports"].append(once(["-c", IMPORT], e, c)[0])
            for label, c in codes.items():
                r = rows[label]
                total, wall = min(x[0] for x in r["cmd"]), min(x[1] for x in r["cmd"])
                imports = min(r["imports"])
                loaded = [m for m in ("scipy.special", "pandas", "pyarrow") if m in r["names"]]
                print(f"{name:24} {label:10} {wall:6.3f} {total:6.3f} {imports:9.3f} {imports / total:6.0%} "
                      f"{len(r['names']):7d}  {', '.join(loaded) or '-'}")
                if packages:
                    runs = [by_package(["-m", "evaladdon.cli.main", *args], env(c), c) for _ in range(repeat)]
                    breakdown.append((name, label, min(runs, key=lambda x: x[0])))
        for name, label, (total, per, cumulative) in breakdown:
            top = ", ".join(f"{p} {t * 1e3:.0f}" for p, t in sorted(per.items(), key=lambda x: -x[1])[:6])
            cum = ", ".join(f"{m} {t * 1e3:.0f}" for m, t in cumulative.items())
            print(f"{name:24} {label:10} -X importtime {total * 1e3:4.0f} ms: {top}; cumulative: {cum or '-'}")

if __name__ == "__main__":
    main()
