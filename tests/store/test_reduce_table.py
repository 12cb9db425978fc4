"""``reduce_table`` (a canonical table reduced in memory, ``--engine dask`` on PATHs) gives the
records ``reduce_file`` gives for the same rows stored.

Oracle: ``reduce_file`` (DuckDB's group-by, ``var_pop``, ``any_value``, ``count(DISTINCT)``) on
the table written as the store writes it: same columns, dtypes, order and values; the sums of
squares to 1e-12 (DuckDB sums in another order)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from built_logs import synthetic
from route_cases import coded_samples, edge_json, incomplete_json, two_cluster_log
from built_logs import inspect_base, write_inspect_json

pytest.importorskip("duckdb", reason="reduce_file reads a stored file with DuckDB (pip install 'evaladdon[store]')")

FLOATS = ("s", "m2")


def _stored(table: pd.DataFrame, tmp_path: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    from evaladdon.store import _table_to_parquet
    from evaladdon.store.reduce import reduce_file

    f = tmp_path / "x.parquet"
    _table_to_parquet(table, f)
    return reduce_file(str(f))


def _assert_same(got: pd.DataFrame, want: pd.DataFrame, what: str) -> None:
    assert list(got.columns) == list(want.columns), what
    assert len(got) == len(want), what
    for c in want.columns:
        assert got[c].dtype == want[c].dtype, (what, c, got[c].dtype, want[c].dtype)
        if c in FLOATS:
            np.testing.assert_allclose(got[c].to_numpy(float), want[c].to_numpy(float), rtol=1e-12, atol=1e-12)
        else:
            assert _plain(got[c]) == _plain(want[c]), (what, c)


def _plain(s: pd.Series) -> list[object]:
    return [None if v is None or v != v else v for v in s.tolist()]  # missing (NULL, NaN): None


def _check(table: pd.DataFrame, tmp_path: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    from evaladdon.store.reduce import reduce_table

    items, dropped = reduce_table(table, "x.parquet")
    want_items, want_dropped = _stored(table, tmp_path)
    _assert_same(items, want_items, "items")
    _assert_same(dropped, want_dropped, "dropped")
    return items, dropped


def _read(path: Path, cluster: str | None = None) -> pd.DataFrame:
    from evaladdon.adapters import read_runs

    return read_runs([str(path)], cluster=cluster).table


@pytest.mark.parametrize("cluster", [None, "grp"])
def test_crafted_inspect_log(tmp_path: Path, cluster: str | None) -> None:
    """Errors, limits, unscored samples, non-numeric and infinite values, two epochs."""
    items, dropped = _check(_read(edge_json(tmp_path), cluster), tmp_path)
    assert len(items) > 100 and len(dropped) > 5 and dropped["n"].sum() > 20


def test_codes_past_int8_and_clusters(tmp_path: Path) -> None:
    """>127 metrics, reasons and clusters; re-run records."""
    log = write_inspect_json(tmp_path / "coded.json", inspect_base()[0], coded_samples(range(600), 2, "s"))
    items, dropped = _check(_read(log, "grp"), tmp_path)
    assert items["metric"].nunique() > 127 and dropped["reason"].nunique() > 30


def test_items_in_two_clusters_and_long_tables(tmp_path: Path) -> None:
    log, *_ = two_cluster_log(tmp_path / "two.json", 3)
    items, _ = _check(_read(log, "c"), tmp_path)
    assert (items["k_cluster"] == 2).any()
    for k, binary in ((1, True), (3, False)):
        csv = synthetic(tmp_path / f"m{k}.csv", "m", k, n_items=300, epochs=k, binary=binary)
        _check(_read(csv, "passage"), tmp_path)
    _check(_read(incomplete_json(tmp_path / "inc.json")), tmp_path)


def test_hand_made_rows(tmp_path: Path) -> None:
    """Rows the readers rarely make: a cluster on some rows of an item only, a content hash on
    some, an error beside a finite value, an empty error, -0.0, NaN and infinite values, runs
    interleaved, no usable row at all for one item."""
    from evaladdon.table import finalize

    rows = pd.DataFrame({
        "run": ["a", "b", "a", "a", "b", "a", "a", "b", "a", "a"],
        "task": "t", "metric": "m",
        "item": ["x", "x", "y", "x", "y", "z", "y", "x", "w", "w"],
        "epoch": [1, 1, 1, 2, 1, 1, 2, 2, 1, 2],
        "value": [1.0, 0.5, -0.0, 0.0, np.inf, 0.25, 1.0, np.nan, 0.7, 0.3],
        "raw": "", "error": [None, None, None, None, None, "", None, None, "boom", None],
        "model": ["ma", "mb", "ma", "ma", "mb", "ma", "ma", "mb", "ma", "ma"], "source": "s.json",
        "harness": "table", "cluster": ["c1", None, "c1", None, "c2", "c3", "c4", None, None, None],
        "item_hash": [None, "h1", None, "hx", None, None, "hy", "h1", None, None],
    })
    items, dropped = _check(finalize(rows), tmp_path)
    assert items[["run", "item"]].values.tolist() == [["a", "x"], ["b", "x"], ["a", "y"], ["a", "w"]]
    assert dropped["reason"].tolist() == ["missing value", "", "boom"]
    empty = finalize(rows[rows["error"].isna() & np.isfinite(rows["value"])])
    assert _check(empty, tmp_path)[1].empty
