"""Human-label budget of an LLM-judge correction: how many labels a Rogan–Gladen or a PPI
correction needs for a target interval width, and the width a given number of labels buys.

Design: the judge scores ``N`` items (pass rate ``q``); ``n`` of them, drawn at random, also get a
human label.  The judge's sensitivity ``Se`` and specificity ``Sp`` give the true rate
``p = (q + Sp - 1)/J`` with ``J = Se + Sp - 1`` (Rogan & Gladen 1978).  Intervals are normal,
width ``2 z_{1-alpha/2} SE``, as :mod:`evaladdon.stats.judge` reports them.

- **Rogan–Gladen** (delta method, :func:`evaladdon.stats.judge.rogan_gladen`):
  ``Var = [q(1-q)/N + p^2 Se(1-Se)/n_pos + (1-p)^2 Sp(1-Sp)/n_neg] / J^2`` with the expected
  ``n_pos = n p``, ``n_neg = n (1-p)``, i.e. ``[q(1-q)/N + A/n] / J^2`` with
  ``A = p Se(1-Se) + (1-p) Sp(1-Sp)``; so ``n = A / ((w/2z)^2 J^2 - q(1-q)/N)``, and no number of
  labels reaches a width below the floor ``2z sqrt(q(1-q)/N)/J`` set by the judged items.
- **PPI** (Angelopoulos et al. 2023; :func:`evaladdon.stats.judge.ppi_mean` with ``tuned=False``):
  ``Var = Var(f)/(N - n) + Var(y - f)/n`` with ``Var(f) = q(1-q)`` on the ``N - n`` unlabelled
  items and, for 0/1 verdicts, ``Var(y - f) = p(1-Se) + (1-p)(1-Sp) - (p - q)^2`` (the judge's
  error rate less its squared bias).  PPI++'s tuned weight can only lower the variance
  asymptotically, so the PPI plan is conservative for it.  The smallest ``n`` is found on the whole
  integer grid at once (vectorised); ``N`` unlimited (None) drops the first term.

Oracle in the tests: a seeded Monte-Carlo of the intervals the correction actually reports
(:func:`~evaladdon.stats.judge.rogan_gladen`, :func:`~evaladdon.stats.judge.ppi_mean` on
simulated judges and labels): their mean width matches the plan, and the planned ``n`` reaches
the target.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from evaladdon.stats._base.checks import check_level
from evaladdon.stats._base.dist import norm_ppf
from evaladdon.stats._base.result import Result

__all__ = ["BUDGET_METHODS", "LabelBudget", "label_budget", "ppi_width", "rogan_gladen_width"]

BUDGET_METHODS: tuple[str, ...] = ("rogan-gladen", "ppi")
MAX_GRID = 50_000_000


@dataclass(frozen=True)
class LabelBudget(Result):
    """One method's plan: labels needed for ``target_width`` and the width at ``labels``."""

    method: str
    sensitivity: float
    specificity: float
    judge_rate: float
    true_rate: float
    n_judged: int | None
    level: float
    target_width: float | None
    labels_needed: int | None
    labels: int | None
    width_at_labels: float | None
    floor_width: float
    notes: tuple[str, ...]


def _z(level: float) -> float:
    return float(norm_ppf(0.5 + level / 2.0))


def _checked(se: float, sp: float, q: float, n_judged: int | None) -> tuple[float, float]:
    """``J`` and the true rate ``p`` (ValueErrors name what is out of range)."""
    for name, v in (("sensitivity", se), ("specificity", sp), ("judge pass rate", q)):
        if not (math.isfinite(v) and 0.0 <= v <= 1.0):
            raise ValueError(f"{name} must be in [0, 1], got {v!r}")
    j = se + sp - 1.0
    if j <= 0:
        raise ValueError(f"Se + Sp = {se + sp:.4f} <= 1: a judge no better than chance cannot be corrected")
    if n_judged is not None and n_judged < 3:
        raise ValueError("the judge must score at least three items")
    p = (q + sp - 1.0) / j
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"pass rate {q:g} is impossible for a judge with Se {se:g}, Sp {sp:g} (it implies a true "
                         f"rate {p:.3f} outside [0, 1]); it must lie between {1 - sp:g} and {se:g}")
    return j, p


def rogan_gladen_width(n_labels: np.ndarray | int, se: float, sp: float, q: float, n_judged: int | None,
                       level: float = 0.95) -> np.ndarray:
    """Planned width of the Rogan–Gladen delta-method interval with ``n_labels`` human labels."""
    j, p = _checked(se, sp, q, n_judged)
    a = p * se * (1 - se) + (1 - p) * sp * (1 - sp)
    var_q = q * (1 - q) / n_judged if n_judged else 0.0
    n = np.asarray(n_labels, dtype=float)
    return 2.0 * _z(level) * np.sqrt((var_q + a / n) / (j * j))


