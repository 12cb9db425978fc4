"""Effect sizes as users type them: ``2pt`` / ``2pp`` / ``2%`` are percentage points, ``0.02`` a fraction.

One rule for ``compare --margin``, ``power --delta`` and every other effect size on the
command line, so that "2" can never silently mean 200 points:

- a number with ``pt``, ``pp``, ``points`` or ``%`` is in percentage points (``2pt`` = 0.02);
- a bare number below 1 in absolute value is a fraction on the metric's own scale (``0.02``);
- a bare number of 1 or more is refused for a metric bounded in [0, 1], with a hint
  (``did you mean 2pt?``); on an unbounded metric it is in the metric's units.

:func:`evaladdon.report.units.describe` prints a value back in both forms (``2.0 points (0.02)``).
"""

from __future__ import annotations

import argparse
import math
import re
from evaladdon.analysis.options import Effect
from evaladdon.report.units import describe  # noqa: F401 - old place

_POINTS = re.compile(r"^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*(pt|pts|pp|points?|%)\s*$", re.IGNORECASE)


def parse_effect(text: str) -> Effect:
    """Parse ``text`` (argparse ``type=``): points with a unit, else a bare finite number."""
    m = _POINTS.match(text)
    if m:
        value, points = float(m.group(1)), True
    else:
        try:
            value, points = float(text), False
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an effect size (e.g. 2pt, 2pp, 2%, or 0.02)") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return Effect(text=text.strip(), value=value, points=points)
