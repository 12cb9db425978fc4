"""Short names that tell source files apart (prefixes for runs that clash across files)."""

from __future__ import annotations

from pathlib import PurePath
from typing import Iterable


def distinguishing_names(sources: Iterable[str]) -> dict[str, str]:
    """Each source -> its shortest trailing path (same number of components for all) that no
    other source shares: ``a/res.csv`` and ``b/res.csv`` -> ``a/res.csv``, ``b/res.csv``;
    ``x/base.eval`` and ``x/base.json`` -> ``base.eval``, ``base.json``."""
    unique = list(dict.fromkeys(str(s) for s in sources))
    parts = {s: PurePath(s).parts or (s,) for s in unique}
    longest = max((len(p) for p in parts.values()), default=1)
    for k in range(1, longest + 1):
        names = {s: "/".join(p[-k:]) for s, p in parts.items()}
        if len(set(names.values())) == len(names):
            return names
    return {s: s for s in unique}
