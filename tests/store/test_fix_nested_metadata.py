"""Nested Inspect metadata is kept (issue 25 items 15 and 16): its scalar leaves become
``meta.a.b`` columns, so a store can be clustered on a nested field at query time with the
numbers of clustering the logs themselves, and a wrong ``--cluster`` suggests the nested field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from evaladdon.adapters import read_runs

from conftest import REPO

Cli = Callable[..., tuple[int, str, str]]
INSPECT = REPO / "sample_logs" / "inspect"


def test_nested_leaves_are_columns() -> None:
    table = read_runs([INSPECT / "baseline.eval"]).table
    assert "meta.passage.id" in table.columns
    assert table["meta.passage.id"].astype(str).str.fullmatch(r"p\d\d").all()


def test_a_store_clusters_on_a_nested_field_at_query_time(tmp_path: Path, cli: Cli) -> None:
    store = tmp_path / "store"
    assert cli("ingest", INSPECT, "--store", store, "--quiet")[0] == 0
    code, stored, err = cli("summarize", "--store", store, "--cluster", "passage.id", "--where", "task = 'reading'",
                            "--json")
    assert code == 0, err
    code, direct, _ = cli("summarize", INSPECT / "baseline.eval", INSPECT / "candidate.eval", "--cluster", "passage.id",
                          "--json")
    keep = ("run", "mean", "se", "ci_low", "ci_high", "n_clusters", "deff")
    got = [{k: r.get(k) for k in keep} for r in json.loads(stored)["results"]]
    want = [{k: r.get(k) for k in keep} for r in json.loads(direct)["results"]]
    assert sorted(got, key=str) == sorted(want, key=str) and got[0]["n_clusters"] == 12


def test_a_wrong_cluster_suggests_the_nested_field(cli: Cli) -> None:
    code, _, err = cli("summarize", INSPECT, "--cluster", "pasage.id")
    assert code == 2 and "did you mean 'passage.id'?" in err
