"""``compare --sequential`` and ``watch`` output: one row per run (or pair), task and metric.

Columns: the anytime-valid interval after the last item read (``interval``; differences in points
for metrics in [0, 1], :mod:`evaladdon.report.units`), the gate's decision and the item at which an
early stop would have made it (``at``) with the items it would have saved, and the rows left out
with their reasons.  Every cell goes through :func:`evaladdon.report.text.table` or
:func:`evaladdon.report.text.markdown_table` (escaped); JSON is the results' records.
"""

from __future__ import annotations

from typing import IO, Any, Sequence

from evaladdon.analysis.sequential import SequentialResult
from evaladdon.report.text import console, markdown_table, table
from evaladdon.report.units import difference, interval, level_text, number

__all__ = ["COLUMNS", "fmt_n", "left_out_lines", "records", "rows_of", "write_sequential", "write_sequential_plan"]

COLUMNS = ("run", "vs", "task", "metric", "n", "estimate", "interval", "decision", "at", "saved", "left out")


def _estimate(r: SequentialResult) -> str:
    if r.baseline is None:
        return number(100 * r.estimate, 1) if r.points else number(r.estimate, 3)
    return difference(r.estimate, r.points)


def _interval(low: float | None, high: float | None, r: SequentialResult) -> str:
    if r.baseline is None:
        return (f"{number(100 * low, 1)} to {number(100 * high, 1)}" if r.points and low is not None
                and high is not None else interval(low, high, None))
    return interval(low, high, r.points)


def rows_of(results: Sequence[SequentialResult]) -> list[list[Any]]:
    rows = []
    for r in results:
        left = ", ".join(f"{k}: {v}" for k, v in r.left_out.items()) or "-"
        decision = "-" if r.margin is None else r.decision
        rows.append([r.run, r.baseline or "-", r.task, r.metric, r.n, _estimate(r), _interval(r.ci_low, r.ci_high, r),
                     decision, r.decided_at if r.decided_at is not None else "-", r.saved if r.margin is not None
                     else "-", left])
    return rows


def left_out_lines(results: Sequence[SequentialResult]) -> list[str]:
    """One warning per result with rows left out, by reason (the text table drops that column when
    the terminal is narrow, so the count is also said as a line, as ``compare`` says it)."""
    return [f"warning: {r.run}{f' vs {r.baseline}' if r.baseline else ''} / {r.task} / {r.metric}: "
            f"{sum(r.left_out.values())} row(s) left out ({', '.join(f'{v} {k}' for k, v in r.left_out.items())})"
            for r in results if r.left_out]


def records(results: Sequence[SequentialResult]) -> list[dict[str, Any]]:
    """One dict per result; ``lower_is_better`` only where it is true (as ``compare --json`` writes it)."""
    return [{k: v for k, v in r.to_dict().items() if k != "lower_is_better" or v} for r in results]


def write_sequential(results: Sequence[SequentialResult], stream: IO[str], markdown: bool = False,
                     wide: bool = False) -> None:
    """The table, then one line per decided comparison saying where it would have stopped."""
    if not results:
        stream.write("no run had a complete item to read\n")
        return
    level = level_text(results[0].level)
    title = f"anytime-valid {level} intervals in logged order ({results[0].method})"
    if markdown:
        stream.write(f"**{title}**\n\n" + markdown_table(COLUMNS, rows_of(results)))
    else:
        console(stream).print(table(title, COLUMNS, rows_of(results), n_left=4, drop=("left out", "saved"), wide=wide,
                                        names=2))
    for r in results:
        if r.decided_at is not None and r.stop_low is not None:
            lower = " (lower is better: a rise of B is the regression)" if r.lower_is_better else ""
            line = (f"{r.run} vs {r.baseline} ({r.task}, {r.metric}){lower}: '{r.decision}' holds from item {r.decided_at} "
                    f"of {r.n} (interval {_interval(r.stop_low, r.stop_high, r)}); an early stop there saves "
                    f"{r.saved} items.")
            from evaladdon.report.escape import clean, markdown_cell

            stream.write(("- " + markdown_cell(line) if markdown else clean(line)) + "\n")


def write_sequential_plan(plan: dict[str, Any], bounded: bool, stream: IO[str] | None = None) -> None:
    """``power --sequential``: items to a decision under the effect and under zero, beside the fixed n."""
    import sys

    from evaladdon.report.escape import clean
    from evaladdon.report.units import describe

    out = stream if stream is not None else sys.stdout
    eff, zero = plan["under_effect"], plan["under_zero"]
    rows = [[name, fmt_n(p["mean_n"]), fmt_n(p["median_n"]), fmt_n(p["q90_n"]), f"{100 * p['decided']:.1f}%",
             f"{100 * p['wrong']:.1f}%"] for name, p in (("planned effect", eff), ("no difference", zero))]
    title = (f"sequential plan ({eff['method']}, alpha {eff['alpha']:g}, {eff['reps']} simulated runs of up to "
             f"{eff['horizon']} items)")
    console(out).print(table(title, ["under", "mean items", "median", "90th pct", "decided", "wrong way"], rows))
    fixed = plan.get("fixed_n")
    effect_text = describe(abs(eff["delta"]), bounded)
    line = (f"Sequentially, an effect of {effect_text} is decided after {fmt_n(eff['mean_n'])} items on average "
            f"(Monte-Carlo SE {eff['mean_n_se']:.1f})" + (f", against {fixed} items for the fixed-n plan" if fixed else "")
            + f"; with no difference it stops (wrongly) in {100 * zero['wrong']:.1f}% of runs and otherwise uses "
            f"all {zero['horizon']} items.")
    out.write(clean(line) + "\n")
    for note in plan.get("notes", []):
        out.write(clean(f"note: {note}") + "\n")


def fmt_n(value: float) -> str:
    return f"{value:.0f}" if value == value else "-"
