"""The fast paths of long tables (issue 15) give exactly what the general paths give.

- ``label_codes`` proves an all-distinct string column by sorting 64-bit hashes of its
  buffers (codes 0..n-1); oracle: ``pd.factorize`` (also when hashes collide or a duplicate
  hides past the probe, where it falls back to arrow's hash table).
- ``stats.cluster.codes`` checks first-appearance codes a block at a time; oracle: the
  one-pass check over the whole array and ``pd.factorize``.
- A table whose columns are dictionary-typed (parquet written from categoricals), or typed
  numbers, summarizes to the identical record as the same table read from CSV text.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import evaladdon.table.codes as table_mod
import evaladdon.table.columns as columns_mod
from evaladdon.stats import cluster as cluster_mod
from evaladdon.table import label_codes


def _strings(rng: np.random.Generator, n: int) -> list[str]:
    """Distinct strings of 0 to 40 bytes: NUL bytes, multi-byte UTF-8, shared prefixes longer
    than one 8-byte word."""
    alphabet = list("ab\x00é猫 ")
    out = {"", "a" * 8, "a" * 8 + "\x00", "a" * 16, "a" * 17}
    while len(out) < n:
        tail = "".join(rng.choice(alphabet, size=int(rng.integers(0, 12))))
        out.add("prefix-of-17-bytes" * int(rng.integers(0, 2)) + tail)
    vals = list(out)
    rng.shuffle(vals)
    return vals


def _series(vals: list[str], cuts: int, rng: np.random.Generator, large: bool) -> pd.Series:
    n = len(vals)
    at = sorted(rng.integers(0, n + 1, size=cuts).tolist())
    typ = pa.large_string() if large else pa.string()
    chunked = pa.chunked_array([pa.array(vals[a:b], typ) for a, b in zip([0] + at, at + [n], strict=True)], type=typ)
    return pd.Series(pd.arrays.ArrowStringArray(chunked))


def test_string_hashes_equal_for_equal_strings_on_any_buffer_layout() -> None:
    """Equal strings hash equal whatever their chunk, offset (sliced arrays) or offset width."""
    rng = np.random.default_rng(3)
    vals = _strings(rng, 3000)
    vals = vals + vals[::7]  # repeats, in other chunks and at other offsets
    arr = pa.array(vals, pa.string())
    whole = table_mod._string_hashes(arr)
    seen: dict[str, int] = {}
    for v, h in zip(vals, whole.tolist(), strict=True):
        assert seen.setdefault(v, h) == h
    assert len(set(whole.tolist())) == len(set(vals))  # and no collision among these
    assert np.array_equal(table_mod._string_hashes(arr.cast(pa.large_string())), whole)
    for a, b in ((1, 10), (5, 2000), (2999, 3400)):
        assert np.array_equal(table_mod._string_hashes(arr.slice(a, b - a)), whole[a:b])
    assert table_mod._string_hashes(pa.array([1, 2])) is None


@pytest.mark.parametrize("large", [False, True])
def test_label_codes_all_distinct_fast_path_equals_factorize(monkeypatch: pytest.MonkeyPatch, large: bool) -> None:
    monkeypatch.setattr(table_mod, "_PROBE", 64)
    rng = np.random.default_rng(5)
    for _ in range(20):
        vals = _strings(rng, int(rng.integers(64, 600)))
        s = _series(vals, int(rng.integers(0, 4)), rng, large)
        assert table_mod._all_distinct(s.array.__arrow_array__())
        codes, k = label_codes(s)
        ref, uniques = pd.factorize(np.array(vals, dtype=object))
        assert np.array_equal(codes, ref) and k == len(uniques) == len(vals)


def test_label_codes_with_a_late_duplicate_or_colliding_hashes_equals_factorize(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A duplicate after the probe and forced hash collisions both end in arrow's hash table:
    the same codes as pd.factorize, never codes 0..n-1."""
    monkeypatch.setattr(table_mod, "_PROBE", 64)
    rng = np.random.default_rng(11)
    vals = _strings(rng, 500)
    late = vals + [vals[3]]
    codes, k = label_codes(_series(late, 2, rng, False))
    ref, uniques = pd.factorize(np.array(late, dtype=object))
    assert np.array_equal(codes, ref) and k == len(uniques) == 500

    real = table_mod._string_hashes
    monkeypatch.setattr(table_mod, "_string_hashes", lambda c: None if real(c) is None else real(c) % np.uint64(97))
    s = _series(vals, 3, rng, True)
    assert not table_mod._all_distinct(s.array.__arrow_array__())
    codes, k = label_codes(s)
    ref, uniques = pd.factorize(np.array(vals, dtype=object))
    assert np.array_equal(codes, ref) and k == len(uniques)


