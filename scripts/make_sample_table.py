"""Regenerate ``sample_logs/table/checkpoints.csv``: a seeded long table of two checkpoints.

300 reading-comprehension style items in 60 passages (the cluster), each answered three
times (epochs) by two checkpoints that share item difficulty, so their scores are
correlated the way real paired runs are.  Used by the README demo and the tests until the
harness adapters ship their own sample logs.

    python scripts/make_sample_table.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

OUT = Path(__file__).resolve().parent.parent / "sample_logs" / "table" / "checkpoints.csv"


def main(seed: int = 20261130) -> None:
    rng = np.random.default_rng(seed)
    n_passages, per_passage, epochs = 60, 5, 3
    passage_effect = rng.normal(0.0, 0.9, n_passages)
    item_effect = rng.normal(0.0, 1.2, n_passages * per_passage)
    passage = np.repeat(np.arange(n_passages), per_passage)
    logit = passage_effect[passage] + item_effect
    rows = []
    for model, shift in (("ckpt-1000", 0.3), ("ckpt-2000", 0.55)):
        p = 1.0 / (1.0 + np.exp(-(logit + shift)))
        for epoch in range(1, epochs + 1):
            correct = rng.random(p.size) < p
            rows.append(
                pd.DataFrame(
                    {
                        "model": model,
                        "task": "reading",
                        "question_id": [f"q{i:03d}" for i in range(p.size)],
                        "epoch": epoch,
                        "passage_id": [f"p{j:02d}" for j in passage],
                        "score": correct.astype(int),
                    }
                )
            )
    OUT.parent.mkdir(parents=True, exist_ok=True)
    pd.concat(rows, ignore_index=True).to_csv(OUT, index=False)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
