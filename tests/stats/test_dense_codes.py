"""Integer labels coded by first appearance without pandas (:func:`evaladdon.stats.cluster.dense_codes`,
taken by :func:`evaladdon.stats.cluster.codes` for integer labels that are not already such codes).

Oracle: ``pd.factorize`` of the same labels (codes and number of groups), on labels in order,
with gaps, shuffled, repeated (epochs, clusters), offset, negative, of small and unsigned types;
a span wider than twice the labels is left to the hashing path (None)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evaladdon.stats.cluster import codes, dense_codes


def _cases() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(11)
    n = 5_000
    return {
        "one": np.array([7]),
        "offset in order": np.arange(n, dtype=np.int32) + 1_000,
        "gaps": np.sort(rng.choice(n + 400, n, replace=False)).astype(np.int32),
        "shuffled": rng.permutation(n).astype(np.int64),
        "epochs": np.repeat(rng.permutation(n // 4) + 3, 4).astype(np.int32),
        "clusters": rng.integers(0, 60, n).astype(np.int32),
        "negative": rng.integers(-40, 40, n),
        "int8": rng.integers(-128, 128, 300).astype(np.int8),
        "uint16": rng.integers(0, 2**16, 2**16).astype(np.uint16),
        "dropped first": np.array([1, 2, 3, 4, 6, 7, 8, 9, 1, 2], dtype=np.int32),
    }


@pytest.mark.parametrize("name", sorted(_cases()))
def test_equal_to_pandas_factorize(name: str) -> None:
    labels = _cases()[name]
    want, uniques = pd.factorize(labels)
    got = dense_codes(labels)
    assert got is not None
    np.testing.assert_array_equal(got[0], want)
    assert got[1] == len(uniques) and got[0].dtype == np.int64
    via, k = codes(labels, len(labels), "items")
    np.testing.assert_array_equal(via, want)
    assert k == len(uniques)


def test_a_wide_span_is_hashed() -> None:
    labels = np.array([0, 10**9, 5, 10**9], dtype=np.int64)
    assert dense_codes(labels) is None
    got, k = codes(labels, 4, "items")
    np.testing.assert_array_equal(got, [0, 1, 2, 1])
    assert k == 3
