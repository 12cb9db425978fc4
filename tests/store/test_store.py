"""The store (ingest, runs, --store/--where), export round trips, the one value converter and
the table fast paths.  The store's and the Dask engine's output against the table route's:
tests/routes/test_route_equality.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from evaladdon.adapters import read_runs
from evaladdon.adapters.common.scores import MISSING, NON_FINITE, NON_NUMERIC, coerce_scores
from evaladdon.adapters.long_table import read_long_table
from evaladdon.cli.main import main
from evaladdon.analysis.summarize import summarize_table
from evaladdon.table import finalize, validate

from built_logs import synthetic

REPO = Path(__file__).resolve().parents[2]
INSPECT = REPO / "sample_logs" / "inspect"




def cli(*args: str, routes: Any = None) -> int:
    return main([str(a) for a in args], routes=routes)


# -- the one value converter (12.12) ---------------------------------------------------------

def test_one_rule_for_disputed_values(tmp_path: Path) -> None:
    disputed = ["1_000", "١", "C", "", "0.5", " yes", "NaN"]
    values, errors = coerce_scores(pd.Series(disputed, dtype=object))
    assert errors.tolist() == [NON_NUMERIC, NON_NUMERIC, NON_NUMERIC, MISSING, None, None, NON_FINITE]
    assert values[4] == 0.5 and values[5] == 1.0
    # Inspect's letters only on request, exactly as Inspect's value_to_float maps them
    from inspect_ai.scorer import value_to_float

    v, e = coerce_scores(pd.Series(["C", "I", "P", "N", "c"], dtype=object), letters=True)
    to_float = value_to_float()
    assert v[:4].tolist() == [to_float(x) for x in "CIPN"] and e.iloc[4] == NON_NUMERIC
    # csv (pyarrow strings), jsonl (pyarrow json) and an object column agree
    csv = tmp_path / "t.csv"
    csv.write_text("id,value\n" + "".join(f"i{k},{x}\n" for k, x in enumerate(disputed)), encoding="utf-8")
    jsonl = tmp_path / "t.jsonl"
    jsonl.write_text("".join(json.dumps({"id": f"i{k}", "value": x}) + "\n" for k, x in enumerate(disputed)))
    for path in (csv, jsonl):
        df = read_long_table(path)
        assert df["error"].tolist() == errors.tolist()
        assert np.array_equal(df["value"].to_numpy(), values, equal_nan=True)


def test_numeric_column_never_goes_through_strings() -> None:
    v, e = coerce_scores(pd.Series([0.25, np.nan, np.inf, 1.0]))
    assert v[0] == 0.25 and e.tolist() == [None, NON_FINITE, NON_FINITE, None]


def test_bom_files_are_read(tmp_path: Path) -> None:
    p = tmp_path / "bom.csv"
    p.write_bytes(b"\xef\xbb\xbfid,score\na,1\nb,0\n")
    df = read_long_table(p)
    assert df["item"].tolist() == ["a", "b"] and df["value"].tolist() == [1.0, 0.0]
    q = tmp_path / "bom.jsonl"
    q.write_bytes(b'\xef\xbb\xbf{"id": "a", "score": 1}\n{"id": "b", "score": 0}\n')
    assert read_long_table(q)["value"].tolist() == [1.0, 0.0]


def test_finalize_is_a_no_op_on_a_conforming_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    df = read_long_table(synthetic(tmp_path / "a.csv", "m", 1))

    def no_conversion(self: pd.Series, *a: object, **k: object) -> None:
        raise AssertionError("finalize converted a conforming column")

    monkeypatch.setattr(pd.Series, "astype", no_conversion)
    again = finalize(df)
    monkeypatch.undo()
    assert list(again.dtypes) == list(df.dtypes)
    validate(again)


def test_memory_exhaustion_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    import evaladdon.adapters.long_table as table_mod

    def boom(path: Path) -> None:
        raise MemoryError

    monkeypatch.setattr(table_mod, "read_arrow_table", boom)
    p = synthetic(tmp_path / "a.csv", "m", 1)
    assert cli("summarize", p) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not enough memory" in err and "a.csv" in err


# -- export round trip (12.9) and safe writes (12.7) ------------------------------------------

@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_export_reads_back_exactly(tmp_path: Path, suffix: str, capsys) -> None:
    src = synthetic(tmp_path / "a.csv", "m", 3)
    out = tmp_path / f"out{suffix}"
    assert cli("export", src, INSPECT / "baseline.eval", "-o", out, "--quiet") == 0
    before = read_runs([src, INSPECT / "baseline.eval"]).table
    after = read_runs([out]).table
    cols = ["run", "task", "metric", "item", "epoch", "error", "cluster", "source", "harness", "raw"]
    pd.testing.assert_frame_equal(before[cols].astype(object), after[cols].astype(object))
    assert np.array_equal(before["value"].to_numpy(), after["value"].to_numpy(), equal_nan=True)
    s1 = [s.flat() for s in summarize_table(before, notes=[])]
    s2 = [s.flat() for s in summarize_table(after, notes=[])]
    assert s1 == s2


def test_export_refuses_its_input(tmp_path: Path, capsys) -> None:
    src = synthetic(tmp_path / "a.csv", "m", 3)
    before = src.read_bytes()
    assert cli("export", src, "-o", src) == 2
    assert "refusing to overwrite an input" in capsys.readouterr().err
    assert src.read_bytes() == before


# -- the store ---------------------------------------------------------------------------------

def test_ingest_is_idempotent_and_replaces_changed_logs(tmp_path: Path, capsys) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    a = synthetic(logs / "ckpt-a.csv", "ckpt-1", 1)
    synthetic(logs / "ckpt-b.csv", "ckpt-2", 2)
    synthetic(logs / "other.csv", "base", 3)
    store = tmp_path / "store"
    assert cli("ingest", logs, "--store", store) == 0
    assert "3 log(s) stored" in capsys.readouterr().err
    files = sorted((store / "data").iterdir())
    assert len(files) == 3
    assert cli("ingest", logs, "--store", store) == 0
    assert "3 unchanged" in capsys.readouterr().err
    synthetic(a, "ckpt-1", 11)  # a changed log replaces its rows
    assert cli("ingest", logs, "--store", store) == 0
    assert "1 replaced" in capsys.readouterr().err
    assert len(list((store / "data").iterdir())) == 3
    assert cli("runs", "--store", store, "--json") == 0
    listed = json.loads(capsys.readouterr().out)
    assert sorted(r["model"] for r in listed) == ["base", "ckpt-1", "ckpt-2"]
    assert all(r["n_items"] == 60 for r in listed)
    # --store gives what reading the files gives
    assert cli("summarize", "--store", store, "--where", "model LIKE 'ckpt-%' AND task = 't'", "--json") == 0
    stored = json.loads(capsys.readouterr().out)["results"]
    assert cli("summarize", logs / "ckpt-a.csv", logs / "ckpt-b.csv", "--json") == 0
    direct = json.loads(capsys.readouterr().out)["results"]
    key = lambda r: r["run"]  # noqa: E731
    for x, y in zip(sorted(stored, key=key), sorted(direct, key=key), strict=True):
        assert {k: v for k, v in x.items()} == {k: v for k, v in y.items()}
    assert cli("compare", "--store", store, "--where", "model IN ('ckpt-1', 'ckpt-2')", "--json") == 0
    assert json.loads(capsys.readouterr().out)["results"][0]["n"] > 0
    # a per-row filter (not answerable from the manifest) still works
    assert cli("summarize", "--store", store, "--where", "value >= 0.5", "--json") == 0
    assert all(r["mean"] >= 0.5 for r in json.loads(capsys.readouterr().out)["results"])


def test_files_are_picked_by_run_level_terms_only(tmp_path: Path) -> None:
    """Files are picked by the run-level AND terms of --where only; anything else opens every file."""
    from evaladdon.routes.ingest import ingest
    from evaladdon.store import Manifest
    from evaladdon.store.query import pick_files

    logs = tmp_path / "logs"
    logs.mkdir()
    synthetic(logs / "x.csv", "m", 1), synthetic(logs / "y.csv", "m", 2), synthetic(logs / "z.csv", "other", 3)
    store = tmp_path / "store"
    assert ingest([logs], store, workers=1).stored == 3
    m = Manifest.load(store)
    by_file = {e["file"]: Path(source).name for source, e in m.entries.items()}
    names = lambda where: sorted(by_file[f.name] for f in pick_files(m, where))  # noqa: E731
    assert names("model = 'm' AND value >= 0.5") == ["x.csv", "y.csv"]
    assert names("(value > 2 OR epoch = 1) AND task = 't' AND model = 'other'") == ["z.csv"]
    assert names("model = 'm' OR value >= 0.5") == ["x.csv", "y.csv", "z.csv"]
    assert names("random() < 2 AND model = 'other'") == ["x.csv", "y.csv", "z.csv"]  # volatile: row by row


@pytest.mark.parametrize("where, message", [
    ("1=1); COPY (SELECT 1) TO 'x.csv'; --", "one boolean expression"),
    ("1=1) UNION ALL SELECT * FROM read_csv('/etc/passwd') --", "--where"),
    ("nosuch = 1", "nosuch"),
    ("model = ", "--where"),
])
def test_where_is_read_only_and_errors_are_one_line(tmp_path: Path, capsys, where: str, message: str) -> None:
    store = tmp_path / "store"
    assert cli("ingest", synthetic(tmp_path / "a.csv", "m", 1), "--store", store, "--quiet") == 0
    capsys.readouterr()
    assert cli("summarize", "--store", store, "--where", where) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
    assert not (tmp_path / "x.csv").exists() and not Path("x.csv").exists()


def test_store_usage_errors(tmp_path: Path, capsys) -> None:
    assert cli("summarize") == 2
    assert cli("summarize", "--where", "1=1", tmp_path) == 2
    assert cli("summarize", "--store", tmp_path / "nope") == 2
    err = capsys.readouterr().err
    assert "nothing to read" in err and "--where filters a store" in err and "no such store" in err


def test_manifest_summary_equals_a_pandas_groupby() -> None:
    """The manifest's per-log summary (codes, distinct combinations) equals the pandas group-by
    it replaced, on a table of several runs, tasks, metrics and models in a scrambled order."""
    from evaladdon.store import manifest_summary

    rng = np.random.default_rng(5)
    n = 600
    df = pd.DataFrame({
        "run": rng.choice(["r-b", "r-a", "r-c"], n), "model": rng.choice(["m2", "m1"], n),
        "task": rng.choice(["t1", "t0"], n), "metric": rng.choice(["acc", "f1"], n), "harness": "table",
        "item": [f"q{k}" for k in rng.integers(0, 150, n)],
    })
    per_run = df.groupby("run", sort=True).agg(model=("model", "first"), n_items=("item", "nunique"),
                                               n_rows=("item", "size"))
    want = {
        "runs": sorted(df["run"].unique()), "models": sorted(df["model"].unique()),
        "tasks": sorted(df["task"].unique()), "metrics": sorted(df["metric"].unique()), "harness": ["table"],
        "n_rows": n, "n_items": int(df["item"].nunique()),
        "combos": df[["run", "model", "task", "metric", "harness"]].drop_duplicates().to_numpy().tolist(),
        "run_detail": [{"run": r, "model": row.model, "n_items": int(row.n_items), "n_rows": int(row.n_rows),
                        "tasks": sorted(df.loc[df["run"] == r, "task"].unique()),
                        "metrics": sorted(df.loc[df["run"] == r, "metric"].unique())}
                       for r, row in per_run.iterrows()],
    }
    assert manifest_summary(df) == want


def test_whole_files_read_from_parquet_equal_the_query(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Files whose every row matches --where are read straight from Parquet; the table equals
    the one DuckDB's query gives (forced by a per-row term that holds for every row); when
    pyarrow cannot combine the files (a metadata column typed differently in two logs), the
    query is used."""
    import pyarrow as pa

    from evaladdon.routes.ingest import ingest
    from evaladdon.store import Manifest
    from evaladdon.store import query as q

    logs = tmp_path / "logs"
    logs.mkdir()
    for i, model in enumerate(("a", "b", "c")):
        synthetic(logs / f"{model}.csv", model, i)
    store = tmp_path / "store"
    assert ingest([logs], store, workers=1).stored == 3
    m = Manifest.load(store)
    assert q.plan_files(m, "model IN ('a', 'c')")[1] is True
    assert q.plan_files(m, "model IN ('a', 'c') AND epoch >= 0")[1] is False  # a per-row term
    assert q.plan_files(m, "model IN ('a', 'c') OR value > 0")[1] is False  # not decided per run

    def canon(df: pd.DataFrame) -> pd.DataFrame:
        return df[sorted(df.columns)].astype(object).reset_index(drop=True)

    for where in ("model IN ('a', 'c')", "model = 'c'", None):
        fast = q.load_store(store, where).table
        query = q.load_store(store, (f"({where}) AND " if where else "") + "epoch >= 0").table
        pd.testing.assert_frame_equal(canon(fast), canon(query), check_exact=True)
        assert isinstance(fast["run"].dtype, pd.CategoricalDtype)
    with pytest.raises(pa.ArrowException):  # what the fallback is for
        pa.concat_tables([pa.table({"meta.note": [1]}), pa.table({"meta.note": ["x"]})], promote_options="default")

    def refuse(files: object) -> None:
        raise pa.ArrowInvalid("cannot combine")

    c_only = q.load_store(store, "model = 'c'").table
    monkeypatch.setattr(q, "_read_files", refuse)
    pd.testing.assert_frame_equal(canon(q.load_store(store, "model = 'c'").table), canon(c_only), check_exact=True)


def test_cluster_ids_equal_str_of_each_value() -> None:
    """Cluster ids from a stored column: str(v) of every present value, None where missing
    (oracle: the per-value conversion), for text, integer, float, boolean and mixed columns."""
    from evaladdon.store.query import cluster_ids

    cols = [pd.Series(["p1", None, "p2"], dtype="str"), pd.Series([1, 2, 3], dtype="int64"),
            pd.Series([1.5, np.nan, 0.1, 1e-20, 3.0]), pd.Series([1, None, 3], dtype="Int64"),
            pd.Series([True, False, None], dtype=object), pd.Series(["a", 2, 2.5, None, np.nan], dtype=object),
            pd.Series(pd.Categorical(["x", None, "y"]))]
    for col in cols:
        want = [None if pd.isna(v) else str(v) for v in col.astype(object)]
        assert cluster_ids(col).tolist() == want, col.tolist()
