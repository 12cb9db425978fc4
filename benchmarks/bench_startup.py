"""Start-up time of the command line: ``evaladdon --help`` and ``evaladdon ci 3 10``.

Run: ``python benchmarks/bench_startup.py [repeats]``.  Prints the median wall time of each
command (a fresh interpreter each time), the bare interpreter's time for reference, and which
heavy modules each command imported (none of pandas, scipy.stats, rich may appear).
The goal (issue 11.9): well under 0.5 s for both on an idle machine.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HEAVY = ("pandas", "scipy.stats", "rich", "inspect_ai", "lm_eval", "matplotlib")
CASES = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "evaladdon --help": [sys.executable, "-m", "evaladdon.cli.main", "--help"],
    "evaladdon ci 3 10": [sys.executable, "-m", "evaladdon.cli.main", "ci", "3", "10"],
}


def heavy_imports(cmd: list[str]) -> list[str]:
    """Heavy top-level packages the command imported (from ``python -X importtime``)."""
    proc = subprocess.run([cmd[0], "-X", "importtime", *cmd[1:]], capture_output=True, text=True, env=_env())
    names = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time")}
    return sorted(h for h in HEAVY if h in names)


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def main(repeats: int = 7) -> None:
    for name, cmd in CASES.items():
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            subprocess.run(cmd, capture_output=True, env=_env(), check=True)
            times.append(time.perf_counter() - t0)
        heavy = heavy_imports(cmd) if "evaladdon" in name else []
        print(f"{name:22s} median {statistics.median(times):.3f} s  min {min(times):.3f} s  "
              f"heavy imports: {', '.join(heavy) or 'none'}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
