"""The lm-eval reader's runs of rows and large-table string columns give what the plain way gives (issue 15).

- Runs: consecutive fast records of one metric and filter are kept as runs (first record,
  count, metric) instead of one list entry per row (``lm_eval.samples._row_arrays``); at any
  shortest-run length the table equals the general per-record loop's (``ReadTuning(fast_records=False)``)
  on seeded random files (the irregular records of ``test_lm_eval_fast``) and on every lm-eval
  samples file in ../shared/real_logs.
- String columns: from a few thousand rows each object column goes to pandas' pyarrow ``str``
  by one pyarrow call (``lm_eval.frame._arrow_strings``); equal, dtypes included, to pandas'
  own conversion of the same columns.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evaladdon.adapters.lm_eval as L
import evaladdon.adapters.lm_eval.frame as F
import evaladdon.adapters.lm_eval.samples as S
from evaladdon.adapters import ReadTuning, sniff
from test_lm_eval_adapter import lm_files
from test_lm_eval_fast import _odd, _read, _regular, _same, _write


def _alternating(tmp: Path, seed: int, n: int) -> Path:
    """Regular records in stretches of one filter, some irregular ones between."""
    rng = random.Random(seed)
    recs = []
    for i in range(n):
        rec = _regular(rng, i)
        rec["filter"] = "none" if (i // rng.choice([1, 3, 40])) % 2 == 0 else "strict"
        recs.append(_odd(rng, rec) if rng.random() < 0.05 else rec)
    return _write(tmp / f"alt{seed}", recs)


@pytest.mark.parametrize("seed", range(12))
def test_runs_equal_the_general_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    path = _alternating(tmp_path, seed, 150)
    kept: list[int] = []  # runs per read
    real = S._row_arrays
    monkeypatch.setattr(S, "_row_arrays", lambda recs, m, e, runs: kept.append(len(runs)) or real(recs, m, e, runs))
    for cluster in (None, "passage_id"):
        want = _read(monkeypatch, path, cluster, fast=False)
        for shortest in (1, 2, 5, 10**9):
            kept.clear()
            _same(_read(monkeypatch, path, cluster, True, 7, lm_run=shortest), want)
            if shortest in (1, 10**9):  # runs kept for the shortest bound, none for the longest
                assert (kept[-1] > 0) == (shortest == 1), (shortest, kept)


def test_runs_on_real_logs(real_logs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = [f for f in lm_files(real_logs) if sniff(f)[0] is L.read_samples]
    if not files:
        pytest.skip("the real-log corpus holds no lm-eval samples file")
    for path in files:
        want = _read(monkeypatch, path, None, fast=False)
        for shortest in (1, 32):
            _same(_read(monkeypatch, path, None, True, lm_run=shortest), want)


def test_row_arrays_put_runs_back_in_place() -> None:
    rec, metric, epoch = S._row_arrays([5, 5, 9], ["a", "b", "c"], [1, 2, 1], [(0, 3, "m", 0), (6, 2, "n", 2)])
    assert rec.tolist() == [0, 1, 2, 5, 5, 6, 7, 9]
    assert metric.tolist() == ["m", "m", "m", "a", "b", "n", "n", "c"]
    assert epoch.tolist() == [1, 1, 1, 1, 2, 1, 1, 1]
    empty = S._row_arrays([], [], [], [])
    assert [len(a) for a in empty] == [0, 0, 0] and empty[1].dtype == object


def test_large_tables_convert_strings_as_pandas_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Above the joined-call size: per-column pyarrow strings equal pandas' own conversion."""
    rng = random.Random(7)
    recs = [_regular(rng, i) for i in range(5200)]
    for i in rng.sample(range(5200), 300):
        recs[i] = _odd(rng, recs[i])
    path = _write(tmp_path, recs)
    part = L.read_samples_part(path, "passage_id")
    part.cols["label"] = part.cols["label"].copy()
    part.cols["label"][:7] = None  # strings and None together
    got = L.frame_parts([part])
    monkeypatch.setattr(F, "_arrow_strings", lambda data, n: None)  # pandas converts every column
    want = L.frame_parts([part])
    _same(got, want)
    assert str(got["item"].dtype) == str(want["item"].dtype) and got["error"].dtype == object
    assert got["label"].isna().sum() == want["label"].isna().sum() >= 7
    cols = {"s": np.array(["a", None] * 3000, dtype=object), "none": np.full(6000, None, dtype=object),
            "nan": np.full(6000, np.nan, dtype=object), "mixed": np.array(["a", 1] * 3000, dtype=object)}
    data = dict(cols)
    F._arrow_strings(data, 6000)
    pd.testing.assert_frame_equal(pd.DataFrame(data), pd.DataFrame(cols), check_exact=True)


def test_metric_codes_either_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The multiple-choice columns with metric names coded by pandas or by a dict: the same table."""
    path = _alternating(tmp_path, 99, 300)
    factorized: list[int] = []
    real = pd.factorize
    monkeypatch.setattr(pd, "factorize", lambda values, *a, **k: factorized.append(len(values)) or real(values, *a, **k))
    for cluster in (None, "passage_id"):
        factorized.clear()
        want = L.read_samples(path, cluster, tuning=ReadTuning(lm_factorize_from=10**9))
        assert not factorized  # metric names coded by a dict
        got = L.read_samples(path, cluster, tuning=ReadTuning(lm_factorize_from=0))
        assert factorized  # by pandas
        _same(got, want)
