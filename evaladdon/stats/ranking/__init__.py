"""Rankings of several systems: from per-item scores, and Bradley-Terry from pairwise preferences.

This package took the name of the old module :mod:`evaladdon.stats.ranking` (issue 24), which now
lives at :mod:`evaladdon.stats.ranking.ranking`.  Its names resolve here on first use (PEP 562): a
name of that module read from this package is the module's own object, and importing a sibling
(``bradley_terry``) does not load it.  Submodule names are the submodules:
``ranking, bradley_terry``.
"""

from __future__ import annotations

import importlib
from typing import Any

_SUBMODULES = frozenset({'ranking', 'bradley_terry'})


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if not name.startswith("__"):
        names = vars(importlib.import_module(f"{__name__}.ranking"))
        if name in names:
            return names[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _SUBMODULES)
