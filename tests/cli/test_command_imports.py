"""What the sub-second commands import (issue 31 item 5): only what the command needs.

Each command runs in a fresh interpreter (``subprocess``) and its ``sys.modules`` is compared
with what it may load.  The third-party packages a command may add are counted beyond those
``import numpy, scipy.special`` loads on its own (scipy's array-API layer brings numpy.f2py,
numpy.testing and, through them, a version-dependent set of packages), so the test pins our
imports, not scipy's.  Measured costs: ``docs/dev/performance-log.md`` (imports) and
``benchmarks/bench_imports.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
INSPECT = REPO / "sample_logs" / "inspect"
# never needed by a sub-second command on a small log
HEAVY = ("pandas", "pyarrow", "duckdb", "rich", "matplotlib", "dask", "distributed", "inspect_ai", "lm_eval",
         "scipy.stats", "yaml", "sklearn", "statsmodels")
SHOW = "import json, sys\nfrom evaladdon.cli.main import main\n{run}\nprint(json.dumps(sorted(sys.modules)))"


def _modules(code: str) -> set[str]:
    env = {"PYTHONPATH": str(REPO), "PATH": os.environ.get("PATH", "/usr/bin"), "COLUMNS": "120"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=env)
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout.strip().splitlines()[-1]))


def _command(*argv: str) -> set[str]:
    run = f"import contextlib, io\nwith contextlib.redirect_stdout(io.StringIO()):\n    rc = main({list(argv)!r})\nassert rc == 0, rc"
    return _modules(SHOW.format(run=run))


@pytest.fixture(scope="module")
def numpy_scipy_special() -> set[str]:
    return _modules("import json, sys\nimport numpy, scipy.special\nprint(json.dumps(sorted(sys.modules)))")


@pytest.fixture(scope="module")
def with_the_table() -> set[str]:
    return _modules("import json, sys\nimport numpy, scipy.special, pandas, yaml\nprint(json.dumps(sorted(sys.modules)))")


def _third_party(mods: set[str], beyond: set[str]) -> set[str]:
    """Top-level packages outside the standard library and evaladdon, not already in ``beyond``."""
    tops = {m.split(".")[0] for m in mods - beyond}
    return {t for t in tops if t not in sys.stdlib_module_names and t != "evaladdon" and not t.startswith("_")}


@pytest.mark.parametrize("extra", [["--json"], ["--cluster", "passage.id"]])
def test_summarize_of_a_small_eval_imports_numpy_scipy_special_and_the_zip_readers(
        extra: list[str], numpy_scipy_special: set[str]) -> None:
    mods = _command("summarize", str(INSPECT / "baseline.eval"), *extra)
    assert not [h for h in HEAVY if h in mods]
    assert _third_party(mods, numpy_scipy_special) <= {"orjson", "zstandard"}


@pytest.mark.parametrize("design", [
    ["--n", "200", "--paired", "--discordance", "0.2"],
    ["--n", "500", "--p-a", "0.7", "--p-b", "0.75"],
    ["--delta", "5pt", "--sd", "0.5", "--paired", "--json"],
])
def test_power_of_a_design_reads_no_log(design: list[str], numpy_scipy_special: set[str]) -> None:
    mods = _command("power", *design)
    assert not [h for h in HEAVY if h in mods]
    assert _third_party(mods, numpy_scipy_special) == set()
    assert not {m for m in mods if m.startswith("evaladdon.adapters")}  # the readers: only --pilot reads


def test_ci_imports_numpy_only() -> None:
    mods = _command("ci", "3", "10")
    assert not [m for m in mods if m == "scipy" or m.startswith("scipy.")]
    assert _third_party(mods, set()) == {"numpy"}


@pytest.mark.parametrize("argv", [
    ["compare", str(INSPECT / "baseline.eval"), str(INSPECT / "candidate.eval"), "--json"],
    ["compare", str(INSPECT / "baseline.eval"), str(INSPECT / "candidate.eval"), "--cluster", "passage.id"],
    ["compare", str(INSPECT), "--all-pairs", "--markdown"],
    ["gate", str(REPO / "examples" / "ci" / "evaladdon-policy.yml"), str(INSPECT / "baseline.eval"),
     str(INSPECT / "candidate.eval")],
])
def test_compare_and_gate_of_small_logs_import_neither_pandas_nor_pyarrow(
        argv: list[str], numpy_scipy_special: set[str]) -> None:
    """The inspect_arrays route: the lean reader's columns paired without pandas or pyarrow (the
    table route's rows builder needs both); the gate's policy adds its YAML."""
    mods = _command(*argv)
    assert not [h for h in HEAVY if h in mods and h != "yaml"]
    assert "yaml" not in mods or argv[0] == "gate"
    assert _third_party(mods, numpy_scipy_special) <= {"orjson", "zstandard", "yaml"}


@pytest.mark.parametrize("argv", [
    ["compare", str(INSPECT / "baseline.eval"), str(INSPECT / "candidate.eval"), "--flips", "3"],
])
def test_compare_on_the_table_route_adds_only_the_table(argv: list[str], with_the_table: set[str]) -> None:
    """What the inspect_arrays route does not serve (here ``--flips``, the per-item rows): the table
    route, with pandas and pyarrow (the rows builder's arrow chunks)."""
    mods = _command(*argv)
    assert "pandas" in mods and not [h for h in HEAVY if h in mods and h not in ("pandas", "pyarrow", "yaml")]
    assert _third_party(mods, with_the_table) <= {"orjson", "zstandard", "pandas", "pyarrow"}
