"""Effect sizes as users type them: ``2pt`` / ``2pp`` / ``2%`` are percentage points, ``0.02`` a fraction.

One rule for ``compare --margin``, ``power --delta`` and every other effect size on the
command line, so that "2" can never silently mean 200 points:

- a number with ``pt``, ``pp``, ``points`` or ``%`` is in percentage points (``2pt`` = 0.02);
- a bare number below 1 in absolute value is a fraction on the metric's own scale (``0.02``);
- a bare number of 1 or more is refused for a metric bounded in [0, 1], with a hint
  (``did you mean 2pt?``); on an unbounded metric it is in the metric's units.

:func:`describe` prints a value back in both forms (``2.0 points (0.02)``).
"""

from __future__ import annotations

import argparse
import math
import re
from dataclasses import dataclass

from evaladdon.errors import EvalAddonError

_POINTS = re.compile(r"^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*(pt|pts|pp|points?|%)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Effect:
    """An effect size as typed: ``value`` in points when ``points`` else as a bare number."""

    text: str
    value: float
    points: bool

    def resolve(self, bounded: bool = True, flag: str = "--margin") -> float:
        """The effect on the metric's own scale (a fraction for a metric bounded in [0, 1]).

        A bare number >= 1 on a bounded metric is an error with a hint.  Points on an
        unbounded metric are refused (a point is a hundredth of a proportion).
        """
        if self.points:
            if not bounded:
                raise EvalAddonError(f"{flag} {self.text}: points apply to metrics in [0, 1]; "
                                     "give the difference in the metric's own units")
            return self.value / 100.0
        if bounded and abs(self.value) >= 1:
            hint = f"{self.value:g}pt"
            raise EvalAddonError(f"{flag} {self.text} would be {100 * self.value:g} points on a metric in [0, 1]; "
                                 f"did you mean {hint}? (bare numbers are fractions: 0.02 = 2pt)")
        return self.value


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


def describe(fraction: float, bounded: bool = True) -> str:
    """A value on the metric's scale in both forms: ``2.0 points (0.02)`` (bounded) or ``0.02``."""
    if not bounded:
        return f"{fraction:g}"
    return f"{100 * fraction:.1f} points ({fraction:g})"
