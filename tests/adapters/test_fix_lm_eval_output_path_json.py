"""Issue 25.8: ``lm_eval --output_path NAME.json`` writes ``NAME_<date>.json`` beside
``samples_<task>_<date>.jsonl`` (lm-eval's ``EvaluationTracker.save_results_aggregated``:
``path.with_name(f"{path.stem}_{self.date_id}.json")``; the samples go to ``path.parent``).
The samples pair with that results file on the shared timestamp, so the model name and the
config are not lost.  Checked on the real 4-run repeat set, renamed as lm-eval names it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd

from evaladdon.adapters import read_runs
from evaladdon.adapters.lm_eval import read_samples
from evaladdon.adapters.lm_eval.results import pair_results

RUNS = "lmeh_pr3936_negotiationtom_repeats/Qwen__Qwen3-8B"


def as_output_path_json(real_logs: Path, tmp_path: Path, name: str = "qwen_eval") -> Path:
    """The real run folder as ``--output_path out/<name>.json`` lays it out."""
    out = tmp_path / "out"
    out.mkdir()
    for f in sorted((real_logs / RUNS).iterdir()):
        target = f.name.replace("results_", f"{name}_", 1) if f.name.startswith("results_") else f.name
        shutil.copy(f, out / target)
    return out


def test_samples_pair_with_name_timestamp_json(real_logs: Path, tmp_path: Path) -> None:
    out = as_output_path_json(real_logs, tmp_path)
    samples = sorted(out.glob("samples_*.jsonl"))
    assert len(samples) == 12
    for s in samples:
        results, task = pair_results(s)
        assert results is not None and results.name == "qwen_eval_" + s.stem.rsplit("_", 1)[1] + ".json"
        assert task is not None and s.stem.startswith(f"samples_{task}_")
    ours = read_runs([out])
    orig = read_runs([real_logs / RUNS])
    assert set(ours.table["model"]) == set(orig.table["model"]) == {"Qwen/Qwen3-8B"}
    assert not any("no results file pairs" in n for n in ours.notes)
    cols = ["run", "task", "model", "metric", "item", "epoch", "value"]
    pd.testing.assert_frame_equal(ours.table[cols].reset_index(drop=True), orig.table[cols].reset_index(drop=True),
                                  check_categorical=False)
    # no results file is read as a results-only run beside its samples
    assert ours.reported == [] and not ours.skipped


def test_unsure_pairing_is_not_guessed(real_logs: Path, tmp_path: Path) -> None:
    out = as_output_path_json(real_logs, tmp_path)
    s = sorted(out.glob("samples_negotiationtom_belief_*.jsonl"))[0]
    ts = s.stem.rsplit("_", 1)[1]
    # a second NAME_<ts>.json that also lists the task: which one is meant is not certain
    shutil.copy(out / f"qwen_eval_{ts}.json", out / f"other_{ts}.json")
    assert pair_results(s)[0] is None
    t = read_samples(s)
    assert set(t["model"]) == {"out"} and any("no results file pairs" in n for n in t.attrs["notes"])
