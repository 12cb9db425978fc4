"""A value on a metric's scale, as users read it: points and the fraction on a metric bounded in
[0, 1], the metric's own units otherwise (the same rule :class:`~evaladdon.analysis.options.Effect`
reads effect sizes by)."""

from __future__ import annotations

__all__ = ["describe"]


def describe(fraction: float, bounded: bool = True) -> str:
    """A value on the metric's scale in both forms: ``2.0 points (0.02)`` (bounded) or ``0.02``."""
    if not bounded:
        return f"{fraction:g}"
    return f"{100 * fraction:.1f} points ({fraction:g})"
