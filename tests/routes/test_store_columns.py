"""A group of stored logs read from Parquet (``routes.store_columns.read_group``, the
``dask_compare`` workers' reading) against the oracle, DuckDB's ``fetchnumpy`` of the same
columns as the ``store_arrays`` route reads them: the same values cell for cell (items through
their labels, NULL as None and as NaN), or None where the arrays cannot be DuckDB's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from route_cases import arrays_store, errored_store

pytest.importorskip("duckdb", reason="the store needs DuckDB (pip install 'evaladdon[store]')")


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    made = []
    for name, build in (("arrays", arrays_store), ("errored", errored_store)):
        root = tmp_path_factory.mktemp(name)
        made.append(build(root))
    return made


def duckdb_arrays(files: list[Path]) -> dict[str, np.ndarray]:
    from evaladdon.routes.store_arrays import COLUMNS, _plain
    from evaladdon.store.query import connect, select_sql

    con = connect(files)
    try:
        got = con.sql(select_sql(files, None, ", ".join(f'"{c}"' for c in COLUMNS))).fetchnumpy()
    finally:
        con.close()
    return {c: _plain(got[c], np.nan if c == "value" else None) for c in COLUMNS}


def assert_same(files: list[Path]) -> None:
    from evaladdon.routes.store_columns import read_group

    got = read_group(files)
    assert got is not None, files
    want = duckdb_arrays(files)
    items = got.item_labels.to_numpy(zero_copy_only=False)[got.cols["item"]]
    assert items.tolist() == want["item"].tolist()
    for c in ("run", "model", "task", "metric", "source", "error", "cluster", "item_hash", "epoch"):
        assert got.cols[c].tolist() == want[c].tolist(), c
    assert got.cols["value"].dtype == np.float64
    np.testing.assert_array_equal(got.cols["value"], want["value"])  # NaN where NULL, as DuckDB's


def test_each_stored_log_and_all_of_them_read_as_duckdb_reads_them(stores: list[Path]) -> None:
    from evaladdon.store.query import select

    for store in stores:
        files = select(str(store)).files
        assert len(files) >= 3
        for f in files:
            assert_same([f])
        assert_same(files)  # the item dictionaries of several files unified into one


def test_errors_and_clusters_are_among_the_cells_compared(stores: list[Path]) -> None:
    from evaladdon.routes.store_columns import read_group
    from evaladdon.store.query import select

    arrays, errored = (read_group(select(str(s)).files) for s in stores)
    assert arrays is not None and errored is not None
    assert np.not_equal(arrays.cols["cluster"], None).any() and np.equal(arrays.cols["cluster"], None).any()
    assert np.not_equal(errored.cols["error"], None).any()


def write(path: Path, **columns: object) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    base: dict[str, object] = {"run": ["r", "r"], "model": ["m", "m"], "task": ["t", "t"], "metric": ["s", "s"],
                               "source": ["x.csv", "x.csv"], "item": ["a", "b"], "epoch": [0, 0], "value": [1.0, 0.0],
                               "error": [None, None], "cluster": [None, None], "item_hash": [None, None]}
    pq.write_table(pa.table({**base, **columns}), path)
    return path


def test_rows_the_arrays_cannot_hold_as_duckdb_would_are_left_to_duckdb(tmp_path: Path) -> None:
    from evaladdon.routes.store_columns import read_group

    assert read_group([write(tmp_path / "ok.parquet")]) is not None
    assert read_group([write(tmp_path / "ok.parquet"), write(tmp_path / "none.parquet", run=["r", None])]) is None
    assert read_group([write(tmp_path / "item.parquet", item=[1, 2])]) is None  # not a string
    assert read_group([write(tmp_path / "int.parquet", value=[1, 0])]) is None  # DuckDB would make doubles of these
    assert read_group([write(tmp_path / "epoch.parquet", epoch=[0, None])]) is None


def test_a_column_missing_from_a_file_is_null_there_as_with_union_by_name(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    from evaladdon.routes.store_columns import read_group

    full = write(tmp_path / "a.parquet", error=["sample error", None], cluster=["c", "c"], item_hash=[None, "h"])
    lacking = write(tmp_path / "b.parquet", cluster=["d", None], item_hash=["h", "h"])
    pq.write_table(pq.read_table(lacking).drop_columns(["error"]), lacking)
    assert_same([full, lacking])
    assert read_group([lacking]) is None  # no file has it: DuckDB refuses the query


@pytest.mark.parametrize("where", ["value >= 0", "item_hash IS NULL OR value < 0.5", "epoch > 100"])
def test_rows_duckdb_filters_fetched_as_arrow_equal_its_numpy_arrays(stores: list[Path], where: str) -> None:
    """``--where`` with a per-row term: DuckDB filters, its Arrow result is turned into the same
    arrays (``routes.dask_compare._from_duckdb``) as its ``fetchnumpy`` (the oracle)."""
    from evaladdon.routes.dask_compare import _from_duckdb
    from evaladdon.routes.store_columns import GroupColumns
    from evaladdon.store.query import select

    for store in stores:
        files = select(str(store)).files
        got, want = _from_duckdb(files, where, arrow=True), _from_duckdb(files, where, arrow=False)
        assert isinstance(want, dict)
        if len(want["run"]) == 0:  # no row: fetched as numpy arrays, empty
            assert isinstance(got, dict) and len(got["run"]) == 0
            continue
        assert isinstance(got, GroupColumns)
        labels = got.item_labels.to_numpy(zero_copy_only=False)
        assert labels[got.cols["item"]].tolist() == want["item"].tolist()
        for c in ("run", "model", "task", "metric", "source", "error", "cluster", "item_hash", "epoch"):
            assert got.cols[c].tolist() == want[c].tolist(), c
        np.testing.assert_array_equal(got.cols["value"], want["value"])


def test_a_canonical_tables_arrays_are_those_of_the_same_rows_stored(stores: list[Path]) -> None:
    """``from_frame`` (``compare PATH... --engine dask``) of the store's rows read as a table
    gives the arrays ``read_group`` gives of its files: cell for cell, items through their labels."""
    from evaladdon.routes.store_columns import from_frame, read_group
    from evaladdon.store.query import load_store, select

    for store in stores:
        files = select(str(store)).files
        want = read_group(files)
        got = from_frame(load_store(str(store)).table)
        assert want is not None and got is not None
        for g in (got, want):
            g.cols["item"] = g.item_labels.to_numpy(zero_copy_only=False)[g.cols["item"]]
        for c in ("run", "model", "task", "metric", "source", "item", "error", "cluster", "item_hash", "epoch"):
            assert got.cols[c].tolist() == want.cols[c].tolist(), c
        np.testing.assert_array_equal(got.cols["value"], want.cols["value"])


def test_a_table_that_is_not_canonical_gives_none() -> None:
    import pandas as pd

    from evaladdon.routes.store_arrays import COLUMNS
    from evaladdon.routes.store_columns import from_frame

    row = {c: "x" for c in COLUMNS} | {"epoch": 1, "value": 1.0, "error": None}
    assert from_frame(pd.DataFrame([row])) is not None
    assert from_frame(pd.DataFrame([row | {"item": 3}])) is None  # an item that is not a string
    assert from_frame(pd.DataFrame([row]).drop(columns="cluster")) is None
