"""The fast paths of a compare's sides (issue 31 item 2) give what the general paths give.

- ``coded_item_table`` of one row per item (codes proven distinct by one ``bincount``) against
  ``pd.factorize`` of the same codes (the general path, the oracle);
- ``first_present_in`` of a categorical or an all-missing column against ``first_present`` of
  its object values;
- ``group_positions``' contiguous groups as slices against the row positions they stand for;
- ``_Pairs.errored`` without errored items against the ``Index`` union/intersection it skips;
- ``_all_distinct``'s spread probe: repeats far apart refused early, all-distinct columns still
  proven (oracle: ``pd.factorize``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import evaladdon.analysis.compare_table as ct
import evaladdon.table.codes as codes_mod
from evaladdon.table import label_codes, no_values
from evaladdon.table.codes import first_present, first_present_in, group_positions


def _rows(rng: np.random.Generator, n: int, epochs: int) -> pd.DataFrame:
    item = np.repeat(rng.permutation(n), epochs)
    cluster = pd.Categorical([f"c{i // 3}" if i % 5 else None for i in item])
    return pd.DataFrame({"item": pd.array([f"q{i}" for i in item], dtype="str"), "value": rng.uniform(size=item.size),
                         "cluster": cluster, "item_hash": no_values(item.size)})


@pytest.mark.parametrize("epochs", [1, 3])
def test_coded_item_table_equals_factorize_path(monkeypatch: pytest.MonkeyPatch, epochs: int) -> None:
    rng = np.random.default_rng(epochs)
    rows = _rows(rng, 200, epochs)
    codes = pd.factorize(rows["item"])[0].astype(np.int64) * 2 + 5  # a table's codes: any distinct integers
    got, own = ct.coded_item_table(rows, codes)
    monkeypatch.setattr(ct, "_distinct", lambda c: False)
    monkeypatch.setattr(ct, "first_present_in", lambda c, k, s: first_present(c, k, s.to_numpy(dtype=object)))
    want, want_own = ct.coded_item_table(rows, codes)
    pd.testing.assert_frame_equal(got, want)
    assert own is not None and want_own is not None and np.array_equal(own, want_own)


def test_distinct_codes() -> None:
    assert ct._distinct(np.array([3, 0, 7])) and ct._distinct(np.array([], dtype=np.int64))
    assert not ct._distinct(np.array([3, 0, 3])) and not ct._distinct(np.array([-1, 2]))


def test_first_present_in_equals_first_present_of_object_values() -> None:
    rng = np.random.default_rng(4)
    codes = rng.integers(0, 30, 400)
    labels = np.array([None if rng.uniform() < 0.6 else f"c{rng.integers(0, 9)}" for _ in range(400)], dtype=object)
    for s in (pd.Series(pd.Categorical(labels)), pd.Series(labels, dtype=object), pd.Series(no_values(400)),
              pd.Series(np.full(400, None, dtype=object)), pd.Series(np.full(400, np.nan, dtype=object))):
        want = first_present(codes, 31, s.to_numpy(dtype=object))
        assert first_present_in(codes, 31, s).tolist() == want.tolist()


def test_contiguous_groups_are_slices_of_the_same_rows() -> None:
    df = pd.DataFrame({"run": ["a"] * 4 + ["b"] * 3 + ["a"], "task": "t", "metric": "m"})
    _, rows = group_positions(df)
    assert isinstance(rows[1], slice) and not isinstance(rows[0], slice)
    assert np.arange(8)[rows[1]].tolist() == [4, 5, 6] and rows[0].tolist() == [0, 1, 2, 3, 7]


def test_errored_without_errored_items_equals_index_path(monkeypatch: pytest.MonkeyPatch) -> None:
    from evaladdon.table import validate

    def table(run: str, items: list[str]) -> pd.DataFrame:
        return pd.DataFrame({"run": run, "source": f"{run}.csv", "harness": "table", "task": "t", "model": run,
                             "metric": "m", "item": items, "epoch": 1, "value": 1.0, "raw": "", "cluster": None,
                             "item_hash": None, "error": None})

    df = validate(pd.concat([table("A", ["x", "y", "z", "v"]), table("B", ["z", "w", "x"])], ignore_index=True))
    groups = ct.GroupRows(df)
    got = groups.errored("A", "B", "t", "m")
    sa, sb = groups.side("A", "t", "m"), groups.side("B", "t", "m")
    shared = sa.items.index.union(sa.errored, sort=False).intersection(sb.items.index.union(sb.errored, sort=False),
                                                                      sort=False)
    assert [g.tolist() for g in got] == [shared.isin(sa.errored).tolist(), shared.isin(sb.errored).tolist()]
    assert len(got[0]) == 2


def test_spread_probe_refuses_repeats_far_apart_and_keeps_distinct(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(codes_mod, "_PROBE", 256)
    half = [f"item-{i:06d}" for i in range(5000)]
    twice = pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array([pa.array(half), pa.array(half)])))
    hashes = codes_mod._spread_hashes(twice.array.__arrow_array__())
    assert hashes is not None and codes_mod._has_repeat(hashes)  # told without hashing all 10,000 rows
    assert not codes_mod._all_distinct(twice.array.__arrow_array__())
    codes, k = label_codes(twice)
    ref, uniques = pd.factorize(np.array(half + half, dtype=object))
    assert np.array_equal(codes, ref) and k == len(uniques) == 5000
    once = pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array([pa.array(half[:2500]), pa.array(half[2500:])])))
    assert codes_mod._all_distinct(once.array.__arrow_array__())
