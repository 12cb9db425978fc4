"""``compare --metric`` follows the units rule of issue 25 item 1: points only when both estimates
compared lie in [0, 1]; an mcc or kappa below 0 (or nll) is shown, and its ``--margin`` read, in
the metric's own units (issue 25, item 1, for the metric families)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

Cli = Callable[..., tuple[int, str, str]]


def _table(tmp_path: Path, flip_a: float) -> Path:
    rng = np.random.default_rng(3)
    n = 60
    label = rng.integers(0, 2, n)
    rows = []
    for run, flip in (("A", flip_a), ("B", 0.1)):
        pred = np.where(rng.uniform(size=n) < flip, 1 - label, label)
        rows += [{"run": run, "item": f"q{i}", "value": float(pred[i] == label[i]), "prediction": str(pred[i]),
                  "label": str(label[i])} for i in range(n)]
    path = tmp_path / "preds.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_an_mcc_below_zero_is_in_its_own_units(tmp_path: Path, cli: Cli) -> None:
    path = _table(tmp_path, flip_a=0.8)  # A mostly wrong: its mcc is negative
    code, out, _ = cli("compare", path, "--metric", "mcc", "--baseline", "A", "--n-boot", "200")
    assert code == 0 and "delta and CI in the metric's own units" in out, out
    code, out, err = cli("compare", path, "--metric", "mcc", "--baseline", "A", "--n-boot", "200",
                         "--fail-on-regression", "--margin", "0.05")
    assert code == 0 and "m = 0.05" in out and "points" not in out.split("gate:")[1], out + err


def test_estimates_in_the_unit_interval_are_in_points(tmp_path: Path, cli: Cli) -> None:
    path = _table(tmp_path, flip_a=0.3)
    code, out, _ = cli("compare", path, "--metric", "accuracy", "--baseline", "A", "--n-boot", "200")
    assert code == 0 and "delta and CI in points" in out, out
