"""``compare --rules`` and ``compare --sequential`` answer other questions than the paired table
(:mod:`evaladdon.cli.rescore_cmd`, :mod:`evaladdon.cli.watch_cmd`) and take only some of
``compare``'s options: an option neither of them reads is refused in one line (exit 2), never
silently ignored (a gate flag that did nothing would pass a gate it should not)."""

from __future__ import annotations

import argparse
from typing import Any

from evaladdon.errors import EvalAddonError

__all__ = ["refuse_unread"]

# (dest, flag as typed, value when not given): the options of the paired table only
_TABLE_ONLY: tuple[tuple[str, str, Any], ...] = (
    ("flips", "--flips", None), ("by", "--by", None), ("min_size", "--min-size", 30),
    ("equivalence", "--equivalence", None), ("max_flaky", "--max-flaky", None), ("errors", "--errors", "exclude"),
    ("test", "--test", "auto"), ("interval", "--interval", "auto"), ("cluster_method", "--cluster-method", "cr2"),
    ("adjust", "--adjust", "holm"), ("strict", "--strict", False), ("power", "--power", 0.8),
    ("n_boot", "--n-boot", 2000),
)
# what each mode reads beyond its inputs, baseline, --metric, --level and the output flags
_RULES_ALSO_REFUSE: tuple[tuple[str, str, Any], ...] = (
    ("sequential", "--sequential", False), ("sequence", "--sequence", "betting"),
    ("fail_on_regression", "--fail-on-regression", False), ("margin", "--margin", None),
)
_SEQUENTIAL_ALSO_REFUSE: tuple[tuple[str, str, Any], ...] = (("all_pairs", "--all-pairs", False),)
_WHY = {"--rules": "compares each rule's scores side by side (no gate, no per-item lists)",
        "--sequential": "reads the runs in logged order against one baseline (anytime-valid intervals)"}


def refuse_unread(args: argparse.Namespace) -> None:
    """Raise when ``--rules`` or ``--sequential`` meets an option it does not read."""
    if getattr(args, "rules", None) is not None:
        mode, extra = "--rules", _RULES_ALSO_REFUSE
        if not [t for t in args.rules.split(",") if t.strip()]:
            raise EvalAddonError("--rules: give one or more scoring rules (exact, normalized, numeric[:TOL], "
                                 "regex:PATTERN), separated by commas")
    elif getattr(args, "sequential", False):
        mode, extra = "--sequential", _SEQUENTIAL_ALSO_REFUSE
    else:
        if getattr(args, "sequence", "betting") != "betting":
            raise EvalAddonError("--sequence is read only with --sequential")
        return
    given = [flag for dest, flag, unset in _TABLE_ONLY + extra if getattr(args, dest, unset) != unset]
    if given:
        raise EvalAddonError(f"{mode} does not take {', '.join(given)}: it {_WHY[mode]}; "
                             f"run compare without {mode} for {'that' if len(given) == 1 else 'those'}")
