"""``judge bias`` and ``judge drift`` from the command line (issue 28 items 1 and 4): the numbers
are the analysis functions' (tests/analysis/test_judge_bias.py, test_judge_drift.py hold the
oracles); here every output mode, escaping and the one-line refusals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

Cli = Callable[..., tuple[int, str, str]]


def _drift_csv(path: Path, n: int = 80) -> Path:
    rng = np.random.default_rng(4)
    a = (rng.random(n) < 0.7).astype(float)
    same = np.arange(n) < n // 2
    b = np.where(same & (a == 1) & (rng.random(n) < 0.3), 0.0, a)
    out_a = [f"answer <b>{i}</b> | x" for i in range(n)]
    out_b = [o if s else o + " v2" for o, s in zip(out_a, same, strict=True)]
    rows = [{"run": run, "task": "t", "item": f"q{i}", "value": v, "prediction": o}
            for run, vals, outs in (("old", a, out_a), ("new", b, out_b)) for i, (v, o) in enumerate(zip(vals, outs, strict=True))]
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_judge_bias_on_a_real_model_graded_log(real_logs: Path, cli: Cli) -> None:
    (log,) = (real_logs / "inspect_scout_examples" / "examples" / "scanner" / "logs").glob("*theory-of-mind*")
    code, out, err = cli("judge", "bias", log)
    assert code == 0, err
    assert "length (per doubling of length)" in out and "HC3" in out and "not proof of bias" in out
    code, out, _ = cli("judge", "bias", log, "--json")
    (rec,) = json.loads(out)["results"]
    assert rec["outcome"] == "verdict" and rec["n_rows"] == 100
    assert [b["name"] for b in rec["biases"]][0] == "length"
    code, out, _ = cli("judge", "bias", log, "--markdown")
    assert "| length \\(per doubling of length\\) |" in out


def test_judge_drift_and_refusals(tmp_path: Path, cli: Cli) -> None:
    path = _drift_csv(tmp_path / "judged.csv")
    code, out, err = cli("judge", "drift", path, "--baseline", "old")
    assert code == 0, err
    assert "40 of 80 shared items have the same outputs" in out
    assert "share of the headline difference" in out
    code, out, _ = cli("judge", "drift", path, "--baseline", "old", "--json")
    (rec,) = json.loads(out)["results"]
    assert rec["n_same_output"] == 40 and rec["judge_change"]["delta"] < 0
    plain = tmp_path / "plain.csv"
    pd.DataFrame({"run": ["a", "a", "a"], "item": ["1", "2", "3"], "value": [1.0, 0.0, 1.0]}).to_csv(plain, index=False)
    code, _, err = cli("judge", "bias", plain)
    assert code == 2 and err.count("\n") == 1 and "keep no answers" in err
    code, _, err = cli("judge", path, "--labels", path, "--judge-model", "openai/gpt-4o")
    assert code == 2 and err.count("\n") == 1 and "--judge-model applies to judge bias" in err


def test_judge_bias_on_pairwise_verdicts(real_logs: Path, cli: Cli) -> None:
    code, out, err = cli("judge", "bias", real_logs / "mtbench_gpt4_pair")
    assert code == 0, err
    assert "position (first shown)" in out and "146 rows, 73 clusters" in out
    assert "left out: 2 judge error in g1 or g2" in out
    code, out, _ = cli("judge", "bias", real_logs / "arena_hard_battles", "--json")
    (rec,) = json.loads(out)["results"]
    assert rec["biases"] == [] and any("shown in one place only" in n for n in rec["notes"])


def test_pairwise_bias_json_uses_the_envelope(tmp_path: Path, cli: Cli) -> None:
    """``judge bias`` on pairwise verdicts writes the ``{"results", "skipped", "notes"}`` envelope of every
    ``--json`` output (:func:`evaladdon.report.envelope.emit`), with the preference reader's notes."""
    import shutil

    from conftest import REPO

    folder = tmp_path / "prefs"
    folder.mkdir()
    shutil.copy(REPO / "sample_logs" / "preferences" / "battles.jsonl", folder)
    (folder / "other.csv").write_text("id,score\n1,0.5\n")  # not a preference file: said, not read
    code, out, err = cli("judge", "bias", folder, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert set(doc) == {"results", "skipped", "notes"} and doc["results"] and doc["skipped"] == []
    assert any("not pairwise preferences not read" in n for n in doc["notes"]), doc["notes"]
    code, out, err = cli("judge", "bias", folder)
    assert code == 0 and "not pairwise preferences not read" in err and "not read" not in out
