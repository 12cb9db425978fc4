"""The fast paths of a table read from several files (issue 31 item 2) give what the general paths give.

- ``label_codes`` of a column that repeats one block of distinct strings (two runs' files of one
  benchmark) codes each block ``0..p-1``; oracle: ``pd.factorize`` (and blocks that differ in one
  row, a block with a repeat, a column whose length is no multiple of the block fall back).
- ``segment_starts`` (stretches of equal run-level values) and what is built on it --
  ``distinct_tuples``, ``distinct_rows``, ``group_positions``, ``duplicated_keys`` -- against the
  integer codes of ``key_codes`` and pandas' ``drop_duplicates``/``duplicated``/``groupby``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import evaladdon.table.codes as table_mod
from evaladdon.table import GROUP, KEY, distinct_rows, distinct_tuples, duplicated_keys, group_positions, label_codes


def _arrow_strings(vals: list[str], cuts: int, seed: int) -> pd.Series:
    rng = np.random.default_rng(seed)
    n = len(vals)
    at = sorted(rng.integers(0, n + 1, size=cuts).tolist())
    typ = pa.large_string()
    chunked = pa.chunked_array([pa.array(vals[a:b], typ) for a, b in zip([0] + at, at + [n], strict=True)], type=typ)
    return pd.Series(pd.arrays.ArrowStringArray(chunked))


def _check_codes(vals: list[str], cuts: int = 5) -> tuple[np.ndarray, int]:
    s = _arrow_strings(vals, cuts, len(vals))
    codes, n_labels = label_codes(s)
    want, uniques = pd.factorize(pd.Series(vals, dtype=object))
    assert np.array_equal(codes, want) and n_labels == len(uniques)
    return codes, n_labels


@pytest.mark.parametrize("blocks", [2, 3])
def test_repeated_block_codes_equal_factorize(monkeypatch: pytest.MonkeyPatch, blocks: int) -> None:
    monkeypatch.setattr(table_mod, "_PROBE", 64)
    block = [f"item-{i:05d}" for i in np.random.default_rng(1).permutation(500)]
    calls = []
    real = table_mod._period
    monkeypatch.setattr(table_mod, "_period", lambda a: calls.append(real(a)) or calls[-1])
    _check_codes(block * blocks)
    assert calls == [500]  # the fast path answered


def test_blocks_that_are_not_one_repeated_block_fall_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(table_mod, "_PROBE", 64)
    block = [f"q{i}" for i in range(300)]
    other = list(block)
    other[150] = "changed"
    repeat_inside = block[:200] + block[:1] + block[201:]  # not all distinct, yet starts with the first row again later
    for vals in (block + other, block + block[:299], block + block + block[:10], block + list(reversed(block)),
                 [block[1]] + block[1:] + block):
        _check_codes(vals)
        assert table_mod._period(_arrow_strings(vals, 3, 0).array.__arrow_array__()) is None
    _check_codes(repeat_inside + repeat_inside)


def _frame(runs: list[tuple[str, str, str, list[str]]], run_dtype: str) -> pd.DataFrame:
    rows = [(r, t, m, item) for r, t, m, items in runs for item in items]
    df = pd.DataFrame(rows, columns=["run", "task", "metric", "item"])
    df["epoch"] = 1
    df["model"] = df["run"].str.upper()
    df["source"] = pd.Categorical(df["run"] + ".csv")
    if run_dtype == "category":
        df["run"] = pd.Categorical(df["run"])
    elif run_dtype == "arrow":
        for c in ("run", "task", "model", "item"):
            df[c] = _arrow_strings(df[c].tolist(), 4, 2)
    else:
        df["run"] = df["run"].astype(object)
    return df


@pytest.mark.parametrize("run_dtype", ["category", "arrow", "object"])
def test_stretches_give_what_codes_give(monkeypatch: pytest.MonkeyPatch, run_dtype: str) -> None:
    monkeypatch.setattr(table_mod, "_SMALL", 8)
    items = [f"i{k}" for k in range(40)]
    cases = [
        [("a", "t", "m", items), ("b", "t", "m", items)],  # two files of one task
        [("a", "t", "m", items), ("a", "u", "m", items[:10]), ("b", "t", "m", items)],
        [("a", "t", "m", items), ("b", "t", "m", items), ("a", "u", "m", items[:5])],  # a run comes back
        [("a", "t", "m", items), ("b", "t", "m", items), ("a", "t", "m", items[:3])],  # a group comes back: dups
        [("a", "t", "m", items + items[:2])],  # duplicates in one group
    ]
    for runs in cases:
        df = _frame(runs, run_dtype)
        plain = df.astype({c: object for c in ("run", "task", "model", "item", "source")})
        for cols in (("run", "model", "task", "source"), ("run", "task", "metric"), GROUP):
            want = plain[list(cols)].drop_duplicates()
            assert distinct_tuples(df, cols) == [tuple(r) for r in want.itertuples(index=False)]
            assert distinct_rows(df, cols).index.tolist() == want.index.tolist()
        want_dup = plain.duplicated(list(KEY), keep=False).to_numpy()
        assert np.array_equal(duplicated_keys(df), want_dup)
        _, positions = group_positions(df)
        groups = plain.groupby(list(GROUP), sort=False).indices
        got = [np.arange(len(df))[p] for p in positions]
        assert [g.tolist() for g in got] == [v.tolist() for v in groups.values()]


def test_segment_starts_declines_missing_and_many_stretches(monkeypatch: pytest.MonkeyPatch) -> None:
    df = pd.DataFrame({"run": pd.Categorical(["a", None, "a", "a"]), "task": ["t"] * 4})
    assert table_mod.segment_starts(df, ("run",)) is None
    many = pd.DataFrame({"run": np.arange(1000) % 2})
    assert table_mod.segment_starts(many, ("run",)) is None
    few = pd.DataFrame({"run": np.repeat([3, 1, 3], 400), "x": np.repeat(["p", "q"], 600).astype(object)})
    assert table_mod.segment_starts(few, ("run", "x")).tolist() == [0, 400, 600, 800]
    floats = pd.DataFrame({"v": np.zeros(100)})
    assert table_mod.segment_starts(floats, ("v",)) is None
