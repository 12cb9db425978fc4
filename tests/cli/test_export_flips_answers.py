"""``export --flips`` keeps each answer as the log holds it: Inspect's table keeps the summary form
of answers (whitespace collapsed: :func:`evaladdon.adapters.inspect.records.thin_text`), so the
flipped items' answers are looked up in full (:func:`evaladdon.adapters.inspect.inputs.full_answers`);
a CSV cell or a JSON string holds their newlines, while the terminal still shows one line."""

from __future__ import annotations

import copy
import csv
import json
from pathlib import Path
from typing import Callable

from built_logs import inspect_base, write_inspect_json

Cli = Callable[..., tuple[int, str, str]]


def answer(model: str, i: int) -> str:
    return f"{model} says {i}:\n  step one\r\n\tstep  two\n\nfinal"


def _pair(tmp: Path) -> tuple[Path, Path]:
    header, samples = inspect_base()
    samples = [s for s in samples if s["epoch"] == 1][:12]
    out = []
    for k, model in enumerate(("model/a", "model/b")):
        h = copy.deepcopy(header)
        h["eval"]["eval_id"], h["eval"]["run_id"], h["eval"]["model"] = f"ev{k}", f"run{k}", model
        ss = copy.deepcopy(samples)
        for i, s in enumerate(ss):
            right = (i % 2 == 0) != (k == 1 and i < 4)  # items 0-3 flip
            s["scores"] = {"match": {"value": "C" if right else "I", "answer": answer(model, i)}}
        out.append(write_inspect_json(tmp / f"log{k}.json", h, ss))
    return out[0], out[1]


def test_export_flips_keeps_answers_whole(tmp_path: Path, cli: Cli) -> None:
    a, b = _pair(tmp_path)
    code, _, err = cli("export", a, b, "--flips", "-o", tmp_path / "f.csv")
    assert code == 0 and "wrote 4 flips" in err, err
    with (tmp_path / "f.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["item"], r["answer_a"], r["answer_b"]) for r in rows] == [
        (f"q{i:03d}", answer("model/a", i), answer("model/b", i)) for i in (0, 2, 1, 3)]
    code, _, err = cli("export", a, b, "--flips", "-o", tmp_path / "f.jsonl")
    assert code == 0, err
    recs = [json.loads(x) for x in (tmp_path / "f.jsonl").read_text().splitlines()]
    assert [r["answer_b"] for r in recs] == [answer("model/b", i) for i in (0, 2, 1, 3)]


def test_terminal_and_json_flips(tmp_path: Path, cli: Cli) -> None:
    a, b = _pair(tmp_path)
    code, out, _ = cli("compare", a, b, "--flips", "--wide")
    assert code == 0 and "\r" not in out and "\t" not in out
    rows = [x for x in out.splitlines() if "right->wrong" in x or "wrong->right" in x]
    assert rows and all("step one" in x for x in rows[1:])  # one line per flip: the newlines shown as \\n
    code, out, _ = cli("compare", a, b, "--flips", "--json")
    flips = [r for r in json.loads(out)["results"] if r.get("record") == "flip"]
    assert flips[0]["answer_a"] == answer("model/a", 0)
