"""``evaladdon power --judge``: the human-label budget of a judge correction."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

from evaladdon.stats.judge_budget import label_budget

Cli = Callable[..., tuple[int, str, str]]


def test_power_judge_json_matches_the_plan(cli: Cli) -> None:
    code, out, err = cli("power", "--judge", "--sensitivity", "0.9", "--specificity", "0.85", "--judge-rate", "0.6",
                         "--n", "2000", "--width", "10pt", "--labelled", "150", "--json")
    assert code == 0, err
    doc = json.loads(out)
    rg, ppi = label_budget(0.9, 0.85, 0.6, n_judged=2000, width=0.1, labels=150)
    by = {m["method"]: m for m in doc["methods"]}
    assert by["rogan-gladen"]["labels_needed"] == rg.labels_needed == 427
    assert by["ppi"]["labels_needed"] == ppi.labels_needed == 234
    assert by["ppi"]["width_at_labels"] == pytest.approx(ppi.width_at_labels)
    assert doc["true_rate"] == pytest.approx(0.6) and doc["n_judged"] == 2000 and doc["level"] == pytest.approx(0.95)
    code, text, _ = cli("power", "--judge", "--sensitivity", "0.9", "--specificity", "0.85", "--judge-rate", "0.6",
                        "--n", "2000", "--width", "0.1", "--labelled", "150")
    assert code == 0 and "427" in text and "234" in text and "15.0 pt" in text and "Se 0.900" in text


def test_power_judge_from_a_pilot(tmp_path: Path, cli: Cli) -> None:
    rng = np.random.default_rng(3)
    n = 500
    y = (rng.random(n) < 0.6).astype(int)
    f = np.where(y == 1, rng.random(n) < 0.9, rng.random(n) >= 0.85).astype(int)
    run = tmp_path / "judge_run.csv"
    run.write_text("item,value\n" + "".join(f"i{i},{f[i]}\n" for i in range(n)))
    labels = tmp_path / "labels.csv"
    labels.write_text("item,human\n" + "".join(f"i{i},{y[i]}\n" for i in range(80)))
    code, out, err = cli("power", "--judge", "--pilot", run, "--labels", labels, "--width", "0.2", "--json")
    assert code == 0, err
    doc = json.loads(out)
    se = f[:80][y[:80] == 1].mean()
    sp = 1 - f[:80][y[:80] == 0].mean()
    assert doc["sensitivity"] == pytest.approx(se) and doc["specificity"] == pytest.approx(sp)
    assert doc["judge_rate"] == pytest.approx(f.mean()) and doc["n_judged"] == n
    assert doc["pilot"]["n_labelled"] == 80
    plans = label_budget(se, sp, f.mean(), n_judged=n, width=0.2)
    assert [m["labels_needed"] for m in doc["methods"]] == [p.labels_needed for p in plans]
    code, text, _ = cli("power", "--judge", "--pilot", run, "--labels", labels, "--width", "0.05")
    assert code == 0 and "no number of labels reaches width 0.05" in text and "80 labelled items" in text


def test_power_judge_errors_and_plain_power_unchanged(cli: Cli) -> None:
    code, _, err = cli("power", "--judge", "--sensitivity", "0.9", "--width", "0.1")
    assert code == 2 and "--judge needs --specificity, --judge-rate" in err
    code, _, err = cli("power", "--judge", "--sensitivity", "0.5", "--specificity", "0.4", "--judge-rate", "0.5",
                       "--width", "0.1")
    assert code == 2 and "no better than chance" in err
    code, _, err = cli("power", "--judge", "--sensitivity", "0.9", "--specificity", "0.9", "--judge-rate", "0.5",
                       "--width", "0.1", "--paired", "--discordance", "0.2")
    assert code == 2 and "comparison design flags" in err
    code, _, err = cli("power", "--n", "100", "--paired", "--discordance", "0.2", "--labelled", "50")
    assert code == 2 and "--labelled applies to power --judge" in err
    code, out, _ = cli("power", "--n", "100", "--paired", "--discordance", "0.2", "--json")
    assert code == 0 and "mde" in json.loads(out)
