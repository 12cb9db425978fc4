"""Issue 28 (rescore of lm-eval ``generate_until`` tasks): the samples reader gives ``prediction`` (the
first filtered response) and ``label`` (the target) when asked, and only then.

Oracles: the records themselves (read with ``json``); lm-eval's own ``exact_match_hf_evaluate`` and
``RegexFilter`` (``lm_eval.api.metrics``, ``lm_eval.filters.extraction``; the test skips without
lm-eval).  Real logs: ``lmeh_pr3936_negotiationtom_repeats`` (a generate_until task beside two
multiple-choice ones) and ``lmeh_bigrefactor_2023_output/_boolq-seq2seq.jsonl``.  Built files follow
lm-eval 0.4's samples format (one JSON line per (doc, filter): ``doc_id``, ``doc``, ``target``,
``resps``, ``filtered_resps``, ``filter``, ``metrics``, ``doc_hash``, metric values), with GSM8K's
task config (``lm_eval/tasks/gsm8k/gsm8k.yaml``: its two filters and exact_match options)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from evaladdon.adapters.read import read_runs

GSM8K_IGNORE = [",", "\\$", "(?s).*#### ", "\\.$"]  # gsm8k.yaml's regexes_to_ignore (ignore_case: true)
GSM8K_FILTERS = {"strict-match": ("#### (\\-?[0-9\\.\\,]+)", 0), "flexible-extract": ("(-?[$0-9.,]{2,})|(-?[0-9]+)", -1)}


def _lm_eval() -> tuple[Any, Any]:
    metrics = pytest.importorskip("lm_eval.api.metrics", reason="lm-eval is not installed")
    extraction = pytest.importorskip("lm_eval.filters.extraction", reason="lm-eval is not installed")
    return metrics.exact_match_hf_evaluate, extraction.RegexFilter


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _gsm8k(folder: Path, seed: int, n: int = 60) -> Path:
    """A gsm8k samples file as lm-eval writes it: the model's raw response, each filter's
    extraction by lm-eval's RegexFilter, exact_match by lm-eval's own function."""
    exact_match, regex_filter = _lm_eval()
    rng = np.random.default_rng(seed)
    records = []
    for i in range(n):
        truth = int(rng.integers(2, 5000))
        answer = f"She has {truth - 1} apples and buys 1 more: {truth - 1} + 1 = {truth}.\n#### {truth}"
        said = truth if rng.random() < 0.6 else truth + int(rng.integers(1, 9))
        style = i % 3
        resp = (f"{said - 1} + 1 = {said}.\n#### {said}" if style == 0 else
                f"So the total is ${said:,}." if style == 1 else f"The answer is {said}")
        for name, (pattern, group) in GSM8K_FILTERS.items():
            filt = regex_filter(regex_pattern=pattern, group_select=group)
            (out,) = filt.apply([[resp]], [{}])
            score = exact_match(predictions=[out[0]], references=[answer], regexes_to_ignore=GSM8K_IGNORE,
                                ignore_case=True)["exact_match"]
            records.append({"doc_id": i, "doc": {"question": f"q{i}", "answer": answer}, "target": answer,
                            "arguments": {"gen_args_0": {"arg_0": f"Question: q{i}\nAnswer:", "arg_1": {}}},
                            "resps": [[resp]], "filtered_resps": [out[0]], "filter": name,
                            "metrics": ["exact_match"], "doc_hash": f"h{i}", "prompt_hash": f"p{i}",
                            "target_hash": f"t{i}", "exact_match": float(score)})
    return _write(folder / "samples_gsm8k_2024-05-01T00-00-00.000000.jsonl", records)


def test_answers_only_when_asked_real_logs(real_logs: Path) -> None:
    folder = real_logs / "lmeh_pr3936_negotiationtom_repeats" / "Qwen__Qwen3-8B"
    gen = sorted(folder.glob("samples_negotiationtom_intention_*16-04-34*.jsonl"))
    boolq = real_logs / "lmeh_bigrefactor_2023_output" / "_boolq-seq2seq.jsonl"
    if len(gen) != 1 or not boolq.is_file():
        pytest.skip("the lm-eval generate_until example logs are not present")
    plain = read_runs([*gen, boolq]).table
    assert "prediction" not in plain.columns  # not asked: the table as before
    got = read_runs([*gen, boolq], answers=True).table
    assert got.drop(columns=["prediction", "label"]).equals(plain)
    from evaladdon.adapters.tuning import ReadTuning

    alone = read_runs([*gen, boolq], answers=True, tuning=ReadTuning(combine_lm_eval=False)).table
    pd.testing.assert_frame_equal(alone, got)  # a file read as its own DataFrame: the same answers
    for path in (gen[0], boolq):
        records = {str(r["doc_id"]): r for r in map(json.loads, path.read_text().splitlines()) if r}
        rows = got[(got["source"] == str(path)) & got["prediction"].notna()]
        assert set(rows["metric"]) == {"exact_match,none"}  # not the corpus-level f1 inputs
        assert len(rows) == len(records)
        assert all(p == records[i]["filtered_resps"][0] and lab == records[i]["target"]
                   for i, p, lab in zip(rows["item"], rows["prediction"], rows["label"], strict=True))


def test_real_boolq_logged_exact_match_is_plain_equality(real_logs: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """lm-eval's exact_match (no options) on the real boolq-seq2seq log is plain equality: every
    logged response has a leading space (`` no``), so it scored 0 everywhere; ``--rule exact``
    strips surrounding whitespace (as Inspect's ``match``) and credits the right answers."""
    exact_match, _ = _lm_eval()
    boolq = real_logs / "lmeh_bigrefactor_2023_output" / "_boolq-seq2seq.jsonl"
    if not boolq.is_file():
        pytest.skip("the boolq-seq2seq example log is not present")
    records = [json.loads(line) for line in boolq.read_text().splitlines() if line.strip()]
    oracle = [exact_match(predictions=[r["filtered_resps"][0]], references=[r["target"]])["exact_match"]
              for r in records]
    assert [r["exact_match"] for r in records] == oracle  # the logged values are lm-eval's plain equality
    code, out, err = cli("rescore", str(boolq), "--rule", "exact", "--json")
    assert code == 0, err
    rows = {r["metric"]: r for r in json.loads(out)["results"]}
    stripped = np.mean([r["filtered_resps"][0].strip() == r["target"] for r in records])
    assert rows["exact_match,none"]["mean"] == pytest.approx(np.mean(oracle))
    assert rows["exact_match,none [exact]"]["mean"] == pytest.approx(stripped) and stripped > 0.5


def test_rescore_numeric_reproduces_gsm8k_exact_match(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    path = _gsm8k(tmp_path / "m1", seed=1)
    got = read_runs([path], answers=True).table
    assert got["prediction"].notna().all() and got["label"].str.contains("#### ").all()
    from evaladdon.analysis.rescore import parse_rule, rule_scores

    scores = rule_scores(got["prediction"], got["label"], parse_rule("numeric"))
    assert np.array_equal(scores, got["value"].to_numpy())  # row by row, both filters
    code, out, err = cli("rescore", str(path), "--rule", "numeric", "--json")
    assert code == 0, err
    rows = {r["metric"]: r["mean"] for r in json.loads(out)["results"]}
    for name in GSM8K_FILTERS:
        assert rows[f"exact_match,{name} [numeric]"] == pytest.approx(rows[f"exact_match,{name}"])


def test_rescore_exact_reproduces_plain_exact_match_and_compare_rules(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """A generation task scored by lm-eval's exact_match with its defaults (plain equality) on
    answers without surrounding whitespace: ``--rule exact`` gives the logged values; a list
    target becomes a JSON array any of whose entries matches; ``compare --rules`` reads them."""
    exact_match, _ = _lm_eval()
    paths = []
    for run, seed in (("a", 4), ("b", 5)):
        rng = np.random.default_rng(seed)
        records = []
        for i in range(80):
            target: Any = ["Paris", "paris"] if i == 0 else ("yes" if i % 2 else "no")
            said = rng.choice(["yes", "no", "Yes", "No"]) if i else "paris"
            refs = target if isinstance(target, list) else [target]
            score = max(exact_match(predictions=[said], references=[t])["exact_match"] for t in refs)
            records.append({"doc_id": i, "doc": {"q": i}, "target": target, "resps": [[said]],
                            "filtered_resps": [said], "filter": "none", "metrics": ["exact_match"],
                            "doc_hash": f"h{i}", "prompt_hash": "p", "target_hash": "t", "exact_match": float(score)})
        paths.append(_write(tmp_path / run / "samples_yesno_2024-05-01T00-00-00.000000.jsonl", records))
    got = read_runs(paths, answers=True).table
    assert json.loads(got.loc[got["item"] == "0", "label"].iloc[0]) == ["Paris", "paris"]
    from evaladdon.analysis.rescore import parse_rule, rule_scores

    assert np.array_equal(rule_scores(got["prediction"], got["label"], parse_rule("exact")), got["value"].to_numpy())
    code, out, err = cli("compare", str(paths[0]), str(paths[1]), "--rules", "exact,normalized", "--json")
    assert code == 0, err
    (found,) = json.loads(out)["results"]
    by_rule = {r["rule"]: r for r in found["rules"]}
    assert set(by_rule) == {"logged", "exact", "normalized"}
    assert by_rule["exact"]["delta"] == pytest.approx(by_rule["logged"]["delta"])
