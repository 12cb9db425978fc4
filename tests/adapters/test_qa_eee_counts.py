"""QA: an Every Eval Ever aggregate whose ``num_samples`` is not a count (0, negative) shows the
sample size as unknown, never as ``n = -5``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO

REAL = REPO / "tests" / "data" / "every_eval_ever" / "hfopenllm_v2" / "98ea850e-7019-4728-a558-8b1819ec47c2.json"


@pytest.mark.parametrize("bad", [-5, 0])
def test_a_sample_count_below_one_is_unknown(cli: Any, tmp_path: Path, bad: int) -> None:
    doc = json.loads(REAL.read_text())
    doc.pop("detailed_evaluation_results", None)
    for r in doc["evaluation_results"]:
        r.setdefault("score_details", {}).setdefault("uncertainty", {})["num_samples"] = bad
    path = tmp_path / "agg.json"
    path.write_text(json.dumps(doc))
    code, out, err = cli("summarize", path, "--json")
    assert code == 0, err
    results = json.loads(out)["results"]
    assert results and all(r["n_items"] in (None, 0) or r["n_items"] >= 1 for r in results)
    assert all(r["n_items"] != bad or bad == 0 for r in results)
    code, out, _ = cli("summarize", path)
    assert f" {bad} " not in out
