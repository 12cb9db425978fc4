"""lm-eval samples read as whole columns give exactly what the fast loop gives record by record.

:mod:`evaladdon.adapters.lm_eval.columns` reads the records of a small samples file typed in one
``decode_lines`` call column-wise, when every record is one the fast loop
(``samples._read_fast``) takes the plain way.  The reference is that loop
(``ReadTuning(lm_columns=False)``).  Mixes of small files through ``read_runs`` -- several tasks,
two metrics, a second filter, alternating filters, multiple choice with and without usable
log-likelihoods (a bool, a ragged choice list, one choice, a target out of range, a str or bool
target), generate_until, ``scores_per_repeat``, non-int doc ids, an int cluster value, a missing
cluster field, a corpus-level value, NaN literals, an incomplete file, an irregular first record,
a one-line file, ``NAME=PATH`` -- give the same table (values, dtypes, column order, attrs), the
same notes and the same one-line errors, and the record pass leaves the same sink (every list,
run, block and count) for ``_finish``; at two block/run sizes.  The clean files are shown to take
the columns and the others to be declined.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

import evaladdon.adapters.lm_eval.samples as S
from evaladdon.adapters import ReadTuning, read_runs
from evaladdon.errors import InputError
from closeness import assert_same_reading
from built_logs import write_lm_eval_results

pytest.importorskip("msgspec", reason="msgspec (a dependency) is not installed: no file is typed in one call")

TS = "2026-07-08T09-10-11.000012"


def _mc(rng: random.Random, i: int, metrics: tuple[str, ...] = ("acc",), k: int = 4) -> dict[str, Any]:
    fr = [[-rng.random() * 10, j == 0] for j in range(k)]
    rec = {"doc_id": i, "doc": {"passage_id": f"p{i // 3}", "q": "lorem " * 6}, "target": rng.randrange(k),
           "arguments": {f"gen_args_{j}": {"arg_0": "ctx", "arg_1": f" c{j}"} for j in range(k)},
           "resps": [[x] for x in fr], "filtered_resps": fr, "filter": "none", "metrics": list(metrics),
           "doc_hash": f"{i:064x}", "prompt_hash": "p", "target_hash": "t"}
    for m in metrics:
        rec[m] = float(rng.random() < 0.5)
    return rec


def _gen(rng: random.Random, i: int, filt: str = "strict-match",
         metrics: tuple[str, ...] = ("exact_match",)) -> dict[str, Any]:
    rec = {"doc_id": i, "doc": {"passage_id": f"g{i // 4}", "question": "2+2?"}, "target": "4",
           "arguments": {"gen_args_0": {"arg_0": "Q: 2+2?", "arg_1": {"until": ["\n"]}}},
           "resps": [["4"]], "filtered_resps": ["4"], "filter": filt, "metrics": list(metrics),
           "doc_hash": f"{i:064x}", "prompt_hash": "p", "target_hash": "t"}
    for m in metrics:
        rec[m] = float(rng.random() < 0.7)
    return rec


def _write(folder: Path, task: str, recs: list[Any], declared: int | None = None) -> Path:
    """A samples file (dicts as JSON, NaN literals allowed; strings written as they are) and its results."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"samples_{task}_{TS}.jsonl"
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in recs))
    write_lm_eval_results(folder, TS, task, declared if declared is not None else len(recs),
                          {"acc,none": 0.5, "exact_match,strict-match": 0.7})
    return path


def _changed(recs: list[dict[str, Any]], at: int, **fields: Any) -> list[dict[str, Any]]:
    """``recs`` with record ``at`` changed: ``fields`` set (a value ``...``: the field removed),
    ``doc__<name>`` a doc field, ``fr__<j>`` the j-th ``filtered_resps`` entry."""
    out = json.loads(json.dumps(recs))
    rec = out[at]
    for name, value in fields.items():
        where, key = (rec["doc"], name[5:]) if name.startswith("doc__") else (rec, name)
        if name.startswith("fr__"):
            where, key = rec["filtered_resps"], int(name[4:])  # type: ignore[assignment]
        if value is ...:
            del where[key]
        else:
            where[key] = value
    return out


