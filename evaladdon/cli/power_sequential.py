"""``power --sequential``: the simulated sequential plan beside the fixed-n one
(:func:`evaladdon.stats.sequential.plan.sequential_plans`), from the design ``power`` resolved."""

from __future__ import annotations

import argparse
import math
from typing import Any

from evaladdon.errors import EvalAddonError

MAX_HORIZON = 20000


def _design(args: argparse.Namespace, discordance: float | None, variance: float | None,
            pilot: Any) -> dict[str, float]:
    """The simulation's design keywords: ``psi`` (paired 0/1), ``p_a`` (two 0/1 arms) or ``sd`` of the difference."""
    if discordance is not None:
        return {"psi": float(discordance)}
    if pilot is None and args.p_a is not None:
        if args.epochs > 1:
            raise EvalAddonError("--sequential simulates single-epoch 0/1 arms; use --sd with --epochs/--icc")
        return {"p_a": float(args.p_a)}
    if variance is None or not variance > 0:
        raise EvalAddonError("--sequential needs a design with a positive variance")
    return {"sd": math.sqrt(variance)}


def add_sequential(args: argparse.Namespace, result: dict[str, Any], needed: Any, discordance: float | None,
                   variance: float | None, pilot: Any) -> None:
    """Put ``result["sequential"]`` (under the effect, under zero, and what they assume)."""
    from evaladdon.stats.sequential.plan import sequential_plans

    delta = result.get("delta")
    if not delta:
        raise EvalAddonError("--sequential needs --delta (the planned effect to simulate)")
    if args.reps < 2:
        raise EvalAddonError(f"--reps must be at least 2, got {args.reps}")
    if args.seed < 0:  # numpy's own message names no flag
        raise EvalAddonError(f"--seed must be a whole number >= 0, got {args.seed}")
    fixed_n = needed.n if needed is not None and needed.n is not None else None
    horizon = args.horizon if args.horizon is not None else min(max(3 * (fixed_n or 0), 100), MAX_HORIZON)
    if horizon < 2 or horizon > 10 * MAX_HORIZON:
        raise EvalAddonError(f"--horizon must be between 2 and {10 * MAX_HORIZON}, got {horizon}")
    design = _design(args, discordance, variance, pilot)
    try:
        effect, zero = sequential_plans(float(delta), alpha=args.alpha, method=args.sequence, reps=args.reps,
                                        horizon=horizon, seed=args.seed, **design)
    except ValueError as exc:
        raise EvalAddonError(str(exc)) from None
    notes = ["two-sided: stops when the anytime-valid interval of the difference excludes 0"]
    if result.get("deff", 1.0) not in (None, 1.0) and pilot is None:
        notes.append("the simulation draws independent items: --deff is not applied to it")
    result["sequential"] = {"fixed_n": fixed_n, "under_effect": effect.to_dict(), "under_zero": zero.to_dict(),
                            "design": design, "notes": notes}


def refuse_unread(args: argparse.Namespace) -> None:
    """``--sequence``, ``--reps``, ``--horizon`` and ``--seed`` set the sequential simulation: refused in
    one line without ``--sequential`` (never silently ignored)."""
    if getattr(args, "sequential", False):
        return
    given = [flag for flag, dest, unset in (("--sequence", "sequence", "betting"), ("--reps", "reps", 200),
                                            ("--horizon", "horizon", None), ("--seed", "seed", 0))
             if getattr(args, dest, unset) != unset]
    if given:
        raise EvalAddonError(f"{', '.join(given)} set the sequential simulation: add --sequential (or drop them)")
