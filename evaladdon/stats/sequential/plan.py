"""Planning a sequential comparison: the number of items to a decision, by simulation.

For a design -- paired 0/1 items with discordance ``psi`` (``P(d = +1) = (psi + delta)/2``,
``P(d = -1) = (psi - delta)/2``), two independent 0/1 arms (``d = b - a``, Bernoulli), or a
continuous difference ``d ~ N(delta, sd^2)`` -- draw ``reps`` runs of ``horizon`` items each (seeded),
compute the confidence sequence of ``delta`` on each and stop at the first t where it excludes 0
(``improvement``: low > 0; ``regression``: high < 0, :func:`evaladdon.stats.sequential.decide.decisions`).
Report the mean, median and 90th percentile of the items used (a run that never decides uses the
whole horizon), the share decided, and the share decided in the wrong direction.  Under
``delta = 0`` every decision is wrong, so that share estimates the error (<= alpha by the
sequence's guarantee) and the items used are mostly the horizon: without an equivalence band a
sequential test of "no difference" never ends early.

Bounded designs use the betting CS on a grid of 200 candidate means (ends rounded outward,
:func:`evaladdon.stats.sequential.bounded.betting_sequence`; the coarser grid only makes the
simulated stop later) or the empirical-Bernstein CS (vectorised over runs); the continuous design
uses the normal mixture with the known ``sd`` (exact for Gaussian differences).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evaladdon.stats._base.result import Result
from evaladdon.stats.sequential.bounded import bernstein_sequence, betting_sequence
from evaladdon.stats.sequential.decide import UNDECIDED, decisions
from evaladdon.stats.sequential.mixture import normal_mixture_sequence
from evaladdon.stats.sequential.sequence import FloatArray

__all__ = ["PLAN_GRID", "SequentialPlan", "draw_differences", "sequential_plans", "simulate_sequential"]

PLAN_GRID = 200


@dataclass(frozen=True)
class SequentialPlan(Result):
    """Items to a decision over ``reps`` simulated runs (module doc)."""

    delta: float
    method: str
    alpha: float
    horizon: int
    reps: int
    mean_n: float
    mean_n_se: float
    median_n: float
    q90_n: float
    decided: float
    wrong: float


def draw_differences(rng: np.random.Generator, reps: int, horizon: int, delta: float, *, psi: float | None = None,
                     p_a: float | None = None, sd: float | None = None) -> FloatArray:
    """Per-item differences ``d`` of shape ``(reps, horizon)`` for one design (module doc)."""
    if psi is not None:
        if not abs(delta) <= psi <= 1:
            raise ValueError(f"paired 0/1 needs |delta| <= discordance <= 1, got delta {delta:g}, discordance {psi:g}")
        u = rng.random((reps, horizon))
        up = (psi + delta) / 2
        return np.where(u < up, 1.0, np.where(u < psi, -1.0, 0.0))
    if p_a is not None:
        p_b = p_a + delta
        if not (0 <= p_a <= 1 and 0 <= p_b <= 1):
            raise ValueError(f"accuracies must lie in [0, 1], got {p_a:g} and {p_b:g}")
        return (rng.random((reps, horizon)) < p_b).astype(float) - (rng.random((reps, horizon)) < p_a)
    if sd is None or not sd > 0:
        raise ValueError("give a design: discordance, baseline accuracy, or a positive sd")
    return rng.normal(delta, sd, size=(reps, horizon))


def _first_stops(low: FloatArray, high: FloatArray) -> tuple[np.ndarray, np.ndarray]:
    """Per run: the 1-based first decided t (0 when never) and the decision there."""
    dec = decisions(low, high, 0.0, improvement=True)
    hit = dec != UNDECIDED
    first = np.where(hit.any(axis=-1), hit.argmax(axis=-1) + 1, 0)
    rows = np.arange(dec.shape[0])
    what = np.where(first > 0, dec[rows, np.maximum(first - 1, 0)], UNDECIDED)
    return first, what


def simulate_sequential(d: FloatArray, delta: float, alpha: float = 0.05, method: str = "betting",
                        sd: float | None = None) -> SequentialPlan:
    """Items to a decision for the simulated differences ``d`` (``reps x horizon``; module doc)."""
    reps, horizon = d.shape
    if sd is not None:
        cs = normal_mixture_sequence(d, alpha, sigma=sd)
        first, what = _first_stops(cs.low, cs.high)
        label = "normal mixture"
    elif method == "bernstein":
        cs = bernstein_sequence((d + 1.0) / 2.0, alpha)
        first, what = _first_stops(2 * cs.low - 1, 2 * cs.high - 1)
        label = "empirical Bernstein"
    else:  # one run at a time: the grid CS is not vectorised over runs
        ends = [betting_sequence((row + 1.0) / 2.0, alpha, grid=PLAN_GRID) for row in d]
        first, what = _first_stops(np.array([2 * c.low - 1 for c in ends]), np.array([2 * c.high - 1 for c in ends]))
        label = f"betting (grid {PLAN_GRID})"
    used = np.where(first > 0, first, horizon).astype(float)
    wrong_way = "improvement" if delta < 0 else "regression" if delta > 0 else None
    wrong = (what != UNDECIDED) if wrong_way is None else (what == wrong_way)
    return SequentialPlan(float(delta), label, alpha, int(horizon), int(reps), float(used.mean()),
                          float(used.std(ddof=1) / np.sqrt(reps)) if reps > 1 else float("nan"),
                          float(np.median(used)), float(np.quantile(used, 0.9)), float((first > 0).mean()),
                          float(wrong.mean()))


def sequential_plans(delta: float, *, psi: float | None = None, p_a: float | None = None, sd: float | None = None,
                     alpha: float = 0.05, method: str = "betting", reps: int = 200, horizon: int = 1000,
                     seed: int = 0) -> tuple[SequentialPlan, SequentialPlan]:
    """Items to a decision under the planned ``delta`` and under 0 (same design, seeded)."""
    if reps < 2 or horizon < 2:
        raise ValueError(f"the simulation needs at least 2 runs of 2 items, got {reps} runs of {horizon}")
    out = []
    for k, effect in enumerate((delta, 0.0)):
        rng = np.random.default_rng([seed, k])
        d = draw_differences(rng, reps, horizon, effect, psi=psi, p_a=p_a, sd=sd)
        out.append(simulate_sequential(d, effect, alpha, method, sd=sd))
    return out[0], out[1]
