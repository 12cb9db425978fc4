"""What the benchmark scripts share of their command lines (kept to the standard library: a
benchmark's options are a few flags, not worth argparse's help machinery)."""

from __future__ import annotations


def take(argv: list[str], flag: str) -> str | None:
    """The value after ``flag`` in ``argv``, both removed; None when ``flag`` is absent."""
    if flag not in argv:
        return None
    i = argv.index(flag)
    value = argv[i + 1]
    del argv[i:i + 2]
    return value


ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
"""The environment of a timed child process: BLAS with one thread.  numpy's OpenBLAS starts a
worker thread a core when it is imported, and that thread spins (busy-waits for work) for
its first ~0.1 s: a program whose clock starts soon after ``import numpy`` (the lm-eval floor,
~0.06 s after its start) had that spinning in its CPU time (``process_time`` counts every
thread), about as much CPU again as its own work on 2 cores, while a program that imports
pandas first (the readers) had it over before its clock started.  None of the timed work uses
BLAS, so one thread changes nothing but that."""


def child_env(**extra: str) -> dict[str, str]:
    """``os.environ`` with :data:`ONE_THREAD` (and ``extra``) for a timed child process."""
    import os

    return {**os.environ, **ONE_THREAD, **extra}
