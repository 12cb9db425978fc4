"""Old path of :mod:`evaladdon.analysis.compare_table` (named in docs/api.md; kept so user code that imports
``evaladdon.comparison`` keeps working): the same module object, so attributes set here reach it."""

import sys

from evaladdon.analysis import compare_table as _module

sys.modules[__name__] = _module