def test_first_appearance_check_by_blocks_equals_whole_array_check(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cluster_mod, "_BLOCK", 5)
    rng = np.random.default_rng(2)
    for _ in range(2000):
        n = int(rng.integers(1, 40))
        a = rng.integers(0, int(rng.integers(1, 12)), size=n)
        if rng.random() < 0.5:
            a = pd.factorize(a)[0].astype(rng.choice([np.int32, np.int64]))
        whole_ok = a[0] == 0 and bool((np.diff(np.maximum.accumulate(a)) <= 1).all())
        got = cluster_mod._first_appearance_top(a) if a[0] == 0 else None
        assert (got is not None) == whole_ok
        codes, k = cluster_mod.codes(a, n, "clusters")
        ref, uniques = pd.factorize(a)
        assert np.array_equal(codes, ref) and k == len(uniques) and codes.dtype == np.int64


def test_dictionary_typed_columns_summarize_identically(tmp_path) -> None:
    """Parquet with dictionary-encoded item/cluster/value columns (what pandas writes from
    categoricals) and typed numbers give the same record, dropped counts and notes as CSV text."""
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    from evaladdon.adapters import read_runs
    from evaladdon.analysis.summarize import summarize_table

    rng = np.random.default_rng(9)
    n = 3000
    ids = np.char.add("q", rng.permutation(n).astype(str))
    score = np.where(rng.random(n) < 0.6, "1", "0").astype(object)
    score[rng.random(n) < 0.02] = ""
    score[rng.random(n) < 0.01] = "n/a"
    passage = np.char.add("p", (np.arange(n) // 7).astype(str))
    text = pa.table({"id": ids, "score": score.astype(str), "passage": passage})
    pacsv.write_csv(text, tmp_path / "t.csv")
    as_dict = pa.table({c: text.column(c).dictionary_encode() for c in text.column_names})
    pq.write_table(as_dict, tmp_path / "t.parquet")
    numbers = text.set_column(1, "score", pa.array(pd.to_numeric(pd.Series(score), errors="coerce")))
    numbers = numbers.filter(pa.array(~pd.isna(pd.to_numeric(pd.Series(score), errors="coerce")).to_numpy()))
    pq.write_table(numbers, tmp_path / "n.parquet")
    pacsv.write_csv(numbers, tmp_path / "n.csv")

    def record(path) -> dict:
        loaded = read_runs([str(path)], cluster="passage")
        notes: list[str] = []
        out = [g.flat() for g in summarize_table(loaded.table, notes=notes)]
        for r in out:
            r.pop("run"), r.pop("label"), r.pop("model")  # the file's stem
        return {"groups": out, "notes": notes, "load_notes": list(loaded.notes)}

    csv_rec = record(tmp_path / "t.csv")
    assert csv_rec == record(tmp_path / "t.parquet")
    assert csv_rec["groups"][0]["dropped"] and csv_rec["groups"][0]["n_clusters"] == (n + 6) // 7
    assert record(tmp_path / "n.csv") == record(tmp_path / "n.parquet")


def test_is_none_is_identity_with_none() -> None:
    """table._is_none (pointer comparison) equals ``x is None`` per element: NaN, pd.NA, "",
    "None" and 0 are not None; strided and 2-d arrays take numpy's own comparison."""
    rng = np.random.default_rng(4)
    pool = [None, np.nan, pd.NA, "", "None", 0, "x"]
    for _ in range(200):
        vals = [pool[i] for i in rng.integers(0, len(pool), size=int(rng.integers(0, 30)))]
        arr = np.array(vals + [None], dtype=object)[:-1]  # object dtype even when empty
        want = np.array([v is None for v in vals], dtype=bool)
        assert np.array_equal(columns_mod._is_none(arr), want)
        assert np.array_equal(columns_mod._is_none(arr[::2]), want[::2])
    grid = np.array([[None, "a"], [np.nan, None]], dtype=object)
    assert columns_mod._is_none(grid).tolist() == [[True, False], [False, True]]
