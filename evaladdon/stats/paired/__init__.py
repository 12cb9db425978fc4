"""Paired comparisons of two systems on the same items: differences, paired binary intervals,
McNemar, sign-flip permutation, multiple-comparison adjustments and the regression gate.

This package took the name of the old module :mod:`evaladdon.stats.paired` (issue 24), which now
lives at :mod:`evaladdon.stats.paired.paired`; its names resolve here on first use
(:func:`evaladdon.stats._base.names_of.old_module_names`).
"""

from evaladdon.stats._base.names_of import old_module_names

__getattr__, __dir__ = old_module_names(__name__, frozenset({"paired", "paired_binary", "mcnemar", "permutation", "multiple", "gate"}))
