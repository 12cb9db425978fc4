"""The lm-eval samples reader's fast path gives exactly what its general loop gives (issue 15).

The fast path: records shaped like the first regular one read through one itemgetter, and
their multiple-choice log-likelihoods converted ~1,000 records at a time
(``lm_eval.sink._lls_or_none``).
The reference is the general per-record loop (``ReadTuning(fast_records=False)``), itself held to the
digests of the reader before the speed work by ``test_lm_eval_reference.py``.  Seeded random
files mix regular records with every irregular kind (ragged and odd ``filtered_resps``, text /
list / out-of-range targets, non-numeric and corpus-level values, NaN literals, other filters
and metrics, repeats, missing hashes); each is read at several block sizes, with and without a
cluster field.  Bad lines give the same one-line error, naming the file, either way.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import evaladdon.adapters.lm_eval as L
import evaladdon.adapters.lm_eval.choices as CH
import evaladdon.adapters.lm_eval.frame as F
import evaladdon.adapters.lm_eval.columns as C
import evaladdon.adapters.lm_eval.samples as S
import evaladdon.adapters.lm_eval.sink as SI
from evaladdon.adapters import ReadTuning, read_runs
from evaladdon.cli.main import main
from evaladdon.errors import InputError
from closeness import assert_same_reading
from built_logs import write_lm_eval_results

TS = "2026-03-04T05-06-07.000008"


def _write(folder: Path, lines: list[Any], task: str = "t", declared: int | None = None) -> Path:
    """A samples file (dicts as JSON, NaN literals allowed; strings written as they are) and its results."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"samples_{task}_{TS}.jsonl"
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    n = declared if declared is not None else len(lines)
    write_lm_eval_results(folder, TS, task, n, {"acc,none": 0.5, "acc,strict": 0.5})
    return path


def _regular(rng: random.Random, i: int, k: int = 4) -> dict[str, Any]:
    fr = [[-rng.random() * 10, k == 0] for k in range(k)]
    choices = [f"c{j}" * (j + 1) for j in range(k)]
    return {"doc_id": i, "doc": {"passage_id": f"p{i // 3}", "n": i % 5, "q": "x" * 50}, "target": rng.randrange(k),
            "arguments": {f"gen_args_{j}": {"arg_0": "ctx", "arg_1": " " + c} for j, c in enumerate(choices)},
            "resps": [[x] for x in fr], "filtered_resps": fr, "filter": "none", "metrics": ["acc"],
            "doc_hash": f"{i:064x}", "prompt_hash": "p", "target_hash": "t", "acc": float(rng.random() < 0.5)}


def _odd(rng: random.Random, rec: dict[str, Any]) -> dict[str, Any]:
    """One irregularity the general loop handles (each kind the fast path must hand over or match)."""
    k = len(rec["filtered_resps"])
    kind = rng.randrange(24)
    if kind == 0:
        rec["target"] = rng.choice(["c1c1", "1", [0, 1], -1, k, k + 3, None, True, 2**70, "zz"])
    elif kind == 1:
        del rec["filtered_resps"]
    elif kind == 2:
        rec["filtered_resps"] = rng.choice(["x", [], [[-1.0, False]], [1.0, 2.0], [[True, False]] * k])
    elif kind == 3:  # a bool log-likelihood after the first choice
        rec["filtered_resps"][-1] = [True, False]
    elif kind == 4:  # newer logs: both as strings
        rec["filtered_resps"] = [[str(x), str(g)] for x, g in rec["filtered_resps"]]
    elif kind == 5:
        rec["filtered_resps"] = [[int(x), g] for x, g in rec["filtered_resps"]]
    elif kind == 6:
        rec["filtered_resps"][-1] = rng.choice([[-1.0, False, 3.0], [-1.0], [-1.0, 0.5], [-1.0, None], "ab", [None, False]])
    elif kind == 7:
        rec["filtered_resps"][0] = [float("nan"), False]  # a NaN literal: the line goes to json
    elif kind == 8:
        rec["acc"] = rng.choice(["0.5", None, "x", True, 1, float("inf"), float("nan"), -0.0, ""])
    elif kind == 9:
        rec["acc"] = rng.choice([[1, 2], {"a": 1}])
    elif kind == 10:
        rec["filter"] = rng.choice(["strict", None, 3])
    elif kind == 11:
        rec["metrics"], rec["f1"] = ["acc", "f1"], rng.choice([0.25, ["a", "b"]])
    elif kind == 12:
        rec["metrics"], rec["exact_match"] = ["exact_match"], 1.0
    elif kind == 13:
        rec["metrics"] = rng.choice(["acc", None, ("acc",)])
        if rec["metrics"] is None:
            del rec["metrics"]
    elif kind == 14:
        rec["scores_per_repeat"] = {"acc": [1, 0, "1"]}
    elif kind == 15:
        rec["scores_per_repeat"] = "not a mapping"
    elif kind == 16:
        del rec["doc_hash"]
    elif kind == 17:
        rec["doc_hash"] = rng.choice([7, None])
    elif kind == 18:
        rec["doc_id"] = rng.choice([f"d{rec['doc_id']}", None, 1.5])
    elif kind == 19:
        rec["metrics"], rec["acc_norm"] = ["acc", "acc_norm"], 0.0
    elif kind == 20:
        del rec["acc"]
    elif kind == 21:
        rec["doc"]["passage_id"] = rng.choice([3, 2.5, True])
    elif kind == 22:
        w = rng.choice([2, 3, 5])
        rec["filtered_resps"] = [[-rng.random(), False] for _ in range(w)]
        rec["target"] = rng.randrange(w)
    else:
        rec["metrics"] = ["acc", "acc"]
    return rec


