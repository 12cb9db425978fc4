"""One benchmark script of two checkouts, side by side in one run: each checkout's own copy of
the script, with that checkout first on ``PYTHONPATH``, alternating ``--rounds`` times, so both
see the same machine load.  Prints each run's output under its label, old first.

    python benchmarks/bench_revisions.py OLD_CHECKOUT [--rounds 2] -- bench_startup.py 5

Used to show a change is no slower (issue 24: "measured side by side in one run").
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def run(checkout: Path, script: str, args: list[str]) -> str:
    env = {**os.environ, "PYTHONPATH": str(checkout) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.run([sys.executable, str(checkout / "benchmarks" / script), *args], capture_output=True,
                          text=True, env=env, cwd=checkout)
    return proc.stdout + (f"[exit {proc.returncode}] {proc.stderr[-500:]}" if proc.returncode else "")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old", type=Path, help="the other checkout (e.g. a git worktree of the base commit)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("script", help="a script of benchmarks/, e.g. bench_startup.py")
    ap.add_argument("args", nargs=argparse.REMAINDER, help="the script's own arguments")
    a = ap.parse_args()
    for k in range(a.rounds):
        for label, checkout in (("old", a.old.resolve()), ("new", REPO)):
            print(f"===== round {k + 1}, {label}: {checkout}", flush=True)
            print(run(checkout, a.script, a.args), flush=True)


if __name__ == "__main__":
    main()
