"""``compare --flips``: the items that flipped, worst first, as text, markdown (a collapsible
``<details>`` block per comparison, for a PR comment), JSON records and an HTML section.

Every id, cluster, answer and input line comes from a log: cleaned for the terminal
(:func:`~evaladdon.report.escape.clean` through :func:`~evaladdon.report.text.table`), made an
inert markdown cell (:func:`~evaladdon.report.escape.markdown_cell`), or ``html.escape``-d."""

from __future__ import annotations

from typing import Any, Sequence

from evaladdon.analysis.flips import FlipSet
from evaladdon.report.escape import html_inline, html_text
from evaladdon.report.text import console, fill, fmt, markdown_table, shorten, table

__all__ = ["COLUMNS", "flip_records", "headline", "html_section", "render_flips", "rows_of"]

COLUMNS = ["#", "change", "item", "cluster", "answer A", "answer B", "input", "A", "B"]
CELL = 60
"""Widest answer or input cell in text and markdown (the JSON and ``export --flips`` keep them whole)."""


def headline(fs: FlipSet, shown: int) -> str:
    """``task/metric: B vs A: 3 right->wrong, 5 wrong->right of 100 shared items (showing 8)``."""
    worse, better = (("right->wrong", "wrong->right") if fs.binary else ("rose", "fell") if fs.lower_is_better
                     else ("dropped", "gained"))
    more = f" (showing the worst {shown})" if shown < len(fs.flips) else ""
    lower = " (lower is better)" if fs.lower_is_better else ""
    return (f"flips on {fs.task}/{fs.metric}{lower}, {fs.label_b} vs {fs.label_a}: {fs.n_worse} {worse}, "
            f"{fs.n_better} {better} of {fs.n_shared} shared items{more}")


def _cell(text: str | None) -> str:
    return "-" if text is None else shorten(text, CELL)


def rows_of(fs: FlipSet, n: int | None) -> list[list[Any]]:
    """The first ``n`` flips (None or 0: all) as table rows."""
    flips = fs.flips if not n else fs.flips[:n]
    return [[k + 1, f.kind, f.item, f.cluster or "-", _cell(f.answer_a), _cell(f.answer_b), _cell(f.input),
             fmt(f.score_a, 3), fmt(f.score_b, 3)] for k, f in enumerate(flips)]


def _shown(fs: FlipSet, n: int | None) -> int:
    return len(fs.flips) if not n else min(n, len(fs.flips))


def render_flips(sets: Sequence[FlipSet], n: int | None, stream: Any = None, markdown: bool = False,
                 wide: bool = False) -> None:
    """Each comparison's flips after the comparison table: a text table, or a markdown
    ``<details>`` block whose summary line gives the counts (collapsed in a PR comment)."""
    con = console(stream)
    for fs in sets:
        line = headline(fs, _shown(fs, n))
        rows = rows_of(fs, n)
        if markdown:
            body = markdown_table(COLUMNS, rows) if rows else "no item changed\n"
            con.file.write(f"<details><summary>{html_inline(line)}</summary>\n\n{body}\n</details>\n\n")
        else:
            con.print(fill(line if rows else f"{line}: no item changed", con, wide))
            if rows:
                con.print(table(None, COLUMNS, rows, n_left=7, drop=("cluster", "answer A", "answer B"), wide=wide,
                                names=0))


def flip_records(sets: Sequence[FlipSet], n: int | None) -> list[dict[str, Any]]:
    """JSON: a ``flips`` record of counts per comparison, then a ``flip`` record per flip shown."""
    out: list[dict[str, Any]] = []
    for fs in sets:
        out.append(fs.summary())
        out.extend(fs.records()[: _shown(fs, n)])
    return out


def html_section(sets: Sequence[FlipSet], n: int | None) -> str:
    """An HTML section of the report: one collapsible ``<details>`` per comparison."""
    parts = ["<section><h2>What flipped</h2>"]
    for fs in sets:
        head = "".join(f"<th>{html_text(c)}</th>" for c in COLUMNS)
        body = "".join("<tr>" + "".join(f"<td>{html_text(v)}</td>" for v in row) + "</tr>"
                       for row in rows_of(fs, n))
        parts.append(f"<details><summary>{html_text(headline(fs, _shown(fs, n)))}</summary>"
                     f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></details>")
    parts.append("</section>")
    return "".join(parts)
