"""Reader speed for HELM, promptfoo and DeepEval outputs on synthetic runs of realistic shape.

- HELM: one run of 10,000 instances x 30 stats (300,000 rows), as MedHELM-sized suites have;
- promptfoo: a v3 output of 2 providers x 20,000 tests with 2 named scores (160,000 rows);
- DeepEval: a test run of 10,000 test cases x 3 metrics (60,000 rows).

Parsing is orjson; each reader makes one pass of per-record extraction, then column operations.

    python benchmarks/bench_seed_systems.py
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import numpy as np

from evaladdon.adapters.deepeval import read_deepeval
from evaladdon.adapters.helm import read_helm_run
from evaladdon.adapters.promptfoo import read_promptfoo


def write_helm(root: Path, rng: np.random.Generator) -> Path:
    d = root / "runs" / "v1" / "scenario:subject=x,model=org_model"
    d.mkdir(parents=True)
    entries = [{"instance_id": f"id{i}", "train_trial_index": 0,
                "stats": [{"name": {"name": f"stat{j}", "split": "test"}, "count": 1, "sum": float(v),
                           "sum_squared": float(v), "mean": float(v)} for j, v in enumerate(rng.random(30) < 0.6)]}
               for i in range(10_000)]
    (d / "per_instance_stats.json").write_text(json.dumps(entries))
    (d / "run_spec.json").write_text(json.dumps({"name": d.name, "adapter_spec": {"model": "org/model"}}))
    return d


def write_promptfoo(root: Path, rng: np.random.Generator) -> Path:
    rows = []
    for i in range(20_000):
        for prov in ("openai:a", "openai:b"):
            ok = bool(rng.random() < 0.7)
            rows.append({"provider": {"id": prov, "label": ""}, "prompt": {"raw": "Q", "label": "Q {{q}}"},
                         "promptIdx": 0, "promptId": "p", "testIdx": i, "vars": {"q": f"question {i}"},
                         "success": ok, "score": float(ok), "namedScores": {"acc": float(ok), "fluency": 0.5},
                         "failureReason": 0 if ok else 1, "gradingResult": {"pass": ok, "score": float(ok), "reason": "r"}})
    f = root / "promptfoo.json"
    f.write_text(json.dumps({"evalId": "e", "results": {"version": 3, "results": rows, "stats": {}}, "config": {}}))
    return f


def write_deepeval(root: Path, rng: np.random.Generator) -> Path:
    cases = [{"name": f"test_case_{i}", "input": f"question {i}", "success": True,
              "metricsData": [{"name": m, "score": float(s), "threshold": 0.5, "success": bool(s >= 0.5)}
                              for m, s in zip(("Faithfulness", "Answer Relevancy", "Correctness [GEval]"), rng.random(3), strict=True)]}
             for i in range(10_000)]
    d = root / "proj" / ".deepeval"
    d.mkdir(parents=True)
    f = d / ".latest_test_run.json"
    f.write_text(json.dumps({"testRunData": {"testCases": cases, "hyperparameters": {"retriever": "k5"}}}))
    return f


def main() -> None:
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name, path, reader in (("HELM", write_helm(root, rng), read_helm_run),
                                   ("promptfoo", write_promptfoo(root, rng), read_promptfoo),
                                   ("DeepEval", write_deepeval(root, rng), read_deepeval)):
            size = sum(f.stat().st_size for f in ([path] if path.is_file() else path.iterdir()))
            t0 = time.perf_counter()
            table = reader(path, None)
            dt = time.perf_counter() - t0
            print(f"{name:9s}: {len(table):8,d} rows from {size / 2**20:6.1f} MiB in {dt:5.2f} s "
                  f"({len(table) / dt:,.0f} rows/s)")


if __name__ == "__main__":
    main()
