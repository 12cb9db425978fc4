"""What reading inputs gives: the canonical table and an account of everything else.

Adapters and the store both return it, so it lives with the table (the store may not import
the adapters)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["Loaded"]


@dataclass
class Loaded:
    """The canonical table of everything read, and notes for the user (skips, statuses).

    ``skipped`` lists every input file that was not read, as ``{"path", "reason"}``; each
    also appears in ``notes`` (as ``"skipped PATH: REASON"``) for commands that only show notes.
    ``names`` maps run ids the user named (``NAME=PATH``) to that name.
    """

    table: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    reported: list[dict] = field(default_factory=list)
    """Harness-reported values of results-only lm-eval files (see ``evaladdon.analysis.reported``)."""
    skipped: list[dict[str, str]] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)
    incomplete: dict[str, dict] = field(default_factory=dict)
    """Sources (as in the ``source`` column) whose log declares more samples than it holds:
    ``{"declared", "read", "missing", "basis"}`` (the reader's ``attrs["incomplete"]``)."""
