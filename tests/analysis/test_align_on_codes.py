"""Items of two runs aligned on integer codes (``compare_table.shared_positions``, issue 31 item 2)
against the pandas alignment it replaced (``Index.intersection`` then ``.loc``: the oracle, kept
here), on sides with shuffled, partly shared items, content hashes and clusters."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evaladdon.analysis.compare_table import Side, align_sides, shared_positions
from evaladdon.errors import EvalAddonError


def _side(rng: np.random.Generator, items: np.ndarray, hashed: bool, clustered: bool) -> Side:
    n = len(items)
    hashes = np.array([f"h{i}" if hashed and rng.uniform() < 0.8 else None for i in items], dtype=object)
    clusters = np.array([f"c{int(i[1:]) // 7}" for i in items], dtype=object) if clustered else np.full(n, None)
    frame = pd.DataFrame({"value": rng.uniform(size=n), "n_epochs": rng.integers(1, 3, n), "cluster": clusters,
                          "item_hash": hashes}, index=pd.Index(items, name="item"))
    return Side(frame, {"missing value": 2})


def _oracle(a: Side, b: Side) -> tuple[pd.DataFrame, int]:
    shared = a.items.index.intersection(b.items.index)
    ia, ib = a.items.loc[shared], b.items.loc[shared]
    mismatch = ia["item_hash"].notna() & ib["item_hash"].notna() & (ia["item_hash"] != ib["item_hash"])
    cluster = ia["cluster"].where(ia["cluster"].notna(), ib["cluster"])
    return pd.DataFrame({"a": ia["value"].to_numpy(), "b": ib["value"].to_numpy(), "cluster": cluster.to_numpy()},
                        index=shared), int(mismatch.sum())


@pytest.mark.parametrize("seed", range(6))
def test_alignment_equals_the_pandas_alignment(seed: int) -> None:
    rng = np.random.default_rng(seed)
    pool = np.array([f"q{i}" for i in range(400)], dtype=object)
    a_items = rng.permutation(pool)[: rng.integers(50, 400)]
    b_items = rng.permutation(pool)[: rng.integers(50, 400)]
    hashed, clustered = seed % 2 == 0, seed % 3 == 0
    a, b = _side(rng, a_items, hashed, clustered), _side(rng, b_items, hashed, clustered)
    if hashed:  # some shared items with another content
        b.items.loc[b.items.index[::11], "item_hash"] = "other"
    got, alignment = align_sides(a, b, "A", "B", "t", "m")
    want, n_mismatch = _oracle(a, b)
    pd.testing.assert_frame_equal(got, want)
    assert list(got.index) == [i for i in a_items if i in set(b_items)]  # A's order
    assert alignment.n_shared == len(want) and alignment.hash_mismatch == n_mismatch
    assert alignment.only_a == len(a_items) - len(want) and alignment.only_b == len(b_items) - len(want)


def test_positions_of_disjoint_empty_and_string_dtype_items() -> None:
    a = pd.Index(["x", "y", "z"], dtype="str")
    assert [p.tolist() for p in shared_positions(a, pd.Index(["z", "x"], dtype=object))] == [[0, 2], [1, 0]]
    assert [p.tolist() for p in shared_positions(a, pd.Index([], dtype=object))] == [[], []]
    with pytest.raises(EvalAddonError, match="no items in common"):
        rng = np.random.default_rng(0)
        align_sides(_side(rng, np.array(["q1"], dtype=object), False, False),
                    _side(rng, np.array(["q2"], dtype=object), False, False), "A", "B", "t", "m")


def test_sides_of_one_table_align_on_its_codes_and_of_two_tables_on_labels() -> None:
    """GroupRows gives its sides the table's item codes; sides of two tables (the store read a
    group of logs at a time) have codes of different tables and are aligned on their labels."""
    from evaladdon.analysis.compare_table import GroupRows
    from evaladdon.table import validate

    def table(run: str, items: list[str], values: list[float]) -> pd.DataFrame:
        return validate(pd.DataFrame({"run": run, "source": f"{run}.csv", "harness": "table", "task": "t",
                                      "model": run, "metric": "m", "item": items, "epoch": 1, "value": np.asarray(values, dtype=float),
                                      "raw": "", "cluster": None, "item_hash": None, "error": None}))

    one = GroupRows(pd.concat([table("A", ["x", "y", "z"], [1, 0, 1]), table("B", ["z", "w", "x"], [0, 1, 1])],
                              ignore_index=True))
    a, b = one.side("A", "t", "m"), one.side("B", "t", "m")
    assert a.codes is not None and a.space is b.space
    got, alignment = align_sides(a, b, "A", "B", "t", "m")
    assert list(got.index) == ["x", "z"] and got["a"].tolist() == [1, 1] and got["b"].tolist() == [1, 0]
    # two tables: codes 0.. in each mean different items
    ta, tb = GroupRows(table("A", ["x", "y"], [1, 0])), GroupRows(table("B", ["y", "x"], [1, 1]))
    a2, b2 = ta.side("A", "t", "m"), tb.side("B", "t", "m")
    assert a2.space is not b2.space
    got2, _ = align_sides(a2, b2, "A", "B", "t", "m")
    assert list(got2.index) == ["x", "y"] and got2["b"].tolist() == [1, 1]
