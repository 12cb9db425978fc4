"""The canonical table's validator and the long-table reader."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evaladdon.adapters import load
from evaladdon.adapters.table import read_long_table
from evaladdon.errors import InputError, TableError
from evaladdon.table import COLUMNS, finalize, validate


def make(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_aliases_and_models_become_runs(tmp_path: Path) -> None:
    p = make(tmp_path, "t.csv", "model,question_id,score,repeat,cluster_id\nA,q1,1,0,c1\nA,q1,0,1,c1\nB,q1,1,0,c1\n")
    df = read_long_table(p)
    assert list(df.columns[: len(COLUMNS)]) == list(COLUMNS)
    assert sorted(df["run"].unique()) == ["A", "B"]
    assert df["epoch"].tolist() == [1, 2, 1]  # 0-based repeats become 1-based
    assert df["cluster"].tolist() == ["c1"] * 3
    assert df["metric"].iloc[0] == "score" and df["task"].iloc[0] == "default"
    validate(df)


def test_non_numeric_values_are_kept_with_reason(tmp_path: Path) -> None:
    p = make(tmp_path, "t.jsonl", '{"id": "a", "value": 1}\n{"id": "b", "value": "C"}\n'
             '{"id": "c", "value": NaN}\n{"id": "d", "value": null}\n{"id": "e", "value": true}\n'
             '{"id": "f", "value": "0.25"}\n{"id": "g", "value": Infinity}\n')
    df = read_long_table(p)
    assert df["value"].tolist()[:1] == [1.0]
    assert df["error"].tolist() == [None, "non-numeric value", "non-finite value (NaN or Infinity)", "missing value",
                                     None, None, "non-finite value (NaN or Infinity)"]
    assert df.loc[df["item"] == "f", "value"].item() == 0.25
    assert df.loc[df["item"] == "e", "value"].item() == 1.0
    assert df.loc[df["item"] == "b", "raw"].item() == "C"


def test_truncated_jsonl_names_the_line(tmp_path: Path) -> None:
    p = make(tmp_path, "t.jsonl", '{"id": "a", "value": 1}\n{"id": "b", "val')
    with pytest.raises(InputError, match=r"t.jsonl: line 2: not valid JSON"):
        read_long_table(p)


def test_missing_columns_and_bad_epochs(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="missing column.*value"):
        read_long_table(make(tmp_path, "a.csv", "id,x\n1,2\n"))
    with pytest.raises(InputError, match="epoch 'two'"):
        read_long_table(make(tmp_path, "b.csv", "id,score,epoch\n1,1,two\n"))
    with pytest.raises(InputError, match="no column 'passage'"):
        read_long_table(make(tmp_path, "c.csv", "id,score\n1,1\n"), cluster="passage")
    with pytest.raises(InputError, match="empty"):
        read_long_table(make(tmp_path, "d.csv", ""))


def test_parquet_roundtrip(tmp_path: Path) -> None:
    p = tmp_path / "t.parquet"
    pd.DataFrame({"item": ["a", "b"], "value": [1.0, 0.0], "passage": ["x", "y"]}).to_parquet(p)
    df = read_long_table(p, cluster="passage")
    assert df["cluster"].tolist() == ["x", "y"]


def test_validate_reports_duplicates() -> None:
    row = {c: "x" for c in COLUMNS}
    row.update(harness="table", epoch=1, value=1.0, cluster=None, item_hash=None, error=None)
    df = finalize(pd.DataFrame([row, row]))
    with pytest.raises(TableError, match="unique; 2 row"):
        validate(df)


def test_validate_checks_types_and_reasons() -> None:
    row = {c: "x" for c in COLUMNS}
    row.update(harness="table", epoch=1, value=np.nan, cluster=None, item_hash=None, error=None)
    with pytest.raises(TableError, match="no value and no error"):
        validate(finalize(pd.DataFrame([row])))
    row.update(value=1.0)
    df = finalize(pd.DataFrame([row]))
    df["item"] = [3]
    with pytest.raises(TableError, match="'item' must hold strings"):
        validate(df)
    with pytest.raises(TableError, match="missing column"):
        validate(df.drop(columns=["raw"]))


def test_load_disambiguates_runs_across_files(tmp_path: Path) -> None:
    a = make(tmp_path, "old.csv", "model,id,score\nm,1,1\nm,2,0\n")
    b = make(tmp_path, "new.csv", "model,id,score\nm,1,1\nm,2,1\n")
    df = load([a, b])
    assert sorted(df["run"].unique()) == ["new.csv/m", "old.csv/m"]


def test_load_refuses_unknown_and_missing(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        load([tmp_path / "nope.csv"])
    with pytest.raises(InputError, match="unsupported file type"):
        load([make(tmp_path, "x.xyz", "hi")])
    with pytest.raises(InputError, match="not a log"):
        load([make(tmp_path, "x.txt", "hi")])
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match="no readable"):
        load([empty])