def _file(tmp: Path, seed: int, n: int = 60) -> Path:
    rng = random.Random(seed)
    p_odd = rng.choice([0.0, 0.05, 0.3, 1.0])
    recs = [_odd(rng, _regular(rng, i)) if rng.random() < p_odd else _regular(rng, i) for i in range(n)]
    return _write(tmp / f"s{seed}", recs, declared=n + rng.choice([0, 0, 3]))


def _read(monkeypatch: pytest.MonkeyPatch, path: Path, cluster: str | None, fast: bool,
          flush: int | None = None, tries: int | None = None, **more: int) -> pd.DataFrame | str:
    tuning = ReadTuning(fast_records=fast, lm_flush=flush or 1024, lm_batch=tries or 1024, **more)
    with monkeypatch.context() as m:
        if not fast:  # the reference: the general loop alone
            m.setattr(S, "_fast_schema", lambda *a: pytest.fail("fast path used"))
        try:
            return L.read_samples(path, cluster, tuning=tuning)
        except InputError as exc:
            return str(exc)


_same = assert_same_reading


@pytest.mark.parametrize("seed", range(40))
def test_fast_path_equals_the_general_loop_on_random_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           seed: int) -> None:
    path = _file(tmp_path, seed)
    for cluster in (None, "passage_id", "n"):
        want = _read(monkeypatch, path, cluster, fast=False)
        for flush, tries in ((None, None), (3, 1), (7, 5)):
            _same(_read(monkeypatch, path, cluster, True, flush, tries), want)


def test_regular_files_take_the_fast_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file of regular records is read without the general loop, and its log-likelihoods in blocks."""
    rng = random.Random(1)
    path = _write(tmp_path, [_regular(rng, i) for i in range(50)])
    seen: list[int] = []
    real = SI._lls_or_none
    for module in (SI, C):  # the fast loop's blocks (sink._flush), the columns' one call
        monkeypatch.setattr(module, "_lls_or_none", lambda frs: seen.append(len(frs)) or real(frs))
    monkeypatch.setattr(S, "_mc_extra", lambda *a: pytest.fail("general loop used"))
    df = L.read_samples(path, "passage_id", tuning=ReadTuning(lm_flush=20, lm_columns=False))
    assert seen == [20, 20, 10] and df["prediction"].notna().all() and df["label"].notna().all()
    seen.clear()  # the same file as columns: one call for the file, the same blocks (tests/adapters/test_lm_eval_columns.py)
    assert_same_reading(L.read_samples(path, "passage_id", tuning=ReadTuning(lm_flush=20)), df)
    assert seen == [50]
    lls = [[x for x, _ in r["filtered_resps"]] for r in map(json.loads, path.read_text().splitlines())]
    assert df["prediction"].astype(int).tolist() == [max(range(4), key=ll.__getitem__) for ll in lls]


def test_fast_path_with_a_late_regular_record_and_two_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A legacy-looking first record (no filter) then regular ones; read_runs over two such files."""
    rng = random.Random(2)
    first = _regular(rng, 0)
    del first["filter"]
    paths = [_write(tmp_path / "a", [first] + [_regular(rng, i) for i in range(1, 40)]),
             _write(tmp_path / "b", [_regular(rng, i, k=2 + i % 3) for i in range(30)], task="u")]
    tried: list[int] = []
    real = S._fast_schema
    monkeypatch.setattr(S, "_fast_schema", lambda *a: tried.append(1) or real(*a))
    for cluster in (None, "passage_id"):
        tried.clear()
        want = read_runs(paths, cluster=cluster, tuning=ReadTuning(fast_records=False))
        assert not tried  # the reference: the general loop alone
        # a regular record looked for at every record
        got = read_runs(paths, cluster=cluster, tuning=ReadTuning(fast_records=True, lm_batch=1))
        assert len(tried) == 3  # the first record of a, then the second (regular); the first of b
        _same(got.table, want.table)
        assert got.notes == want.notes


