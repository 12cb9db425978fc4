from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
REAL_LOGS = SHARED / "real_logs"
NO_REAL_LOGS = "the real-log corpus is not present (tests on it skip; sample_logs/ ones run)"


def load_script(name: str) -> ModuleType:
    """A script of scripts/ as a module (the tests run the same code that made sample_logs/)."""
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def real_logs() -> Path:
    if not REAL_LOGS.is_dir():
        pytest.skip(NO_REAL_LOGS)
    return REAL_LOGS


def run_cli(capsys: pytest.CaptureFixture[str], *args: object, routes: Any = None) -> tuple[int, str, str]:
    """The one way the tests run a command in this process: ``evaladdon ARGS`` (each ``str()``-ed)
    -> (exit code, stdout, stderr); argparse's own exits count as exit codes; ``routes`` a
    :class:`evaladdon.analysis.options.RoutePolicy` (force, exclude or observe a route)."""
    from evaladdon.cli.main import main

    try:
        code = main([str(a) for a in args], routes=routes)
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return int(code or 0), out, err


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """``cli("summarize", path, "--json")`` -> (exit code, stdout, stderr): :func:`run_cli`."""
    return lambda *args, routes=None: run_cli(capsys, *args, routes=routes)
