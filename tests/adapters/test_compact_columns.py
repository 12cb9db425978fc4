"""Compact columns of large long tables behave as the plain ones for every consumer.

A long table of 65,536+ rows (``adapters.long_table.FEW_LABELS_MIN_ROWS``) is read with a cluster
column as a categorical, ``raw`` text of few values as a categorical, ``item_hash``/``error``
with no value as ``table.no_values`` and epochs as int8.  Here the threshold is lowered so
small tables take the compact form, and the oracle is the same input read the plain way
(threshold out of reach): equal values and missingness column by column, and byte-identical
``summarize --json``, ``compare --json``, CSV export, and ``summarize --store`` output; the
store's Parquet files get the plain column types.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from evaladdon.adapters import read_runs
from evaladdon.adapters import long_table as table_reader
from evaladdon.cli.main import main
from evaladdon.table import COLUMNS, concat, no_values, object_values, validate

REPO = Path(__file__).resolve().parents[2]
INSPECT = REPO / "sample_logs" / "inspect" / "baseline.eval"


def write_table(path: Path, seed: int, n_items: int = 300, epochs: int = 1, bad: bool = False,
                clusters: bool = True, model: str = "m") -> Path:
    rng = np.random.default_rng(seed)
    item = np.repeat(np.arange(n_items), epochs)
    score = (rng.uniform(size=item.size) < rng.uniform(0.3, 0.8, n_items)[item]).astype(int).astype(object)
    if bad:
        score[::23] = "oops"
        score[5::31] = ""
        score[7::41] = "1.0"
    data = {"model": model, "id": [f"q{i}" for i in item], "score": score}
    if epochs > 1:
        data["epoch"] = np.tile(np.arange(epochs), n_items)
    if clusters:
        data["passage"] = [f"p{i // 7}" for i in item]
    pd.DataFrame(data).to_csv(path, index=False)
    return path


def cli_out(capsys: pytest.CaptureFixture[str], *args: object) -> str:
    capsys.readouterr()
    assert main([str(a) for a in args]) == 0
    return capsys.readouterr().out


def both(monkeypatch: pytest.MonkeyPatch, fn):  # type: ignore[no-untyped-def]
    """``fn()`` read the plain way, then the compact way."""
    monkeypatch.setattr(table_reader, "FEW_LABELS_MIN_ROWS", 10**12)
    plain = fn()
    monkeypatch.setattr(table_reader, "FEW_LABELS_MIN_ROWS", 1)
    return plain, fn()


def same_column(a: pd.Series, b: pd.Series) -> None:
    assert np.array_equal(a.isna().to_numpy(), b.isna().to_numpy())
    assert np.array_equal(a.notna().to_numpy(), b.notna().to_numpy())
    def values(s: pd.Series) -> list[object]:
        return [None if m else v for v, m in zip(object_values(s).tolist(), s.isna().tolist(), strict=True)]

    assert values(a) == values(b)


@pytest.mark.parametrize("bad,epochs", [(False, 1), (True, 3)])
def test_compact_table_equals_plain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bad: bool, epochs: int) -> None:
    path = write_table(tmp_path / "t.csv", 1, epochs=epochs, bad=bad)
    plain, compact = both(monkeypatch, lambda: read_runs([path], cluster="passage").table)
    assert isinstance(compact["cluster"].dtype, pd.CategoricalDtype)
    assert isinstance(compact["raw"].dtype, pd.CategoricalDtype) and compact["epoch"].dtype == np.int8
    assert isinstance(compact["item_hash"].dtype, pd.CategoricalDtype)
    assert isinstance(compact["error"].dtype, pd.CategoricalDtype) != bad  # errors: the plain object column
    assert plain["epoch"].dtype == np.int64 and plain["error"].dtype == object
    validate(compact)
    assert list(compact.columns) == list(plain.columns)
    for col in plain.columns:
        same_column(plain[col], compact[col])
    assert compact["raw"].astype(str).tolist() == plain["raw"].astype(str).tolist()
    assert compact["cluster"].to_numpy(dtype=object).tolist() == plain["cluster"].to_numpy(dtype=object).tolist()
    assert (compact["epoch"].to_numpy() == plain["epoch"].to_numpy()).all()


def test_no_values_column() -> None:
    s = pd.Series(no_values(5))
    assert s.isna().all() and not s.notna().any()
    assert object_values(s).tolist() == [None] * 5
    df = pd.DataFrame({"error": s})
    assert df["error"].isna().sum() == 5


def test_summarize_compare_export_store_identical(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    a = write_table(tmp_path / "a.csv", 2, bad=True)
    b = write_table(tmp_path / "b.csv", 3)
    c = write_table(tmp_path / "c.csv", 4, epochs=2, clusters=False)
    runs = 0

    def outputs() -> dict[str, object]:
        nonlocal runs
        runs += 1
        out = tmp_path / f"out{runs}"
        out.mkdir()
        got: dict[str, object] = {
            "summarize": cli_out(capsys, "summarize", "--json", "--cluster", "passage", a, b),
            "summarize_epochs": cli_out(capsys, "summarize", "--json", c),
            "mixed": cli_out(capsys, "summarize", "--json", a, c, INSPECT),
            "compare": cli_out(capsys, "compare", "--json", "--cluster", "passage", f"A={a}", f"B={b}"),
        }
        cli_out(capsys, "export", "--cluster", "passage", a, b, "-o", out / "e.csv", "--quiet")
        got["export_csv"] = (out / "e.csv").read_bytes()
        for suffix in (".jsonl", ".parquet"):
            cli_out(capsys, "export", "--cluster", "passage", a, b, "-o", out / f"e{suffix}", "--quiet")
            got[f"export{suffix}"] = cli_out(capsys, "summarize", "--json", out / f"e{suffix}")
        got["export_schema"] = str(pq.read_schema(out / "e.parquet").remove_metadata())  # types at any size
        store = out / "store"
        cli_out(capsys, "ingest", a, b, "--store", store, "--cluster", "passage")
        cli_out(capsys, "ingest", c, "--store", store)
        got["store"] = cli_out(capsys, "summarize", "--json", "--store", store)
        got["store_compare"] = cli_out(capsys, "compare", "--json", "--all-pairs", "--store", store)
        got["schemas"] = sorted(str(pq.read_schema(f).remove_metadata()) for f in (store / "data").glob("*.parquet"))
        return got

    plain, compact = both(monkeypatch, outputs)
    assert plain.keys() == compact.keys()
    for key in plain:
        assert plain[key] == compact[key], key
    assert json.loads(plain["summarize"])["results"]  # the outputs compared are not empty


def test_concat_of_compact_and_plain_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a = write_table(tmp_path / "a.csv", 5, model="ma")
    b = write_table(tmp_path / "b.csv", 6, bad=True, model="mb")
    plain, compact = both(monkeypatch, lambda: [read_runs([p], cluster="passage").table for p in (a, b)])
    inspect = read_runs([INSPECT]).table
    for tables in ([compact[0], compact[1]], [compact[0], inspect], [inspect, compact[1]], [compact[0], plain[1]]):
        ref_tables = [plain[0] if t is compact[0] else plain[1] if t is compact[1] else t for t in tables]
        got, ref = concat(tables), concat(ref_tables)
        validate(got)
        for col in COLUMNS:
            same_column(ref[col], got[col])
        for col in ("item_hash", "error"):  # None where missing, as the plain columns
            if not isinstance(got[col].dtype, pd.CategoricalDtype):
                assert got[col].to_numpy(dtype=object).tolist() == ref[col].to_numpy(dtype=object).tolist()