@pytest.mark.parametrize("bad, message", [
    ("[1, 2]", "line 3 is not an object"),
    ('{"doc": {}, "acc": 1}', "line 3 has no doc_id"),
    ('{"doc_id": 2, "acc": ', "line 3: not valid JSON"),
])
def test_bad_lines_give_the_same_one_line_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str], bad: str, message: str) -> None:
    rng = random.Random(3)
    lines: list[Any] = [_regular(rng, 0), _regular(rng, 1), bad, _regular(rng, 3), "{also bad"]
    path = _write(tmp_path, lines)
    for flush in (None, 1):
        got = _read(monkeypatch, path, None, True, flush)
        assert got == _read(monkeypatch, path, None, False, flush)
        assert isinstance(got, str) and str(path) in got and message in got and "\n" not in got
    assert main(["summarize", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert str(path) in err and message in err and len(err.splitlines()) == 1


def test_a_missing_cluster_field_is_the_same_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(4)
    recs = [_regular(rng, i) for i in range(10)]
    del recs[6]["doc"]["passage_id"]
    path = _write(tmp_path, recs)
    got = _read(monkeypatch, path, "passage_id", True)
    assert got == _read(monkeypatch, path, "passage_id", False)
    assert isinstance(got, str) and "doc 6 has no scalar doc field 'passage_id'" in got and str(path) in got


@pytest.mark.parametrize("value", ["abc", "", "é/ü path", "x" * 300])
def test_constant_columns_equal_a_column_of_equal_strings(value: str) -> None:
    """Built from buffers (pyarrow strings) or as objects: what pandas makes of n equal strings."""
    import numpy as np

    for n in (3, 1000, 5001):
        got, want = pd.Series(F._constant(value, n)), pd.Series(np.full(n, value, dtype=object))
        assert got.dtype == want.dtype
        pd.testing.assert_series_equal(got, want, check_exact=True)


@pytest.mark.parametrize("change", ["none", "nan", "f1", "declared"])
def test_one_block_files_equal_the_general_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str) -> None:
    """A file of regular multiple-choice records in one block (``choices._one_block``), and the
    ones it hands back to the general steps: a NaN log-likelihood, a second metric on each record;
    and missing docs added after it."""
    rng = random.Random(4)
    recs = [_regular(rng, i) for i in range(40)]  # a run of rows from 32 (ReadTuning.lm_run)
    if change == "nan":
        recs[7]["filtered_resps"][2][0] = float("nan")
    if change == "f1":
        for r in recs:
            r["metrics"], r["f1"] = ["acc", "f1"], 0.5
    path = _write(tmp_path, recs, declared=43 if change == "declared" else None)
    seen: list[bool] = []
    real = CH._one_block
    monkeypatch.setattr(CH, "_one_block", lambda *a: seen.append((got := real(*a)) is not None) or got)
    for cluster in (None, "passage_id"):
        _same(_read(monkeypatch, path, cluster, True), _read(monkeypatch, path, cluster, False))
    assert seen == ([True, True] if change in ("none", "declared") else [False, False] if change == "nan" else [])
