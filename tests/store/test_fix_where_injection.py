"""Issue 26.4: ``--where`` is one condition on a row: it can drop rows, never add them, read a
file or reach past its parentheses; legitimate conditions still work."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pandas as pd
import pytest

from conftest import REPO

INSPECT = REPO / "sample_logs" / "inspect"
Cli = Callable[..., tuple[int, str, str]]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from evaladdon.routes.ingest import ingest

    root = tmp_path_factory.mktemp("where") / "store"
    report = ingest([INSPECT / "baseline.eval", INSPECT / "candidate.eval"], root, workers=1)
    assert report.stored == 2 and not report.errors
    return root


def candidate_file(store: Path) -> Path:
    entries = json.loads((store / "manifest.json").read_text())["files"]
    return store / "data" / entries[str((INSPECT / "candidate.eval").resolve())]["file"]


def test_the_forged_union_no_longer_flips_the_gate(store: Path, cli: Cli) -> None:
    """The issue's attack: a regression (exit 1) became +40 points (exit 0) by rows the
    expression added.  Now it is refused in one line, and the gate still sees the regression."""
    gate = ("compare", "--store", store, "--baseline", "candidate", "--fail-on-regression")
    code, out, _ = cli(*gate, "--where", "task = 'reading'")
    assert code == 1 and "-8.3" in out
    forged = (f"source NOT LIKE '%baseline%') UNION ALL (SELECT * REPLACE (1.0 AS value) "
              f"FROM read_parquet('{candidate_file(store)}')) --")
    code, out, err = cli(*gate, "--where", forged)
    assert code == 2 and out == ""
    assert err == "evaladdon: error: --where must be one boolean expression (no comments)\n"


INJECTIONS = [
    # (expression, what the one-line error says); {F} is a data file of the store
    ("source LIKE '%x%') UNION ALL (SELECT * REPLACE (1.0 AS value) FROM read_parquet('{F}')) --", "no comments"),
    ("TRUE) UNION ALL (SELECT * REPLACE (1.0 AS value) FROM read_parquet('{F}')", "parentheses do not match"),
    ("TRUE) UNION ALL BY NAME (FROM read_parquet('{F}')", "parentheses do not match"),
    ("1=1 UNION ALL SELECT * FROM read_parquet('{F}')", "--where: Parser Error"),
    ("value IN (SELECT 1.0 FROM read_parquet('{F}'))", "no subqueries"),
    ("EXISTS (SELECT 1)", "no subqueries"),
    ("(SELECT max(value) FROM read_parquet('{F}')) = 1", "no subqueries"),
    ("value = ANY (SELECT 1)", "no subqueries"),
    ("1=1 -- the rest", "no comments"),
    ("1=1 /* x */", "no comments"),
    ("1=1); COPY (SELECT 1) TO 'x.csv'; --", "one boolean expression"),
    ("1=1; ATTACH 'x.db' AS x", "one boolean expression (no ';', no other statements)"),
    ("1=1); ATTACH 'x.db' AS x; SELECT (1", "one boolean expression"),
    ("1=1) OR (1=1", "parentheses do not match"),
    ("1=1)) OR ((1=1", "parentheses do not match"),
    ("((1=1)) UNION ALL ((SELECT 1))", "--where: Parser Error"),
    ("TRUE) ORDER BY (1", "parentheses do not match"),
    ("COLUMNS(*) IS NOT NULL", "no * or COLUMNS"),
    ("sum(value) OVER () > 0", "no window functions"),
    ("$1 = 1", "no parameters"),
    ("getenv('HOME') = '/root'", "no getenv()"),
    ("current_setting('allowed_paths') IS NOT NULL", "no current_setting()"),
    ("nextval('s') > 0", "no nextval()"),
    ("read_parquet('{F}') IS NOT NULL", "--where: "),
    ("read_text('/etc/passwd') IS NOT NULL", "--where: "),
    ("query('SELECT 1') IS NOT NULL", "--where: "),
    ("model = ", "--where: Parser Error"),
    ("   ", "--where is empty"),
]


@pytest.mark.parametrize("where, message", INJECTIONS)
def test_injections_are_refused_in_one_line(store: Path, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            where: str, message: str) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = cli("summarize", "--store", store, "--where", where.replace("{F}", str(candidate_file(store))))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("evaladdon: error: ") and message in err, err
    assert list(tmp_path.iterdir()) == []


def _all_rows(store: Path) -> pd.DataFrame:
    return pd.concat([pd.read_parquet(f) for f in sorted((store / "data").glob("*.parquet"))], ignore_index=True)


LEGITIMATE: list[tuple[str, Callable[[pd.DataFrame], Any]]] = [
    ("task = 'reading' AND model LIKE '%mock%'", lambda d: (d.task == "reading") & d.model.str.contains("mock")),
    ("source LIKE '%candidate%'", lambda d: d.source.str.contains("candidate")),
    ("item IN ('q000', 'q001', 'q017')", lambda d: d.item.isin(["q000", "q001", "q017"])),
    ('"meta.length" > 50 AND value = 1', lambda d: (d["meta.length"] > 50) & (d.value == 1)),
    ("NOT (item = 'q000') AND epoch BETWEEN 1 AND 2", lambda d: (d.item != "q000") & d.epoch.between(1, 2)),
    ("lower(raw) = 'c' OR (value < 0.5 AND item LIKE 'q0%')",
     lambda d: (d.raw.str.lower() == "c") | ((d.value < 0.5) & d.item.str.startswith("q0"))),
    ("CASE WHEN item = 'q001' THEN false ELSE value >= 0.5 END", lambda d: (d.item != "q001") & (d.value >= 0.5)),
    ("item = $$q001$$ OR item = ')' OR item = '--'", lambda d: d.item == "q001"),
    ("item\n  IN ('q002',\n'q003')", lambda d: d.item.isin(["q002", "q003"])),
    ("list_contains(['q004', 'q005'], item) AND CAST(epoch AS INTEGER) = 1",
     lambda d: d.item.isin(["q004", "q005"]) & (d.epoch == 1)),
]


@pytest.mark.parametrize("where, expected", LEGITIMATE, ids=[w for w, _ in LEGITIMATE])
def test_legitimate_conditions_pick_the_rows_pandas_picks(store: Path, where: str, expected: Any) -> None:
    from evaladdon.store.query import load_store

    rows = load_store(store, where=where).table
    everything = _all_rows(store)
    want = everything[expected(everything).fillna(False).astype(bool)]
    assert len(want) > 0
    key = ["source", "item", "epoch"]
    got = rows[key].astype(str).sort_values(key).reset_index(drop=True)
    assert got.equals(want[key].astype(str).sort_values(key).reset_index(drop=True))


def test_a_literal_keeps_its_spaces(tmp_path: Path, cli: Cli) -> None:
    """The expression is no longer re-spaced: ``'a  b'`` (two spaces) used to become ``'a b'``."""
    table = tmp_path / "t.csv"
    pd.DataFrame({"model": ["m"] * 4, "task": ["a  b", "a  b", "a b", "a b"], "id": ["1", "2", "1", "2"],
                  "score": [1, 0, 1, 1]}).to_csv(table, index=False)
    store = tmp_path / "store"
    assert cli("ingest", table, "--store", store, "--quiet")[0] == 0
    code, out, err = cli("summarize", "--store", store, "--where", "task = 'a  b'", "--json")
    assert code == 0, err
    assert [(r["task"], r["mean"]) for r in json.loads(out)["results"]] == [("a  b", 0.5)]


@pytest.mark.parametrize("text", ["TRUE) ORDER BY (1", "TRUE) LIMIT (0", "TRUE) GROUP BY (1",
                                  "TRUE) UNION ALL (SELECT 1"])
def test_nothing_may_follow_the_condition_in_the_parse(text: str) -> None:
    """Behind the parenthesis check (which refuses these first), the parse itself must be
    ``SELECT 1 WHERE (condition)`` and nothing more."""
    import duckdb

    from evaladdon.errors import EvalAddonError
    from evaladdon.store.where import _check_tree

    con = duckdb.connect(":memory:")
    try:
        _check_tree(con, "task = 'x'")
        with pytest.raises(EvalAddonError, match="one boolean expression"):
            _check_tree(con, text)
    finally:
        con.close()


def test_the_dask_reduction_leaves_the_condition_as_written(tmp_path: Path) -> None:
    """The reduction on a Dask worker edits its query text: never inside ``--where``'s literals."""
    pytest.importorskip("duckdb")
    from evaladdon.routes.ingest import ingest
    from evaladdon.store.reduce import reduce_file

    path = tmp_path / "t.csv"
    pd.DataFrame({"model": "m", "task": ["union_by_name=true"] * 3 + ["other"] * 3, "id": ["1", "2", "3"] * 2,
                  "score": [1, 0, 1, 1, 1, 1]}).to_csv(path, index=False)
    store = tmp_path / "store"
    assert ingest([path], store, workers=1).stored == 1
    items, _ = reduce_file(str(next((store / "data").glob("*.parquet"))), "task = 'union_by_name=true'")
    assert items["task"].tolist() == ["union_by_name=true"] * 3 and items["s"].sum() == 2
