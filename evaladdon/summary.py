"""Old path of :mod:`evaladdon.analysis.summarize` (named in docs/api.md; kept so user code that imports
``evaladdon.summary`` keeps working): the same module object, so attributes set here reach it."""

import sys

from evaladdon.analysis import summarize as _module

sys.modules[__name__] = _module