# file name -> (task, records, declared docs or None, whether it is read as columns)
def _files(rng: random.Random) -> dict[str, tuple[str, list[Any], int | None, bool]]:
    mc = [_mc(rng, i) for i in range(40)]
    gen = [_gen(rng, i) for i in range(20)] + [_gen(rng, i, "flexible-extract") for i in range(20)]
    two = [_mc(rng, i, ("acc", "brier")) for i in range(30)]
    gen2 = [_gen(rng, i, f, ("exact_match", "f1")) for f in ("strict-match", "flexible-extract") for i in range(12)]
    return {
        "mc": ("arc", mc, None, True),
        "mc_b": ("arc_b", [_mc(rng, i) for i in range(25)], None, True),
        "two_metrics": ("two", two, None, True),
        "gen": ("gsm", gen, None, True),  # a second filter: two stretches
        "gen_two_metrics": ("gsm2", gen2, None, True),
        "alternating": ("alt", [_gen(rng, i, ("a", "b")[i % 2]) for i in range(40)], None, False),
        "oor_target": ("oor", _changed(mc, 7, target=9), None, True),  # an int target out of range: gold -1
        "negative_target": ("neg", _changed(mc, 3, target=-2), None, True),
        "str_target": ("strt", _changed(mc, 11, target="c2"), None, False),
        "bool_target": ("boolt", _changed(mc, 12, target=True), None, False),
        "bool_ll": ("bool", _changed(mc, 5, fr__2=[True, False]), None, False),
        "ragged": ("ragged", _changed(mc, 9, filtered_resps=[[-1.0, False], [-2.0, True], [-0.5, False]]), None,
                   False),
        "one_choice": ("one", [_changed(mc, i, filtered_resps=[[-1.5, False]])[i] for i in range(10)], None, True),
        "str_lls": ("strll", _changed(mc, 4, fr__0=["-1.0", "False"]), None, False),
        "repeats": ("rep", _changed(mc, 6, scores_per_repeat={"acc": [1.0, 0.0]}), None, False),
        "non_int_ids": ("ids", _changed(_changed(mc, 2, doc_id="d2"), 8, doc_id=8.5), None, True),
        "int_cluster": ("icl", _changed(_changed(mc, 1, doc__passage_id=3), 13, doc__passage_id=2.5), None, True),
        "no_cluster": ("nocl", _changed(mc, 10, doc__passage_id=...), None, True),  # declined with a cluster
        "first_no_cluster": ("fnocl", _changed(mc, 0, doc__passage_id=...)[:3] + ['{"doc_id": 3, "doc": {'],
                             None, False),
        "corpus": ("corp", [_gen(rng, i, "none", ("bleu",)) | {"bleu": [f"r{i}", f"p{i}"]} for i in range(15)],
                   None, True),
        "int_value": ("intv", _changed(mc, 14, acc=1), None, True),
        "nan": ("nan", _changed(mc, 3, acc=float("nan")), None, False),  # NaN literal: no one call
        "incomplete": ("inc", mc[:15], 40, True),
        "late_regular": ("late", [_changed(mc, 0, metrics=...)[0]] + mc[1:20], None, True),
        "one_line": ("single", mc[:1], None, False),
        "two_lines": ("double", mc[:2], None, True),
        "hashless": ("nohash", _changed(mc, 4, doc_hash=None), None, True),
    }


MIXES = [
    ["mc", "mc_b", "gen", "two_metrics"],
    ["gen_two_metrics", "alternating", "NAME=oor_target", "negative_target", "incomplete"],
    ["str_target", "bool_target", "bool_ll", "ragged", "one_choice", "str_lls"],
    ["repeats", "non_int_ids", "int_cluster", "corpus", "int_value", "hashless"],
    ["mc", "NAME2=late_regular", "one_line", "two_lines", "nan", "no_cluster"],
    ["mc", "first_no_cluster"],
]
TUNINGS = [{}, {"lm_flush": 7, "lm_run": 50, "lm_batch": 1}, {"lm_flush": 1, "lm_run": 1}]  # lm_batch 1: a late regular record tried


def _snapshot(sink: Any) -> str:
    """Everything the record pass leaves in a sink, as text that tells 1 from 1.0 from True."""
    blocks = [(idx.tolist(), str(idx.dtype), ll.tolist(), str(ll.dtype), ll.shape, lens, gold.tolist(), str(gold.dtype))
              for idx, ll, lens, gold in sink.blocks]
    return repr((sink.doc_ids, sink.hashes, sink.clusters, sink.recs, sink.metrics_l, sink.epochs, sink.raw,
                 sink.runs, sink.mc, blocks, sink.pending, sink.metric_key, sorted(sink.info.items(), key=str),
                 sink.plain))


