"""Arrow arrays to numpy and back without pyarrow's pandas bridge (issue 31, item 1).

pyarrow's ``Array.to_numpy`` (``ConvertArrayToPandas``), ``pa.array`` of numpy or Python values and
``pa.scalar`` import pandas the first time they run, even for an int32 array read zero-copy:
~45 MB of a Dask worker process whose own data is ~25 MB (``docs/dev/performance-log.md``).
These helpers read and build the fixed-width buffers themselves (``np.frombuffer`` of the data
buffer, the validity bitmap unpacked with ``np.unpackbits``; ``pa.Array.from_buffers`` of a numpy
buffer), so a worker that only streams Parquet into numpy never loads pandas.  Same values as
``to_numpy(zero_copy_only=False)`` / ``pa.array``: NULL as ``fill`` (NaN for floats, as pyarrow
gives), read-only views when nothing had to be filled.  Oracle: pyarrow's own conversions,
``tests/_util/test_arrow_numpy.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_DTYPES = {"int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64, "uint8": np.uint8,
           "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64, "halffloat": np.float16,
           "float": np.float32, "double": np.float64}


def numbers(arr: Any, fill: Any = None) -> np.ndarray:
    """A fixed-width numeric Arrow ``Array`` or ``ChunkedArray`` (integers, floats) as a numpy
    array; NULL cells become ``fill`` (default NaN for floats; an integer column with a NULL and no
    ``fill`` raises ``ValueError``, as ``to_numpy`` would give floats)."""
    dtype = _DTYPES.get(str(arr.type))
    if dtype is None:
        raise TypeError(f"not a fixed-width number: {arr.type}")
    if hasattr(arr, "chunks"):
        parts = [numbers(ch, fill) for ch in arr.chunks]
        if len(parts) == 1:
            return parts[0]
        return np.concatenate(parts) if parts else np.empty(0, dtype=dtype)
    n = len(arr)
    if n == 0:
        return np.empty(0, dtype=dtype)
    data = np.frombuffer(arr.buffers()[1], dtype=dtype, count=n, offset=arr.offset * np.dtype(dtype).itemsize)
    if not arr.null_count:
        return data
    if fill is None:
        if not np.issubdtype(dtype, np.floating):
            raise ValueError("an integer column with NULLs and no fill")
        fill = np.nan
    out = data.copy()
    out[~valid(arr)] = fill
    return out


def valid(arr: Any) -> np.ndarray:
    """Per cell of an Arrow ``Array``, whether it holds a value (its validity bitmap as booleans;
    a null-typed array: none)."""
    n = len(arr)
    if arr.null_count == 0:
        return np.ones(n, dtype=bool)
    if arr.null_count == n:
        return np.zeros(n, dtype=bool)
    bits = arr.buffers()[0]
    start = arr.offset
    raw = np.frombuffer(bits, dtype=np.uint8, count=(start + n + 7) // 8)
    return np.unpackbits(raw, bitorder="little", count=start + n)[start:].astype(bool)


def int_array(values: np.ndarray) -> Any:
    """A numpy integer array as an Arrow array of its type, without NULLs (``pa.array(values)``
    without pyarrow's pandas check; the buffer is shared, kept alive by the Arrow array)."""
    import pyarrow as pa

    values = np.ascontiguousarray(values)
    types = {np.dtype(np.int32): pa.int32(), np.dtype(np.int64): pa.int64()}
    typ = types.get(values.dtype)
    if typ is None:
        raise TypeError(f"not int32 or int64: {values.dtype}")
    return pa.Array.from_buffers(typ, len(values), [None, pa.py_buffer(values)])


def strings(arr: Any) -> np.ndarray:
    """A string Arrow ``Array`` as an object array of its values, NULL as None
    (``to_numpy(zero_copy_only=False)`` without pandas; one Python string a cell)."""
    out = np.empty(len(arr), dtype=object)
    out[:] = arr.to_pylist()
    return out
