"""Unit tests of ``compare --store`` without pandas (the store_arrays route,
evaladdon.routes.store_arrays): its not-missing mask, and pandas never imported.  Its output
against the table route's: tests/routes/test_route_equality.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from route_cases import arrays_store

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return arrays_store(tmp_path_factory.mktemp("fast"))


def test_rows_left_out_with_duckdbs_missing_errors_as_the_table_path() -> None:
    """The fast path passes ``error is not None`` as the not-missing mask (DuckDB gives None for
    NULL): the same rows and counts as table.usable.unusable's own pd.isna."""
    from evaladdon.table.usable import unusable

    rng = np.random.default_rng(3)
    for _ in range(300):
        n = int(rng.integers(1, 40))
        values = rng.choice([0.0, 1.0, 0.5, np.nan, np.inf, -np.inf], size=n, p=[.3, .3, .1, .1, .1, .1])
        error = rng.choice(np.array([None, None, None, "timeout", "parse error", "limit"], dtype=object), size=n)
        bad, counts = unusable(values, error, np.not_equal(error, None))
        want_bad, want = unusable(values, error)
        assert bad.tolist() == want_bad.tolist()
        assert list(counts.items()) == list(want.items())


@pytest.mark.parametrize("models", ["'model-0', 'model-1'", "'model-c0', 'model-c1'"])
def test_fast_store_compare_does_not_import_pandas(store: Path, models: str) -> None:
    code = ("import sys; from evaladdon.cli.main import main; "
            f"rc = main(['compare', '--store', {str(store)!r}, '--where', \"model IN ({models})\", "
            "'--json']); print(rc, 'pandas' in sys.modules, 'pyarrow' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip().splitlines()[-1] == "0 False False"
