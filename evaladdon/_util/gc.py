"""Python's cyclic garbage collector paused while a reader builds a log's objects."""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """Pause the cyclic collector (re-enabled after, if it was on).  Parsed JSON, records and
    column lists hold no reference cycles, so its passes over the growing heap free nothing:
    they were ~25% of the CPU of reading a 20,000-sample Inspect ``.eval`` and grew superlinearly
    in lm-eval's per-record pass (``benchmarks/bench_inspect.py``, ``bench_lm_eval.py``)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
