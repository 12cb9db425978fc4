"""Issue 25.2: HELM runs report one split (``test`` by default, as HELM's leaderboard does) and
hide HELM's bookkeeping stats unless asked; what is left out is counted in a note.

The real BBQ runs have only the ``test`` split, so the mixed-split MMLU run (19 ``test`` + 1
``valid`` instance, as SEED_SYSTEMS.md describes the real ones) is built to HELM's documented
format, with the ``stats.json`` HELM writes for it (per split: sums over counts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaladdon.adapters import read_runs
from evaladdon.adapters.helm import BOOKKEEPING, read_helm_run
from evaladdon.errors import InputError

HELM_RUNS = "helm_bbq_official/benchmark_output_bbq/runs/v1"
MAIN = ["exact_match", "quasi_exact_match", "prefix_exact_match", "quasi_prefix_exact_match"]
KEEPING = {"num_train_trials": 1.0, "batch_size": 1.0, "finish_reason_length": 1.0, "num_bytes": 2.0,
           "inference_runtime": 0.4}


def _stat(name: str, value: float, split: str) -> dict:
    return {"name": {"name": name, "split": split}, "count": 1, "sum": value, "sum_squared": value * value,
            "min": value, "max": value, "mean": value, "variance": 0.0, "stddev": 0.0}


def mmlu_run(root: Path, correct_test: int, n_test: int, valid_correct: bool) -> Path:
    """An MMLU anatomy run of ``n_test`` test instances (``correct_test`` right) and one valid one."""
    d = root / "runs" / "v1" / "mmlu:subject=anatomy,method=multiple_choice_joint,model=openai_gpt2"
    d.mkdir(parents=True)
    entries = []
    for i in range(n_test + 1):
        split = "test" if i < n_test else "valid"
        em = float(i < correct_test) if split == "test" else float(valid_correct)
        stats = [_stat(k, v, split) for k, v in KEEPING.items()] + [_stat("logprob", -0.5, split)]
        stats += [_stat(m, em, split) for m in MAIN]
        entries.append({"instance_id": f"id{100 + i}", "train_trial_index": 0, "stats": stats})
    (d / "per_instance_stats.json").write_text(json.dumps(entries))
    spec = {"name": d.name, "scenario_spec": {"class_name": "helm.benchmark.scenarios.mmlu_scenario.MMLUScenario",
                                              "args": {"subject": "anatomy"}},
            "adapter_spec": {"method": "multiple_choice_joint", "model": "openai/gpt2"},
            "metric_specs": [{"class_name": "helm.benchmark.metrics.basic_metrics.BasicMetric",
                              "args": {"names": MAIN}}]}
    (d / "run_spec.json").write_text(json.dumps(spec))
    # HELM's run-level stats: per split, the sums over the counts
    run_stats = []
    for split, n, s in (("test", n_test, correct_test), ("valid", 1, float(valid_correct))):
        run_stats += [{"name": {"name": m, "split": split}, "count": n, "sum": s, "mean": s / n} for m in MAIN]
    (d / "stats.json").write_text(json.dumps(run_stats))
    return d


def helm_mean(run_dir: Path, metric: str, split: str = "test") -> float:
    for st in json.loads((run_dir / "stats.json").read_text()):
        if st["name"] == {"name": metric, "split": split}:
            return float(st["mean"])
    raise KeyError(metric)


@pytest.mark.parametrize(("correct", "n_test", "valid", "helm", "pooled"),
                         [(1, 9, False, 0.111, 0.100), (13, 19, True, 0.684, 0.700)])
def test_helm_test_split_matches_helm_not_pooled(tmp_path: Path, correct: int, n_test: int, valid: bool,
                                                 helm: float, pooled: float, cli) -> None:
    d = mmlu_run(tmp_path, correct, n_test, valid)
    code, out, err = cli("summarize", d, "--json")
    assert code == 0, err
    doc = json.loads(out)
    rows = {r["metric"]: r for r in doc["results"]}
    assert rows["exact_match"]["mean"] == pytest.approx(helm_mean(d, "exact_match"), abs=1e-12)
    assert round(rows["exact_match"]["mean"], 3) == helm and rows["exact_match"]["n_items"] == n_test
    assert round((correct + valid) / (n_test + 1), 3) == pooled  # what was reported before
    # the split read is named, and the other split counted, in the JSON too
    split_notes = [n for n in doc["notes"] if "HELM split 'test' read" in n]
    assert len(split_notes) == 1
    assert f"{len(MAIN) + len(KEEPING) + 1} stat(s) of 1 instance(s) of split 'valid'" in split_notes[0]
    # on request, the other split, alone
    code, out, err = cli("summarize", d, "--json", "--split", "valid")
    rows = {r["metric"]: r for r in json.loads(out)["results"]}
    assert rows["exact_match"]["mean"] == helm_mean(d, "exact_match", "valid") and rows["exact_match"]["n_items"] == 1


def test_helm_bookkeeping_hidden_main_metrics_first(tmp_path: Path, cli) -> None:
    d = mmlu_run(tmp_path, 13, 19, True)
    t = read_helm_run(d)
    assert list(dict.fromkeys(t["metric"])) == MAIN + ["logprob"]
    note = next(n for n in t.attrs["notes"] if "HELM bookkeeping" in n)
    assert f"{len(KEEPING)} HELM bookkeeping stat(s) not shown ({19 * len(KEEPING)} row(s)" in note
    assert "--all-metrics" in note
    every = read_helm_run(d, all_metrics=True)
    assert set(every["metric"]) == set(MAIN) | {"logprob"} | set(KEEPING)
    assert not any("HELM bookkeeping" in n for n in every.attrs["notes"])
    code, out, _ = cli("summarize", d, "--all-metrics", "--json")
    assert {r["metric"] for r in json.loads(out)["results"]} >= set(KEEPING)
    code, out, _ = cli("summarize", d)
    assert code == 0 and out.index("exact_match") < out.index("logprob") and "batch_size" not in out


def test_helm_split_refusals(tmp_path: Path, cli) -> None:
    d = mmlu_run(tmp_path, 1, 9, False)
    with pytest.raises(InputError, match="no stats of split 'train'.*test, valid"):
        read_helm_run(d, split="train")
    code, out, err = cli("summarize", d, "--split", "train")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "split 'train'" in err
    code, _, err = cli("summarize", "--store", tmp_path / "s", "--split", "test")
    assert code == 2 and "--split" in err


def test_helm_real_runs_show_test_split_and_main_metrics(real_logs: Path) -> None:
    loaded = read_runs([real_logs / HELM_RUNS])
    t = loaded.table
    assert not set(t["metric"]) & BOOKKEEPING
    for _run, g in t.groupby("run"):
        assert list(dict.fromkeys(g["metric"]))[:4] == MAIN
        assert set(g["meta.split"]) == {"test"}
    assert sum("HELM split 'test' read" in n for n in loaded.notes) == 3
    assert sum("15 HELM bookkeeping stat(s) not shown (750 row(s)" in n for n in loaded.notes) == 3
    # every shown mean is HELM's own (stats.json, test split)
    for d in sorted(p for p in (real_logs / HELM_RUNS).iterdir() if p.is_dir()):
        ours = read_helm_run(d).groupby("metric")["value"].mean()
        for m in MAIN:
            assert ours[m] == pytest.approx(helm_mean(d, m), abs=1e-12)