def ppi_width(n_labels: np.ndarray | int, se: float, sp: float, q: float, n_judged: int | None,
              level: float = 0.95) -> np.ndarray:
    """Planned width of the PPI interval with ``n_labels`` of the ``n_judged`` items labelled."""
    _, p = _checked(se, sp, q, n_judged)
    var_r = p * (1 - se) + (1 - p) * (1 - sp) - (p - q) ** 2
    n = np.asarray(n_labels, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        var_f = q * (1 - q) / (n_judged - n) if n_judged else 0.0 * n
        out = 2.0 * _z(level) * np.sqrt(var_f + var_r / n)
    return np.where((n_judged is None) | (n < (n_judged or np.inf)), out, np.inf)


def _rg_needed(width: float, se: float, sp: float, q: float, n_judged: int | None, level: float) -> int | None:
    j, p = _checked(se, sp, q, n_judged)
    a = p * se * (1 - se) + (1 - p) * sp * (1 - sp)
    room = (width / (2.0 * _z(level))) ** 2 * j * j - (q * (1 - q) / n_judged if n_judged else 0.0)
    if a == 0:
        return 2 if room >= 0 else None
    if room <= 0:
        return None
    n = max(2, math.ceil(a / room - 1e-9))
    return n if n_judged is None or n <= n_judged else None


def _ppi_needed(width: float, se: float, sp: float, q: float, n_judged: int | None, level: float) -> int | None:
    _, p = _checked(se, sp, q, n_judged)
    var_r = p * (1 - se) + (1 - p) * (1 - sp) - (p - q) ** 2
    if n_judged is None:
        n = math.ceil(var_r * (2.0 * _z(level) / width) ** 2 - 1e-9)
        return max(2, n)
    if n_judged > MAX_GRID:
        raise ValueError(f"more than {MAX_GRID} judged items: give no --n (unlimited) instead")
    grid = np.arange(2, n_judged - 1)
    ok = np.flatnonzero(ppi_width(grid, se, sp, q, n_judged, level) <= width)
    return int(grid[ok[0]]) if ok.size else None


def _floor(method: str, se: float, sp: float, q: float, n_judged: int | None, level: float) -> float:
    """The narrowest width any number of labels reaches (0 with unlimited judged items)."""
    if n_judged is None:
        return 0.0
    if method == "rogan-gladen":  # every judged item labelled
        return float(rogan_gladen_width(n_judged, se, sp, q, n_judged, level))
    if n_judged > MAX_GRID:
        return float("nan")
    return float(np.min(ppi_width(np.arange(2, n_judged - 1), se, sp, q, n_judged, level)))


def label_budget(sensitivity: float, specificity: float, judge_rate: float, *, n_judged: int | None = None,
                 width: float | None = None, labels: int | None = None,
                 level: float = 0.95) -> list[LabelBudget]:
    """The plan of each method (:data:`BUDGET_METHODS`): labels needed for the full interval
    width ``width`` and/or the width ``labels`` buy (module doc)."""
    level = check_level(level)
    if width is None and labels is None:
        raise ValueError("give a target width, a number of labels, or both")
    if width is not None and not (math.isfinite(width) and 0 < width <= 2):
        raise ValueError(f"the target width must be in (0, 2], got {width!r}")
    if labels is not None and (labels < 2 or (n_judged is not None and labels > n_judged)):
        raise ValueError("labels must be at least 2 and at most the number of judged items")
    se, sp, q = sensitivity, specificity, judge_rate
    _, p = _checked(se, sp, q, n_judged)
    out = []
    for method, width_fn, needed_fn in (("rogan-gladen", rogan_gladen_width, _rg_needed),
                                        ("ppi", ppi_width, _ppi_needed)):
        notes: list[str] = []
        need = needed_fn(width, se, sp, q, n_judged, level) if width is not None else None
        floor = _floor(method, se, sp, q, n_judged, level)
        if width is not None and need is None:
            notes.append(f"no number of labels reaches width {width:g} with {n_judged} judged items "
                         f"(narrowest: {floor:.4f}); judge more items")
        at = float(width_fn(labels, se, sp, q, n_judged, level)) if labels is not None else None
        out.append(LabelBudget(method, se, sp, q, p, n_judged, level, width, need, labels, at, floor, tuple(notes)))
    return out
