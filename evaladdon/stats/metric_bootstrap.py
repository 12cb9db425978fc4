"""The old path of :mod:`evaladdon.stats.resampling` (issue 24): the same module object, so imports
and patches through this name reach the code that runs."""

import importlib
import sys

sys.modules[__name__] = importlib.import_module("evaladdon.stats.resampling")
