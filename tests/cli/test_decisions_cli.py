"""``evaladdon metrics --threshold ... --validation ... --prevalence ...`` end to end: JSON, text and
markdown from the same records, rows left out counted in every mode, refusals in one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from evaladdon.analysis.decisions import DecisionOptions, decide
from evaladdon.stats.families.threshold import parse_rule


def _csv(tmp_path: Path, same_items: bool = False, task: str = "t") -> Path:
    rng = np.random.default_rng(1)
    parts = []
    for split, off in (("validation", 0), ("test", 0 if same_items else 5000)):
        y = (rng.random(240) < 0.3).astype(int)
        s = 1 / (1 + np.exp(-(rng.normal(y * 1.5, 1) - 1)))
        run = "V" if same_items and split == "validation" else "A"  # one run cannot hold an item twice
        parts.append(pd.DataFrame({"run": run, "task": task, "model": "m", "metric": "det",
                                   "item": [f"q{i + off}" for i in range(240)], "epoch": 1,
                                   "value": (y == (s > 0.5)).astype(float), "score": s, "label": y, "split": split,
                                   "topic": [f"c{i % 24}" for i in range(240)]}))
    df = pd.concat(parts, ignore_index=True)
    df.loc[df.index[-3:], "score"] = np.nan  # three test rows without a score: counted
    path = tmp_path / "det.csv"
    df.to_csv(path, index=False)
    return path


def test_json_text_markdown(tmp_path: Path, cli: Callable[..., tuple[int, str, str]]) -> None:
    path = _csv(tmp_path)
    args = ("metrics", path, "--threshold", "tpr@fpr=0.05", "--validation", "split=validation", "--prevalence",
            "0.001", "--cluster", "topic")
    code, out, err = cli(*args, "--json")
    assert code == 0, err
    (rec,) = json.loads(out)["decisions"]
    assert rec["rule"] == "tpr@fpr=0.05" and rec["validation"]["fpr"] <= 0.05
    assert rec["dropped"] == {"no score": 3} and rec["n_dropped"] == 3
    assert sum(rec["confusion"].values()) == 237
    m = rec["metrics"]
    assert {"precision", "recall", "fpr", "accuracy", "f1", "cost", "precision@prevalence", "f1@prevalence"} == set(m)
    assert m["recall"]["n_clusters"] == 24 and m["fpr"]["ci_low"] <= m["fpr"]["estimate"] <= m["fpr"]["ci_high"]
    code, text, _ = cli(*args)
    assert code == 0 and "decision m / t / det: tpr@fpr=0.05, threshold" in text
    assert f"FP={rec['confusion']['fp']}" in text and "3 row(s) left out (3 no score)" in text
    assert "differs from the stated 0.001" in text
    code, md, _ = cli(*args, "--markdown")
    assert code == 0 and md.startswith("| run | task/metric | name |") and "3 row(s) left out" in md


def test_refusals_are_one_line(tmp_path: Path, cli: Callable[..., tuple[int, str, str]]) -> None:
    same = _csv(tmp_path, same_items=True)
    for args, want in (((same, "--threshold", "cost:FP=1,FN=5", "--validation", "V"), "rows share 237 of 237 item"),
                       ((same, "--threshold", "cost:FP=1,FN=5"), "needs --validation"),
                       ((same, "--threshold", "cost:FP=1"), "--threshold"),
                       ((same, "--prevalence", "2"), "--prevalence"),
                       ((same, "--validation", "split=validation"), "--validation needs --threshold")):
        code, out, err = cli("metrics", *args)
        assert code == 2 and want in err and err.count("\n") == 1 and "Traceback" not in err, (args, err)


def test_hostile_names_escaped(tmp_path: Path, cli: Callable[..., tuple[int, str, str]]) -> None:
    path = _csv(tmp_path, task="x|y\x1b[31m")
    code, out, _ = cli("metrics", path, "--threshold", "cost:FP=1,FN=5", "--validation", "split=validation",
                       "--markdown")
    assert code == 0 and "\x1b" not in out and "x\\|y" in out
    code, out, _ = cli("metrics", path, "--threshold", "cost:FP=1,FN=5", "--validation", "split=validation")
    assert code == 0 and "\x1b" not in out


def test_cli_equals_the_analysis(tmp_path: Path, cli: Callable[..., tuple[int, str, str]]) -> None:
    from evaladdon.adapters.read import load

    path = _csv(tmp_path)
    code, out, _ = cli("metrics", path, "--threshold", "precision@recall=0.8", "--validation", "split=validation",
                       "--json")
    got: dict[str, Any] = json.loads(out)["decisions"][0]
    df = load([path])
    (ref,) = decide(df, DecisionOptions(rule=parse_rule("precision@recall=0.8"), validation="split=validation"))
    assert got["threshold"] == ref.threshold and got["confusion"] == ref.counts


def test_metric_selects_the_scorer(tmp_path: Path, cli: Callable[..., tuple[int, str, str]]) -> None:
    path = _csv(tmp_path)
    args = ("metrics", path, "--threshold", "cost:FP=1,FN=5", "--validation", "split=validation", "--json")
    code, out, _ = cli(*args, "--metric", "det")
    assert code == 0 and [r["metric"] for r in json.loads(out)["decisions"]] == ["det"]
    code, _, err = cli(*args, "--metric", "nosuch")
    assert code == 2 and "nosuch" in err
