"""Module ``__getattr__``/``__dir__`` for a package that took the name of an old module.

``evaladdon.stats.paired`` and ``evaladdon.stats.ranking`` were modules; they are packages now
and the old modules are their submodules of the same name (issue 24).  The functions made here
resolve a name of the old module on first use (PEP 562), so ``from evaladdon.stats.paired import
compare_paired`` keeps working, and importing a sibling submodule does not load the old module.
Submodule names are the submodules.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["old_module_names"]


def old_module_names(package: str, submodules: frozenset[str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``, whose submodule named like it is the old module."""
    old = f"{package}.{package.rsplit('.', 1)[-1]}"

    def getattr_(name: str) -> Any:
        if name in submodules:
            return importlib.import_module(f"{package}.{name}")
        if not name.startswith("__"):
            names = vars(importlib.import_module(old))
            if name in names:
                return names[name]
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def dir_() -> list[str]:
        return sorted(set(vars(importlib.import_module(package))) | submodules)

    return getattr_, dir_
