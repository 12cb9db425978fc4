from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

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
