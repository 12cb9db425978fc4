"""Each lm-eval samples file's string columns are converted to pyarrow as it is read and its
Python strings let go (``frame.hot_strings``), not held to the end: the same table (values,
dtypes, column order), notes, names and attrs as converting them at the end (the reference:
``hot_strings`` off), over mixes of files that keep or lose the conversion (a big file, int or
missing doc hashes, a cluster field some files lack or hold as numbers, answers added after
the read, all-missing columns)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from conftest import REPO  # noqa: E402
from test_lm_eval_combined import TS, _assert_same, _samples  # noqa: E402
from test_lm_eval_reference import write_edge_cases  # noqa: E402

import evaladdon.adapters as adapters  # noqa: E402
import evaladdon.adapters.lm_eval.reader as reader_mod  # noqa: E402
from evaladdon.adapters.lm_eval import read_samples, read_samples_part  # noqa: E402
from evaladdon.adapters.lm_eval.frame import _JOINED_ROWS, _inferred_str_dtype  # noqa: E402
from evaladdon.errors import InputError  # noqa: E402

ARROW_STRINGS = isinstance(_inferred_str_dtype(), pd.StringDtype) and _inferred_str_dtype().storage == "pyarrow"


def _hot_and_cold(monkeypatch: pytest.MonkeyPatch, paths: list, **kw: object) -> tuple:
    def read(hot: bool) -> object:
        with monkeypatch.context() as m:
            if not hot:  # the reference: every string column held as objects, converted at the end
                m.setattr(reader_mod, "hot_strings", lambda cols: cols)
            try:
                return adapters.read_runs(paths, results_only=True, **kw)  # type: ignore[arg-type]
            except InputError as exc:
                return str(exc)

    return read(True), read(False)


def _int_clusters(folder: Path, ts: str, task: str, n: int) -> Path:
    """A samples file whose cluster field holds numbers, some missing (an object column then)."""
    path = _samples(folder, ts, task, n)
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    for i, rec in enumerate(lines):
        rec["doc"] = {"passage_id": i // 2} if i % 3 else {}
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    return path


def test_files_are_converted_as_read(tmp_path: Path) -> None:
    path = _samples(tmp_path / "a", TS.format(1), "t1", 7)
    part = read_samples_part(path, "passage_id")
    converted = {c for c, v in part.cols.items() if not isinstance(v, np.ndarray)}
    if not ARROW_STRINGS:
        assert not converted  # pandas keeps strings as objects: nothing to convert
        return
    assert {"metric", "item", "raw", "cluster", "item_hash"} <= converted and "error" not in converted  # all None
    assert all(len(part.cols[c]) == part.n for c in converted)
    assert part.column("item").tolist() == [str(i) for i in range(7)]  # objects again, as read
    assert part.metrics == ["acc,none"]
    big = read_samples_part(_samples(tmp_path / "big", TS.format(2), "t2", _JOINED_ROWS + 1), "passage_id")
    assert not isinstance(big.cols["item_hash"], np.ndarray)  # one call a column above _JOINED_ROWS


def test_hot_strings_read_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a = _samples(tmp_path / "a", TS.format(1), "t1", 7)
    b = _samples(tmp_path / "b", TS.format(2), "t2", 5, mc=False)
    c = _samples(tmp_path / "c", TS.format(3), "t3", 4, hashes="int")  # framed alone
    d = _samples(tmp_path / "d", TS.format(4), "t4", 6, hashes=None, filters=("none", "strict"))
    e = _samples(tmp_path / "e", TS.format(5), "t5", 0)
    f = _samples(tmp_path / "f", TS.format(6), "t6", 3, cluster_values=False)
    g = _int_clusters(tmp_path / "g", TS.format(7), "t7", 9)
    big = _samples(tmp_path / "big", TS.format(8), "t8", _JOINED_ROWS + 3)
    write_edge_cases(tmp_path / "edge")
    mixes = [[a], [b], [d], [a, b], [a, b, c, d, e], [a, big, b], [big], [a, f], [a, g], [g], [f"first={a}", b],
             [a, REPO / "sample_logs" / "inspect" / "baseline.eval", b], [tmp_path / "edge"],
             [REPO / "sample_logs" / "lm_eval"], [tmp_path]]
    for paths in mixes:
        for cluster in (None, "passage_id"):
            _assert_same(*_hot_and_cold(monkeypatch, paths, cluster=cluster))
    _assert_same(*_hot_and_cold(monkeypatch, [REPO / "sample_logs" / "lm_eval", b], answers=True))
    one = read_samples(a, "passage_id")
    with monkeypatch.context() as m:
        m.setattr(reader_mod, "hot_strings", lambda cols: cols)
        want = read_samples(a, "passage_id")
    pd.testing.assert_frame_equal(one, want, check_exact=True)
    assert list(one.dtypes.astype(str)) == list(want.dtypes.astype(str))


def test_real_logs_read_the_same(real_logs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folders = sorted(p for pat in ("lmeh_*", "pythia_*") for p in real_logs.glob(pat) if p.is_dir())
    if not folders:
        pytest.skip("no lm-eval folders among the real logs")
    for folder in folders:
        _assert_same(*_hot_and_cold(monkeypatch, [folder]))
        _assert_same(*_hot_and_cold(monkeypatch, [folder], cluster="passage_id"))
    _assert_same(*_hot_and_cold(monkeypatch, folders))
