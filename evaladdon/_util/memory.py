"""Freed memory handed back to the operating system, for long-lived worker threads."""

from __future__ import annotations

import sys


def give_back() -> None:
    """Return the memory freed so far to the OS: pyarrow's pool (``release_unused``, when pyarrow
    is loaded) and glibc's arenas (``malloc_trim(0)``, where the C library has it).  A Dask
    worker thread that reduced a group keeps its freed buffers otherwise (glibc's per-thread
    arenas, and its mmap threshold that grows with each large free): measured on two in-process
    workers over 20 stored logs of 500k rows, 810 MB resident after the tasks, 503 MB after
    both calls (``docs/dev/performance-log.md``)."""
    pa = sys.modules.get("pyarrow")
    if pa is not None:
        pa.default_memory_pool().release_unused()
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL("libc.so.6").malloc_trim(0)
        except (OSError, AttributeError):  # not glibc (musl): nothing to trim
            pass
