"""A small JSON-lines file typed in one ``decode_lines`` call reads exactly as line by line.

``JsonLines._whole`` hands the rest of a file of at most ``WHOLE_BYTES`` to the typed decoder's
``decode_lines`` at once (``benchmarks/bench_lm_eval.py``: the per-file cost of 100-doc lm-eval
samples files).  The reference is the same reader streaming line by line (``WHOLE_BYTES`` set
below every file's size: the per-line typed path, main's reading before this change).  Mixes of
files through ``read_runs`` -- several tasks, multiple-choice and generate_until, a file whose
metric set changes midway (typed records handed to the general path: ``parsed(place)``), an
incomplete file, ``NAME=PATH``, blank lines, lines that start with blanks, CRLF ends, no final
newline, non-ASCII text, two values on one line, a truncated line -- give the same table
(values, dtypes, column order, attrs), the same notes and the same one-line errors.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import orjson
import pytest

import evaladdon.adapters.common.jsonlines as J
from evaladdon.adapters import read_runs
from evaladdon.adapters.lm_eval import samples as S
from evaladdon.adapters.lm_eval.typed import record_decoder
from evaladdon.errors import InputError
from closeness import assert_same_reading
from built_logs import write_lm_eval_results

pytest.importorskip("msgspec", reason="msgspec (a dependency) is not installed: nothing typed to compare")

TS = "2026-05-06T07-08-09.000010"


def _mc(rng: random.Random, i: int, metrics: tuple[str, ...] = ("acc",)) -> dict[str, Any]:
    fr = [[-rng.random() * 10, j == 0] for j in range(4)]
    rec = {"doc_id": i, "doc": {"passage_id": f"p{i // 3}", "q": "lorem " * 8}, "target": rng.randrange(4),
           "arguments": {"gen_args_0": {"arg_0": "ctx", "arg_1": " a"}}, "resps": [[x] for x in fr],
           "filtered_resps": fr, "filter": "none", "metrics": list(metrics), "doc_hash": f"{i:064x}",
           "prompt_hash": "p", "target_hash": "t"}
    for m in metrics:
        rec[m] = float(rng.random() < 0.5)
    return rec


def _gen(rng: random.Random, i: int) -> dict[str, Any]:
    return {"doc_id": i, "doc": {"passage_id": f"g{i // 4}", "question": "2+2?"}, "target": "4",
            "arguments": {"gen_args_0": {"arg_0": "Q: 2+2?", "arg_1": {"until": ["\n"]}}},
            "resps": [["4"]], "filtered_resps": ["4"], "filter": "strict-match", "metrics": ["exact_match"],
            "doc_hash": f"{i:064x}", "prompt_hash": "p", "target_hash": "t",
            "exact_match": float(rng.random() < 0.7)}


def _write(folder: Path, task: str, lines: list[bytes], declared: int | None = None, end: bytes = b"\n") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"samples_{task}_{TS}.jsonl"
    path.write_bytes(end.join(lines) + end)
    n = declared if declared is not None else len(lines)
    write_lm_eval_results(folder, TS, task, n, {"acc,none": 0.5, "exact_match,strict-match": 0.7})
    return path


def _lines(recs: list[dict[str, Any]]) -> list[bytes]:
    return [json.dumps(r).encode() for r in recs]


def _strip_final_newline(path: Path) -> Path:
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    return path


def _files(tmp: Path, seed: int) -> dict[str, Path]:
    rng = random.Random(seed)
    mc = _lines([_mc(rng, i) for i in range(40)])
    mixed = _lines([_mc(rng, i, ("acc", "brier") if i % 7 == 3 else ("acc",)) for i in range(30)])
    gen = _lines([_gen(rng, i) for i in range(25)])
    return {
        "mc": _write(tmp / "mc", "arc", mc),
        "mc2": _write(tmp / "mc2", "arc_b", _lines([_mc(rng, i) for i in range(20)])),
        "gen": _write(tmp / "gen", "gsm", gen),
        "mixed": _write(tmp / "mixed", "mix", mixed),
        "incomplete": _write(tmp / "inc", "inc", mc[:15], declared=40),
        "crlf": _write(tmp / "crlf", "crlf", mc[:12], end=b"\r\n"),
        "no_final_newline": _strip_final_newline(_write(tmp / "nofinal", "nofinal", mc[:9])),
        "blank": _write(tmp / "blank", "blank", mc[:5] + [b""] + mc[5:10] + [b"   "] + mc[10:14]),
        "indented": _write(tmp / "indent", "indent", mc[:4] + [b"  " + mc[4]] + mc[5:9]),
        "non_ascii": _write(tmp / "nonascii", "nonascii", mc[:3] + [mc[3].replace(b"lorem", "l\u00f6rem".encode())]
                            + mc[4:8]),
        "two_values": _write(tmp / "two", "two", mc[:3] + [mc[3] + b" " + mc[4]] + [b""] + mc[5:8]),
        "truncated": _write(tmp / "trunc", "trunc", mc[:6] + [mc[6][:-9]] + mc[7:9]),
        "big_int": _write(tmp / "bigint", "bigint", mc[:4] + [mc[4].replace(b'"doc_id": 4,', b'"doc_id": 18446744073709551616,')]
                          + mc[5:9]),
    }


def _reading(paths: list[Any], cluster: str | None) -> tuple[Any, list[str]] | str:
    try:
        got = read_runs(paths, cluster=cluster)
    except InputError as exc:
        return str(exc)
    return got.table, list(got.notes)


def _same(got: Any, want: Any) -> None:
    if isinstance(got, str) or isinstance(want, str):
        assert got == want
        return
    assert_same_reading(got[0], want[0])
    assert list(got[0].columns) == list(want[0].columns)
    assert got[1] == want[1]


MIXES = [
    ["mc", "mc2", "gen"],
    ["mc", "mixed", "gen", "incomplete"],
    ["NAME=mc", "mc2", "NAME2=gen", "mixed"],
    ["crlf", "no_final_newline", "blank", "indented", "non_ascii", "big_int"],
    ["mc", "two_values"],
    ["gen", "truncated", "mc"],
]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("mix", range(len(MIXES)))
def test_mixes_read_as_line_by_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int, mix: int) -> None:
    files = _files(tmp_path, seed)
    paths = [f"{m.partition('=')[0]}={files[m.partition('=')[2]]}" if "=" in m else files[m] for m in MIXES[mix]]
    whole: list[int | None] = []
    real = J._object_lines

    def spy(text: bytes) -> int | None:
        whole.append(real(text))
        return whole[-1]

    monkeypatch.setattr(J, "_object_lines", spy)
    for cluster in (None, "passage_id"):
        got = _reading(paths, cluster)
        with monkeypatch.context() as m:
            m.setattr(J, "WHOLE_BYTES", -1)  # every file streamed line by line
            want = _reading(paths, cluster)
        _same(got, want)
    if mix in (0, 1, 2):
        assert whole and all(n is not None for n in whole)  # the clean files took the one call
    if mix == 5:
        assert isinstance(got, str) and "line 7" in got and "\n" not in got


def test_the_one_call_gives_what_the_lines_give(tmp_path: Path) -> None:
    """Records, line numbers and ``parsed(place)`` of a file taken whole equal the per-line path's."""
    rng = random.Random(4)
    recs = [_mc(rng, i, ("acc", "brier") if i == 5 else ("acc",)) for i in range(12)]
    path = _write(tmp_path, "t", _lines(recs))
    schema = S._fast_schema(recs[0], True)
    assert schema is not None
    typed = record_decoder(schema[3], "passage_id")
    assert typed is not None
    lines_of = path.read_bytes().splitlines(keepends=True)
    for limit in (J.WHOLE_BYTES, -1):
        it = J.JsonLines(path)
        got = []
        old, J.WHOLE_BYTES = J.WHOLE_BYTES, limit
        try:
            for n, r in it:
                if n == 1:
                    it.typed(typed.decode, typed.errors, typed.decode_lines)
                got.append((n, type(r)))
                if type(r) is typed.struct:
                    assert it.parsed(n) == orjson.loads(lines_of[n - 1])
        finally:
            J.WHOLE_BYTES = old
        assert got == [(1, dict)] + [(n, typed.struct) for n in range(2, 13)]
        assert (it._batch is not None) == (limit >= 0)


@pytest.mark.parametrize("text,lines", [
    (b'{"a": 1}\n{"b": 2}\n', 2), (b'{"a": 1}\n{"b": 2}', 2), (b'{"a": 1}\r\n{"b": 2}\r\n', 2),
    (b'{"a": 1}\n\n{"b": 2}\n', None), (b'{"a": 1}\n {"b": 2}\n', None), (b' {"a": 1}\n', None),
    (b"", None), (b"[1]\n", None), (b'{"a": 1}\n\r\n', None),
])
def test_object_lines(text: bytes, lines: int | None) -> None:
    assert J._object_lines(text) == lines
