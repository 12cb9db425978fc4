"""Corpus-level lm-eval metrics in ``metrics`` (issue 25 item 13): each estimate sits in the group
of its own metric (``macro_f1`` no longer under ``micro_f1``), equals the harness's own value,
and its per-item inputs are not reported as rows left out (they were used)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import pytest

Cli = Callable[..., tuple[int, str, str]]
RUNS = "lmeh_pr3936_negotiationtom_repeats"


def test_corpus_estimates_in_their_own_groups_equal_the_harness(real_logs: Path, cli: Cli) -> None:
    folder = real_logs / RUNS
    code, out, _ = cli("metrics", folder, "--json", "--n-boot", "200")
    assert code == 0
    groups = [g for g in json.loads(out)["groups"] if g["task"] == "negotiationtom_intention"
              and g["metric"] in ("micro_f1,none", "macro_f1,none")]
    assert len(groups) == 8  # 4 runs x 2 corpus metrics
    results = {f.stem[len("results_"):]: json.loads(f.read_text())["results"]["negotiationtom_intention"]
               for f in folder.rglob("results_*.json")}
    for g in groups:
        assert list(g["metrics"]) == [g["metric"]], g["metrics"].keys()
        harness = results[g["run"].split("@")[1]][g["metric"]]  # the run id ends with its results' timestamp
        assert g["metrics"][g["metric"]]["estimate"] == pytest.approx(harness, abs=1e-12)
    code, out, err = cli("metrics", folder, "--n-boot", "200")
    assert code == 0 and "corpus-level metric" not in out + err


def test_summarize_points_to_metrics_and_metrics_lists_nothing_missing(real_logs: Path, cli: Cli) -> None:
    folder = real_logs / RUNS
    code, _, err = cli("summarize", folder)
    assert code == 0 and "skipped run" not in err
    assert "metric 'micro_f1,none': a corpus-level metric (20 per-item inputs, not scores): `evaladdon metrics` " \
        "estimates it" in err
    code, out, err = cli("metrics", folder, "--n-boot", "200")
    assert not [line for line in (out + err).splitlines() if line.startswith("missing:") and "_f1,none: all:" in line]
