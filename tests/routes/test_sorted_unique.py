"""``store_arrays.sorted_unique`` (one sort, for integer codes) against its oracle ``np.unique``."""

from __future__ import annotations

import numpy as np
import pytest

from evaladdon.routes.store_arrays import sorted_unique


@pytest.mark.parametrize("n", [0, 1, 2, 7, 1000, 150_000])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_the_sorted_distinct_codes_of_np_unique(n: int, dtype: type) -> None:
    codes = np.random.default_rng(n).integers(0, max(1, n // 3), n).astype(dtype)
    got, want = sorted_unique(codes), np.unique(codes)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
