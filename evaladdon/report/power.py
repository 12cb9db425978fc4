"""``power`` output: the plan as a table of quantities, then its sentences (the MDE at n, the
sample size for a delta, the exaggeration and sign errors at n) in the metric's units
(:func:`evaladdon.report.units.describe`)."""

from __future__ import annotations

from typing import Any

from evaladdon.report.text import console, fmt, table
from evaladdon.report.units import describe

__all__ = ["write_power"]


def write_power(result: dict[str, Any], bounded: bool, at_n: Any, needed: Any) -> None:
    """The terminal output of ``power`` for ``result`` (its JSON record), ``at_n`` the plan at the
    given n (or None) and ``needed`` the plan of the sample size (or None)."""
    n, delta, sides, notes = result["mde_at_n"], result["delta"], result["sides"], result["notes"]
    target_power, alpha, discordance = result["target_power"], result["alpha"], result["discordance"]
    main_plan = needed if needed is not None else at_n
    con = console()
    shown = dict(result, mde=describe(result["mde"], bounded) if result["mde"] is not None else None,
                 delta=describe(delta, bounded) if delta is not None else None)
    rows = [[k, fmt(shown[k]) if not isinstance(shown[k], str) else shown[k]] for k in
            ("design", "test", "n", "mde", "mde_at_n", "delta", "power", "power_at_n", "variance", "deff", "type_s",
             "type_m") if k in shown and shown[k] is not None]
    con.print(table(None, ["quantity", "value"], rows, n_left=1))
    side_word = "one" if sides == 1 else "two"
    if at_n is not None and at_n.mde is not None:
        con.print(f"With {n} items this design detects {describe(at_n.mde, bounded)} at {target_power:.0%} power "
                  f"(alpha {alpha}, {side_word}-sided, {main_plan.test}).")
    elif at_n is not None:
        con.print(f"With {n} items {'and discordance ' + format(discordance, 'g') + ' ' if discordance else ''}"
                  f"no effect of this design is detectable at {target_power:.0%} power "
                  f"(alpha {alpha}, {side_word}-sided, {main_plan.test}).")
    if needed is not None and delta is not None:
        con.print(f"Detecting {describe(abs(delta), bounded)} at {target_power:.0%} power needs {needed.n} items "
                  f"({needed.test}).")
    if result.get("type_m") is not None and delta is not None:
        con.print(f"At n = {n}, a significant estimate of a true {describe(abs(delta), bounded)} effect exaggerates "
                  f"it {result['type_m']:.2f}x on average and has the wrong sign {100 * result['type_s']:.2f}% of "
                  "the time.")
    for note in notes:
        con.print(f"note: {note}")