def _reading(monkeypatch: pytest.MonkeyPatch, paths: list[Any], cluster: str | None,
             tuning: ReadTuning) -> tuple[Any, list[str], list[str], dict[str, bool]]:
    """(table or error text, notes, the sinks' snapshots, file -> read as columns)."""
    sinks: list[str] = []
    columns: dict[str, bool] = {}
    real_finish, real_whole = S._finish, S.read_whole

    def finish(sink: Any, *a: Any) -> Any:
        sinks.append(_snapshot(sink))
        return real_finish(sink, *a)

    def whole(sink: Any, schema: Any, place: Any, r: Any, lines: Any, *a: Any) -> Any:
        rest = real_whole(sink, schema, place, r, lines, *a)
        columns[Path(lines.path).parent.name] = rest is None
        return rest

    with monkeypatch.context() as m:
        m.setattr(S, "_finish", finish)
        m.setattr(S, "read_whole", whole)
        try:
            got = read_runs(paths, cluster=cluster, tuning=tuning)
        except InputError as exc:
            return str(exc), [], sinks, columns
    return got.table, list(got.notes), sinks, columns


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("mix", range(len(MIXES)))
def test_columns_read_as_the_fast_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int, mix: int) -> None:
    files = _files(random.Random(seed))
    written = {name: _write(tmp_path / name, task, recs, declared) for name, (task, recs, declared, _) in files.items()}
    paths: list[Any] = []
    for m in MIXES[mix]:
        name, _, file = m.rpartition("=")
        paths.append(f"{name}={written[file]}" if name else written[file])
    for cluster in (None, "passage_id"):
        for more in TUNINGS:
            got = _reading(monkeypatch, paths, cluster, ReadTuning(**more))
            want = _reading(monkeypatch, paths, cluster, ReadTuning(lm_columns=False, **more))
            assert_same_reading(got[0], want[0])
            if not isinstance(got[0], str):
                assert list(got[0].columns) == list(want[0].columns)
            assert got[1] == want[1]  # notes
            assert got[2] == want[2]  # what the record pass left for _finish, file by file
            assert not want[3]  # the reference never took the columns
            for file, as_columns in got[3].items():  # the files the clean ones are, and only they
                expected = files[file][3] and not (cluster is not None and file == "no_cluster")
                assert as_columns == expected, (file, cluster)
            if more.get("lm_batch") and "NAME2=late_regular" in MIXES[mix]:
                assert "late_regular" in got[3]  # (after one record of the general path)
    if mix == 5:
        assert isinstance(got[0], str) and "passage_id" in got[0] and "\n" not in got[0]


@pytest.mark.parametrize("seed", range(6))
def test_random_files_read_as_the_fast_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """Clean multiple-choice files with a few records changed at random (each change one the
    columns must match or decline), read alone and together."""
    rng = random.Random(100 + seed)
    changes = [{"target": 7}, {"target": "1"}, {"doc_id": "x"}, {"doc__passage_id": 4}, {"doc__passage_id": None},
               {"acc": 0}, {"acc": [1, 2]}, {"doc_hash": 5}, {"filter": "other"}, {"fr__1": [-1.0, None]},
               {"fr__0": [0, False]}, {"metrics": ["acc", "f1"], "f1": 0.5}, {"scores_per_repeat": {"acc": [0.0]}}]
    paths = []
    for f in range(4):
        recs = [_mc(rng, i, k=rng.choice([2, 4])) for i in range(rng.randrange(2, 60))]
        for _ in range(rng.choice([0, 0, 1, 2])):
            recs = _changed(recs, rng.randrange(1, len(recs)), **rng.choice(changes))
        paths.append(_write(tmp_path / f"f{f}", f"t{f}", recs))
    for cluster in (None, "passage_id"):
        for more in TUNINGS:
            for some in ([p] for p in paths):
                got = _reading(monkeypatch, some, cluster, ReadTuning(**more))
                want = _reading(monkeypatch, some, cluster, ReadTuning(lm_columns=False, **more))
                assert_same_reading(got[0], want[0])
                assert got[1:3] == want[1:3]
            got = _reading(monkeypatch, paths, cluster, ReadTuning(**more))
            want = _reading(monkeypatch, paths, cluster, ReadTuning(lm_columns=False, **more))
            assert_same_reading(got[0], want[0])
            assert got[1:3] == want[1:3]
