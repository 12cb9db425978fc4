"""Arrow arrays to numpy and back without pyarrow's pandas bridge (:mod:`evaladdon._util.arrow`).

Oracle: pyarrow's own conversions (``to_numpy(zero_copy_only=False)``, ``is_valid``, ``pa.array``)
on the same arrays -- plain, sliced (an offset into the buffers), chunked, with NULLs, empty,
all NULL -- compared value for value (NaN where NULL); and, in a fresh process, that the helpers
leave pandas unimported where pyarrow's conversions import it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from evaladdon._util.arrow import int_array, numbers, strings, valid

from conftest import REPO


def _cases() -> list[pa.Array]:
    rng = np.random.default_rng(3)
    base = [pa.array(rng.integers(-5, 50, 37).astype(t)) for t in (np.int8, np.int16, np.int32, np.int64, np.uint32)]
    base += [pa.array(rng.normal(size=41)), pa.array(rng.normal(size=41).astype(np.float32))]
    nulls = [pa.array([1.5, None, 3.0, None, 5.0, 6.0, 7.0, 8.0, None, 10.0, 11.0]),
             pa.array([None] * 5, type=pa.float64()), pa.array([], type=pa.int32())]
    return base + [a.slice(3, 20) for a in base] + nulls + [a.slice(1, 9) for a in nulls[:1]]


@pytest.mark.parametrize("arr", _cases(), ids=lambda a: f"{a.type}-{len(a)}-{a.offset}-{a.null_count}")
def test_numbers_and_valid_equal_pyarrow(arr: pa.Array) -> None:
    want = arr.to_numpy(zero_copy_only=False)
    if arr.null_count and not pa.types.is_floating(arr.type):
        with pytest.raises(ValueError):
            numbers(arr)
    else:
        got = numbers(arr)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(valid(arr), arr.is_valid().to_numpy(zero_copy_only=False))
    chunked = pa.chunked_array([arr, arr.slice(2), arr], type=arr.type)
    if not arr.null_count or pa.types.is_floating(arr.type):
        np.testing.assert_array_equal(numbers(chunked), chunked.to_numpy())


def test_integers_with_nulls_take_the_fill() -> None:
    arr = pa.array([3, None, 7, None, 9], type=pa.int32()).slice(1)
    np.testing.assert_array_equal(numbers(arr, fill=-1), [-1, 7, -1, 9])
    assert numbers(arr, fill=-1).dtype == np.int32
    with pytest.raises(TypeError):
        numbers(pa.array(["x"]))


def test_int_array_and_strings_equal_pyarrow() -> None:
    for values in (np.arange(17, dtype=np.int32), np.arange(5, 40, 3, dtype=np.int64)[::2], np.empty(0, np.int64)):
        assert int_array(values).equals(pa.array(values))
    with pytest.raises(TypeError):
        int_array(np.arange(3, dtype=np.int16))
    labels = pa.array(["a", None, "ccc", "", "é"]).slice(1)
    got, want = strings(labels), labels.to_numpy(zero_copy_only=False)
    assert got.dtype == object and got.tolist() == want.tolist()


CHILD = """
import sys, numpy as np, pyarrow.parquet as pq
from evaladdon._util.arrow import int_array, numbers, strings, valid
t = pq.ParquetFile(sys.argv[1], read_dictionary=["s"]).read()
s, v = t.column("s").chunk(0), t.column("v").chunk(0)
got = [numbers(s.indices, fill=-1).tolist(), valid(s).tolist(), strings(s.dictionary).tolist(),
       numbers(v).tolist(), len(s.dictionary.take(int_array(np.array([1, 0], dtype=np.int32))))]
print(repr(got), "pandas" in sys.modules)
"""


def test_no_pandas_imported(tmp_path: Path) -> None:
    """What pyarrow's conversions import (``to_numpy``, ``pa.array``), the helpers do not."""
    import pyarrow.parquet as pq

    f = tmp_path / "t.parquet"
    pq.write_table(pa.table({"s": ["a", None, "b", "a"], "v": [1.0, None, 2.5, 0.0]}), f)
    out = subprocess.run([sys.executable, "-c", CHILD, str(f)], capture_output=True, text=True, cwd=REPO,
                         env={"PYTHONPATH": str(REPO)}, check=True).stdout
    assert out.strip() == "[[0, -1, 1, 0], [True, False, True, True], ['a', 'b'], [1.0, nan, 2.5, 0.0], 2] False"
