"""``store.manifest_summary`` (what the manifest records of one log) against the pandas
computation it replaced: run names sorted by ``pd.factorize(..., sort=True)``, per-run row
counts and distinct items from a pandas group-by (the oracle), on tables as the readers make
them (one run, several runs, a categorical run column whose categories are not in order of
appearance, a python-str run column) and on real logs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from evaladdon.adapters import read_runs
from evaladdon.store import manifest_summary

from built_logs import synthetic
from conftest import REPO


def oracle(df: pd.DataFrame) -> dict[str, Any]:
    runs = df["run"].astype(str)
    by = df.assign(run=runs).groupby("run", sort=True)
    return {
        "runs": sorted(runs.unique()),
        "n_items": int(df["item"].nunique(dropna=False)),
        "n_rows": int(len(df)),
        "run_detail": [(r, int(len(g)), int(g["item"].nunique(dropna=False))) for r, g in by],
    }


def check(df: pd.DataFrame) -> None:
    got = manifest_summary(df)
    want = oracle(df)
    assert got["runs"] == want["runs"]
    assert got["n_items"] == want["n_items"] and got["n_rows"] == want["n_rows"]
    assert [(d["run"], d["n_rows"], d["n_items"]) for d in got["run_detail"]] == want["run_detail"]
    assert [d["model"] for d in got["run_detail"]] == [str(df.loc[df["run"].astype(str) == r, "model"].iloc[0])
                                                       for r in want["runs"]]


def test_tables_as_read(tmp_path: Path) -> None:
    one = read_runs([synthetic(tmp_path / "a.csv", "zeta", 1, n_items=3000)]).table  # > 2048 rows: the codes path
    check(one)
    two = read_runs([synthetic(tmp_path / "b.csv", "alpha", 2, n_items=40),
                     synthetic(tmp_path / "c.csv", "mid", 3, n_items=50)]).table
    check(two)
    check(two.iloc[::-1].reset_index(drop=True))  # runs appear in an order that is not sorted


def test_run_column_kinds(tmp_path: Path) -> None:
    df = read_runs([synthetic(tmp_path / "b.csv", "b", 2, n_items=40),
                    synthetic(tmp_path / "a.csv", "a", 3, n_items=50)]).table
    as_cat = df.assign(run=pd.Categorical(df["run"].astype(str), categories=sorted(df["run"].astype(str).unique())[::-1]))
    check(as_cat)
    check(df.assign(run=df["run"].astype(object)))


@pytest.mark.parametrize("log", ["inspect", "lm_eval", "table"])
def test_sample_logs(log: str) -> None:
    check(read_runs([REPO / "sample_logs" / log]).table)
