"""stats.item_table: per-item means bit for bit equal to pandas' group-by mean (the oracle)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from evaladdon.stats.item_table import item_table


def test_item_means_equal_pandas_groupby_mean_bit_for_bit() -> None:
    rng = np.random.default_rng(7)
    for trial in range(60):
        n_items = int(rng.integers(1, 400))
        epochs = rng.integers(1, 9, size=n_items)
        items = np.repeat(np.arange(n_items), epochs)
        rng.shuffle(items)
        scale = rng.choice([1e-9, 1.0, 1e9], size=items.size)
        values = rng.normal(size=items.size) * scale
        if trial % 3 == 0:
            values = rng.integers(0, 2, size=items.size).astype(float)
        if trial % 5 == 0:
            values[::7] = -0.0
        labels = np.array([f"q{i}" for i in items], dtype=object)
        codes, uniques = pd.factorize(labels)
        got = item_table(codes, values)
        g = pd.Series(values).groupby(labels, sort=False)
        want = g.mean()
        assert list(want.index) == list(uniques)
        assert np.array_equal(got.mean, want.to_numpy())  # exact, incl. the sign of zeros
        assert np.array_equal(np.signbit(got.mean), np.signbit(want.to_numpy()))
        assert got.n_rows.tolist() == g.size().tolist()
        assert got.first.tolist() == pd.Series(np.arange(len(codes))).groupby(codes).min().tolist()


def test_one_row_per_item_and_empty() -> None:
    got = item_table(np.array([1, 0, 2]), np.array([-0.0, 0.5, 1.0]))
    assert got.mean.tolist() == [0.5, 0.0, 1.0] and not np.signbit(got.mean[1])
    assert got.first.tolist() == [1, 0, 2] and got.n_rows.tolist() == [1, 1, 1]
    empty = item_table(np.array([], dtype=np.int64), np.array([]))
    assert len(empty.mean) == 0
