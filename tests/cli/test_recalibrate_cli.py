"""``metrics --recalibrate`` and ``report --recalibrate``: every output mode from the same records,
refusals in one line, the HTML report's curve and reliability sections."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
from scipy import special


def _csv(tmp_path: Path, runs: tuple[str, ...] = ("A",), task: str = "t") -> Path:
    rng = np.random.default_rng(2)
    parts = []
    for run in runs:
        for split, off in (("validation", 0), ("test", 9000)):
            z = rng.normal(0, 1.5, 300)
            y = (rng.random(300) < special.expit(z)).astype(int)
            s = special.expit(2.5 * z)
            parts.append(pd.DataFrame({"run": run, "task": task, "model": run, "metric": "det",
                                       "item": [f"q{i + off}" for i in range(300)], "epoch": 1,
                                       "value": (y == (s > 0.5)).astype(float), "score": s, "label": y,
                                       "split": split, "topic": [f"c{i % 25}" for i in range(300)]}))
    df = pd.concat(parts, ignore_index=True)
    df.loc[df.index[-2:], "score"] = np.nan
    path = tmp_path / "cal.csv"
    df.to_csv(path, index=False)
    return path


def test_metrics_recalibrate_modes(tmp_path: Path, cli: Callable[..., tuple[int, str, str]]) -> None:
    path = _csv(tmp_path)
    args = ("metrics", path, "--recalibrate", "temperature", "--validation", "split=validation", "--cluster",
            "topic", "--n-boot", "300")
    code, out, err = cli(*args, "--json")
    assert code == 0, err
    (rec,) = json.loads(out)["recalibration"]
    assert rec["params"]["method"] == "temperature" and rec["params"]["params"][0] > 1.5
    assert rec["dropped"] == {"no score or label": 2}
    assert rec["change"]["nll"]["ci_high"] < 0 and rec["change"]["nll"]["n_clusters"] == 25
    code, text, _ = cli(*args)
    assert code == 0 and "fit A / t / det: temperature scaling, T = " in text and "2 row(s) left out" in text
    code, md, _ = cli(*args, "--markdown")
    assert code == 0 and md.startswith("| run | task/metric | name | before | after |")


def test_refusals(tmp_path: Path, cli: Callable[..., tuple[int, str, str]]) -> None:
    path = _csv(tmp_path)
    for args, want in (((path, "--recalibrate", "platt"), "needs --validation"),
                       ((path, "--recalibrate", "platt", "--validation", "split=validation", "--prevalence", "0.1"),
                        "runs alone"),
                       ((path, "--recalibrate", "beta"), "--recalibrate")):
        code, _, err = cli("metrics", *args)
        assert code == 2 and want in err and err.count("\n") == 1, err


def test_report_sections_escaped(tmp_path: Path, cli: Callable[..., tuple[int, str, str]]) -> None:
    path = _csv(tmp_path, runs=("A", "B"), task="<b>t</b>")
    out = tmp_path / "r.html"
    code, _, err = cli("report", path, "-o", out, "--quiet", "--recalibrate", "isotonic", "--validation",
                       "split=validation", "--cluster", "topic")
    assert code == 0, err
    page = out.read_text()
    assert "<h2>ROC and precision-recall curves</h2>" in page and "<h2>Recalibration" in page
    assert page.count('alt="reliability diagram') >= 3 and 'alt="ROC and PR curves &lt;b&gt;t&lt;/b&gt;/det"' in page
    assert "<b>t</b>" not in page and "2 row(s) left out" in page
    code, _, err = cli("report", path, "-o", out, "--quiet", "--recalibrate", "platt")
    assert code == 2 and "go together" in err


def test_real_lm_eval_multiple_choice(real_logs: Path, cli: Callable[..., tuple[int, str, str]]) -> None:
    """Two lm-eval multiple-choice tasks of one run (PR 3936's negotiationtom outputs): one task's
    rows fit the temperature, the other's are judged.  Their doc_ids coincide (0..19) but their
    doc_hashes differ, so they are other items, not refused."""
    d = real_logs / "lmeh_pr3936_negotiationtom_repeats/Qwen__Qwen3-8B"
    files = [d / f"samples_negotiationtom_{t}_2026-07-08T16-04-34.219874.jsonl" for t in ("belief", "desire")]
    code, out, err = cli("metrics", *files, "--recalibrate", "temperature", "--validation",
                         "task=negotiationtom_belief", "--n-boot", "200", "--json")
    assert code == 0, err
    (rec,) = json.loads(out)["recalibration"]
    assert rec["task"] == "negotiationtom_desire" and rec["metric"] == "acc,none"
    assert rec["forecast"].startswith("confidence") and rec["params"]["n_fit"] == 20
    assert any("log-likelihoods" in n for n in rec["notes"])
    assert rec["before"]["nll"]["estimate"] > 0 and rec["params"]["params"][0] > 0
