"""Rankings of several systems: from per-item scores, and Bradley-Terry from pairwise preferences.

This package took the name of the old module :mod:`evaladdon.stats.ranking` (issue 24), which now
lives at :mod:`evaladdon.stats.ranking.ranking`; its names resolve here on first use
(:func:`evaladdon.stats._base.names_of.old_module_names`).
"""

from evaladdon.stats._base.names_of import old_module_names

__getattr__, __dir__ = old_module_names(__name__, frozenset({"ranking", "bradley_terry"}))
