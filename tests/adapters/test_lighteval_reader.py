"""lighteval details (parquet) and results JSON -> canonical rows (evaladdon.adapters.lighteval).

No lighteval output small enough to keep was found in a public repository (the reference details
in huggingface/lighteval's tests are Git LFS pointers), so the files are built here as lighteval's
``EvaluationTracker.save`` writes them: ``datasets.Dataset.from_list([asdict(detail)])`` with the
columns sorted and ``id`` dropped, ``to_parquet``, for the three generations of ``Detail`` (0.10 on:
``doc``/``metric``/``model_response``; 0.8-0.9: ``example``/``metrics`` typed; up to 0.7: every
field ``str()``-ed), and ``results_<date>.json`` with lighteval's own aggregations computed by the
libraries lighteval calls (``np.mean``, ``sklearn.metrics.matthews_corrcoef``, ``sacrebleu``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("datasets", reason="datasets (lighteval's own writer) is not installed")

DATE = "2025-11-05T14-43-47.148527"
TASK = "lighteval|boolq|0"
N = 40


def _save(rows: list[dict[str, Any]], path: Path) -> None:
    from datasets import Dataset
    from datasets.utils.logging import disable_progress_bar

    disable_progress_bar()
    ds = Dataset.from_list(rows)
    ds = ds.select_columns(sorted(c for c in ds.column_names if c != "id"))
    path.parent.mkdir(parents=True, exist_ok=True)
    ds.to_parquet(str(path))


def details_rows(queries: list[str], metrics: list[dict[str, Any]], gen: str = "doc",
                 ids: list[str] | None = None) -> list[dict[str, Any]]:
    """``asdict(Detail)`` per sample, in generation ``doc`` (0.10 on), ``typed`` (0.8-0.9) or ``str`` (<= 0.7)."""
    out = []
    for i, (q, m) in enumerate(zip(queries, metrics, strict=True)):
        if gen == "doc":
            out.append({"doc": {"query": q, "choices": [" yes", " no"], "gold_index": 0, "instruction": None,
                                "id": ids[i] if ids else "", "task_name": "boolq", "num_samples": 1},
                        "model_response": {"input": q, "text": ["yes"], "logprobs": [-0.1, -2.0],
                                           "input_tokens": [1, 2], "output_tokens": [[3]]},
                        "metric": m})
        else:
            rec = {"example": q, "full_prompt": q, "instruction": "", "num_effective_few_shots": 0,
                   "num_asked_few_shots": 0, "predictions": [["yes"]], "gold": ["yes"], "choices": [" yes", " no"],
                   "gold_index": [0], "metrics": m, "specifics": {"subset": "boolq"}}
            out.append({k: str(v) for k, v in rec.items()} if gen == "str" else rec)
    return out


def write_run(root: Path, model: str, tasks: dict[str, list[dict[str, Any]]], results: dict[str, Any],
              date: str = DATE) -> Path:
    for task, rows in tasks.items():
        _save(rows, root / "details" / model / date / f"details_{task}_{date}.parquet")
    doc = {"config_general": {"lighteval_sha": "abc123", "num_fewshot_seeds": 1, "max_samples": None,
                              "job_id": "0", "model_name": model},
           "results": results, "versions": {}, "config_tasks": {}, "summary_tasks": {}, "summary_general": {}}
    p = root / "results" / model / f"results_{date}.json"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(doc, indent=2))
    return p


def _boolq(seed: int) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    golds = rng.integers(0, 2, N)
    preds = np.where(rng.random(N) < 0.7, golds, 1 - golds)
    return [f"Is claim {i} true?" for i in range(N)], (golds == preds).astype(float), golds, preds


def _build(root: Path, model: str, seed: int, gen: str = "doc", mcc: bool = True, shift: float = 0.0) -> Path:
    from sklearn.metrics import matthews_corrcoef

    qs, acc, golds, preds = _boolq(seed)
    metrics: list[dict[str, Any]] = [{"acc": float(a)} for a in acc]
    if mcc:  # LoglikelihoodPreparator: golds = the gold indices (a list), preds = the argmax
        for m, g, p in zip(metrics, golds, preds, strict=True):
            m["mcc"] = {"golds": [int(g)], "preds": int(p)}
    res: dict[str, Any] = {"acc": float(np.mean(acc)) + shift, "acc_stderr": float(np.std(acc, ddof=1) / math.sqrt(N))}
    if mcc:
        res["mcc"] = float(matthews_corrcoef(golds, preds))
    ids = [f"boolq-{i}" for i in range(N)] if gen == "doc" else None
    return write_run(root, model, {TASK: details_rows(qs, metrics, gen, ids)},
                     {TASK: res, "all": {"acc": res["acc"]}})


def _json(cli: Any, *args: object) -> dict[str, Any]:
    code, out, err = cli(*args, "--json")
    assert code == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


@pytest.mark.parametrize("gen", ["doc", "typed", "str"])
def test_every_generation_reproduces_the_reported_mean(cli: Any, tmp_path: Path, gen: str) -> None:
    _build(tmp_path, "org/model-a", 1, gen=gen, mcc=gen != "str")
    qs, acc, _, _ = _boolq(1)
    got = _json(cli, "summarize", tmp_path)
    (rec,) = [r for r in got["results"] if r["metric"] == "acc"]
    assert rec["task"] == TASK and rec["model"] == "org/model-a" and rec["n_items"] == N
    assert rec["mean"] == pytest.approx(float(np.mean(acc)), abs=1e-12)
    assert any("reproduce lighteval's reported acc" in n for n in got["notes"])
    assert not any("DOES NOT" in n for n in got["notes"])


def test_items_are_doc_ids_else_query_hashes(tmp_path: Path) -> None:
    from evaladdon.adapters import load
    from evaladdon.adapters.common.jsondoc import stable_hash

    _build(tmp_path / "new", "m", 1, gen="doc")
    _build(tmp_path / "old", "m", 1, gen="typed")
    new, old = load([tmp_path / "new"]), load([tmp_path / "old"])
    acc_new = new[new["metric"] == "acc"]
    assert list(acc_new["item"])[:2] == ["boolq-0", "boolq-1"]
    assert set(new["harness"]) == {"lighteval"} and set(new["epoch"]) == {1}
    qs, acc, _, _ = _boolq(1)
    assert list(acc_new["item_hash"]) == [stable_hash(q) for q in qs]
    acc_old = old[old["metric"] == "acc"]
    assert list(acc_old["item"]) == [stable_hash(q) for q in qs]
    np.testing.assert_array_equal(acc_old["value"].to_numpy(), acc)
    np.testing.assert_array_equal(acc_new["value"].to_numpy(), acc)
    assert set(new.loc[new["metric"] == "mcc", "error"]) == {"corpus-level metric (per-item inputs, not a score)"}


def test_two_models_pair_on_the_same_samples(cli: Any, tmp_path: Path) -> None:
    _build(tmp_path / "a", "org/a", 1, gen="typed", mcc=False)
    _build(tmp_path / "b", "org/b", 2, gen="typed", mcc=False)
    got = _json(cli, "compare", tmp_path / "a" / "details", tmp_path / "b" / "details")
    (rec,) = [r for r in got["results"] if r["metric"] == "acc"]
    _, acc_a, _, _ = _boolq(1)
    _, acc_b, _, _ = _boolq(2)
    assert rec["n"] == N and rec["only_a"] == rec["only_b"] == rec["hash_mismatch"] == 0
    assert rec["delta"] == pytest.approx(float(np.mean(acc_b - acc_a)), abs=1e-12)
    assert rec["n10"] == int(((acc_a == 1) & (acc_b == 0)).sum()) and rec["n01"] == int(((acc_a == 0) & (acc_b == 1)).sum())


def test_corpus_mcc_is_recomputed_and_reproduces_lighteval(cli: Any, tmp_path: Path) -> None:
    from sklearn.metrics import matthews_corrcoef

    _build(tmp_path, "m", 3)
    _, _, golds, preds = _boolq(3)
    code, out, err = cli("metrics", tmp_path, "--json")
    assert code == 0, err
    text = json.dumps(json.loads(out))
    assert "reproduces the results file's value" in text
    assert repr(float(matthews_corrcoef(golds, preds))) in text


def test_bleu_recomputed_as_lighteval_does(cli: Any, tmp_path: Path) -> None:
    sacrebleu = pytest.importorskip("sacrebleu", reason="sacrebleu is not installed")
    refs = [f"the cat sat on mat number {i}" for i in range(12)]
    hyps = [f"the cat sat on the mat {i}" if i % 3 else f"a dog sat on mat number {i}" for i in range(12)]
    metrics = [{"bleu": {"golds": [r], "preds": [h]}} for r, h in zip(refs, hyps, strict=True)]
    # lighteval's CorpusLevelTranslationMetric("bleu"): golds = [[gold[0] for gold in golds]]
    bleu = float(sacrebleu.BLEU().corpus_score(hyps, [refs]).score)
    write_run(tmp_path, "m", {"lighteval|wmt|0": details_rows([f"src {i}" for i in range(12)], metrics, "doc")},
              {"lighteval|wmt|0": {"bleu": bleu}})
    code, out, err = cli("metrics", tmp_path, "--json")
    assert code == 0, err
    assert "reproduces the results file's value" in out and repr(bleu) in out


def test_differences_and_unrecomputed_values_are_explained(cli: Any, tmp_path: Path) -> None:
    _build(tmp_path, "m", 4, shift=0.01, mcc=False)
    p = tmp_path / "results" / "m" / f"results_{DATE}.json"
    doc = json.loads(p.read_text())
    doc["results"][TASK]["loglikelihood_f1"] = 0.5  # CorpusLevelF1Score: not recomputed
    doc["results"][TASK]["extra"] = 0.25  # no per-item rows
    p.write_text(json.dumps(doc))
    got = _json(cli, "summarize", tmp_path)
    notes = "\n".join(got["notes"])
    assert "acc" in notes and "DOES NOT reproduce" in notes
    assert "extra = 0.25" in notes and "the harness value (no per-item rows for it)" in notes


def test_results_alone_are_harness_reported(cli: Any, tmp_path: Path) -> None:
    p = _build(tmp_path, "m", 5)
    for f in (tmp_path / "details").rglob("*.parquet"):
        f.unlink()
    got = _json(cli, "summarize", p)
    recs = {r["metric"]: r for r in got["results"]}
    assert set(recs) == {"acc", "mcc"} and all(r["harness_reported"] for r in recs.values())
    _, acc, _, _ = _boolq(5)
    assert recs["acc"]["mean"] == pytest.approx(float(np.mean(acc)))
    assert recs["acc"]["se"] == pytest.approx(float(np.std(acc, ddof=1) / math.sqrt(N)))
    assert any("average(s) over tasks" in n for n in got["notes"])


def test_a_broken_details_file_is_one_line(cli: Any, tmp_path: Path) -> None:
    bad = tmp_path / f"details_{TASK}_{DATE}.parquet"
    _build(tmp_path / "x", "m", 1, mcc=False)
    good = next((tmp_path / "x").rglob("*.parquet"))
    bad.write_bytes(good.read_bytes()[:200])
    code, out, err = cli("summarize", bad)
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert str(bad) in err and "parquet" in err


def test_perplexities_recomputed_as_lighteval_does(cli: Any, tmp_path: Path) -> None:
    rng = np.random.default_rng(6)
    lp = -rng.uniform(5, 40, 25)  # PerplexityPreparator: the summed log-probability of a reference
    w = rng.integers(10, 60, 25)  # and its length in bytes / words
    metrics = [{"word_perplexity": {"logprobs": float(a), "weights": int(b)},
                "bits_per_byte": {"logprobs": float(a), "weights": int(b)}} for a, b in zip(lp, w, strict=True)]
    # CorpusLevelPerplexityMetric: weighted_perplexity = exp(-sum lp / sum w); bits_per_byte = -sum lp / sum w / ln 2
    want = {"word_perplexity": math.exp(-lp.sum() / w.sum()), "bits_per_byte": -lp.sum() / w.sum() / math.log(2)}
    write_run(tmp_path, "m", {"lighteval|wikitext|0": details_rows([f"doc {i}" for i in range(25)], metrics, "doc")},
              {"lighteval|wikitext|0": dict(want)})
    code, out, err = cli("metrics", tmp_path, "--json")
    assert code == 0, err
    text = json.dumps(json.loads(out))
    assert text.count("reproduces the results file's value") == 2
    for v in want.values():
        assert repr(float(v)) in text
