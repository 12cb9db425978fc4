"""Issue 28 item 1: judge-bias diagnostics (``judge bias``).  Oracles: statsmodels OLS with HC3 on
the same regressors built independently (Python's ``re`` per answer); seeded Monte-Carlo: the
size of each bias test under no bias, and a planted length bias found; a real Inspect
model-graded log."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evaladdon.analysis.judge_bias import judge_bias, model_family


def _answers(rng: np.random.Generator, n: int) -> list[str]:
    out = []
    for _ in range(n):
        words = " ".join(["word"] * int(rng.integers(1, 200)))
        if rng.random() < 0.3:
            words = "# Title\n" + words
        if rng.random() < 0.4:
            words += "\n- item one\n- item two"
        if rng.random() < 0.3:
            words += " **key point**"
        out.append(words)
    return out


def _table(answers: list[str], verdicts: np.ndarray, runs: int = 2, models: tuple[str, ...] = ("a/x", "b/y"),
           cluster: np.ndarray | None = None) -> pd.DataFrame:
    n = len(answers)
    run = np.arange(n) % runs
    return pd.DataFrame({"run": [f"r{r}" for r in run], "task": "t", "metric": "judge", "item": [f"i{i // runs}" if runs > 1 else f"i{i}" for i in range(n)],
                         "epoch": 1, "value": verdicts.astype(float), "error": None,
                         "cluster": cluster if cluster is not None else None,
                         "model": [models[r % len(models)] for r in run], "prediction": answers})


def _oracle_design(answers: list[str]) -> np.ndarray:
    length = [np.log2(len(a) + 1) for a in answers]
    headers = [float(bool(re.search(r"(?m)^\s{0,3}#{1,6}\s", a))) for a in answers]
    lists = [float(bool(re.search(r"(?m)^\s*(?:[-*+]|\d+[.)])\s", a))) for a in answers]
    bold = [float(bool(re.search(r"\*\*[^*\n]+\*\*|__[^_\n]+__", a))) for a in answers]
    return np.column_stack([length, headers, lists, bold])


def test_equal_to_statsmodels_hc3_with_labels() -> None:
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(0)
    answers = _answers(rng, 300)
    verdicts = (rng.random(300) < 0.6).astype(float)
    labels = pd.Series((rng.random(300) < 0.5).astype(float), index=[f"i{i}" for i in range(300)])
    (report,), dropped = judge_bias(_table(answers, verdicts, runs=1), labels=labels)
    X = np.column_stack([np.ones(300), _oracle_design(answers)])
    fit = sm.OLS(verdicts - labels.to_numpy(), X).fit(cov_type="HC3")
    got = {c.name: c for c, _ in report.biases}
    for j, name in enumerate(("length", "headers", "lists", "bold"), start=1):
        assert got[name].estimate == pytest.approx(fit.params[j], rel=1e-9)
        assert got[name].se == pytest.approx(fit.bse[j], rel=1e-9)
    assert report.outcome.startswith("judge error") and dropped == {}


def test_size_under_no_bias_and_a_planted_length_bias_is_found() -> None:
    rng = np.random.default_rng(5)
    reps, n, false_pos, found = 150, 400, 0, 0
    for _ in range(reps):
        answers = _answers(rng, n)
        labels = pd.Series((rng.random(n) < 0.5).astype(float), index=[f"i{i}" for i in range(n)])
        honest = labels.to_numpy().copy()
        flip = rng.random(n) < 0.2
        honest[flip] = 1 - honest[flip]  # an unbiased noisy judge
        (rep,), _ = judge_bias(_table(answers, honest, runs=1), labels=labels)
        false_pos += any(p < 0.05 for _, p in rep.biases)  # any rejection in the Holm family: FWER
        length = np.array([len(a) for a in answers])
        biased = np.where(length > np.median(length), np.maximum(honest, rng.random(n) < 0.5), honest)
        (rep,), _ = judge_bias(_table(answers, biased, runs=1), labels=labels)
        found += dict((c.name, p) for c, p in rep.biases)["length"] < 0.05
    assert false_pos / reps <= 0.065 and found / reps >= 0.8, (false_pos / reps, found / reps)


def test_self_preference_needs_labels_and_families() -> None:
    assert model_family("openai/gpt-4o-mini") == model_family("gpt-5") == "openai"
    assert model_family("anthropic/claude-sonnet-4") == "anthropic" and model_family("x/unknown") == "x"
    rng = np.random.default_rng(2)
    answers = _answers(rng, 200)
    table = _table(answers, np.ones(200), models=("openai/gpt-4o", "anthropic/claude-3"))
    labels = pd.Series(np.zeros(100), index=[f"i{i}" for i in range(100)])
    (rep,), _ = judge_bias(table, labels=labels, judge_model="openai/gpt-4o-mini")
    assert "self-preference" in [c.name for c, _ in rep.biases]
    (rep,), _ = judge_bias(table, judge_model="openai/gpt-4o-mini")
    assert "self-preference" not in [c.name for c, _ in rep.biases]
    assert any("self-preference needs human labels" in n for n in rep.notes)


def test_real_model_graded_log(real_logs: Path, cli) -> None:  # type: ignore[no-untyped-def]
    logs = real_logs / "inspect_scout_examples" / "examples" / "scanner" / "logs"
    (log,) = logs.glob("*theory-of-mind*")
    from evaladdon.adapters.read import read_runs

    got = read_runs([log])
    table = getattr(got, "table", got)
    (rep,), _ = judge_bias(table)
    assert rep.n_rows == 100 and rep.outcome == "verdict"
    names = [c.name for c, _ in rep.biases]
    assert names[0] == "length" and "headers" not in names  # no answer has a header: said, not estimated
    assert any(n.startswith("headers: no variation") for n in rep.notes)


# -- pairwise verdicts (MT-bench, Arena, AlpacaEval): evaladdon.analysis.judge_bias_pairs ---------------


def test_mtbench_position_bias_equals_an_independent_fit(real_logs: Path) -> None:
    """Both orders of every MT-bench pair as rows, built here from the file with ``json`` (g1: model_1
    first; g2: model_2 first), and statsmodels' OLS on intercept + model strengths + style: the
    position effect (the intercept) is the same number."""
    import json

    sm = pytest.importorskip("statsmodels.api")
    from evaladdon.analysis.judge_bias_pairs import pairwise_bias

    folder = real_logs / "mtbench_gpt4_pair"
    (report,), dropped = pairwise_bias([str(folder)])
    score = {"model_1": 1.0, "model_2": 0.0, "tie": 0.5}
    rows = []
    for f in sorted(folder.rglob("*.jsonl")):
        for line in f.read_text().splitlines():
            r = json.loads(line)
            if r["g1_winner"] not in score or r["g2_winner"] not in score:
                continue
            rows.append((r["model_1"], r["model_2"], score[r["g1_winner"]]))
            rows.append((r["model_2"], r["model_1"], 1.0 - score[r["g2_winner"]]))
    models = sorted({m for a, b, _ in rows for m in (a, b)})
    X = np.array([[1.0] + [(a == m) - (b == m) for m in models[1:]] for a, b, _ in rows])
    y = np.array([v for _, _, v in rows]) - 0.5
    fit = sm.OLS(y, X).fit()
    position = dict((c.name, c) for c, _ in report.biases)["position"]
    assert report.n_rows == len(rows) == 146 and dropped
    # the report's fit also holds the style terms: the same intercept within their (small) effect
    assert position.estimate == pytest.approx(fit.params[0], abs=0.02)
    assert position.ci_low > 0  # GPT-4's first-position preference, as `rank` reports (0.64 of decisive games)


def test_pairwise_position_test_size_and_power() -> None:
    """Seeded simulation of pairs judged in both orders by a judge with no position bias (size)
    and with a 10-point first-place bias (power)."""
    from evaladdon.analysis.judge_bias_pairs import _fit

    rng = np.random.default_rng(9)
    reps, rejected, found = 600, 0, 0  # 600: a binomial SE of 0.9 points on the size
    models = ["m0", "m1", "m2", "m3"]
    strength = np.array([0.0, 0.1, 0.2, -0.1])
    for _ in range(reps):
        for bias, counter in ((0.0, "size"), (0.1, "power")):
            n = 120
            i, j = rng.integers(0, 4, n), rng.integers(0, 4, n)
            j = np.where(i == j, (j + 1) % 4, j)
            p1 = np.clip(0.5 + strength[i] - strength[j] + bias, 0, 1)
            p2 = np.clip(0.5 + strength[j] - strength[i] + bias, 0, 1)
            rows = pd.DataFrame({"model_a": np.r_[np.array(models)[i], np.array(models)[j]],
                                 "model_b": np.r_[np.array(models)[j], np.array(models)[i]],
                                 "outcome": np.r_[rng.random(n) < p1, rng.random(n) < p2].astype(float),
                                 "item": np.r_[np.arange(n), np.arange(n)].astype(str), "judge": None})
            rep = _fit(rows, "sim", None, 0.95)
            p = dict((c.name, c.p_value) for c, _ in rep.biases)["position"]
            if counter == "size":
                rejected += p < 0.05
            else:
                found += p < 0.05
    assert rejected / reps <= 0.065 and found / reps >= 0.8, (rejected / reps, found / reps)


def test_self_preference_from_the_logged_judge() -> None:
    """With no ``judge_model`` the grader each row's log names (the ``judge`` column) decides
    self-preference; the same rows with the judge given explicitly give the same coefficient, and an
    explicit judge still wins over the logged one.  Oracle: statsmodels HC3 OLS on the indicator."""
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(3)
    answers = _answers(rng, 240)
    table = _table(answers, (rng.random(240) < 0.7).astype(float), runs=1,
                   models=("openai/gpt-4o", "anthropic/claude-3"))
    table["model"] = np.where(np.arange(240) % 2 == 0, "openai/gpt-4o", "anthropic/claude-3")
    table["judge"] = "openai/gpt-4o-mini"
    labels = pd.Series((rng.random(240) < 0.5).astype(float), index=[f"i{i}" for i in range(240)])
    (logged,), _ = judge_bias(table, labels=labels)
    (given,), _ = judge_bias(table.drop(columns="judge"), labels=labels, judge_model="openai/gpt-4o-mini")
    got = {c.name: c for c, _ in logged.biases}
    assert got["self-preference"].estimate == pytest.approx({c.name: c for c, _ in given.biases}["self-preference"].estimate)
    same = (np.arange(240) % 2 == 0).astype(float)
    X = np.column_stack([np.ones(240), _oracle_design(answers), same])
    fit = sm.OLS(table["value"].to_numpy() - labels.to_numpy(), X).fit(cov_type="HC3")
    assert got["self-preference"].estimate == pytest.approx(fit.params[-1], rel=1e-9)
    assert got["self-preference"].se == pytest.approx(fit.bse[-1], rel=1e-9)
    (other,), _ = judge_bias(table, labels=labels, judge_model="anthropic/claude-3-opus")
    assert {c.name: c for c, _ in other.biases}["self-preference"].estimate == pytest.approx(-fit.params[-1], rel=1e-9)
    two = table.assign(judge="openai/gpt-4o, anthropic/claude-3")  # two voting judges: one of each family
    (rep,), _ = judge_bias(two, labels=labels)
    assert "self-preference" not in [c.name for c, _ in rep.biases]  # a share of 1/2 for every row: no variation


def test_real_log_judge_is_the_model_under_test(real_logs: Path) -> None:
    logs = real_logs / "inspect_scout_examples" / "examples" / "scanner" / "logs"
    (log,) = logs.glob("*theory-of-mind*")
    from evaladdon.adapters.read import read_runs

    table = read_runs([log]).table
    labels = pd.Series(1.0, index=table["item"].astype(str).unique())
    (rep,), _ = judge_bias(table, labels=labels)
    assert any(n.startswith("self-preference: no variation") for n in rep.notes)  # judged by itself only
    (rep,), _ = judge_bias(table)
    assert any("self-preference needs human labels" in n for n in rep.notes)


def test_self_preference_size_and_power_with_logged_judges() -> None:
    """Seeded Monte-Carlo of the default (HC3, Holm): a judge whose errors do not depend on the
    candidate's family rejects self-preference in <= 6.5 % of runs; one that passes 40 % of its own
    family's failed answers is found in >= 80 %."""
    rng = np.random.default_rng(11)
    reps, n, false_pos, found = 120, 300, 0, 0
    answers = _answers(rng, n)
    own = np.arange(n) % 2 == 0
    for _ in range(reps):
        labels = pd.Series((rng.random(n) < 0.5).astype(float), index=[f"i{i}" for i in range(n)])
        honest = labels.to_numpy().copy()
        flip = rng.random(n) < 0.2
        honest[flip] = 1 - honest[flip]
        table = _table(answers, honest, runs=1)
        table["model"] = np.where(own, "openai/gpt-4o", "anthropic/claude-3")
        table["judge"] = "openai/gpt-4o-mini"
        (rep,), _ = judge_bias(table, labels=labels)
        false_pos += dict((c.name, p) for c, p in rep.biases)["self-preference"] < 0.05
        biased = np.where(own & (rng.random(n) < 0.4), 1.0, honest)
        (rep,), _ = judge_bias(table.assign(value=biased), labels=labels)
        found += dict((c.name, p) for c, p in rep.biases)["self-preference"] < 0.05
    assert false_pos / reps <= 0.065 and found / reps >= 0.8, (false_pos / reps, found / reps)
