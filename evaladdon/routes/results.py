"""What routes give and how they decline: the records every route module and the planner share
(so that no route imports the planner, and the planner imports the routes only when it runs one)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:  # pragma: no cover
    from evaladdon.table.loaded import Loaded

__all__ = ["Comparisons", "Decline", "MetricComparisons", "Outcome", "Route", "Summaries"]


class Decline(Exception):
    """A route cannot be sure to give the reference's answer for these inputs (the reason)."""


@dataclass(frozen=True)
class Route:
    """A named way to the answer (``go()`` raises :class:`Decline` or returns the answer)."""

    name: str
    go: Callable[[], Any]


@dataclass
class Outcome:
    """Which route gave the answer (``detail``: how, e.g. ``"spilled"``), or the error it gave
    (``error``: the route stopped the command), and which declined first."""

    route: str
    value: Any
    declined: list[tuple[str, str]] = field(default_factory=list)
    detail: str | None = None
    error: str | None = None


@dataclass
class Summaries:
    """What a ``summarize`` route gives: summaries, what was read, notes, the marks of
    incomplete logs, harness-reported rows (results-only lm-eval files)."""

    summaries: list[Any]
    loaded: Loaded
    notes: list[str]
    marks: dict[tuple[str, str, str], dict[str, Any]]
    reported: list[Any]
    route_detail: str | None = None
    subgroups: Any = None
    """With ``--by``: (subgroup summaries, interaction tests) of :mod:`evaladdon.analysis.subgroups`."""


@dataclass
class Comparisons:
    """What a ``compare`` route gives: the comparisons (not yet with their MDE), what was read,
    whether the metric is bounded in [0, 1] (points) and the comparisons not made."""

    results: list[Any]
    loaded: Loaded
    bounded: bool
    skipped: list[Any]
    flips: list[Any] | None = None
    """With ``--flips``: the :class:`~evaladdon.analysis.flips.FlipSet` of each comparison."""
    subgroups: Any = None
    """With ``--by``: (subgroup comparisons, interaction tests) of :mod:`evaladdon.analysis.subgroups`."""


@dataclass
class MetricComparisons:
    """What the ``metric_family`` route gives: paired metric comparisons, their gates, the run
    labels, what was read, and whether the gate saw a regression."""

    results: list[Any]
    gates: list[Any]
    labels: dict[str, str]
    loaded: Loaded
    regression: bool
