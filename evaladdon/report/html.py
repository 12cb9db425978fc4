"""A self-contained HTML report: tables and plots, no network references.

Plots are PNGs embedded as ``data:`` URIs; styles are inline.  Nothing is fetched when the
file is opened.
"""

from __future__ import annotations

import base64
import math
from typing import Any, Sequence

from evaladdon.analysis.compare_table import RunComparison
from evaladdon.report.compare import direction_note
from evaladdon.report.plots import epoch_variance_plot, forest_plot, power_curve_plot
from evaladdon.report.escape import clean, html_text
from evaladdon.report.text import fmt, shorten
from evaladdon.report.units import amount, column_unit, difference, interval, level_text, magnitude, number, size
from evaladdon.stats import power_curve
from evaladdon.analysis.summarize import GroupSummary

STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:70rem;color:#1b1b1b}
h1{font-size:1.6rem}h2{font-size:1.25rem;margin-top:2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:.9rem;margin:.5rem 0}
th,td{padding:.25rem .6rem;border-bottom:1px solid #eee;text-align:right}
th:first-child,td:first-child,th:nth-child(2),td:nth-child(2){text-align:left}
.verdict{margin:.3rem 0;font-size:.95rem}.warn{color:#8a4b00}.note{color:#555;font-size:.85rem}
img{max-width:100%;display:block;margin:.6rem 0}
"""


def _table(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    head = "".join(f"<th>{html_text(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{html_text(fmt(v))}</td>" for v in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


PLOT_LABEL_MAX = 80
"""The longest label on a plot (matplotlib lays out every character: a 20 KB label took minutes)."""


def plot_label(text: str) -> str:
    """A name from input as a matplotlib label: at most :data:`PLOT_LABEL_MAX` characters (cut
    in the middle), control characters shown as escapes (the plots draw text literally:
    :mod:`evaladdon.report.plots`, so ``$`` needs no escape)."""
    return shorten(clean(text), PLOT_LABEL_MAX)


def _img(png: bytes, alt: str) -> str:
    return f'<img alt="{html_text(alt)}" src="data:image/png;base64,{base64.b64encode(png).decode()}">'


def render_report(
    summaries: Sequence[GroupSummary],
    comparisons: Sequence[RunComparison],
    notes: Sequence[str] = (),
    title: str = "evaladdon report",
    power: float = 0.8,
    skipped: Sequence[str] = (),
    sections: Sequence[str] = (),
) -> str:
    """The page: scores, epoch variance, comparisons with plots, then every input, comparison
    and row left out (with reasons) and every note."""
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html_text(title)}</title>",
             f"<style>{STYLE}</style></head><body><h1>{html_text(title)}</h1>"]
    parts += _scores_section(summaries)
    if comparisons:
        parts += _comparisons_section(comparisons, power)
    parts.extend(sections)  # extra sections (e.g. metrics_section), already HTML
    if not comparisons and len({s.run for s in summaries}) > 1:
        parts.append("<p class='warn'>0 comparisons: see what was left out below.</p>")
    parts += _left_out_section(summaries, comparisons, skipped)
    parts += _notes_section(summaries, comparisons, [*notes, *error_policy_lines(summaries, comparisons)])
    parts.append("</body></html>")
    return "\n".join(parts)


def _scores_section(summaries: Sequence[GroupSummary]) -> list[str]:
    """The table of estimates, and the epoch-variance plot of the runs with epochs."""
    parts = ["<h2>Scores with the right error bars</h2>"]
    rows = []
    for s in summaries:
        e = s.estimate
        rows.append([s.label or s.run, f"{s.task}/{s.metric}", e.mean, e.se, interval(e.ci_low, e.ci_high, digits=4),
                     e.se_naive, e.deff, e.n_items, e.n_clusters, e.n_epochs_max, e.method])
    parts.append(_table(["run", "task/metric", "mean", "se", f"{summaries[0].estimate.level:.0%} CI" if summaries
                         else "CI", "naive se", "deff", "items", "clusters", "epochs", "method"], rows))
    epochs = [s for s in summaries if s.estimate.epoch_variance is not None]
    if epochs:
        parts.append("<h2>Epoch variance</h2>")
        parts.append(_img(epoch_variance_plot(
            [f"{s.label or s.run} {s.task}/{s.metric}" for s in epochs],
            [s.estimate.epoch_variance.within_var for s in epochs],  # type: ignore[union-attr]
            [s.estimate.epoch_variance.between_var for s in epochs],  # type: ignore[union-attr]
        ), "epoch variance"))
    return parts


def _comparisons_section(comparisons: Sequence[RunComparison], power: float) -> list[str]:
    """The table of paired comparisons, the forest plot, the power curves and the verdicts."""
    parts = ["<h2>Paired comparisons</h2>"]
    crow = []
    for r in comparisons:
        c = r.comparison
        crow.append([f"{r.label_b or r.run_b} vs {r.label_a or r.run_a}", f"{r.task}/{r.metric}", c.mean_a,
                     c.mean_b, difference(c.delta, r.points), interval(c.ci_low, c.ci_high, r.points),
                     c.p_value, r.p_adjusted, c.se_paired, c.se_unpaired, c.n,
                     f"{c.discordance.n10}/{c.discordance.n01}" if c.discordance else "-",
                     None if r.mde is None else magnitude(r.mde, r.points)])
    unit = column_unit([r.points for r in comparisons])
    parts.append(_table(["B vs A", "task/metric", "A", "B", f"delta ({unit})", f"CI ({unit})", "p", "p adjusted",
                         "se paired", "se unpaired", "n", "n10/n01", f"MDE ({unit})"], crow))
    parts += _comparison_plots(comparisons, power)
    for r in comparisons:
        c = r.comparison
        mde = f"; this set can detect {size(r.mde, r.points)} at {power:.0%} power" if r.mde else ""
        parts.append(f"<p class='verdict'>{html_text(r.label_b or r.run_b)} vs "
                     f"{html_text(r.label_a or r.run_a)} on {html_text(r.task)}/{html_text(r.metric)}"
                     f"{direction_note(r)}: "
                     f"{amount(c.delta, r.points)}, {level_text(c.level)} CI {interval(c.ci_low, c.ci_high, r.points)}; "
                     f"p = {c.p_value:.3g} ({html_text(c.test)}){mde}</p>")
    return parts


def _comparison_plots(comparisons: Sequence[RunComparison], power: float) -> list[str]:
    """The forest plot and the power curves, one of each per scale (points for metrics in
    [0, 1], the metrics' own units otherwise: two scales never share an axis)."""
    parts = []
    for points in (True, False):
        group = [r for r in comparisons if r.points == points]
        if not group:
            continue
        scale = 100.0 if points else 1.0
        unit = "points" if points else "the metric's units"
        labels = [f"{r.label_b or r.run_b} vs {r.label_a or r.run_a}: {r.task}/{r.metric}" for r in group]
        parts.append(_img(forest_plot([plot_label(x) for x in labels], [r.comparison.delta for r in group],
                                      [r.comparison.ci_low for r in group], [r.comparison.ci_high for r in group],
                                      title=f"Paired differences (B - A), {unit}", scale=scale, unit=unit),
                          "forest plot"))
        curves = []
        for label, r in zip(labels, group, strict=True):
            c = r.comparison
            if c.se > 0 and math.isfinite(c.se * c.se * c.n):  # no curve for a variance past the float range
                pc = power_curve(c.n, c.se * c.se * c.n, alpha=1 - c.level)
                curves.append((plot_label(label), pc.delta, pc.power))
        if curves:
            parts.append(_img(power_curve_plot(curves, power, scale=scale, unit=unit), "power curve"))
    return parts


def errored_lines(summaries: Sequence[GroupSummary], comparisons: Sequence[RunComparison]) -> list[str]:
    """The error rate of each summary and comparison with errored samples (``--errors``)."""
    from evaladdon.report.errors import comparison_error_lines
    from evaladdon.report.summarize import error_lines

    out = [line.removeprefix("note: ") for s in summaries
           for line in error_lines(s, f"{s.label or s.run} / {s.task} / {s.metric}")]
    return out + [line.removeprefix("note: ") for r in comparisons for line in comparison_error_lines(r)]


def error_policy_lines(summaries: Sequence[GroupSummary], comparisons: Sequence[RunComparison]) -> list[str]:
    """The ``--errors`` policy, said once for the scores and once for the comparisons (as in text)."""
    from evaladdon.report.errors import error_policy_line
    from evaladdon.report.summarize import policy_line

    return policy_line(list(summaries)) + error_policy_line(comparisons)


def _left_out_section(summaries: Sequence[GroupSummary], comparisons: Sequence[RunComparison],
                      skipped: Sequence[str]) -> list[str]:
    """Every input, comparison and row left out, with its reason (escaped)."""
    left_out = [f"{s.label or s.run} / {s.task} / {s.metric}: {s.n_dropped} row(s) left out ("
                + ", ".join(f"{v} {k}" for k, v in s.dropped.items()) + ")" for s in summaries if s.n_dropped]
    left_out += errored_lines(summaries, comparisons)
    for r in comparisons:
        al, label = r.alignment, f"{r.label_b or r.run_b} vs {r.label_a or r.run_a} / {r.task} / {r.metric}"
        if al.only_a or al.only_b:
            left_out.append(f"{label}: {al.only_a} item(s) only in A, {al.only_b} only in B (not paired)")
        if al.hash_mismatch:
            left_out.append(f"{label}: {al.hash_mismatch} paired item(s) have different content hashes")
    if not (skipped or left_out):
        return []
    return ["<h2>Left out</h2><ul>", *(f"<li class='warn'>{html_text(n)}</li>" for n in [*skipped, *left_out]),
            "</ul>"]


def _notes_section(summaries: Sequence[GroupSummary], comparisons: Sequence[RunComparison],
                   notes: Sequence[str]) -> list[str]:
    """Every warning and note: the command's, then each estimate's and each comparison's (escaped)."""
    parts = []
    if notes:
        parts.append("<h2>Warnings and notes</h2>")
        parts.extend(f"<p class='warn'>{html_text(n)}</p>" for n in notes)
    for s in summaries:
        for n in s.estimate.notes:
            parts.append(f"<p class='note'>{html_text(f'{s.label or s.run} / {s.task} / {s.metric}: {n}')}</p>")
    for r in comparisons:
        for n in r.comparison.notes:
            label = f"{r.label_b or r.run_b} vs {r.label_a or r.run_a} / {r.task} / {r.metric}"
            parts.append(f"<p class='note'>{html_text(f'{label}: {n}')}</p>")
    return parts


def _style_section(style: Any) -> str:
    """``rank --control`` in HTML: the tables and lines of :mod:`evaladdon.report.style_control`
    (cells escaped by :func:`_table`, lines by :func:`html_text`)."""
    from evaladdon.report.style_control import lc_rows, style_lines, style_rows

    def keep(text: object) -> str:  # _table and html_text escape once, at the end
        return str(text)

    parts = ["<h2>Style control</h2>"]
    cols, rows = style_rows(style, keep)
    if cols:
        parts.append(_table(cols, rows))
    for line in style_lines(style, keep):
        kind = "warn" if line.startswith("warning:") else "note"
        parts.append(f"<p class='{kind}'>{html_text(line.strip())}</p>")
    cols, rows = lc_rows(style, keep)
    if cols:
        parts.append("<h3>Length-controlled win rate (AlpacaEval 2)</h3>")
        parts.append(_table(cols, rows))
    return "".join(parts)


def render_rank_section(
    bt: Any = None,
    position: Any = None,
    rankings: Sequence[tuple[str, Any, dict[str, int]]] = (),
    dropped: dict[str, int] | None = None,
    notes: Sequence[str] = (),
    style: Any = None,
) -> str:
    """HTML fragment for leaderboards: the ``rank`` command's results.

    ``bt``: a :class:`evaladdon.stats.bradley_terry.BradleyTerryResult` (table, ratings forest,
    win-rate heatmap), ``position``: its :class:`PositionBias` or None, ``dropped``/``notes``: what
    the preference reader left out and why; ``style``: the
    :class:`~evaladdon.analysis.style_control.StyleControl` of ``rank --control`` or None (raw
    and controlled ratings side by side, the style coefficients, AlpacaEval's length-controlled
    win rates: the tables and lines the text output shows).  ``rankings``: ``(label, RankingResult, dropped)`` per
    task/metric ranked from per-item scores.  Build them with
    ``evaladdon.analysis.rank.preference_ranking(paths, ...)`` and ``score_rankings(table, ...)``.
    """
    import numpy as np

    from evaladdon.report.plots import rating_plot, win_rate_heatmap

    parts: list[str] = []
    if bt is not None:
        order = sorted(range(len(bt.models)), key=lambda i: (int(bt.rank[i]), i))
        parts.append("<h2>Leaderboard (Bradley–Terry)</h2>")
        ties = "ties split half/half" if bt.ties == "half" else f"Davidson ties (nu = {bt.tie_param:.3g})"
        anchor = f"{bt.anchor} = {bt.base:g}" if bt.anchor else f"mean {bt.base:g}"
        parts.append(f"<p class='note'>{html_text(f'{bt.n_battles:g} battles in {bt.n_clusters} clusters; {ties}; Elo scale, {anchor}; {bt.level:.0%} {bt.interval} intervals')}</p>")
        rows = [[int(bt.rank[i]), bt.models[i], f"{bt.rating[i]:.1f}", interval(float(bt.ci_low[i]), float(bt.ci_high[i]), digits=1),
                 interval(int(bt.rank_low[i]), int(bt.rank_high[i])), f"{bt.battles[i].sum():g}"] for i in order]
        parts.append(_table(["rank", "model", "rating", f"{bt.level:.0%} CI", "rank range", "battles"], rows))
        parts.append(_img(rating_plot(list(bt.models), list(bt.rating), list(bt.ci_low), list(bt.ci_high),
                                      ref=bt.base), "ratings with intervals"))
        names = [bt.models[i] for i in order]
        parts.append(_img(win_rate_heatmap(names, bt.win_rate[order][:, order],
                                           "Observed win rate of row over column (ties half)"), "win-rate heatmap"))
        off = ~np.eye(len(order), dtype=bool)
        if np.isnan(bt.win_rate[off]).any():  # some pairs never met: show what the model predicts too
            parts.append(_img(win_rate_heatmap(names, bt.predicted[order][:, order],
                                               "Bradley–Terry expected score of row over column"), "predicted heatmap"))
        if position is not None:
            p = position
            parts.append(f"<p class='verdict'>Position bias ({p.n_pairs} swapped pairs): agreement {p.agreement:.2f}, "
                         f"kappa {p.kappa:.2f}; the first position wins {p.first_position_rate:.2f} of "
                         f"{p.n_decisive_games} decisive games ({p.level:.0%} CI {p.first_low:.2f} to "
                         f"{p.first_high:.2f}, p = {p.p_value:.3g})</p>")
        if dropped:
            reasons = ", ".join(f"{v} {k}" for k, v in dropped.items())
            parts.append(f"<p class='warn'>{html_text(f'{sum(dropped.values())} record(s) left out ({reasons})')}</p>")
        parts.extend(f"<p class='note'>{html_text(n)}</p>" for n in list(notes) + list(bt.notes))
    if style is not None:
        parts.append(_style_section(style))
    for label, r, drop in rankings:
        order = sorted(range(len(r.models)), key=lambda i: (int(r.rank[i]), i))
        lowest = " (lower is better: lowest first)" if getattr(r, "lower_is_better", False) else ""
        parts.append(f"<h2>Ranking: {html_text(label)}{lowest}</h2>")
        rows = [[int(r.rank[i]), r.models[i], number(float(r.mean[i]), 3), interval(float(r.ci_low[i]), float(r.ci_high[i])),
                 interval(int(r.rank_low[i]), int(r.rank_high[i])), int(r.tier[i])] for i in order]
        parts.append(_table(["rank", "model", "mean", f"{r.level:.0%} CI", "rank range", "tier"], rows))
        parts.append(_img(rating_plot(list(r.models), list(r.mean), list(r.ci_low), list(r.ci_high),
                                      title=f"Mean scores with intervals: {label}", xlabel="mean score"),
                          "scores with intervals"))
        parts.append(f"<p class='note'>{html_text(r.method)}; winner's curse: the top score {number(r.top_score, 3)} "
                     f"is optimistic by about {number(r.optimism, 3)} (bound {number(r.optimism_bound, 3)})</p>")
        if drop:
            reasons = ", ".join(f"{v} {k}" for k, v in drop.items())
            parts.append(f"<p class='warn'>{html_text(f'{sum(drop.values())} row(s) left out ({reasons})')}</p>")
        parts.extend(f"<p class='note'>{html_text(n)}</p>" for n in r.notes)
    return "\n".join(parts)


def render_rank_page(section: str, title: str = "evaladdon leaderboard") -> str:
    """A whole self-contained page around :func:`render_rank_section`'s fragment."""
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html_text(title)}</title>"
            f"<style>{STYLE}</style></head><body><h1>{html_text(title)}</h1>\n{section}\n</body></html>")


def metrics_section(groups: Sequence[Any]) -> str:
    """Metrics beyond the mean (``evaladdon.analysis.metrics.GroupMetrics``): a table of the headline
    metrics with intervals, what is missing, and a reliability diagram where there is a
    confidence or score.  Empty string when no group has any of these metrics."""
    from evaladdon.report.plots import reliability_diagram

    headline = {"accuracy", "balanced_accuracy", "f1_macro", "mcc", "kappa", "roc_auc", "average_precision", "ece",
                "ece_equal_mass", "brier", "nll"}
    rows = []
    for g in groups:
        for e in g.estimates:
            if e.name in headline or e.name.startswith("pass") or "," in e.name:
                rows.append([g.label, f"{g.task}/{g.metric}", e.name, e.estimate, interval(e.ci_low, e.ci_high, digits=4),
                             e.n_items, e.n_clusters, e.method])
    if not rows:
        return ""
    parts = ["<h2>Metrics beyond the mean</h2>",
             _table(["run", "task/metric", "metric", "estimate", "CI", "items", "clusters", "method"], rows)]
    for g in groups:
        for family, why in g.missing.items():
            parts.append(f"<p class='note'>{html_text(f'{g.label} / {g.task} / {g.metric}: {family}: {why}')}</p>")
    curves = [(f"{g.label} {g.task}/{g.metric}", [b.mean_forecast for b in g.reliability.bins],
               [b.mean_outcome for b in g.reliability.bins], [b.count for b in g.reliability.bins])
              for g in groups if g.reliability is not None]
    if curves:
        parts.append(_img(reliability_diagram(curves), "reliability diagram"))
    return "\n".join(parts)
