"""Corpus-level metric intervals: evaladdon's cluster bootstrap vs lm-eval's own stderr.

lm-eval's stderr for f1/mcc/bleu/chrf/ter is ``bootstrap_stderr(agg, items, iters=100_000)``:
an i.i.d. bootstrap over docs that calls the aggregation (sklearn / sacrebleu over the whole
resampled corpus) once per replicate.  Running 100,000 of them takes far too long for a
benchmark, so lm-eval is timed on ``LM_ITERS`` replicates (single process,
``DISABLE_MULTIPROC``) and extrapolated linearly to 100,000 (its cost is exactly linear in
replicates).  evaladdon: per-item sufficient statistics once, per-cluster totals, then the
replicates (2,000 by default, and 100,000 for a like-for-like count), including the time to
build the statistics.

    python benchmarks/bench_corpus.py [N_ITEMS]
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

os.environ.setdefault("DISABLE_MULTIPROC", "1")


def corpus(n: int, seed: int = 0) -> tuple[list[tuple[int, int]], list[tuple[str, str]], np.ndarray]:
    rng = np.random.default_rng(seed)
    gold = (rng.random(n) < 0.4).astype(int)
    pred = np.where(rng.random(n) < 0.8, gold, 1 - gold)
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa".split()
    refs = [" ".join(rng.choice(words, 12)) for _ in range(n)]
    hyps = [" ".join(w if rng.random() < 0.7 else "x" for w in r.split()) for r in refs]
    clusters = np.arange(n) // 10
    return list(zip(gold.tolist(), pred.tolist(), strict=True)), list(zip(refs, hyps, strict=True)), clusters


def lm_eval_time(agg_name: str, items: list, iters: int) -> float:
    from lm_eval.api.metrics import bootstrap_stderr
    from lm_eval.api.registry import get_aggregation

    fn = get_aggregation(agg_name)
    t = time.perf_counter()
    bootstrap_stderr(fn, items, iters=iters)
    return time.perf_counter() - t


def ours_time(agg_name: str, metric: str, items: list, clusters: np.ndarray, n_boot: int) -> tuple[float, float]:
    from evaladdon.analysis.corpus import prepare
    from evaladdon.stats.corpus import bootstrap_corpus

    t = time.perf_counter()
    prep = prepare(agg_name, metric, [list(x) for x in items])
    assert not isinstance(prep, str) and prep.stats is not None and prep.statistic is not None
    est = bootstrap_corpus(prep.stats, prep.statistic, clusters, n_resamples=n_boot)
    return time.perf_counter() - t, float(est.se or float("nan"))


def main(n: int = 2_000) -> None:
    import contextlib
    import io

    pairs, texts, clusters = corpus(n)
    print(f"corpus of {n} docs in {clusters.max() + 1} clusters; lm-eval timed on a few replicates and "
          "extrapolated to its 100,000")
    for agg, metric, items, lm_iters in [("f1", "f1", pairs, 1_000), ("matthews_corrcoef", "mcc", pairs, 1_000),
                                         ("bleu", "bleu", texts, 20), ("chrf", "chrf", texts, 10)]:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            lm = lm_eval_time(agg, items, lm_iters) * 100_000 / lm_iters
        t2k, se = ours_time(agg, metric, items, clusters, 2_000)
        t100k, _ = ours_time(agg, metric, items, clusters, 100_000)
        print(f"{metric:5s} lm-eval i.i.d. 100k: {lm:9.1f} s (extrapolated from {lm_iters}) | evaladdon cluster "
              f"2k: {t2k:6.2f} s ({lm / t2k:8.0f}x faster), 100k: {t100k:6.2f} s ({lm / t100k:7.0f}x); cluster SE "
              f"{se:.4f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2_000)
