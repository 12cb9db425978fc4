"""Typed lm-eval lines (msgspec, ``lm_eval.typed``) read exactly as orjson's parse of the whole line.

The reference is the same reader with ``ReadTuning(typed_lines=False)`` (every line parsed by
orjson, the reader ``test_lm_eval_fast.py`` holds to its general loop).  Seeded random files mix
regular multiple-choice records with what a typed decoder could read differently: integers past
int64 (orjson: floats; msgspec: ints) in every field read, floats of many digits, ``-0.0``,
``NaN`` literals, non-ASCII text, bytes that are not UTF-8 in a field the decoder skips, escaped
and repeated keys, ``scores_per_repeat`` present or null, nesting past the depth limits in a
skipped field, metric values that are lists and objects, metric names that are field names.
Same table, dtypes and notes, or the same one-line error.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest

import evaladdon.adapters.lm_eval as L
import evaladdon.adapters.lm_eval.samples as S
from evaladdon.adapters import ReadTuning, read_runs
from evaladdon.adapters.common.jsonlines import TYPED_MISSES, JsonLines
from evaladdon.adapters.lm_eval.typed import record_decoder
from evaladdon.errors import InputError
from closeness import assert_same_reading
from built_logs import write_lm_eval_results

msgspec = pytest.importorskip("msgspec", reason="msgspec (a dependency) is not installed: nothing typed to compare")
ERRORS = (msgspec.DecodeError,)

TS = "2026-03-04T05-06-07.000008"
OFF = ReadTuning(typed_lines=False)
BIG = [2**63 - 1, 2**63, 2**64 - 1, 2**64, -2**63, -2**63 - 1, 10**30]


def _regular(rng: random.Random, i: int, k: int = 4) -> dict[str, Any]:
    fr = [[-rng.random() * 10, j == 0] for j in range(k)]
    return {"doc_id": i, "doc": {"passage_id": f"p{i // 3}", "n": i % 5, "q": "x" * 40}, "target": rng.randrange(k),
            "arguments": {"gen_args_0": {"arg_0": "ctx", "arg_1": " a"}}, "resps": [[x] for x in fr],
            "filtered_resps": fr, "filter": "none", "metrics": ["acc"], "doc_hash": f"{i:064x}",
            "prompt_hash": "p", "target_hash": "t", "acc": float(rng.random() < 0.5)}


def _line(rng: random.Random, rec: dict[str, Any]) -> bytes:
    """One record as a JSON line, with one irregularity of the kinds a typed decoder must match."""
    kind = rng.randrange(24)
    if kind == 0:
        rec[rng.choice(["doc_id", "acc", "target", "doc_hash"])] = rng.choice(BIG)
    elif kind == 1:
        rec["filtered_resps"][rng.randrange(4)][rng.randrange(2)] = rng.choice(BIG)
    elif kind == 2:
        rec["doc"][rng.choice(["passage_id", "n", "q"])] = rng.choice(BIG)
    elif kind == 3:
        rec["acc"] = rng.choice([0.1 + 0.2, 1e-320, 5e-324, 1.7976931348623157e308, -0.0, 123456789.123456789, 1e22])
    elif kind == 4:
        rec["doc"]["q"] = rng.choice(["é ü ß", "日本語", "\u2028", "😀"])
    elif kind == 5:
        rec["doc"]["passage_id"] = rng.choice(["é", "😀", "a\"b\\c", "\x7f"])
    elif kind == 6:
        rec["scores_per_repeat"] = rng.choice([None, {"acc": [1, 0]}, {}])
    elif kind == 7:
        rec["acc"] = rng.choice([[1, [2, "a"]], {"x": 1}, [[1, [2]]], {"x": [1]}, True, None, "1"])
    elif kind == 8:
        rec["metrics"], rec["target"] = ["acc", "target"], 0.5  # a metric named as a field
    elif kind == 9:
        rec["metrics"], rec["f1"], rec["bleu"] = ["f1", "bleu"], rng.random(), [["a", "b"], "c"]
    elif kind == 10:
        rec["arguments"] = []
        depth = rng.choice([100, 600, 1100, 5000])
        text = json.dumps(rec)
        return text.replace('"arguments": []', '"arguments": ' + "[" * depth + "]" * depth).encode()
    elif kind == 11:
        return json.dumps(rec).replace('"prompt_hash": "p"', '"prompt_hash": "\xff\xfe"').encode("latin-1")
    elif kind == 12:
        return json.dumps(rec).replace('"doc_id"', '"doc\\u005fid"').encode()
    elif kind == 13:
        return json.dumps(rec).replace('"acc": ', '"acc": 0.25, "acc": ', 1).encode()
    elif kind == 14:
        rec["filtered_resps"][1][0] = float("nan")  # a NaN literal
    elif kind == 15:
        rec["doc"] = rng.choice([None, "text", [1]])
    elif kind == 16:
        rec["filter"] = rng.choice([1, None, "strict"])
    elif kind == 17:
        rec["filtered_resps"] = rng.choice([[[-1.0, False, 1]], [[-1, False], [-2, True]], [["a", "b"]] * 4, "x"])
    elif kind == 18:
        return json.dumps(rec).replace('"prompt_hash": "p"', '"prompt_hash": "\\ud800"').encode()
    elif kind == 19:
        return json.dumps(rec, ensure_ascii=False).encode() + b"   \r"
    return json.dumps(rec).encode()


def _write(folder: Path, lines: list[bytes], task: str = "t") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"samples_{task}_{TS}.jsonl"
    path.write_bytes(b"".join(x + b"\n" for x in lines))
    write_lm_eval_results(folder, TS, task, len(lines), {"acc,none": 0.5})
    return path


def _read(path: Path, cluster: str | None, tuning: ReadTuning | None = None) -> pd.DataFrame | str:
    try:
        return L.read_samples(path, cluster, tuning=tuning)
    except InputError as exc:
        return str(exc)


_same = assert_same_reading


@pytest.mark.parametrize("seed", range(30))
def test_typed_lines_read_as_orjson_on_random_files(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    p_odd = rng.choice([0.02, 0.1, 0.5])
    lines = [_line(rng, _regular(rng, i)) if i and rng.random() < p_odd else json.dumps(_regular(rng, i)).encode()
             for i in range(80)]
    path = _write(tmp_path, lines)
    for cluster in (None, "passage_id", "n"):
        _same(_read(path, cluster), _read(path, cluster, OFF))
        _same(_read(path, cluster, ReadTuning(lm_flush=5, lm_run=3)), _read(path, cluster, OFF))


@pytest.mark.parametrize("value", BIG + [1e400])
def test_one_odd_number_in_a_regular_file(tmp_path: Path, value: int | float) -> None:
    """Each field read, in turn, holding an integer past int64 (or a number past float range)."""
    rng = random.Random(7)
    for field in ("doc_id", "acc", "target", "doc_hash", "passage_id", "ll"):
        recs = [_regular(rng, i) for i in range(40)]
        text = repr(value) if isinstance(value, int) else "1e400"
        lines = [json.dumps(r).encode() for r in recs]
        old = {"doc_id": b'"doc_id": 20', "acc": b'"acc": ', "target": b'"target": ', "doc_hash": b'"doc_hash": ',
               "passage_id": b'"passage_id": ', "ll": b'"filtered_resps": [['}[field]
        line = lines[20]
        at = line.index(old) + len(old)
        end = at
        while line[end:end + 1] not in (b",", b"}", b"]"):
            end += 1
        lines[20] = line[:at] + text.encode() + line[end:] if field != "doc_id" else line.replace(old, b'"doc_id": ' + text.encode())
        path = _write(tmp_path / field, lines)
        for cluster in (None, "passage_id"):
            _same(_read(path, cluster), _read(path, cluster, OFF))


def test_regular_lines_come_typed_and_odd_ones_as_orjson_gives_them(tmp_path: Path) -> None:
    rng = random.Random(3)
    recs = [_regular(rng, i) for i in range(5)]
    recs[2]["acc"] = 2**64
    path = _write(tmp_path, [json.dumps(r).encode() for r in recs])
    schema = S._fast_schema(recs[0], True)
    assert schema is not None
    typed = record_decoder(schema[3], "passage_id")
    assert typed is not None and record_decoder(schema[3], "passage_id") is typed  # built once per schema
    lines = JsonLines(path)
    got = []
    for n, r in lines:
        if n == 1:
            lines.typed(typed.decode, ERRORS)
        got.append(r)
        if type(r) is typed.struct:
            assert lines.parsed() == orjson.loads(path.read_bytes().splitlines()[n - 1])
    assert [type(r) for r in got] == [dict, typed.struct, dict, typed.struct, typed.struct]
    assert got[2] == orjson.loads(json.dumps(recs[2]))
    assert record_decoder(("doc_id", "filter", "doc_hash", "metrics", "filter"), None) is None  # a name twice
    assert record_decoder(schema[3], "doc.n") is None  # a dotted cluster: the doc read whole


def test_a_file_the_type_does_not_fit_stops_being_asked(tmp_path: Path) -> None:
    """After TYPED_MISSES refusals the lines go straight to orjson (each refusal costs a second parse)."""
    lines = [json.dumps({"k": i}).encode() for i in range(TYPED_MISSES + 10)]
    path = _write(tmp_path, lines)
    calls: list[int] = []

    def refuse(line: bytes) -> Any:
        calls.append(1)
        raise ERRORS[0]("no")

    it = JsonLines(path)
    got = []
    for n, r in it:
        if n == 1:
            it.typed(refuse, ERRORS)
        got.append(r)
    assert len(calls) == TYPED_MISSES and got == [{"k": i} for i in range(len(lines))]


def test_bad_lines_after_typed_ones_give_the_same_one_line_error(tmp_path: Path) -> None:
    rng = random.Random(5)
    good = [json.dumps(_regular(rng, i)).encode() for i in range(6)]
    deep = json.dumps(_regular(rng, 6)).replace('"arguments": {', '"arguments": ' + "[" * 3000 + "]" * 3000 + ', "x": {')
    for bad in (b'{"doc_id": 2, "acc": ', b"[1, 2]", deep.encode(), json.dumps(_regular(rng, 7)).encode()[:-1],
                good[1].replace(b'"prompt_hash": "p"', b'"prompt_hash": "\xff"')):
        path = _write(tmp_path / str(len(bad)), good[:3] + [bad] + good[3:])
        got = _read(path, "passage_id")
        assert got == _read(path, "passage_id", OFF)
        assert isinstance(got, str) and str(path) in got and "line 4" in got and "\n" not in got


def test_many_files_read_runs_typed_and_not(tmp_path: Path) -> None:
    rng = random.Random(9)
    paths = [_write(tmp_path / f"r{j}", [_line(rng, _regular(rng, i)) if rng.random() < 0.2
                                         else json.dumps(_regular(rng, i)).encode() for i in range(30)], task=f"t{j}")
             for j in range(6)]
    for cluster in (None, "passage_id"):
        try:
            want = read_runs(paths, cluster=cluster, tuning=OFF)
        except InputError as exc:
            with pytest.raises(InputError) as got:
                read_runs(paths, cluster=cluster)
            assert str(got.value) == str(exc)
            continue
        got = read_runs(paths, cluster=cluster)
        _same(got.table, want.table)
        assert got.notes == want.notes
