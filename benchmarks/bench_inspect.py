"""Summarizing a 20,000-sample Inspect .eval log vs Inspect's own full read_eval_log.

Builds the log once (in a temp dir) by replicating the samples of
``sample_logs/inspect/baseline.eval`` with new ids, writes it with Inspect's own writer,
then times (plain wall clock) evaladdon's read (header + sample summaries) and summary and
Inspect's full ``read_eval_log``, and measures the peak memory of each in a second pass
(tracemalloc slows pure-Python code, so it is not used for the times).

    python benchmarks/bench_inspect.py [N_SAMPLES]
"""

from __future__ import annotations

import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def build(n: int, dest: Path) -> Path:
    from inspect_ai.log import read_eval_log, write_eval_log

    log = read_eval_log(str(REPO / "sample_logs" / "inspect" / "baseline.eval"))
    assert log.samples
    base = log.samples
    samples = []
    for i in range(n):
        s = base[i % len(base)].model_copy(deep=True)
        s.id = f"{s.id}-{i // len(base)}"
        samples.append(s)
    log.samples = samples
    log.results.total_samples = n  # type: ignore[union-attr]
    path = dest / "big.eval"
    write_eval_log(log, str(path))
    return path


def timed(fn, *args):  # type: ignore[no-untyped-def]
    tracemalloc.start()
    t0 = time.perf_counter()
    out = fn(*args)
    seconds = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return out, seconds, peak / 2**20


def main(n: int = 20_000) -> None:
    from inspect_ai.log import read_eval_log

    from evaladdon.adapters import load
    from evaladdon.summary import summarize_table

    with tempfile.TemporaryDirectory() as tmp:
        path = build(n, Path(tmp))
        size = path.stat().st_size / 2**20

        def ours() -> object:
            return summarize_table(load([path], cluster="passage.id"))

        def theirs() -> object:
            return read_eval_log(str(path))

        t0 = time.perf_counter()
        ours()
        t_ours_plain = time.perf_counter() - t0
        t0 = time.perf_counter()
        theirs()
        t_full_plain = time.perf_counter() - t0
        _, _, m_ours = timed(ours)
        _, _, m_full = timed(theirs)
        t_ours, t_full = t_ours_plain, t_full_plain
        print(f"log: {n} samples, {size:.1f} MiB on disk")
        print(f"evaladdon summarize (header + summaries): {t_ours:6.2f} s, peak {m_ours:7.1f} MiB")
        print(f"inspect read_eval_log (full):             {t_full:6.2f} s, peak {m_full:7.1f} MiB")
        print(f"ratio: {t_ours / t_full:.1%} of the full read's time")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000)
