"""Issue 28 (judge bias on promptfoo and DeepEval): model-graded results read with the answer judged
(``prediction``) and the grader (``judge``), only when asked (``judged``, which ``judge bias`` sets).

Real logs: ``deepeval_beeai`` (LLM metrics with ``evaluationModel``; they timed out there, so they
have no scores).  No real promptfoo output with a model-graded assertion exists here: the promptfoo
files are built to promptfoo's documented output format (``version: 3``: ``{evalId, results:
{version, results[], stats}, config}``; a result row's ``gradingResult.componentResults`` with each
assertion's ``{pass, score, reason, assertion: {type, value, provider}}``), as is a DeepEval test run
with scored G-Eval results (the real files' layout).  Oracle of the regression: statsmodels OLS's coefficients,
CR2 cluster-robust SEs written out by hand (the tests, which both runs judged, are the clusters) on
the same answers' log2 length and one intercept per run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evaladdon.adapters.read import read_runs


def _promptfoo(path: Path, provider: str, seed: int, n: int = 80, judge: str | None = "openai:gpt-4o-mini") -> Path:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        output = "word " * int(rng.integers(1, 120))
        verdict = float(rng.random() < 0.3 + 0.4 * (len(output) > 300))  # a judge that likes long answers
        rubric: dict[str, Any] = {"type": "llm-rubric", "value": "answers the question"}
        if judge is not None:
            rubric["provider"] = judge if i % 2 else {"id": judge, "config": {"temperature": 0}}
        comps = [{"pass": True, "score": 1, "reason": "contains", "assertion": {"type": "icontains", "value": "word"}},
                 {"pass": bool(verdict), "score": verdict, "reason": "judged", "assertion": rubric}]
        rows.append({"promptIdx": 0, "testIdx": i, "promptId": "p1", "provider": {"id": provider, "label": provider},
                     "prompt": {"raw": "q", "label": "q"}, "vars": {"q": f"question {i}"},
                     "testCase": {"vars": {"q": f"question {i}"}}, "response": {"output": output},
                     "success": bool(verdict), "score": (1 + verdict) / 2, "failureReason": 0 if verdict else 1,
                     "gradingResult": {"pass": bool(verdict), "score": (1 + verdict) / 2, "reason": "",
                                       "componentResults": comps}, "namedScores": {}})
    ok = sum(r["success"] for r in rows)
    stats = {"successes": ok, "failures": n - ok, "errors": 0}
    path.write_text(json.dumps({"evalId": f"eval-{seed}", "results": {"version": 3, "results": rows, "stats": stats},
                                "config": {"description": "judged"}}))
    return path


def test_promptfoo_model_graded_rows_only_when_asked(tmp_path: Path) -> None:
    path = _promptfoo(tmp_path / "a.json", "openai:gpt-4o", seed=1)
    plain = read_runs([path]).table
    got = read_runs([path], judged=True).table
    assert set(plain["metric"]) == {"pass", "score"} and "prediction" not in plain.columns
    rubric = got[got["metric"] == "llm-rubric"]
    assert len(rubric) == 80 and set(got["metric"]) == {"pass", "score", "llm-rubric"}  # not icontains
    assert (rubric["judge"] == "openai:gpt-4o-mini").all()  # a provider string or an object's id
    data = json.loads(path.read_text())["results"]["results"]
    assert rubric["prediction"].tolist() == [r["response"]["output"] for r in data]
    assert rubric["value"].tolist() == [r["gradingResult"]["componentResults"][1]["score"] for r in data]
    same = got[got["metric"] != "llm-rubric"].drop(columns=["prediction", "judge"]).reset_index(drop=True)
    assert same.equals(plain)  # the other rows as before


def test_promptfoo_judge_from_default_test(tmp_path: Path) -> None:
    path = _promptfoo(tmp_path / "b.json", "anthropic:claude-3", seed=2, judge=None)
    data = json.loads(path.read_text())
    data["config"]["defaultTest"] = {"options": {"provider": "google:gemini-2.0-flash"}}
    path.write_text(json.dumps(data))
    got = read_runs([path], judged=True).table
    assert set(got.loc[got["metric"] == "llm-rubric", "judge"]) == {"google:gemini-2.0-flash"}


def test_judge_bias_on_promptfoo_runs_equals_statsmodels(tmp_path: Path) -> None:
    """Through the one door (``routes.plan.load_table``) with the options ``judge bias`` builds
    (``cli/judge_bias.py`` sets ``args.judged``; ``cli.options.input_options`` carries it)."""
    import argparse

    from evaladdon.analysis.judge_bias import judge_bias
    from evaladdon.cli.options import input_options
    from evaladdon.routes.plan import load_table

    sm = pytest.importorskip("statsmodels.api")
    paths = [_promptfoo(tmp_path / "a.json", "openai:gpt-4o", seed=3), _promptfoo(tmp_path / "b.json", "x:other", seed=4)]
    inputs = input_options(argparse.Namespace(paths=list(map(str, paths)), command="judge", judged=True))
    assert inputs.judged and not input_options(argparse.Namespace(paths=["x"], command="judge")).judged
    reports, _ = judge_bias(load_table(inputs).table, metric="llm-rubric")
    (report,) = [r.flat() for r in reports]
    rows = [r for p in paths for r in json.loads(p.read_text())["results"]["results"]]
    y = np.array([r["gradingResult"]["componentResults"][1]["score"] for r in rows])
    length = np.log2(np.array([len(r["response"]["output"]) for r in rows]) + 1)
    run = np.repeat([0.0, 1.0], 80)
    X = np.column_stack([1 - run, run, length])
    fit = sm.OLS(y, X).fit()
    (coef,) = [b for b in report["biases"] if b["name"] == "length"]
    assert report["n_rows"] == 160 and report["n_clusters"] == 80  # each test judged in both runs
    assert coef["estimate"] == pytest.approx(fit.params[2], rel=1e-9)
    # CR2 (Bell & McCaffrey) by hand on the test clusters: residuals of cluster g times (I - H_gg)^-1/2
    bread = np.linalg.inv(X.T @ X)
    meat = np.zeros((3, 3))
    for g in range(80):
        at = np.array([g, g + 80])
        w, v = np.linalg.eigh(np.eye(2) - X[at] @ bread @ X[at].T)
        u = X[at].T @ (v @ np.diag(w ** -0.5) @ v.T) @ fit.resid[at]
        meat += np.outer(u, u)
    assert coef["se"] == pytest.approx(np.sqrt((bread @ meat @ bread)[2, 2]), rel=1e-9)


def _deepeval(path: Path, seed: int, n: int = 60) -> Path:
    """A DeepEval test run (``.temp_test_run_data.json`` layout) with a scored G-Eval metric judged by
    gpt-4o and an Exact Match metric (no model)."""
    rng = np.random.default_rng(seed)
    cases = []
    for i in range(n):
        said = "answer " * int(rng.integers(1, 60))
        score = float(np.clip(rng.normal(0.6, 0.2), 0, 1))
        cases.append({"name": f"test_case_{i}", "input": f"q{i}", "actualOutput": said, "expectedOutput": "answer",
                      "success": score > 0.5, "order": i, "metricsData": [
                          {"name": "Exact Match", "threshold": 1.0, "success": False, "score": 0.0, "strictMode": False},
                          {"name": "Correctness [GEval]", "threshold": 0.5, "success": score > 0.5, "score": score,
                           "reason": "r", "strictMode": False, "evaluationModel": "gpt-4o"}]})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"testCases": cases, "conversationalTestCases": [], "metricsScores": [],
                                "hyperparameters": {"model": "claude-3-haiku"}}))
    return path


def test_deepeval_llm_metrics_answers_and_judges(tmp_path: Path) -> None:
    path = _deepeval(tmp_path / "run1" / ".deepeval" / ".temp_test_run_data.json", seed=5)
    plain = read_runs([path]).table
    got = read_runs([path], judged=True).table
    assert got.drop(columns=["prediction", "judge"]).equals(plain)
    geval = got[got["metric"].str.startswith("Correctness [GEval]/")]
    assert (geval["judge"] == "gpt-4o").all() and geval["prediction"].notna().all()
    assert got.loc[got["metric"].str.startswith("Exact Match/"), ["prediction", "judge"]].isna().all().all()
    cases = json.loads(path.read_text())["testCases"]
    score_rows = got[got["metric"] == "Correctness [GEval]/score"]
    assert score_rows["prediction"].tolist() == [c["actualOutput"] for c in cases]
    from evaladdon.analysis.judge_bias import judge_bias

    reports, dropped = judge_bias(got, metric="Correctness [GEval]/score")
    assert [r.n_rows for r in reports] == [60] and dropped == {}


def test_real_deepeval_judged_metrics(real_logs: Path) -> None:
    files = sorted((real_logs / "deepeval_beeai").glob("*/.deepeval/.*.json"))
    if not files:
        pytest.skip("the DeepEval example runs are not present")
    plain = read_runs(files).table
    got = read_runs(files, judged=True).table
    assert got.drop(columns=["prediction", "judge"]).equals(plain)
    for path in files:
        data = json.loads(path.read_text())
        run = data.get("testRunData", data)
        want = {(c["name"], m["name"]): (c["actualOutput"], m["evaluationModel"])
                for c in run["testCases"] for m in c["metricsData"] if m.get("evaluationModel")}
        rows = got[(got["source"] == str(path)) & got["judge"].notna()]
        assert {(i, m.rsplit("/", 1)[0]) for i, m in zip(rows["item"], rows["metric"], strict=True)} == set(want)
        assert all(want[(i, m.rsplit("/", 1)[0])] == (p, j) for i, m, p, j in
                   zip(rows["item"], rows["metric"], rows["prediction"], rows["judge"], strict=True))
