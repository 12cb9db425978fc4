"""ROC/PR curve sets per group: the same curves as the stats functions, one set per run (so a
comparison's two runs are overlaid), rows without score or label counted."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evaladdon.analysis.curves import roc_pr_curves
from evaladdon.table import finalize

skm = pytest.importorskip("sklearn.metrics")


def test_one_set_per_run_equal_to_sklearn() -> None:
    rng = np.random.default_rng(0)
    rows = []
    for run in ("A", "B"):
        y = (rng.random(200) < 0.4).astype(int)
        rows.append(pd.DataFrame({"run": run, "source": "x.csv", "harness": "table", "task": "t", "model": run,
                                  "metric": "det", "item": [f"q{i}" for i in range(200)], "epoch": 1, "value": 1.0,
                                  "raw": "1", "cluster": None, "item_hash": None, "error": None,
                                  "score": rng.normal(y, 1), "label": y.astype(str)}))
    df = pd.concat(rows, ignore_index=True)
    df.loc[3, "score"] = np.nan
    sets = roc_pr_curves(finalize(df), n_boot=200)
    assert [c.run for c in sets] == ["A", "B"] and sets[0].dropped == {"no score or label": 1}
    for c in sets:
        g = df[(df["run"] == c.run) & df["score"].notna()]
        fpr, tpr, _ = skm.roc_curve(g["label"].astype(int), g["score"], drop_intermediate=False)
        assert np.allclose(c.fpr, fpr) and np.allclose(c.tpr, tpr) and c.bands is not None
        assert c.n_items == len(g)
