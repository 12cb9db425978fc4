"""Speed of the metrics beyond the mean on 200,000 items in 2,000 clusters, 2,000 replicates.

Each replicate is a weighted sum of per-cluster tables (confusion matrices, per-bin sums,
per-threshold counts), never a resample of items.  For contrast, the item-level bootstrap that
recomputes scikit-learn's F1 on resampled items is timed on 100 replicates and extrapolated.

    python benchmarks/bench_metrics.py
"""

from __future__ import annotations

import time

import numpy as np

from evaladdon.stats.calibration import calibration_metrics
from evaladdon.stats.classification import classification_metrics
from evaladdon.stats.roc import average_precision, roc_auc


def _time(label: str, fn) -> None:  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    fn()
    print(f"{label:42s} {time.perf_counter() - t0:6.2f} s")


def main() -> None:
    rng = np.random.default_rng(0)
    n, n_c, b = 200_000, 2_000, 2_000
    cl = rng.integers(0, n_c, n)
    y = rng.integers(0, 4, n)
    pred = np.where(rng.random(n) < 0.7, y, rng.integers(0, 4, n))
    conf = np.clip(rng.normal(0.7, 0.15, n), 0, 1)
    yb = (y == 0).astype(float)
    score = np.clip(0.5 * yb + rng.normal(0.3, 0.2, n), 0, 1)
    _time("classification, 4 classes (percentile)", lambda: classification_metrics(y, pred, cl, n_boot=b))
    _time("classification, 4 classes (BCa)", lambda: classification_metrics(y, pred, cl, n_boot=b, method="bca"))
    _time("calibration, 15 bins", lambda: calibration_metrics(conf, (pred == y).astype(float), cl, n_boot=b))
    _time("ROC AUC, clustered DeLong", lambda: roc_auc(score, yb, cl))
    _time("average precision (sparse per-threshold)", lambda: average_precision(score, yb, cl, n_boot=b))
    try:
        from sklearn.metrics import f1_score
    except ImportError:
        return
    t0 = time.perf_counter()
    for _ in range(100):
        idx = rng.integers(0, n, n)
        f1_score(y[idx], pred[idx], average="macro")
    dt = (time.perf_counter() - t0) / 100 * b
    print(f"{'item resampling + sklearn f1 (extrapolated)':42s} {dt:6.2f} s")


if __name__ == "__main__":
    main()
