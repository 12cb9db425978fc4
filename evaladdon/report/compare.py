"""``compare`` output: one table of every comparison (a row per candidate and task/metric when
many runs meet a baseline), one verdict line per comparison (delta, interval, p, MDE, gate), and
the items left out and notes (everything from a log escaped by :mod:`evaladdon.report.text`)."""

from __future__ import annotations

from typing import Any, Callable

from evaladdon.analysis.results import RunComparison
from evaladdon.report.errors import comparison_error_lines, error_policy_line
from evaladdon.report.text import MIN_LABEL, console, cut_labels, fmt, markdown_table, table, terminal_width, warn
from evaladdon.report.units import amount, describe, difference, interval, level_text, size

__all__ = ["COLUMNS", "DROP_ORDER", "direction_note", "family_line", "layout", "render", "rows_of", "units_line", "verdict", "warnings_of"]


def verdict(r: RunComparison, power: float) -> str:
    """One line per comparison: the difference and its interval, p, the MDE and the gate, all
    on the comparison's scale (points for a metric in [0, 1], else its own units)."""
    c, pts = r.comparison, r.points
    mde = (f"; this set can detect {size(r.mde, pts)} at {power:.0%} power" if r.mde is not None
           else f"; {r.mde_note}" if r.mde_note else "")
    p = f"p = {c.p_value:.3g} ({c.test})" + (f", adjusted {r.p_adjusted:.3g}" if r.p_adjusted is not None else "")
    gate = ""
    if r.gate:
        gate = f"; gate: {r.gate.decision}" + (" = " if r.gate.decision.endswith(" m") else ", m = ")
        gate += describe(r.gate.margin, pts)
    return (
        f"{r.label_b or r.run_b} vs {r.label_a or r.run_a} on {r.task}/{r.metric}{direction_note(r)}: "
        f"{amount(c.delta, pts)}, "
        f"{level_text(c.level)} CI {interval(c.ci_low, c.ci_high, pts)}; {p}{mde}{gate}"
    )


def direction_note(r: RunComparison) -> str:
    """`` (lower is better: B - A < 0 is B better)`` for a metric where a lower score is better
    (:mod:`evaladdon.table.direction`); nothing for the usual direction (those lines unchanged)."""
    return " (lower is better: a negative delta is B better)" if r.lower_is_better else ""


COLUMNS = ["task/metric", "A", "B", "delta", "CI", "p", "se pair", "se unpair", "n", "n10/n01"]
DROP_ORDER = ("se unpair", "n10/n01", "se pair", "n", "A", "B")
"""Columns left out, in this order, when a table does not fit the terminal (``--wide`` keeps all)."""


def rows_of(results: list[RunComparison]) -> list[list[Any]]:
    """Table rows (delta and CI in points, or in the metric's units off [0, 1]), from task/metric on."""
    rows = []
    for r in results:
        c = r.comparison
        disc = f"{c.discordance.n10}/{c.discordance.n01}" if c.discordance else "-"
        p = c.p_value if r.p_adjusted is None else r.p_adjusted
        n = f"{c.n}" + (f"/{c.n_clusters}c" if c.n_clusters else "")
        rows.append([f"{r.task}/{r.metric}", fmt(c.mean_a, 3), fmt(c.mean_b, 3),
                     difference(c.delta, r.points), interval(c.ci_low, c.ci_high, r.points),
                     f"{p:.2g}", fmt(c.se, 4), fmt(c.se_unpaired, 4), n, disc])
    return rows


Title = Callable[[int], str]
"""A title as a function of the width: it cuts its run labels (shared prefix first), never its
separators, so a cut title cannot name the wrong run."""


