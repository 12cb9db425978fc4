"""A Parquet long table's run-level columns of one value, rebuilt from their dictionaries
(``adapters.common.arrow_text.read_parquet``), equal what ``pyarrow.parquet.read_table`` decodes,
and the table read from them equals the one read the plain way; the blank check by first bytes
equals arrow's kernels (issue 31 item 2)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evaladdon.adapters import long_table
from evaladdon.adapters.common import arrow_text


def _write(path: Path, columns: dict[str, object], row_group_size: int | None = None) -> Path:
    pq.write_table(pa.table(columns), path, row_group_size=row_group_size)
    return path


CASES = {
    "one value": {"model": pa.array(["m"] * 50), "task": pa.array(["猫 task"] * 50, pa.large_string())},
    "two values across row groups": {"model": pa.array(["a"] * 25 + ["b"] * 25), "task": pa.array(["t"] * 50)},
    "a null": {"model": pa.array(["a"] * 49 + [None]), "task": pa.array([""] * 50)},
    "blank value": {"model": pa.array([" "] * 50), "run": pa.array(["r"] * 50)},
    "not text": {"model": pa.array([3] * 50), "metric": pa.array(["acc"] * 50)},
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("groups", [None, 10])
def test_read_parquet_equals_read_table(tmp_path: Path, case: str, groups: int | None) -> None:
    cols = dict(CASES[case], id=pa.array([f"q{i}" for i in range(50)]), score=pa.array(np.arange(50) % 2))
    path = _write(tmp_path / "t.parquet", cols, groups)
    constants: dict[str, str] = {}
    got = arrow_text.read_parquet(path, long_table.RUN_LEVEL, constants)
    want = pq.read_table(path)
    assert got.schema == want.schema
    assert got.equals(want)
    for name, value in constants.items():
        assert set(want.column(name).to_pylist()) == {value}


@pytest.mark.parametrize("case", CASES)
def test_long_table_read_from_constants_equals_plain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       case: str) -> None:
    cols = dict(CASES[case], id=pa.array([f"q{i}" for i in range(50)]), score=pa.array(np.arange(50) % 2))
    path = _write(tmp_path / "t.parquet", cols, 10)

    def read() -> pd.DataFrame | str:
        try:
            return long_table.read_long_table(path)
        except Exception as exc:  # the same error either way
            return f"{type(exc).__name__}: {exc}"

    fast = read()
    monkeypatch.setattr(long_table, "_read_parquet", lambda p, names, constants: pq.read_table(p))
    plain = read()
    if isinstance(plain, str):
        assert fast == plain
        return
    assert isinstance(fast, pd.DataFrame)
    assert list(fast.columns) == list(plain.columns)
    for c in plain.columns:
        assert fast[c].dtype == plain[c].dtype, c
        assert fast[c].astype(object).tolist() == plain[c].astype(object).tolist(), c


def test_repeated_string_buffers() -> None:
    for typ in (pa.string(), pa.large_string()):
        for value in ("", "a", "é猫"):
            got = arrow_text.repeated_string(value, 7, typ)
            assert got.type == typ and got.to_pylist() == [value] * 7
            got.validate(full=True)


def test_blank_by_first_bytes_equals_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    import pyarrow.compute as pc

    monkeypatch.setattr(arrow_text, "FAST_MIN_ROWS", 4)
    rng = np.random.default_rng(5)
    pool = ["a", "", " ", "\t", " x", "\u3000", "\u00a0", "\u00a0b", "é", "\x1c", "\x7f", "q 1", "\u2028", None]
    vals = [pool[i] for i in rng.integers(0, len(pool), 400)]
    for typ in (pa.string(), pa.large_string()):
        arr = pa.chunked_array([pa.array(vals[:150], typ), pa.array(vals[150:], typ)]).slice(3)
        want = pc.fill_null(pc.or_(pc.equal(pc.binary_length(arr), 0), pc.utf8_is_space(arr)), True)
        assert arrow_text.blank_mask(arr).tolist() == want.to_pylist()
        assert arrow_text.blank_by_first_bytes(arr).tolist() == want.to_pylist()
