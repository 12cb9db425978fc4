"""compare_table over many runs takes each pair's rows by precomputed group positions: the
results equal comparing each pair on a table holding only its two runs."""

from __future__ import annotations

import numpy as np
import pandas as pd

from evaladdon.analysis.compare_table import align_rows, align_runs, compare_table
from evaladdon.table import finalize, validate


def _table(seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    parts = []
    for r in range(5):
        for task, n in (("t1", 60), ("t2", 40)):
            items = np.array([f"{task}-q{k}" for k in range(n)])[rng.permutation(n)][: n - r]  # runs differ in items
            value = (rng.uniform(size=len(items)) < 0.5 + 0.05 * r).astype(float)
            unscored = rng.uniform(size=len(items)) < 0.05  # some rows left out, counted per pair
            value[unscored] = np.nan
            parts.append(pd.DataFrame({
                "run": f"run{r}", "source": f"/logs/run{r}.csv", "harness": "table", "task": task,
                "model": f"m{r}", "metric": "acc", "item": items, "epoch": 1, "value": value,
                "raw": "", "cluster": None, "item_hash": None,
                "error": np.where(unscored, "scorer failed", None),
            }))
    df = pd.concat(parts, ignore_index=True)
    df["cluster"] = df["item"].str.slice(0, 4) + df["item"].str.len().astype(str)  # a cluster per item pattern
    return validate(finalize(df.iloc[rng.permutation(len(df))].reset_index(drop=True)))  # runs interleaved


def test_many_runs_equal_pairwise_tables() -> None:
    df = _table()
    pairs = [("run0", f"run{r}") for r in range(1, 5)]
    together = compare_table(df, pairs, adjust="none", seed=1)
    assert len(together) == 8
    for res in together:
        alone = compare_table(df[df["run"].isin([res.run_a, res.run_b])], [(res.run_a, res.run_b)], adjust="none",
                              seed=1)
        match = [a for a in alone if a.task == res.task]
        assert len(match) == 1
        assert match[0].flat() == res.flat()


def test_align_rows_equals_align_runs() -> None:
    df = _table(7)
    for task in ("t1", "t2"):
        sel = df["task"] == task
        a, al_a = align_runs(df, "run1", "run3", task, "acc")
        b, al_b = align_rows(df[sel & (df["run"] == "run1")], df[sel & (df["run"] == "run3")], "run1", "run3", task,
                             "acc")
        pd.testing.assert_frame_equal(a, b)
        assert al_a == al_b
        assert al_a.dropped_a or al_a.dropped_b  # the NaN rows are counted
