"""`compare` and `summarize` across HELM, promptfoo and DeepEval runs, through the CLI:
paired on items, McNemar for pass/fail (checked against scipy), the gate, and one-line exits."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from scipy.stats import binomtest


from conftest import REPO, run_cli

HELM_RUNS = "helm_bbq_official/benchmark_output_bbq/runs/v1"
TDS = "promptfoo_tds_project/tds-project-1/promptfoo_results.json"


run = run_cli


def records(out: str) -> list[dict]:
    """The comparison records of ``compare --json`` (a list, or ``{"results": [...]}``)."""
    data = json.loads(out)
    return data["results"] if isinstance(data, dict) else data


def discordance(a: dict[str, float], b: dict[str, float]) -> tuple[int, int]:
    """(n10, n01): A right and B wrong, A wrong and B right, over shared items."""
    shared = a.keys() & b.keys()
    return sum(a[i] == 1 and b[i] == 0 for i in shared), sum(a[i] == 0 and b[i] == 1 for i in shared)


def test_compare_helm_models_on_the_same_instances(capsys: pytest.CaptureFixture[str], real_logs: Path) -> None:
    code, out, err = run(capsys, "compare", str(real_logs / HELM_RUNS), "--all-pairs", "--metric", "exact_match",
                         "--json")
    assert code == 0, err
    res = records(out)
    assert len(res) == 3
    raw = {}
    for d in (real_logs / HELM_RUNS).iterdir():
        model = json.loads((d / "run_spec.json").read_text())["adapter_spec"]["model"]
        raw[model] = {e["instance_id"]: s["mean"] for e in json.loads((d / "per_instance_stats.json").read_text())
                      for s in e["stats"] if s["name"]["name"] == "exact_match"}
    for r in res:
        assert r["n"] == 50 and r["test"] == "mcnemar" and r["hash_mismatch"] == 0  # same input texts
        n10, n01 = discordance(raw[r["model_a"]], raw[r["model_b"]])
        assert (r["n10"], r["n01"]) == (n10, n01)
        if n10 + n01:
            assert r["p_value"] == pytest.approx(binomtest(n10, n10 + n01, 0.5).pvalue)


def test_compare_promptfoo_providers_on_the_same_tests(capsys: pytest.CaptureFixture[str], real_logs: Path) -> None:
    code, out, err = run(capsys, "compare", str(real_logs / TDS), "--metric", "pass", "--json")
    assert code == 0, err
    (r,) = records(out)
    data = json.loads((real_logs / TDS).read_text())["results"]["results"]
    by = {}
    for row in data:
        by.setdefault(row["provider"]["id"], {})[row["testIdx"]] = float(row["success"])
    assert r["n"] == 5 and r["hash_mismatch"] == 0
    assert (r["n10"], r["n01"]) == discordance(by[r["run_a"]], by[r["run_b"]])
    assert r["p_value"] == pytest.approx(binomtest(r["n10"], r["n10"] + r["n01"], 0.5).pvalue)
    # one file with 8 (provider, prompt) arms: --baseline names one arm, every other is compared to it
    v2 = real_logs / "promptfoo_examples/pf-v2-2024-06-05/output.json"
    code, out, err = run(capsys, "compare", str(v2), "--metric", "pass", "--json", "--baseline",
                         "openai:gpt-3.5-turbo | Write a haiku about: {{body}}")
    assert code == 0, err
    assert len(records(out)) == 7


def test_compare_deepeval_configurations(capsys: pytest.CaptureFixture[str], real_logs: Path, tmp_path: Path) -> None:
    # the shipped pair shares one test case (same name, same input hash): too few to compare, said in one line
    a, b = real_logs / "deepeval_beeai/beeai-2025-12-22", real_logs / "deepeval_beeai/beeai-2025-12-31"
    code, out, err = run(capsys, "compare", str(a), str(b), "--metric", "Exact Match/success")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "at least two shared items" in err
    # two configurations on the same 40 inputs; B regresses: McNemar and the gate
    rng_a = [1.0] * 30 + [0.0] * 10
    rng_b = [1.0] * 12 + [0.0] * 18 + [1.0] * 2 + [0.0] * 8
    for folder, scores, hp in (("base", rng_a, "base_k5"), ("new", rng_b, "reranker")):
        d = tmp_path / folder / ".deepeval"
        d.mkdir(parents=True)
        cases = [{"name": f"test_case_{i}", "input": f"question {i}", "success": s == 1.0,
                  "metricsData": [{"name": "Correctness [GEval]", "score": s, "threshold": 0.5, "success": s == 1.0}]}
                 for i, s in enumerate(scores)]
        (d / ".latest_test_run.json").write_text(json.dumps({"testRunData": {
            "testCases": cases, "conversationalTestCases": [], "hyperparameters": {"retriever": hp},
            "metricsScores": [{"metric": "Correctness [GEval]", "scores": scores, "passes": int(sum(scores)),
                               "fails": int(len(scores) - sum(scores)), "errors": 0}]}}))
    code, out, err = run(capsys, "compare", str(tmp_path / "base"), str(tmp_path / "new"), "--metric",
                         "Correctness [GEval]/success", "--json", "--fail-on-regression")
    assert code == 1, err
    (r,) = records(out)
    assert r["model_a"] == "retriever=base_k5" and r["n"] == 40 and (r["n10"], r["n01"]) == (18, 2)
    assert r["p_value"] == pytest.approx(binomtest(18, 20, 0.5).pvalue)
    assert "disagree" not in err


def test_promptfoo_gate_passes_without_a_regression(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rows = []
    for i in range(30):
        for prov, ok in (("openai:a", i % 3 != 0), ("openai:b", i % 3 != 0 or i == 0)):
            rows.append({"provider": {"id": prov}, "prompt": {"raw": "p", "label": "p"}, "promptIdx": 0,
                         "testIdx": i, "vars": {"q": i}, "success": ok, "score": float(ok), "failureReason": 0 if ok else 1,
                         "gradingResult": {"pass": ok, "score": float(ok), "reason": "r"}})
    f = tmp_path / "o.json"
    f.write_text(json.dumps({"evalId": "e", "results": {"version": 3, "results": rows, "stats": {}}, "config": {}}))
    code, out, err = run(capsys, "compare", str(f), "--metric", "pass", "--fail-on-regression", "--json")
    assert code == 0, err
    (r,) = records(out)
    assert r["n"] == 30 and (r["n10"], r["n01"]) == (0, 1)


BAD_INPUTS = {
    "truncated.json": '{"evalId": "e", "results": {"version": 3, "results": [{"success": tr',
    "notlist.json": '{"evalId": "e", "results": {"version": 3, "results": {"a": 1}}}',
    "nosuccess.json": '{"evalId": "e", "results": {"version": 3, "results": [{"prompt": "p", "vars": {}}]}}',
    "rowtype.json": '{"evalId": "e", "results": {"version": 3, "results": [7]}}',
    "list2023.json": '[{"prompt": "p {{x}}", "output": "o", "x": "1"}]',
    ".latest_test_run.json": '{"testRunData": {"testCases": {"name": 1}}}',
    "link.json": '{"testRunLink": "https://app.confident-ai.com/x"}',
    "metricdata.json": '{"testRunData": {"testCases": [{"name": "a", "metricsData": [3]}]}}',
    "per_instance_stats.json": '[{"instance_id": "a", "train_trial_index": "x", "stats": []}]',
    "stats.json": '[{"name": {"name": "exact_match", "split": "test"}, "count": 1, "sum": 1, "mean": 1}]',
    "plain.csv": '"[openai:gpt-4] What year is it?","[openai:gpt-3.5] What year is it?"\n2021,2022\n',
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_inputs_one_line_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str) -> None:
    f = tmp_path / name
    f.write_text(BAD_INPUTS[name])
    code, out, err = run(capsys, "summarize", str(f))
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and str(f) in lines[0] and "Traceback" not in err


def test_bad_helm_run_directory_through_the_module(tmp_path: Path) -> None:
    d = tmp_path / "runs" / "v1" / "bbq:model=x"
    d.mkdir(parents=True)
    (d / "per_instance_stats.json").write_text('[{"instance_id": "a", "stats": [{"name": {"name": "em"}, "count": "1"}]}]')
    (d / "run_spec.json").write_text('{"name": "bbq:model=x", "adapter_spec": {"model": "x"}}')
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    p = subprocess.run([sys.executable, "-m", "evaladdon.cli.main", "summarize", str(d)], capture_output=True,
                       text=True, env=env, cwd=REPO, timeout=120)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "count is a string" in p.stderr


def test_ingest_helm_run_directory_and_compare_from_the_store(capsys: pytest.CaptureFixture[str], real_logs: Path,
                                                               tmp_path: Path) -> None:
    runs = sorted(p for p in (real_logs / HELM_RUNS).iterdir() if p.is_dir())
    store = tmp_path / "store"
    code, _, err = run(capsys, "ingest", str(runs[0]), str(runs[1]), "--store", str(store), "--quiet")
    assert code == 0, err  # a run directory is one input, read through its per-instance stats
    code, out, err = run(capsys, "compare", "--store", str(store), "--metric", "exact_match", "--json")
    assert code == 0, err
    from_store = records(out)
    code, out, err = run(capsys, "compare", str(runs[0]), str(runs[1]), "--metric", "exact_match", "--json")
    assert code == 0, err
    (direct,) = records(out)
    (stored,) = from_store
    assert (stored["n10"], stored["n01"], stored["p_value"]) == (direct["n10"], direct["n01"], direct["p_value"])
