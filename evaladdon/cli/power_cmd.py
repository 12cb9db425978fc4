"""``evaladdon power``: minimum detectable effect, sample size and power."""

from __future__ import annotations

import argparse
import math
from typing import Any

from evaladdon.cli.units import Effect, parse_effect
from evaladdon.errors import EvalAddonError
from evaladdon.report.power import write_power
from evaladdon.report.text import write_json
from evaladdon.stats import PLAN_TESTS, binary_unpaired_variance, epoch_item_variance, plan, retrodesign


def add_parser(sub: Any) -> None:
    p = sub.add_parser("power", help="MDE, sample size and power for comparing two runs")
    what = p.add_argument_group("what to solve (one or both)")
    what.add_argument("--n", type=int, help="items per run: report the minimum detectable effect")
    what.add_argument("--delta", type=parse_effect, metavar="EFFECT",
                      help="difference to detect, e.g. 2pt (points) or 0.02 (fraction): report the items needed")
    design = p.add_argument_group("design")
    design.add_argument("--paired", action="store_true", help="both runs on the same items")
    design.add_argument("--discordance", type=float, metavar="PSI", help="paired 0/1: share of items the runs disagree on")
    design.add_argument("--p-a", type=float, help="unpaired 0/1: baseline accuracy")
    design.add_argument("--p-b", type=float, help="unpaired 0/1: candidate accuracy")
    design.add_argument("--sd", type=float, help="per-item SD of the score (of the item difference with --paired)")
    design.add_argument("--epochs", type=int, default=1, help="epochs per item (with --icc)")
    design.add_argument("--icc", type=float, help="intra-item correlation across epochs")
    design.add_argument("--deff", type=float, default=1.0, help="design effect of clustering")
    design.add_argument("--pilot", nargs="+", metavar="RUN", help="measure the design on one or two stored runs")
    design.add_argument("--metric", help="with --pilot: the metric to use")
    design.add_argument("--cluster", metavar="FIELD", help="with --pilot: cluster on this field")
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--power", type=float, default=0.8, help="target power (default 0.8)")
    p.add_argument("--one-sided", action="store_true")
    p.add_argument("--test", choices=PLAN_TESTS, default="auto",
                   help="test to plan for; auto (default) = what compare runs by default: mcnemar-exact (exact "
                        "power of McNemar's exact test) for --discordance, else wald (normal approximation); "
                        "mcnemar-connor-approx = Connor's 1987 approximation")
    seq = p.add_argument_group("sequential plan (docs/sequential.md)")
    seq.add_argument("--sequential", action="store_true",
                     help="also simulate a sequential comparison: expected items to a decision under --delta and "
                          "under no difference, beside the fixed-n plan")
    seq.add_argument("--sequence", choices=("betting", "bernstein"), default="betting",
                     help="confidence sequence for 0/1 designs (default betting)")
    seq.add_argument("--reps", type=int, default=200, metavar="N", help="simulated runs (default 200)")
    seq.add_argument("--horizon", type=int, metavar="N", help="items per simulated run (default 3x the fixed n)")
    seq.add_argument("--seed", type=int, default=0, help="seed of the simulation (default 0)")
    p.add_argument("--json", action="store_true", help="print JSON")
    from evaladdon.cli.power_judge import add_arguments

    add_arguments(p)
    p.set_defaults(run=run)


def _check_flags(args: argparse.Namespace) -> None:
    """Every number on the command line finite and in range, named by its flag (exit 2)."""
    for flag, value, positive in (("--discordance", args.discordance, True), ("--p-a", args.p_a, False),
                                  ("--p-b", args.p_b, False), ("--sd", args.sd, True), ("--icc", args.icc, False),
                                  ("--deff", args.deff, True), ("--alpha", args.alpha, True),
                                  ("--power", args.power, True)):
        if value is None:
            continue
        if not math.isfinite(value):
            raise EvalAddonError(f"{flag} {value} is not a finite number")
        if positive and value <= 0:
            raise EvalAddonError(f"{flag} must be positive, got {value:g}")
    if args.sd is not None and not math.isfinite(args.sd * args.sd):
        raise EvalAddonError(f"--sd {args.sd:g} is too large (its square overflows a float)")
    if args.epochs < 1:
        raise EvalAddonError(f"--epochs must be at least 1, got {args.epochs}")


def _bounded(args: argparse.Namespace, pilot: Any) -> bool:
    """Is the metric bounded in [0, 1] (so effects are fractions or points)?"""
    if pilot is not None:
        return bool(pilot.bounded)
    if args.sd is not None:  # a bare number is in the metric's units; points only on [0, 1]
        return bool(args.delta is not None and args.delta.points)
    return True


def _delta(effect: Effect | None, bounded: bool) -> float | None:
    return effect.resolve(bounded=bounded, flag="--delta") if effect is not None else None


