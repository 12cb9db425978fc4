"""The canonical table's validator and the long-table reader."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evaladdon.adapters import load
from evaladdon.adapters.long_table import read_long_table
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


def _random_key_frame(rng: np.random.Generator, n: int) -> pd.DataFrame:
    """Columns of every kind a canonical table holds: object with None, a str categorical with
    an unused category and a missing value, pyarrow-backed str, small and huge integers, a constant."""
    obj = rng.choice(np.array(["x", "y", None], dtype=object), n)
    cat = pd.Categorical(rng.choice(["p", "q", None], n), categories=["p", "q", "unused"])
    text = pd.Series(rng.choice(["u", "v", "w"], n), dtype="str")
    return pd.DataFrame({
        "obj": pd.Series(obj, dtype=object), "cat": cat, "text": text, "const": pd.Series(["k"] * n, dtype=object),
        "small": rng.integers(1, 3, n), "huge": rng.choice([0, 2**40, -(2**40)], n),
        "one": pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), categories=["only"]),
    })


def test_key_codes_duplicates_and_distinct_rows_match_pandas() -> None:
    from evaladdon.table import distinct_rows, duplicated_keys, key_codes

    rng = np.random.default_rng(3)
    for n in (0, 1, 2, 7, 60, 400):
        df = _random_key_frame(rng, n)
        df.index = np.arange(n) * 3 + 5  # labels kept, positions used
        for cols in (("obj",), ("cat",), ("text",), ("const", "one"), ("obj", "cat", "small"),
                     ("text", "huge", "const"), tuple(df.columns)):
            sub = df[list(cols)]
            # oracle: pandas' own hash-based duplicate detection on the values
            assert duplicated_keys(df, cols).tolist() == sub.duplicated(keep=False).tolist(), (n, cols)
            codes = key_codes(df, cols)
            assert (pd.Series(codes).duplicated(keep=False).to_numpy() == sub.duplicated(keep=False).to_numpy()).all()
            expected = sub.drop_duplicates()
            got = distinct_rows(df, cols)
            assert got.index.tolist() == expected.index.tolist() and got.astype(object).equals(expected.astype(object))


def test_item_codes_are_computed_once_and_never_stale() -> None:
    from evaladdon.table import label_codes

    s = pd.Series(["b", "a", "b", "c"], dtype="str")
    df = pd.DataFrame({"item": s})
    first, n = label_codes(df["item"])
    ref, uniques = pd.factorize(s)
    assert first.tolist() == ref.tolist() and n == len(uniques)
    again, _ = label_codes(df["item"])
    assert again is first  # the same column is not hashed twice
    df.loc[1, "item"] = "b"  # changed in place: a new arrow array, so new codes
    fresh, n2 = label_codes(df["item"])
    assert fresh.tolist() == pd.factorize(df["item"])[0].tolist() == [0, 0, 0, 1] and n2 == 2
    obj = pd.Series(["z", None, "z"], dtype=object)  # object columns: plain factorize, missing is -1
    assert label_codes(obj)[0].tolist() == [0, -1, 0]


def test_one_value_columns_are_str_categoricals_that_validate(tmp_path: Path) -> None:
    p = make(tmp_path, "run7.csv", "id,score\nq1,1\nq2,0\n")
    df = read_long_table(p)
    for col in ("run", "model", "task", "metric", "source", "harness"):
        assert isinstance(df[col].dtype, pd.CategoricalDtype), col
    assert df["run"].tolist() == ["run7", "run7"] and df["harness"].tolist() == ["table", "table"]
    again = finalize(df)
    assert isinstance(again["run"].dtype, pd.CategoricalDtype)  # conforming: left as it is
    validate(again)
    broken = df.copy()
    broken["task"] = pd.Categorical(["default", None], categories=["default"])
    with pytest.raises(TableError, match=r"column 'task' has 1 missing value\(s\)"):
        validate(broken)
    numbers = df.copy()
    numbers["task"] = pd.Categorical([1, 2])
    assert finalize(numbers)["task"].tolist() == ["1", "2"]  # not str labels: converted as any column


def test_digit_only_scores_take_the_cast_path_with_the_same_result() -> None:
    import pyarrow as pa

    from evaladdon.adapters.common.scores import _convert_strings_pandas, convert_strings

    cases = [["0", "1", "1", None, "007", "123456789012345678901234567890"], ["1", "0"], [None, None], ["", "1"],
             ["1", " 1", "1.5", "yes", "nan", "C"]]
    for values in cases:
        got = convert_strings(pa.chunked_array([pa.array(values[:2], pa.string()), pa.array(values[2:], pa.string())]))
        ref = _convert_strings_pandas(pd.Series(values, dtype=object), False)  # the independent pandas path
        for g, r in zip(got, ref, strict=True):
            np.testing.assert_array_equal(g, r)


def test_summary_equals_the_per_group_estimate_on_string_labels(tmp_path: Path) -> None:
    from evaladdon.stats import estimate_mean
    from evaladdon.analysis.summarize import summarize_table

    rng = np.random.default_rng(5)
    rows = []
    for model in ("m2", "m1"):
        for metric in ("acc", "f1"):
            for i in rng.permutation(40):
                for epoch in range(1 + i % 3):
                    value = "" if (i + epoch) % 17 == 0 else f"{rng.uniform():.3f}"
                    rows.append((model, metric, f"q{i}", epoch, value, f"c{i // 4}"))
    order = rng.permutation(len(rows))  # interleave the groups
    text = "model,metric,id,epoch,score,cluster\n" + "".join(",".join(map(str, rows[k])) + "\n" for k in order)
    df = load([make(tmp_path, "t.csv", text)])
    got = {(s.run, s.metric): s for s in summarize_table(df)}
    assert list(got) == list(dict.fromkeys(zip(df["run"], df["metric"], strict=True)))  # groups in order of appearance
    for (run, metric), group in df.groupby(["run", "metric"], sort=False):  # oracle: one frame per group
        good = group[group["error"].isna()]
        ref = estimate_mean(good["value"].to_numpy(), items=good["item"].to_numpy(dtype=object),
                            clusters=good["cluster"].to_numpy(dtype=object))
        s = got[(run, metric)]
        assert s.dropped == ({"missing value": len(group) - len(good)} if len(group) > len(good) else {})
        for field in ("mean", "se", "ci_low", "ci_high", "df", "se_item", "se_cluster_cr2", "icc_epochs"):
            assert getattr(s.estimate, field) == pytest.approx(getattr(ref, field), rel=1e-12, abs=1e-15), field
        assert s.estimate.n_items == ref.n_items and s.estimate.n_clusters == ref.n_clusters


def test_label_codes_on_chunked_arrow_strings_equal_pandas_factorize() -> None:
    """label_codes uses arrow's dictionary_encode on pyarrow-backed strings: codes in
    first-appearance order, -1 for missing, consistent across chunks (oracle: pd.factorize)."""
    import pyarrow as pa

    from evaladdon.table import label_codes

    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(0, 40))
        vals = [None if rng.random() < 0.2 else f"x{rng.integers(0, 8)}" for _ in range(n)]
        cuts = sorted(rng.integers(0, n + 1, size=int(rng.integers(0, 4))).tolist())
        parts = [vals[a:b] for a, b in zip([0] + cuts, cuts + [n], strict=True)]
        chunked = pa.chunked_array([pa.array(p, pa.string()) for p in parts], type=pa.string())
        s = pd.Series(pd.arrays.ArrowStringArray(chunked))
        codes, k = label_codes(s)
        ref, uniques = pd.factorize(pd.Series(vals, dtype=object))
        assert np.array_equal(codes, ref) and k == len(uniques)


@pytest.mark.parametrize("n", [0, 1, 100, 3000, 6000])
def test_distinct_tuples_equal_drop_duplicates(n: int) -> None:
    """distinct_tuples (read_runs's per-file run keys; small tables hashed as tuples, large ones
    by integer codes) gives pandas' drop_duplicates rows, in order."""
    from evaladdon.table import distinct_tuples

    rng = np.random.default_rng(n)
    df = pd.DataFrame({"run": pd.Series(rng.choice(["a", "b"], n), dtype="str"),
                       "task": pd.Categorical(rng.choice(["t", "u"], n)),
                       "metric": rng.choice(["m1", "m2", "m3"], n).astype(object),
                       "source": pd.Series(["s"] * n, dtype="str")})
    ref = list(df.drop_duplicates().itertuples(index=False, name=None))
    assert distinct_tuples(df, ("run", "task", "metric", "source")) == ref


@pytest.mark.parametrize("storage", ["python", "pyarrow"])
def test_label_codes_on_either_string_storage(storage: str) -> None:
    """python-backed str columns (pandas without pyarrow) never reach arrow's kernels."""
    from evaladdon.table import label_codes

    vals = ["b", "a", None, "b", "c"]
    s = pd.Series(vals, dtype=pd.StringDtype(storage))
    codes, k = label_codes(s)
    ref, uniques = pd.factorize(pd.Series(vals, dtype=object))
    assert codes.tolist() == ref.tolist() and k == len(uniques)
