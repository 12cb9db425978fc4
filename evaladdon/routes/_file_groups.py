"""Input files cut into contiguous groups of about equal bytes: one Dask task a group
(``summarize --engine dask PATH...``, :mod:`evaladdon.routes.dask_paths`; the table route's
reading under ``--engine dask``, :mod:`evaladdon.routes.dask_reduce`)."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

__all__ = ["file_groups"]


def file_groups(files: Sequence[Path], parts: int) -> list[list[str]]:
    """``files`` cut into at most ``parts`` contiguous groups of about equal bytes (file order
    kept, so that results gathered group by group come in file order)."""
    import numpy as np

    if not files:
        return []
    sizes = np.array([max(f.stat().st_size, 1) for f in files], dtype=float)
    ends = np.cumsum(sizes)
    # group k takes the files whose bytes end in the k-th of `parts` equal slices of the total
    group = np.minimum((ends - sizes / 2) * parts // ends[-1], parts - 1).astype(int)
    cuts = np.flatnonzero(np.diff(group)) + 1
    return [[str(f) for f in chunk] for chunk in np.split(np.array(files, dtype=object), cuts)]
