"""The lm-eval plug-ins inside real ``lm_eval`` runs (dummy model, local json task)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("lm_eval")

from evaladdon.adapters import load  # noqa: E402
from evaladdon.cli.main import main  # noqa: E402
from evaladdon.stats import clustered_se  # noqa: E402
from evaladdon.analysis.summarize import summarize_table  # noqa: E402

from conftest import REPO, load_script  # noqa: E402

make_lm_eval_logs = load_script("make_lm_eval_logs")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return make_lm_eval_logs.run(tmp_path_factory.mktemp("lm_eval_runs"))  # type: ignore[no-any-return]


def results_of(folder: Path) -> dict:  # type: ignore[type-arg]
    return json.loads(next(folder.glob("results_*.json")).read_text())


@pytest.mark.slow  # real lm_eval runs
def test_clustered_metrics_in_the_results_file(runs: list[Path]) -> None:
    res = results_of(runs[0])["results"]["evaladdon_clustered_example"]
    docs = pd.read_json(REPO / "examples" / "lm_eval" / "data.jsonl", lines=True)
    samples = pd.read_json(next(runs[0].glob("samples_evaladdon_clustered_example_*.jsonl")), lines=True)
    acc = samples.set_index("doc_id")["acc"].sort_index().to_numpy()
    clusters = docs["passage_id"].to_numpy()
    assert res["acc_clustered,none"] == pytest.approx(acc.mean()) == pytest.approx(res["acc,none"])
    assert res["acc_clustered_se,none"] == pytest.approx(clustered_se(acc, clusters).se_cr1)
    s = summarize_table(load([runs[0]], cluster="passage_id"), metric="acc,none")[0].estimate
    assert res["acc_clustered_se,none"] == pytest.approx(s.se_cluster)  # same estimator as summarize
    assert res["acc_stderr,none"] == pytest.approx(s.se_item)


def test_two_seeds_differ_and_compare(runs: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    a, b = (results_of(r)["results"]["evaladdon_clustered_example"]["acc,none"] for r in runs)
    assert a != b
    code = main(["compare", str(runs[0]), str(runs[1]), "--metric", "acc,none", "--json"])
    (row,) = json.loads(capsys.readouterr().out)["results"]
    assert code == 0 and row["n"] == 120 and row["delta"] == pytest.approx(b - a)
    assert row["test"] == "mcnemar" and row["hash_mismatch"] == 0


def test_repeats_note(runs: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summarize", str(runs[0]), "--metric", "exact_match,none"]) == 0
    out = capsys.readouterr().err  # warnings go to stderr, never into the table
    assert "ran with repeats=3" in out and "only the first repeat" in out


@pytest.mark.slow  # a real lm_eval run
def test_opt_in_stderr_slot(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "lm_eval", "--model", "dummy", "--tasks", "evaladdon_stderr_slot_example",
           "--include_path", "examples/lm_eval/stderr_slot", "--output_path", str(tmp_path), "--log_samples",
           "--seed", "3", "--model_args", "pretrained=slot"]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-1500:]
    res = results_of(tmp_path / "slot")["results"]["evaladdon_stderr_slot_example"]
    s = summarize_table(load([tmp_path / "slot"], cluster="passage_id"), metric="acc,none")[0].estimate
    assert res["acc_clustered_stderr,none"] == pytest.approx(s.se_cluster)
    assert res["acc_stderr,none"] == pytest.approx(s.se_item)  # untouched for ordinary metrics


def test_posthoc_writes_next_to_results_and_keeps_original(runs: list[Path], tmp_path: Path) -> None:
    import shutil

    folder = tmp_path / "copy"
    shutil.copytree(runs[0], folder)
    original = next(folder.glob("results_*.json"))
    before = original.read_bytes()
    assert main(["lm-eval-stderr", str(folder), "--cluster", "passage_id", "--quiet"]) == 0
    assert original.read_bytes() == before
    report = json.loads(next(folder.glob("*.evaladdon.json")).read_text())
    entry = report["tasks"]["evaladdon_clustered_example"]["acc,none"]
    assert entry["harness_value"] == pytest.approx(entry["mean"])
    assert entry["n_clusters"] == 30 and np.isfinite(entry["se_cluster"])


def test_posthoc_group_with_overlapping_subtasks(tmp_path: Path) -> None:
    """Two subtasks share half their documents: the group SE clusters them by doc_hash."""
    rng = np.random.default_rng(0)
    ts = "2026-01-01T00-00-00"
    shared = rng.integers(0, 2, 50)
    own = rng.integers(0, 2, (2, 50))
    for k, task in enumerate(("sub_a", "sub_b")):
        with (tmp_path / f"samples_{task}_{ts}.jsonl").open("w") as fh:
            for i in range(100):
                same = i < 50
                v = int(shared[i]) if same else int(own[k, i - 50])
                h = f"shared{i}" if same else f"{task}{i}"
                fh.write(json.dumps({"doc_id": i, "doc": {}, "resps": [], "filter": "none", "metrics": ["acc"],
                                     "doc_hash": h, "acc": v}) + "\n")
    (tmp_path / f"results_{ts}.json").write_text(json.dumps({
        "results": {"grp": {"acc,none": 0.5, "acc_stderr,none": 0.03}, "sub_a": {}, "sub_b": {}},
        "group_subtasks": {"grp": ["sub_a", "sub_b"]}, "config": {"model": "m"}}))
    out = tmp_path / "report.json"
    assert main(["lm-eval-stderr", str(tmp_path / f"results_{ts}.json"), "-o", str(out), "--quiet"]) == 0
    g = json.loads(out.read_text())["groups"]["grp"]["acc,none"]
    assert g["n_items"] == 200 and g["n_clusters"] == 150
    assert g["se_cluster"] > g["se_item"]  # duplicated documents are not independent evidence


def test_posthoc_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "results_2026-01-01T00-00-00.json"
    p.write_text(json.dumps({"results": {"t": {"acc,none": 1.0}}}))
    assert main(["lm-eval-stderr", str(p)]) == 2
    assert "no samples_<task>_<timestamp>.jsonl" in capsys.readouterr().err
