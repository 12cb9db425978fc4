"""Small logs built for tests in several folders (the tree mirrors the package, so a builder used
by more than one folder lives here, beside conftest.py, not in one folder's test module)."""

from __future__ import annotations

import copy
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from evaladdon.adapters.common.guard import read_member

from conftest import REPO

SAMPLE = REPO / "sample_logs" / "inspect" / "baseline.eval"


def synthetic(path: Path, model: str, seed: int, n_items: int = 60, epochs: int = 3, binary: bool = False) -> Path:
    """A long table: clustered items, several epochs, a few unscored rows."""
    rng = np.random.default_rng(seed)
    item = np.repeat(np.arange(n_items), epochs)
    p = rng.uniform(0.2, 0.9, n_items)[item]
    value = (rng.uniform(size=item.size) < p).astype(float) if binary else np.round(rng.normal(p, 0.3), 6)
    raw = value.astype(object)
    raw[::17] = "oops"
    df = pd.DataFrame({"model": model, "task": "t", "id": [f"q{i}" for i in item], "epoch": np.tile(np.arange(epochs), n_items),
                       "score": raw, "passage": [f"p{i // 5}" for i in item]})
    df.to_csv(path, index=False)
    return path


def inspect_base() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    with zipfile.ZipFile(SAMPLE) as zf:
        members = {i.filename: json.loads(read_member(zf, i, str(SAMPLE))) for i in zf.infolist()
                   if i.filename.endswith(".json")}
    return members["header.json"], [members[n] for n in sorted(members) if n.startswith("samples/")]

def write_inspect_json(path: Path, header: dict[str, Any], samples: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps({**header, "samples": samples}))
    return path


def inspect_edge_samples() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Duplicates (also of unscored samples, and one whose dropped record has its own score
    name and metadata keys), unscored / errored / limited samples, dict- and list-valued
    scores, an empty dict score, a second scorer with answers and confidence, metadata of
    mixed types, nested and missing."""
    header, samples = inspect_base()
    out = []
    for i, s in enumerate(samples):
        s = copy.deepcopy(s)
        name = next(iter(s["scores"]))
        if i % 7 == 1:
            s["scores"] = None
        if i % 11 == 2:
            s["scores"] = {}
        if i % 13 == 3:
            s["error"] = {"message": "boom"}
        if i % 17 == 4:
            s["limit"], s["scores"] = {"type": "token"}, None
        if s["scores"]:
            if i % 3 == 0:
                s["scores"][name]["value"] = {"a": 1, "b": "C", "c": [1, 2]}
            if i % 10 == 5:
                s["scores"][name]["value"] = {}
            if i % 4 == 2:
                s["scores"]["other"] = {"value": i * 0.5, "answer": f"ans{i % 3}",
                                        "metadata": {"confidence": 0.25 * (i % 5)}}
        md: dict[str, Any] = {"grp": f"g{i % 5}"}
        if i % 2:
            md["k"] = i
        if i % 3 == 0:
            md["s"] = f"v{i % 4}"
        if i % 5 == 0:
            md["b"] = bool(i % 2)
        if i % 4 == 1:
            md["mix"] = "x" if i % 8 == 1 else 3
        if i % 6 == 0:
            md["nest"] = {"a": {"b": f"deep{i % 3}"}}
        s["metadata"] = md
        out.append(s)
    for i in (0, 1, 2, 9, 30, 31):  # later records of earlier samples, in other batches
        again = copy.deepcopy(out[i])
        if again["scores"]:
            again["scores"] = {k: {**v, "value": "I" if v.get("value") == "C" else "C"}
                               for k, v in again["scores"].items()}
        else:
            again["scores"] = {"match": {"value": "C"}}
        out.append(again)
    out[5]["scores"] = {**(out[5]["scores"] or {}), "only_dropped": {"value": 1}}
    out[5]["metadata"] = {"zz": 1, **out[5]["metadata"]}
    out.append(copy.deepcopy(inspect_base()[1][5]))
    out.insert(20, copy.deepcopy(out[4]))
    return header, out


def nest(data: bytes, depth: int, at: float) -> bytes:
    """Wrap a JSON value found at ``at`` (the next ``:``) in ``depth`` arrays."""
    i = data.find(b":", int(len(data) * at))
    if i < 0:
        return b"[" * depth + data + b"]" * depth
    j = data.find(b",", i)
    j = len(data) if j < 0 else j
    return data[: i + 1] + b"[" * depth + data[i + 1 : j] + b"]" * depth + data[j:]


def lm_eval_corpus_run(folder: Path, seed: int) -> None:
    """A samples + results pair shaped like lm-eval 0.4.x with f1/mcc/bleu/ter items; the
    results values come from lm-eval's own aggregation functions (the oracle)."""
    from lm_eval.api.registry import get_aggregation

    rng = np.random.default_rng(seed)
    words = "alpha beta gamma delta epsilon zeta eta theta".split()
    recs = []
    for i in range(120):
        gold = int(rng.random() < 0.4)
        pred = gold if rng.random() < 0.75 else 1 - gold
        ref = " ".join(rng.choice(words, 6))
        hyp = " ".join(w if rng.random() < 0.7 else "x" for w in ref.split())
        recs.append({"doc_id": i, "doc": {"topic": f"t{i % 15}"}, "target": gold, "filter": "none",
                     "metrics": ["f1", "mcc", "bleu", "ter"], "f1": [gold, pred], "mcc": [gold, pred],
                     "bleu": [ref, hyp], "ter": [ref, hyp]})
    folder.mkdir(parents=True, exist_ok=True)
    ts = f"2026-01-0{seed}T00-00-00.000000"
    (folder / f"samples_synth_{ts}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    values = {f"{m},none": float(get_aggregation(agg)([tuple(r[m]) for r in recs]))
              for m, agg in [("f1", "f1"), ("mcc", "matthews_corrcoef"), ("bleu", "bleu"), ("ter", "ter")]}
    (folder / f"results_{ts}.json").write_text(json.dumps({
        "results": {"synth": {"alias": "synth", **values}},
        "configs": {"synth": {"task": "synth", "metric_list": [
            {"metric": "f1", "aggregation": "f1"}, {"metric": "mcc", "aggregation": "matthews_corrcoef"},
            {"metric": "bleu", "aggregation": "bleu"}, {"metric": "ter", "aggregation": "ter"}]}},
        "n-samples": {"synth": {"original": 120, "effective": 120}},
        "config": {"model": "hf", "model_args": f"pretrained=org/m{seed}"}}))


def write_lm_eval_results(folder: Path, ts: str, task: str, n: int, results: dict[str, float]) -> Path:
    """The ``results_<ts>.json`` beside a samples file of ``task``: ``results`` its aggregate
    metrics, ``n`` the declared number of samples (``n-samples``), an ``hf`` model ``org/m``."""
    path = folder / f"results_{ts}.json"
    path.write_text(json.dumps({
        "results": {task: results}, "configs": {task: {"task": task, "target_delimiter": " "}},
        "n-samples": {task: {"original": n, "effective": n}},
        "config": {"model": "hf", "model_args": "pretrained=org/m"}, "model_name": "org/m"}))
    return path
