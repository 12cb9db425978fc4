"""``power --judge`` output: one row per correction (labels needed, width at the given labels,
the narrowest width reachable), then sentences and notes."""

from __future__ import annotations

from typing import Any

__all__ = ["budget_json", "write_budget"]


def budget_json(plans: list[Any], pilot: Any | None) -> dict[str, Any]:
    """The JSON record: the judge's accuracy, the design, and one record per method."""
    first = plans[0]
    out: dict[str, Any] = {
        "kind": "judge_label_budget", "sensitivity": first.sensitivity, "specificity": first.specificity,
        "judge_rate": first.judge_rate, "true_rate": first.true_rate, "n_judged": first.n_judged,
        "level": first.level, "target_width": first.target_width, "labels": first.labels,
        "methods": [{"method": p.method, "labels_needed": p.labels_needed, "width_at_labels": p.width_at_labels,
                     "floor_width": p.floor_width, "notes": list(p.notes)} for p in plans],
        "pilot": None,
    }
    if pilot is not None:
        out["pilot"] = {"run": pilot.run, "task": pilot.task, "metric": pilot.metric, "n_labelled": pilot.n_labelled,
                        "n_pos": pilot.n_pos, "n_neg": pilot.n_neg, "n_dropped": sum(pilot.dropped.values()),
                        "dropped": dict(pilot.dropped)}
    return out


def _pts(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f} pt"


def write_budget(plans: list[Any], pilot: Any | None) -> None:
    """The terminal output of ``power --judge``."""
    from evaladdon.report.escape import clean
    from evaladdon.report.text import console, table

    first = plans[0]
    con = console()
    rows = [[p.method, "-" if p.labels_needed is None else str(p.labels_needed), _pts(p.width_at_labels),
             _pts(p.floor_width) if p.n_judged else "0"] for p in plans]
    width = f"labels for {_pts(first.target_width)}" if first.target_width is not None else "labels needed"
    at = f"width at {first.labels} labels" if first.labels is not None else "width at labels"
    con.print(table(None, ["correction", width, at, "narrowest"], rows, n_left=1))
    judged = f"{first.n_judged} judged items" if first.n_judged else "unlimited judged items"
    con.print(f"Judge: Se {first.sensitivity:.3f}, Sp {first.specificity:.3f}, pass rate {first.judge_rate:.3f} "
              f"(true rate {first.true_rate:.3f}); {judged}; widths of {first.level:.0%} intervals "
              "(full width, Rogan–Gladen delta method and PPI).")
    if pilot is not None:
        con.print(f"Measured on {clean(pilot.run)} ({clean(pilot.task)}/{clean(pilot.metric)}): {pilot.n_labelled} "
                  f"labelled items ({pilot.n_pos} positive, {pilot.n_neg} negative); the labels needed count these.")
        if pilot.dropped:
            con.print(f"warning: {sum(pilot.dropped.values())} row(s) left out ("
                      + ", ".join(f"{v} {clean(k)}" for k, v in pilot.dropped.items()) + ")")
    for p in plans:
        for note in p.notes:
            con.print(f"note: {p.method}: {note}")