def _titled(parts: list[str], labels: list[str]) -> Title:
    """``parts[0] + labels[0] + parts[1] + labels[1] ...``, the labels cut to fit the width."""
    def fit(width: int) -> str:
        fixed = sum(map(len, parts))
        room = max(width - fixed, MIN_LABEL * len(labels))
        if sum(map(len, labels)) <= room:
            cut = labels
        elif len(labels) == 1:
            cut = cut_labels(labels, [room])
        else:  # the shorter label keeps what it needs up to half; the other takes the rest
            wa = min(len(labels[1]), max(room // 2, room - len(labels[0])))
            cut = cut_labels(labels, [room - wa, wa])
        return "".join(p + x for p, x in zip(parts, [*cut, *[""] * (len(parts) - len(cut))], strict=True))
    return fit


def layout(results: list[RunComparison]) -> tuple[Title | None, list[str], list[list[Any]], int, int]:
    """One table for all comparisons: title, columns, rows, the number of label columns and of
    run-name columns among them.  Two runs: the title names B and A.  One baseline against
    many: the title names A and a first column B (a row per candidate and task/metric).  Every
    pair: columns B and A."""
    pairs = list(dict.fromkeys((r.run_a, r.run_b) for r in results))
    first = results[0]
    a, b = first.label_a or first.run_a, first.label_b or first.run_b
    if len(pairs) == 1:
        return _titled(["B = ", "  vs  A = "], [b, a]), COLUMNS, rows_of(results), 1, 0
    runs_b = [r.label_b or r.run_b for r in results]
    if len({r.run_a for r in results}) == 1:
        rows = [[x, *row] for x, row in zip(runs_b, rows_of(results), strict=True)]
        return _titled(["A = ", " (baseline); B = each run below"], [a]), ["B = run", *COLUMNS], rows, 2, 1
    runs_a = [r.label_a or r.run_a for r in results]
    rows = [[x, y, *row] for x, y, row in zip(runs_b, runs_a, rows_of(results), strict=True)]
    return None, ["B = run", "A = run", *COLUMNS], rows, 3, 2


def family_line(results: list[RunComparison]) -> str:
    """The one multiplicity choice, as it applies to p, the intervals and the gate
    (:mod:`evaladdon.stats.paired.family`)."""
    method, k = results[0].adjust_method, len(results)
    each = level_text(results[0].comparison.level)
    kind = "false-coverage-rate adjusted (Benjamini-Yekutieli)" if method == "bh" else "simultaneous (Bonferroni)"
    gate = "; the gate needs the adjusted p and the interval" if any(r.gate is not None for r in results) else ""
    return f"p: {method}-adjusted over {k} comparisons; intervals {kind}, each at {each}{gate}"


def units_line(results: list[RunComparison]) -> str:
    """What the delta and CI columns are in: points (metrics in [0, 1]) or the metric's units."""
    kinds = {r.points for r in results}
    if kinds == {True}:
        return "delta and CI in points"
    if kinds == {False}:
        return "delta and CI in the metric's own units (not in [0, 1])"
    own = sorted({f"{r.task}/{r.metric}" for r in results if not r.points})
    return f"delta and CI in points, except in the metric's own units for {', '.join(own)} (not in [0, 1])"


def _lines(results: list[RunComparison], power: float) -> list[str]:
    """The lines under the tables: the adjustment and the units when they need saying, then
    the verdicts."""
    lines = []
    if any(r.p_adjusted is not None for r in results):
        lines.append(f"{family_line(results)}; {units_line(results)}")
    elif not all(r.points for r in results):
        lines.append(units_line(results))
    return lines + [verdict(r, power) for r in results]


def warnings_of(results: list[RunComparison]) -> list[str]:
    """Items left out of each pairing, hash mismatches and statistical notes, one line each."""
    out = []
    for r in results:
        al, label = r.alignment, f"{r.label_b or r.run_b} vs {r.label_a or r.run_a} / {r.task} / {r.metric}"
        if al.only_a or al.only_b:
            out.append(f"warning: {label}: {al.only_a} item(s) only in A, {al.only_b} only in B (left out)")
        if al.hash_mismatch:
            out.append(f"warning: {label}: {al.hash_mismatch} paired item(s) have different content hashes "
                       f"(e.g. {', '.join(al.hash_mismatch_examples)}); --strict refuses them")
        for side, dropped in (("A", al.dropped_a), ("B", al.dropped_b)):
            if dropped:
                out.append(f"warning: {label}: {sum(dropped.values())} row(s) of {side} left out "
                           f"({', '.join(f'{v} {k}' for k, v in dropped.items())})")
        for note in r.comparison.notes:
            out.append(f"note: {label}: {note}")
        out.extend(comparison_error_lines(r))
    return out + error_policy_line(results)


def render(
    results: list[RunComparison],
    power: float,
    quiet: bool,
    markdown: bool,
    stream: Any = None,
    notes: list[str] | None = None,
    wide: bool = False,
) -> None:
    """Tables and verdict lines on ``stream``; with ``notes`` given, warnings too (stderr, or
    a list after a markdown table)."""
    import textwrap

    from evaladdon.report.escape import markdown_cell
    from evaladdon.report.text import markdown_list

    con = console(stream)
    width = terminal_width(con.file)
    title, columns, rows, n_left, names = layout(results)
    if markdown:  # labels are bounded (table.names.LABEL_MAX): the full title
        con.file.write((f"**{markdown_cell(title(10**6))}**\n\n" if title else "") + markdown_table(columns, rows) + "\n")
    else:
        con.print(table(title, columns, rows, n_left=n_left, drop=DROP_ORDER, wide=wide, names=names))
    for line in _lines(results, power):
        if markdown:
            con.file.write(markdown_cell(line) + "\n\n")
        elif wide:
            con.print(line)
        else:
            con.print(textwrap.fill(line, width=max(width, 20), subsequent_indent="  ", break_on_hyphens=False))
    if notes is None:
        return
    extra = list(notes) + warnings_of(results)
    if markdown:
        con.file.write(markdown_list(extra))
    elif not quiet:
        warn(extra)
