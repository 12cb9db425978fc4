"""Cluster bootstrap speed: 10,000 replicates over 1,000,000 items in 20,000 clusters.

Item means are reduced to per-cluster totals once (np.bincount); each replicate sums 20,000
cluster rows, never the million items.

    python benchmarks/bench_bootstrap.py
"""

from __future__ import annotations

import time

import numpy as np

from evaladdon.stats import bootstrap_mean


def main() -> None:
    rng = np.random.default_rng(0)
    n_items, n_clusters = 1_000_000, 20_000
    clusters = rng.integers(0, n_clusters, n_items)
    values = (rng.random(n_items) < 0.6).astype(float)
    for method in ("percentile", "bca"):
        t0 = time.perf_counter()
        r = bootstrap_mean(values, clusters, n_resamples=10_000, method=method, seed=1)  # type: ignore[arg-type]
        dt = time.perf_counter() - t0
        print(f"{method:10s}: {dt:5.2f} s for 10,000 replicates ({n_items:,} items, {n_clusters:,} clusters); "
              f"interval [{r.low:.4f}, {r.high:.4f}]")


if __name__ == "__main__":
    main()
