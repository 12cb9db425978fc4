"""Paired comparisons of two systems on the same items: differences, paired binary intervals,
McNemar, sign-flip permutation, multiple-comparison adjustments and the regression gate.

This package took the name of the old module :mod:`evaladdon.stats.paired` (issue 24), which now
lives at :mod:`evaladdon.stats.paired.paired`.  Its names resolve here on first use (PEP 562): a
name of that module read from this package is the module's own object, and importing a sibling
(``paired_binary``) does not load it.  Submodule names are the submodules:
``paired, paired_binary, mcnemar, permutation, multiple, gate``.
"""

from __future__ import annotations

import importlib
from typing import Any

_SUBMODULES = frozenset({'paired', 'paired_binary', 'mcnemar', 'permutation', 'multiple', 'gate'})


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if not name.startswith("__"):
        names = vars(importlib.import_module(f"{__name__}.paired"))
        if name in names:
            return names[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _SUBMODULES)
