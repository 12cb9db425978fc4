"""Summarizing a 50,000-document lm-eval samples file.

Writes a samples_<task>_<timestamp>.jsonl shaped like lm-eval 0.4.7+ output (doc with a
passage and choices, arguments, resps, filtered_resps, hashes, one acc metric) and times
evaladdon's read + clustered summary.

    python benchmarks/bench_lm_eval.py [N_DOCS]
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from pathlib import Path


def build(n: int, folder: Path) -> Path:
    rng = random.Random(0)
    path = folder / "samples_bench_2026-01-01T00-00-00.000000.jsonl"
    passage = "lorem ipsum dolor sit amet " * 40
    with path.open("w") as fh:
        for i in range(n):
            doc = {"id": i, "passage_id": f"p{i // 5}", "passage": passage, "question": f"q{i}?",
                   "choices": ["a", "b", "c", "d"], "answer": rng.randrange(4)}
            lls = [[[-rng.random() * 10, False]] for _ in range(4)]
            rec = {"doc_id": i, "doc": doc, "target": doc["answer"],
                   "arguments": {f"gen_args_{k}": {"arg_0": passage + doc["question"], "arg_1": f" {c}"}
                                 for k, c in enumerate(doc["choices"])},
                   "resps": lls, "filtered_resps": [x[0] for x in lls], "filter": "none", "metrics": ["acc"],
                   "doc_hash": f"{i:064x}", "prompt_hash": f"{i:064x}", "target_hash": f"{i:064x}",
                   "acc": float(rng.random() < 0.6)}
            fh.write(json.dumps(rec) + "\n")
    return path


def main(n: int = 50_000) -> None:
    from evaladdon.adapters import load
    from evaladdon.summary import summarize_table

    with tempfile.TemporaryDirectory() as tmp:
        path = build(n, Path(tmp))
        size = path.stat().st_size / 2**20
        t0 = time.perf_counter()
        df = load([path], cluster="passage_id")
        t1 = time.perf_counter()
        (s,) = summarize_table(df)
        t2 = time.perf_counter()
        print(f"samples file: {n} docs, {size:.0f} MiB")
        print(f"read into the item table: {t1 - t0:5.2f} s; clustered summary: {t2 - t1:5.2f} s; "
              f"total {t2 - t0:5.2f} s (mean {s.estimate.mean:.4f}, {s.estimate.n_clusters} clusters)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50_000)
