"""Issue 25.12: ``compare DIR --baseline X`` prints one table with a row per candidate (text and
markdown), and a run of another task in the folder is listed and left out without failing the
gate (exit 2 was "a comparison not made")."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import numpy as np
import pytest


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    rng = np.random.default_rng(3)
    for m in ("base", "cand1", "cand2", "cand3"):
        with (tmp_path / f"{m}.csv").open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["model", "task", "item", "value"])
            w.writerows([m, "qa", i, int(rng.uniform() < 0.6)] for i in range(50))
    with (tmp_path / "other.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["model", "task", "item", "value"])
        w.writerows(["otherm", "summ", i, int(rng.uniform() < 0.6)] for i in range(20))
    return tmp_path


def test_one_table_a_row_per_candidate(folder: Path, cli) -> None:
    code, out, err = cli("compare", folder, "--baseline", "base")
    assert code == 0
    assert out.count("task/metric") == 1 and "B = cand1  vs" not in out
    assert out.startswith("A = base (baseline); B = each run below\nB = run  task/metric")
    rows = [x.split()[0] for x in out.splitlines() if "qa/value" in x and not x.startswith("cand1 vs")]
    assert rows[:3] == ["cand1", "cand2", "cand3"]


def test_one_markdown_table(folder: Path, cli) -> None:
    code, out, _ = cli("compare", folder, "--baseline", "base", "--markdown")
    assert code == 0
    assert out.count("| B = run | task/metric |") == 1
    assert [x.split("|")[1].strip() for x in out.splitlines() if x.startswith("| cand")] == ["cand1", "cand2", "cand3"]


def test_run_of_another_task_left_out_not_blocking(folder: Path, cli) -> None:
    code, out, err = cli("compare", folder, "--baseline", "base", "--fail-on-regression")
    assert code == 0, err
    assert "not compared: otherm vs base: share no (task, metric) (tasks qa vs summ) (left out" in err
    assert "input(s) not read" not in err and "cannot pass" not in err
    code, out, _ = cli("compare", folder, "--baseline", "base", "--fail-on-regression", "--json")
    doc = json.loads(out)
    assert code == 0 and len(doc["results"]) == 3
    assert any("share no (task, metric)" in json.dumps(s) and "otherm" in json.dumps(s) for s in doc["skipped"])
    code, out, _ = cli("compare", folder, "--baseline", "base", "--fail-on-regression", "--markdown")
    assert code == 0 and "otherm vs base: share no" in out


def test_unreadable_input_still_blocks(folder: Path, cli) -> None:
    (folder / "broken.eval").write_bytes(b"PK\x03\x04 not a zip")
    code, _, err = cli("compare", folder, "--baseline", "base", "--fail-on-regression")
    assert code == 2 and "1 input(s) not read" in err


def test_real_logs_all_pairs_one_table(real_logs: Path, cli, tmp_path: Path) -> None:
    src = real_logs / "inspect_ai_logsets" / "set2"
    for f in src.glob("*.eval"):
        shutil.copy(f, tmp_path / f.name)
    code, out, _ = cli("compare", tmp_path, "--baseline", "openai/gpt-5", "--markdown")
    assert code == 0
    assert out.count("| B = run | task/metric |") == 1
    assert len([x for x in out.splitlines() if "popularity/match" in x and x.startswith("|")]) == 2
