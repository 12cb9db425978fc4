"""``reduce_table`` (canonical rows reduced in memory: an input file read on a Dask worker, or a
stored file's rows in ``reduce_file``) gives the per-item records DuckDB's group-by gives.

Oracle: :func:`_duckdb_reduce`, the SQL ``reduce_file`` ran before it shared ``reduce_table``
(``var_pop``, ``any_value``, ``count(DISTINCT)``, ``ORDER BY`` the first row number), on the
table written as the store writes it: same columns, dtypes, order and values; the sums of
squares to 1e-12 (DuckDB sums in another order).  ``reduce_file`` itself is held to it too,
with and without a ``--where`` filter."""

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
GOOD = "error IS NULL AND coalesce(isfinite(value), false)"


def _duckdb_reduce(file: str, where: str | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The per-item records by DuckDB's group-by (the former ``reduce_file``)."""
    from evaladdon.store.query import connect, select_sql

    con = connect([Path(file)])
    try:
        rows = select_sql([Path(file)], None, columns="*, file_row_number AS _row").replace(
            "union_by_name=true", "union_by_name=true, file_row_number=true")
        rows += f" WHERE ({where})" if where else ""
        items = con.execute(f"""
            SELECT run, task, metric, item, any_value(model) AS model, any_value(source) AS source,
                   any_value(harness) AS harness, count(*) AS n, sum(value) AS s,
                   var_pop(value) * count(*) AS m2,
                   count(*) FILTER (WHERE value = 1) AS ones, count(*) FILTER (WHERE value = 0) AS zeros,
                   any_value(cluster) AS cluster, count(cluster) AS n_cluster,
                   count(DISTINCT cluster) AS k_cluster, any_value(item_hash) AS item_hash, min(_row) AS first
            FROM ({rows}) WHERE {GOOD} GROUP BY run, task, metric, item ORDER BY first""").df()
        dropped = con.execute(f"""
            SELECT run, task, metric, item, any_value(model) AS model, any_value(source) AS source,
                   any_value(harness) AS harness, coalesce(error, 'missing value') AS reason,
                   any_value(cluster) AS cluster, any_value(item_hash) AS item_hash,
                   count(*) AS n, min(_row) AS first
            FROM ({rows}) WHERE NOT ({GOOD}) GROUP BY run, task, metric, item, reason ORDER BY first""").df()
    finally:
        con.close()
    items["file"] = dropped["file"] = Path(file).name
    return items, dropped


def _stored(table: pd.DataFrame, tmp_path: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The oracle's records of ``table`` stored; ``reduce_file``'s checked against them, also
    under a per-row ``--where``."""
    from evaladdon.store import _table_to_parquet
    from evaladdon.store.reduce import reduce_file

    f = tmp_path / "x.parquet"
    _table_to_parquet(table, f)
    want = _duckdb_reduce(str(f))
    got = reduce_file(str(f))
    _assert_same(got[0], want[0], "reduce_file items")
    _assert_same(got[1], want[1], "reduce_file dropped")
    where = "item <> 'y' AND epoch <> 2"  # per-row: the first row numbers are the file's
    got, filtered = reduce_file(str(f), where), _duckdb_reduce(str(f), where)
    _assert_same(got[0], filtered[0], "reduce_file --where items")
    _assert_same(got[1], filtered[1], "reduce_file --where dropped")
    return want


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
    assert dropped[["run", "item", "reason"]].values.tolist() == [["b", "y", "missing value"], ["a", "z", ""],
                                                                   ["b", "x", "missing value"], ["a", "w", "boom"]]
    assert [c if isinstance(c, str) else None for c in dropped["cluster"]] == ["c2", "c3", None, None]
    empty = finalize(rows[rows["error"].isna() & np.isfinite(rows["value"])])
    assert _check(empty, tmp_path)[1].empty