def _variance(args: argparse.Namespace) -> tuple[float | None, float | None, str]:
    """(variance, discordance, design label) from the flags."""
    given = [args.discordance is not None, args.p_a is not None or args.p_b is not None, args.sd is not None]
    if sum(given) != 1:
        raise EvalAddonError("give exactly one design: --paired --discordance PSI, --p-a/--p-b, --sd S, or --pilot")
    if args.icc is None and args.epochs > 1:
        raise EvalAddonError("--epochs needs --icc (the correlation of an item's repeated scores)")

    def per_epochs(v: float) -> float:
        return epoch_item_variance(v, args.icc, args.epochs) if args.icc is not None else v

    if args.discordance is not None:
        if not args.paired:
            raise EvalAddonError("--discordance is for paired designs: add --paired")
        if args.icc is not None:
            raise EvalAddonError("--discordance describes single-epoch 0/1 pairs; use --sd with --epochs/--icc instead")
        return None, args.discordance, "paired 0/1 (psi)"
    if args.p_a is not None or args.p_b is not None:
        if args.p_a is None or args.p_b is None:
            raise EvalAddonError("give both --p-a and --p-b")
        if args.paired:
            raise EvalAddonError("--p-a/--p-b describe two independent samples; for paired 0/1 use --discordance")
        var = per_epochs(args.p_a * (1 - args.p_a)) + per_epochs(args.p_b * (1 - args.p_b))
        binary_unpaired_variance(args.p_a, args.p_b)  # range checks
        return var, None, "unpaired 0/1"
    sd2 = args.sd**2
    if args.paired:
        return per_epochs(sd2), None, "paired (sd of the item difference)"
    return 2.0 * per_epochs(sd2), None, "unpaired (sd per item, two arms)"


def _refuse_unread(args: argparse.Namespace) -> None:
    """Flags of ``power --judge`` and ``power --sequential`` given without them: one line, exit 2."""
    from evaladdon.cli.power_sequential import refuse_unread

    for flag in ("sensitivity", "specificity", "judge_rate", "width", "labelled", "labels"):
        if getattr(args, flag, None) is not None:
            raise EvalAddonError(f"--{flag.replace('_', '-')} applies to power --judge")
    refuse_unread(args)


def run(args: argparse.Namespace) -> int:
    _check_flags(args)
    if getattr(args, "judge", False):  # the human-label budget of a judge correction
        from evaladdon.cli.power_judge import run as judge_budget

        return judge_budget(args)
    _refuse_unread(args)
    sides = 1 if args.one_sided else 2
    pilot = None
    if args.pilot:
        if any(v is not None for v in (args.discordance, args.p_a, args.p_b, args.sd)):
            raise EvalAddonError("--pilot measures the design; do not also give --discordance, --p-a/--p-b or --sd")
        # here, not at the top: only a pilot reads logs (the readers and their table, ~35 ms of imports)
        from evaladdon.adapters import load
        from evaladdon.analysis.power import measure_pilot

        pilot = measure_pilot(load(args.pilot, cluster=args.cluster), args.metric)
        use_psi = pilot.discordance is not None
        variance = None if use_psi else pilot.variance
        discordance = pilot.discordance if use_psi else None
        design = f"pilot: {pilot.kind}, n = {pilot.n}"
        n = args.n if args.n is not None else pilot.n
        deff = 1.0  # the pilot variance already includes clustering
    else:
        variance, discordance, design = _variance(args)
        n, deff = args.n, args.deff
    bounded = _bounded(args, pilot)
    delta = _delta(args.delta, bounded)
    if n is None and delta is None:
        raise EvalAddonError("give --n (for the MDE), --delta (for the sample size), or both")
    if delta == 0:  # no sample size detects no difference (was an internal error)
        raise EvalAddonError("--delta 0: give the smallest difference worth detecting (e.g. 2pt), not 0")
    try:
        at_n = plan(n=n, delta=delta, variance=variance, discordance=discordance, alpha=args.alpha,
                    power=args.power, sides=sides, deff=deff, test=args.test, design=design) if n is not None else None
        needed = plan(delta=delta, variance=variance, discordance=discordance, alpha=args.alpha,
                      power=args.power, sides=sides, deff=deff, test=args.test, design=design) if delta else None
    except ValueError as exc:
        raise EvalAddonError(str(exc)) from None
    main_plan = needed if needed is not None else at_n
    assert main_plan is not None
    notes = list(dict.fromkeys([*(at_n.notes if at_n else ()), *(needed.notes if needed else ())]))
    result: dict[str, Any] = {
        "n": main_plan.n,
        "mde": at_n.mde if at_n is not None else None,
        "mde_points": 100 * at_n.mde if at_n is not None and at_n.mde is not None and bounded else None,
        "detectable": (at_n.mde is not None) if at_n is not None else None,
        "mde_at_n": n,
        "delta": delta,
        "power": main_plan.power,
        "power_at_n": at_n.power if at_n is not None and delta else None,
        "variance": main_plan.variance,
        "discordance": discordance,
        "deff": deff if pilot is None else pilot.deff,
        "alpha": args.alpha,
        "target_power": args.power,
        "sides": sides,
        "test": main_plan.test,
        "design": design,
        "notes": notes,
    }
    if delta and n is not None and main_plan.variance:
        se = (main_plan.variance / n) ** 0.5
        rd = retrodesign(delta, se, args.alpha)
        result.update(type_s=rd.type_s, type_m=rd.type_m)
    if pilot is not None:
        result["pilot"] = pilot.to_dict()
    if getattr(args, "sequential", False):
        from evaladdon.cli.power_sequential import add_sequential

        add_sequential(args, result, needed, discordance, variance, pilot)
    if args.json:
        write_json(result)
        return 0
    write_power(result, bounded, at_n, needed)
    if "sequential" in result:
        from evaladdon.report.sequential import write_sequential_plan

        write_sequential_plan(result["sequential"], bounded)
    return 0
