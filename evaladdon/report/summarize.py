"""``summarize`` output: the table of estimates (text, markdown), rows left out and notes, and the
harness-reported rows of results-only lm-eval files (everything from a log escaped by
:mod:`evaladdon.report.text`)."""

from __future__ import annotations

from typing import Any

from evaladdon.report.errors import policy_note, rate_line
from evaladdon.report.text import console, fmt, markdown_table, table
from evaladdon.report.units import interval

__all__ = ["COLUMNS", "DROP_ORDER", "render", "reported_notes", "reported_rows", "rows_of", "warnings_of"]


COLUMNS = ["run", "task/metric", "mean", "se", "CI", "naive se", "deff", "n", "method"]
DROP_ORDER = ("naive se", "deff", "method", "n")
"""Columns left out, in this order, when the table does not fit the terminal (``--wide`` keeps all)."""


def rows_of(summaries: list[Any], incomplete: dict[tuple[str, str, str], Any] | None = None) -> list[list[Any]]:
    """Table rows; a run whose log is incomplete is labelled ``[incomplete] RUN``."""
    rows = []
    for s in summaries:
        mark = "[incomplete] " if incomplete and (s.run, s.task, s.metric) in incomplete else ""
        e = s.estimate
        n = f"{e.n_items}" + (f"/{e.n_clusters}c" if e.n_clusters is not None else "") + (
            f"x{e.n_epochs_max}" if e.n_epochs_max > 1 else ""
        )
        ci = interval(e.ci_low, e.ci_high)
        rows.append([mark + (s.label or s.run), f"{s.task}/{s.metric}", fmt(e.mean, 3), fmt(e.se, 4), ci, fmt(e.se_naive, 4),
                     fmt(e.deff, 2), n, e.method.replace("t-cluster-", "t ")])
    return rows


def warnings_of(summaries: list[Any]) -> list[str]:
    """Rows left out (by reason) and statistical notes, one line per run, task and metric."""
    out = []
    for s in summaries:
        label = f"{s.label or s.run} / {s.task} / {s.metric}"
        if s.n_dropped:
            reasons = ", ".join(f"{v} {k}" for k, v in s.dropped.items())
            out.append(f"warning: {label}: {s.n_dropped} row(s) left out ({reasons})")
        out.extend(error_lines(s, label))
        for note in s.estimate.notes:
            out.append(f"note: {label}: {note}")
    return out + policy_line(summaries)


def error_lines(s: Any, label: str) -> list[str]:
    """The error rate of a summary with errored samples, under its policy (``--errors``), and the
    worst/best case of ``--errors bounds``: one line each, nothing when no sample errored."""
    if not s.n_errors:
        return []
    how = {"exclude": "left out of the mean", "fail": "scored 0 (failed)",
           "bounds": "left out of the mean; worst/best case below"}[s.errors]
    if s.errors == "fail" and not s.n_failed:
        how = "left out of the mean (not a metric in [0, 1]: no worst score)"
    attempted = s.estimate.n_rows + s.n_errors - s.n_failed
    out = [rate_line(label, s.n_errors, attempted, s.errors, how)]
    if s.bounds is not None:
        worst, best, low, high = s.bounds
        out.append(f"note: {label}: with every errored sample failed {fmt(worst, 3)}, passed "
                   f"{fmt(best, 3)} (bounds {fmt(low, 3)} to {fmt(high, 3)})")
    return out


def policy_line(summaries: list[Any]) -> list[str]:
    """The policy for errored samples, said once (always: the default excludes them)."""
    if not summaries:
        return []
    n = sum(s.n_errors for s in summaries)
    return [policy_note(summaries[0].errors, n)]


def render(
    summaries: list[Any],
    stream: Any = None,
    quiet: bool = False,
    markdown: bool = False,
    notes: list[str] | None = None,
    wide: bool = False,
    warn_stream: Any = None,
    reported: list[Any] | None = None,
    incomplete: dict[tuple[str, str, str], dict[str, Any]] | None = None,
) -> None:
    """The table on ``stream``; with ``notes`` given, the warnings too (on ``warn_stream``,
    default stderr, or as a list after a markdown table)."""
    from evaladdon.report.text import markdown_list, warn

    con = console(stream)
    reported = list(reported or [])
    level = summaries[0].estimate.level if summaries else reported[0].level
    columns = [c if c != "CI" else f"{level:.0%} CI" for c in COLUMNS]
    rows = rows_of(summaries, incomplete or {}) + reported_rows(reported)
    if markdown:
        con.file.write(markdown_table(columns, rows))
    else:
        con.print(table(None, columns, rows, n_left=2, drop=DROP_ORDER, wide=wide))
    if notes is None:
        return
    lines = list(notes) + warnings_of(summaries)
    if markdown:
        con.file.write(markdown_list(lines))
    elif not quiet:
        warn(lines, warn_stream)


def reported_rows(reported: list[Any]) -> list[list[Any]]:
    """Table rows of harness-reported values (results-only inputs): no naive SE or deff to show."""
    return [[f"[reported] {r.run}", f"{r.task}/{r.metric}", fmt(r.value, 3), fmt(r.stderr, 4),
             interval(r.ci_low, r.ci_high) if r.ci_low is not None else "-", "-", "-",
             "-" if r.n is None else str(r.n), "reported"] for r in reported]


def reported_notes(reported: list[Any]) -> list[str]:
    out = []
    if reported:
        out.append(f"note: {len(reported)} row(s) marked 'reported' are the harness's own values and stderr from "
                   "results files without samples: not clustered, not paired, not recomputed")
    by_text: dict[str, list[str]] = {}  # the same note on many rows is said once, with a count
    for r in reported:
        for n in r.notes:
            by_text.setdefault(n, []).append(f"{r.run} / {r.task} / {r.metric}")
    for text, where in by_text.items():
        out.append(f"note: {where[0]}: {text}" if len(where) == 1 else f"note: {len(where)} reported rows: {text}")
    return out
