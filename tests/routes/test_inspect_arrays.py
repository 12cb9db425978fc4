"""Unit tests of ``compare`` of Inspect logs without pandas (the inspect_arrays route,
evaladdon.routes.inspect_arrays): its columns against the canonical table ``read_runs`` makes of
the same logs (the oracle), label bytes back to texts, and the lean summarize keeping no hashes.
Its output against the table route's: tests/routes/test_route_equality.py."""

from __future__ import annotations

import re

import numpy as np
import pytest

from evaladdon.adapters.inspect.parts import label_bytes
from evaladdon.routes._columns import NotLean
from evaladdon.routes.inspect_arrays import columns, read_parts, texts
from evaladdon.routes.store_arrays import COLUMNS

from route_cases import INSPECT, Inputs


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Inputs:
    return Inputs(tmp_path_factory.mktemp("arrays"))


@pytest.mark.parametrize(("paths", "cluster"), [
    ((str(INSPECT / "baseline.eval"), str(INSPECT / "candidate.eval")), None),
    ((str(INSPECT),), "passage.id"),
    (("{edge}", "{edge2}"), "grp"),
    (("{coded}", "run={coded_both}"), "grp"),
    (("{short}", "{journal}", "{inc}"), None),
    (("{errlogs}",), None),
    (("{twins}/a.json", "{twins}/b.json", "{twins}/c.json"), None),
    (("a={copy}", str(INSPECT / "candidate.eval")), None),
])
def test_columns_equal_the_canonical_tables(inputs: Inputs, paths: tuple[str, ...], cluster: str | None) -> None:
    """Row for row, every column the route pairs on is the table's (strings as ``str``, missing as
    ``None``), and the notes, skipped inputs and run names are ``read_runs``'."""
    import pandas as pd

    from evaladdon.adapters import read_runs

    paths = tuple(re.sub(r"\{(\w+)\}", lambda m: str(inputs[m.group(1)]), p) for p in paths)
    parts, loaded = read_parts(paths, cluster, None, False)
    got = columns(parts, cluster)
    want = read_runs(list(paths), cluster=cluster)
    df = want.table
    assert set(got) == set(COLUMNS) and all(len(v) == len(df) for v in got.values())
    for c in COLUMNS:
        mine = got[c]
        theirs = df[c].to_numpy(dtype=object if c not in ("epoch", "value") else None)
        if c == "value":
            np.testing.assert_array_equal(mine, theirs)
            assert mine.dtype == np.float64
        elif c == "epoch":
            assert mine.dtype == np.int64 and mine.tolist() == theirs.tolist()
        else:
            assert mine.dtype == object
            assert [None if pd.isna(x) else x for x in theirs] == mine.tolist(), c
            assert all(type(x) is str for x in mine if x is not None), c
    assert loaded.notes == want.notes and loaded.skipped == want.skipped and loaded.names == want.names
    assert loaded.incomplete == want.incomplete


def test_texts_give_back_what_label_bytes_keep() -> None:
    """ASCII, accents, a lone surrogate, the empty text, text that looks like the terminator;
    ``None`` as ``None``."""
    values = ["q1", "", "é-ü", "\ud800x", "a\x01", "\x01", "x" * 64, None, "日本語", "a\x00b"]
    got = texts(label_bytes(values))
    assert got.tolist() == values and got.dtype == object
    assert texts(label_bytes(["plain", "ascii"])).tolist() == ["plain", "ascii"]
    assert texts(np.empty(0, dtype="S1")).tolist() == []


@pytest.mark.parametrize("bad", ["y" * 65, "a\x00", "ab\x00\x00"])
def test_texts_refuse_what_they_cannot_give_back(bad: str) -> None:
    """A digest (a text past 64 bytes) or a text ending in NUL: the route declines."""
    with pytest.raises(NotLean):
        texts(label_bytes(["q1", bad]))


def test_the_lean_summarize_keeps_no_hashes(inputs: Inputs) -> None:
    """Hashes only when asked: the summarize's lean part holds none; compare's holds the table's."""
    from evaladdon.adapters import read_runs
    from evaladdon.routes.inspect_columns import _read_part

    f = inputs["edge"]
    assert _read_part(f, None).hashes is None
    part = _read_part(f, None, hashes=True)
    want = read_runs([str(f)]).table["item_hash"].to_numpy(dtype=object).tolist()
    assert texts(part.hashes).tolist() == want and any(h is not None for h in want)
