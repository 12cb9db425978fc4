"""Text columns of long tables, as arrow reads them: a Parquet file's run-level columns of one
value built from their dictionary (:func:`read_parquet`), and which cells of a string column are
blank (:func:`blank_mask`) -- the two passes of the long-table reader that cost a row each
(issue 31 item 2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["FAST_MIN_ROWS", "blank_mask", "blank_by_first_bytes", "read_parquet", "repeated_string"]

FAST_MIN_ROWS = 1 << 16
"""Columns with fewer rows take arrow's kernels directly (the numpy pass saves nothing worth it)."""


def read_parquet(path: Path, names: tuple[str, ...], constants: dict[str, str]) -> Any:
    """``pq.read_table(path)``, its string columns among ``names`` (the run-level ones) that hold one
    value throughout built from that value instead of decoded a row at a time.

    A Parquet writer stores such a column as a dictionary of one string and runs of its index;
    decoding gives a string a row (10M rows: ~0.4 s a column, most of reading a 4-column file
    whose floor reads 2).  Columns whose row-group statistics say min == max with no null are
    read with ``read_dictionary``; a column whose every chunk's dictionary is that one value is
    rebuilt as the type a plain read gives (:func:`repeated_string`: offsets ``0, k, 2k ...``
    and the value's bytes repeated), any other one cast back to it (what decoding gives).  The
    statistics only choose the columns; the dictionaries decide.  ``constants`` gets each rebuilt
    column's value (its blank check is then one value's).  Oracle: ``pq.read_table``
    (``tests/adapters/test_parquet_constants.py``)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    meta = pq.read_metadata(path)
    schema = pq.read_schema(path)
    paths = [meta.schema.column(i).path for i in range(meta.num_columns)]
    candidates = []
    for name in dict.fromkeys(names):
        if name not in paths or schema.get_field_index(name) < 0:
            continue
        plain = schema.field(name).type
        if not (pa.types.is_string(plain) or pa.types.is_large_string(plain)) or meta.num_row_groups == 0:
            continue
        at = paths.index(name)
        stats = [meta.row_group(g).column(at).statistics for g in range(meta.num_row_groups)]
        if all(st is not None and st.has_min_max and st.null_count == 0 and st.min == st.max == stats[0].min
               for st in stats):
            candidates.append(name)
    if not candidates:
        return pq.read_table(path)
    table = pq.read_table(path, read_dictionary=candidates)
    for name in candidates:
        at = table.schema.get_field_index(name)
        col, plain = table.column(at), schema.field(name).type
        labels = {c.dictionary[0].as_py() for c in col.chunks if len(c.dictionary) == 1 and not c.null_count}
        one = len(labels) == 1 and all(len(c.dictionary) == 1 and not c.null_count for c in col.chunks)
        built = repeated_string(next(iter(labels)), len(col), plain) if one else None
        if built is not None:
            constants[name] = next(iter(labels))
        table = table.set_column(at, schema.field(name), built if built is not None else col.cast(plain))
    return table


def repeated_string(value: str, n: int, typ: Any) -> Any | None:
    """An arrow ``string``/``large_string`` array of ``value`` in each of ``n`` rows, built from
    its buffers (what decoding a dictionary of one value gives, without a pass a row)."""
    import pyarrow as pa

    data = value.encode("utf-8")
    offsets = np.arange(n + 1, dtype=np.int64 if pa.types.is_large_string(typ) else np.int32)
    if len(data) * n >= 2**31 and not pa.types.is_large_string(typ):
        return None  # more than 32-bit offsets hold: decoded as a plain read decodes it
    np.multiply(offsets, len(data), out=offsets)
    cls = pa.LargeStringArray if pa.types.is_large_string(typ) else pa.StringArray
    return cls.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(data * n))


def blank_mask(col: Any) -> np.ndarray:
    """Null, empty or white space only (as ``utf8_trim_whitespace(col) == ""``, without
    copying every string to trim it)."""
    import pyarrow.compute as pc

    if len(col) >= FAST_MIN_ROWS:
        got = blank_by_first_bytes(col)
        if got is not None:
            return got
    blank = pc.or_(pc.equal(pc.binary_length(col), 0), pc.utf8_is_space(col))
    return pc.fill_null(blank, True).to_numpy(zero_copy_only=False)


def blank_by_first_bytes(col: Any) -> np.ndarray | None:
    """:func:`blank_mask` of a large ``string``/``large_string`` column: a string can be white
    space only when its first byte is a control or space byte (``<= 0x20``), DEL or starts a
    multi-byte character (``>= 0x7f``): only those rows (usually none: item ids, names) go to
    arrow's ``utf8_is_space``, the rest are told from their length and first byte with numpy
    (10M item ids: ~0.3 s less).  ``None`` for other types.  Oracle: :func:`blank_mask`'s kernels
    (``tests/adapters/test_parquet_constants.py``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    out = np.empty(len(col), dtype=bool)
    at = 0
    for chunk in col.chunks if hasattr(col, "chunks") else [col]:
        if not (pa.types.is_string(chunk.type) or pa.types.is_large_string(chunk.type)):
            return None
        n = len(chunk)
        if n == 0:
            continue
        off_type = np.int64 if pa.types.is_large_string(chunk.type) else np.int32
        _, offsets_buf, data_buf = chunk.buffers()
        offsets = np.frombuffer(offsets_buf, dtype=off_type, count=n + 1, offset=chunk.offset * np.dtype(off_type).itemsize)
        starts, lengths = offsets[:-1], np.diff(offsets)
        data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None and data_buf.size else np.zeros(1, np.uint8)
        first = data[np.minimum(starts, len(data) - 1)]
        maybe = (lengths == 0) | (first <= 0x20) | (first >= 0x7F)
        if chunk.null_count:
            maybe |= chunk.is_null().to_numpy(zero_copy_only=False)
        rows = np.flatnonzero(maybe)
        block = np.zeros(n, dtype=bool)
        if rows.size:
            block[rows] = blank_mask(chunk.take(pa.array(rows))) if rows.size < FAST_MIN_ROWS else \
                pc.fill_null(pc.or_(pc.equal(pc.binary_length(chunk), 0), pc.utf8_is_space(chunk)),
                             True).to_numpy(zero_copy_only=False)[rows]
        out[at:at + n] = block
        at += n
    return out
