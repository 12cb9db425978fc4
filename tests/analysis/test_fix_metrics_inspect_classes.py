"""Issue 25.7: ``metrics`` on ordinary Inspect logs treated free-text answers and targets as classes.

A judge run passing 65 % showed accuracy 0.000 [0, 0]; a numeric-answer task got F1 over ~46
"classes" and 46 x 46 confusion matrices.  Classification now needs categorical predictions (a
choice scorer, a declared label set, or few distinct values shared by answers and targets that the
scorer grades by equality); otherwise the family is missing with the reason.  A match scorer's
two-class task (targets with a leading space) now classifies, in agreement with its verdicts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
import pytest


SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs" / "inspect"
Cli = Callable[..., tuple[int, str, str]]


def _groups(cli: Cli, *paths: object) -> list[dict]:
    code, out, _ = cli("metrics", *paths, "--json", "--n-boot", "200")
    assert code == 0
    return json.loads(out)["groups"]


def test_judge_run_has_no_classification(cli: Cli) -> None:
    (g,) = _groups(cli, SAMPLES / "judge.eval")
    assert "accuracy" not in g["metrics"] and g["confusion"] is None
    assert "not classes" in g["missing"]["classification"]


def test_numeric_answers_are_not_46_classes(cli: Cli) -> None:
    for g in _groups(cli, SAMPLES / "baseline.eval", SAMPLES / "candidate.eval"):
        assert not any(k.startswith(("f1", "precision", "recall", "kappa", "mcc")) for k in g["metrics"])
        assert g["confusion"] is None and "distinct targets" in g["missing"]["classification"]
        assert "pass@1" in g["metrics"]  # the other families are untouched
    code, out, _ = cli("metrics", SAMPLES, "--n-boot", "200")
    assert code == 0 and "confusion" not in out and "missing: baseline / reading / match: classification" in out


def test_compare_refuses_classification_of_free_text(cli: Cli) -> None:
    code, _, err = cli("compare", SAMPLES / "baseline.eval", SAMPLES / "candidate.eval", "--metric", "f1_macro")
    assert code == 2 and "not classes" in err and err.count("\n") == 1


def test_real_logs_match_and_choice_scorers_classify(cli: Cli, real_logs: Path) -> None:
    pop = real_logs / "inspect_scout_examples/examples/scanner/logs/2025-09-23T08-09-58-04-00_popularity_DN2wbX2ZvACsBpjwptzBRo.eval"
    (g,) = _groups(cli, pop)
    assert g["confusion"]["labels"] == ["No", "Yes"]  # targets " No"/" Yes": the same classes
    assert g["metrics"]["accuracy"]["estimate"] == pytest.approx(0.63)  # = the match scorer's pass rate
    judged = real_logs / "inspect_scout_examples/examples/scanner/logs/2025-09-23T08-09-58-04-00_theory-of-mind_bbB4eRCx2rFJLyPH42Cj9r.eval"
    (g,) = _groups(cli, judged)
    assert "accuracy" not in g["metrics"] and "100 distinct answers" in g["missing"]["classification"]
    mmlu = real_logs / "inspect_ai_fixtures/analysis/test_logs_choices/mmlu-summary-choices.eval"
    (g,) = _groups(cli, mmlu)  # a choice scorer: letters are classes (one item: too few to bootstrap)
    assert "not classes" not in g["missing"]["classification"] and "two independent units" in g["missing"][
        "classification"]


def _rows(pred: list[str], label: list[str], value: list[float], harness: str = "inspect") -> pd.DataFrame:
    return pd.DataFrame({"prediction": pred, "label": label, "value": value, "harness": harness})


def test_categorical_reason_rules() -> None:
    from evaladdon.analysis.metrics import categorical_reason

    rng = np.random.default_rng(0)
    lab = list(rng.choice(list("ABCD"), 40))
    pred = [x if rng.random() < 0.7 else "A" for x in lab]
    val = [float(p == t) for p, t in zip(pred, lab, strict=True)]
    assert categorical_reason(_rows(pred, lab, val), "match") is None  # few shared classes, graded by equality
    judged = [1.0 - v for v in val]  # a judge whose verdicts are not answer == target
    assert "agrees with the scorer's verdict on 0%" in str(categorical_reason(_rows(pred, lab, judged), "judge"))
    assert categorical_reason(_rows(pred, lab, judged), "choice") is None  # a choice scorer's letters
    nums = [str(i) for i in range(40)]
    assert categorical_reason(_rows(nums, nums, [1.0] * 40), "match") is not None  # 40 classes in 40 rows
    assert categorical_reason(_rows(nums, nums, [1.0] * 40, harness="table"), "match") is None  # declared
    assert categorical_reason(_rows(nums, nums, [1.0] * 40), "match", max_classes=50, rows_per_class=1) is None
