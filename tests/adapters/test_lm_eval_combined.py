"""read_runs makes one DataFrame of consecutive lm-eval samples files (issue 15, per-file
overhead): the same table (values and dtypes), notes, skips, names and incomplete counts as
one table per file concatenated (``ReadTuning(combine_lm_eval=False)``, the reference)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pandas as pd
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from conftest import REPO  # noqa: E402
from test_lm_eval_reference import write_edge_cases  # noqa: E402

import evaladdon.adapters as adapters  # noqa: E402
import evaladdon.adapters.read as read_mod  # noqa: E402
from evaladdon.adapters.lm_eval import SamplesPart, frame_parts, read_samples, read_samples_part  # noqa: E402
from evaladdon.errors import InputError  # noqa: E402
from evaladdon.table import concat  # noqa: E402

TS = "2026-01-0{}T00-00-00.000000"


def _samples(folder: Path, ts: str, task: str, n: int, *, mc: bool = True, hashes: object = "str",
             cluster_values: bool = True, filters: tuple[str, ...] = ("none",)) -> Path:
    """A small 0.4.7-style samples file with its results (``hashes``: "str", "int" or None)."""
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / f"samples_{task}_{ts}.jsonl").open("w") as fh:
        for i in range(n):
            for f in filters:
                rec: dict[str, object] = {
                    "doc_id": i, "doc": {"passage_id": f"p{i // 3}"} if cluster_values else {"q": i},
                    "target": i % 3, "filter": f, "metrics": ["acc"], "acc": float(i % 2),
                    "doc_hash": f"{i:08x}" if hashes == "str" else (i if hashes == "int" else None)}
                if mc:
                    rec["filtered_resps"] = [[-(k + i % 4) / 2.0, False] for k in range(3)]
                else:
                    rec["filtered_resps"] = ["x"]
                fh.write(json.dumps(rec) + "\n")
    (folder / f"results_{ts}.json").write_text(json.dumps({
        "results": {task: {"acc,none": 0.5}}, "n-samples": {task: {"original": n + 2, "effective": n + 2}},
        "config": {"model": "hf", "model_args": "pretrained=org/m"}, "model_name": f"org/{folder.name}"}))
    return folder / f"samples_{task}_{ts}.jsonl"


def _both(monkeypatch: pytest.MonkeyPatch, paths: list, cluster: str | None = None) -> tuple:
    def read(combine: bool) -> object:
        with monkeypatch.context() as m:
            if not combine:  # the reference: one table per file, never one frame of several
                m.setattr(read_mod, "frame_parts", lambda parts: pytest.fail("samples files combined"))
            try:
                return adapters.read_runs(paths, cluster=cluster, results_only=True,
                                          tuning=adapters.ReadTuning(combine_lm_eval=combine))
            except InputError as exc:
                return str(exc)

    return read(True), read(False)


def _assert_same(ours: object, reference: object) -> None:
    assert type(ours) is type(reference), (ours, reference)
    if isinstance(ours, str):
        assert ours == reference
        return
    pd.testing.assert_frame_equal(ours.table, reference.table, check_exact=True)
    assert list(ours.table.dtypes.astype(str)) == list(reference.table.dtypes.astype(str))
    for field in ("notes", "skipped", "names", "incomplete", "reported"):
        assert getattr(ours, field) == getattr(reference, field), field
    assert ours.table.attrs == reference.table.attrs


def test_real_and_sample_logs_read_the_same_combined(real_logs: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    write_edge_cases(tmp_path / "edge")
    folders = [REPO / "sample_logs" / "lm_eval", tmp_path / "edge"]
    folders += sorted(p for pat in ("lmeh_*", "pythia_*") for p in real_logs.glob(pat) if p.is_dir())
    for folder in folders:
        _assert_same(*_both(monkeypatch, [folder]))
        _assert_same(*_both(monkeypatch, [folder], cluster="passage_id"))
    _assert_same(*_both(monkeypatch, folders))


def test_files_that_differ_read_the_same_combined(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Multiple-choice and not, int and missing doc hashes (framed alone), two filters, an
    empty file, the same run in two folders (renamed per file), named runs, an Inspect log
    and a table between them, and a cluster field some files lack."""
    a = _samples(tmp_path / "a", TS.format(1), "t1", 7)
    b = _samples(tmp_path / "b", TS.format(2), "t2", 5, mc=False)
    c = _samples(tmp_path / "c", TS.format(3), "t3", 4, hashes="int")
    d = _samples(tmp_path / "d", TS.format(4), "t4", 6, hashes=None, filters=("none", "strict"))
    e = _samples(tmp_path / "e", TS.format(5), "t5", 0)
    copy = tmp_path / "copy"
    shutil.copytree(tmp_path / "a", copy)  # the same run id from another file: a clash
    f = _samples(tmp_path / "f", TS.format(6), "t6", 3, cluster_values=False)
    inspect_log = REPO / "sample_logs" / "inspect" / "baseline.eval"
    table = tmp_path / "long.csv"
    table.write_text("run,task,item,metric,value\nr,t,i1,acc,1\nr,t,i2,acc,0\n")
    for paths in ([a, b, c, d, e], [a, copy], [a, inspect_log, b, table, c], [f"first={a}", b, f"third={c}"],
                  [tmp_path], [a, b, d]):
        _assert_same(*_both(monkeypatch, paths))
    _assert_same(*_both(monkeypatch, [a, b, c], cluster="passage_id"))
    _assert_same(*_both(monkeypatch, [a, f], cluster="passage_id"))  # f has no such field: one line


def test_frame_parts_equals_concatenated_tables(tmp_path: Path) -> None:
    paths = [_samples(tmp_path / f"r{i}", TS.format(i + 1), f"t{i}", 3 + i) for i in range(4)]
    parts = [read_samples_part(p, "passage_id") for p in paths]
    assert all(isinstance(p, SamplesPart) and p.combinable() for p in parts)
    one = frame_parts(parts)
    want = concat([read_samples(p, "passage_id") for p in paths])
    pd.testing.assert_frame_equal(concat([one]), want, check_exact=True)
    assert list(one.dtypes.astype(str)) == list(want.dtypes.astype(str))
    assert one["source"].tolist() == [str(p) for p, part in zip(paths, parts, strict=True) for _ in range(part.n)]


def test_numeric_scores_equal_coerce_scores() -> None:
    """The reader's numeric shortcut gives coerce_scores' values and errors exactly."""
    import numpy as np

    from evaladdon.adapters.lm_eval.samples import _numeric_scores
    from evaladdon.adapters.common.scores import coerce_scores

    rng = np.random.default_rng(15)
    special = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, 1e308, -5e-324])
    for trial in range(200):
        n = int(rng.integers(0, 40))
        arr = rng.choice(special, n) if trial % 2 else rng.normal(size=n)
        if trial % 5 == 0:
            arr = rng.integers(-3, 3, n).astype(np.int64)
        want_values, want_errors = coerce_scores(pd.Series(arr.copy()))
        values, errors = _numeric_scores(arr.copy())
        assert values.dtype == np.float64 and errors.dtype == object
        np.testing.assert_array_equal(values, want_values)
        assert np.signbit(values).tolist() == np.signbit(want_values).tolist()
        assert errors.tolist() == want_errors.tolist()
