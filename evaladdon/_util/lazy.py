"""A module imported on first use (``pd = lazy_module("pandas")``).

Modules on the way to the pandas-free summarize (:mod:`evaladdon.routes`) -- the adapters'
package, whose ``sniff`` picks a reader for every input -- use pandas only inside functions
of other readers; a module-level ``import pandas`` would cost ~1 s and ~50 MB before
anything is read.  ``lazy_module`` keeps their one ``pd`` name: nothing is imported until an
attribute is looked up (``pd.DataFrame``), and nothing is put in ``sys.modules`` until then.
(``importlib.util.LazyLoader`` registers the module at once and executes it on the first
attribute access of *any* importer, which breaks ``'pandas' in sys.modules`` checks and
some of pandas' own submodule imports.)
"""

from __future__ import annotations

import importlib
import types
from typing import Any


class _LazyModule(types.ModuleType):
    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return getattr(importlib.import_module(self.__name__), attr)


def lazy_module(name: str) -> Any:
    """A stand-in for ``import NAME`` that imports NAME on the first attribute lookup."""
    return _LazyModule(name)
