"""``evaladdon rank PATH...``: leaderboards with honest intervals.

Pairwise-preference files (Arena battles, MT-bench pair judgments, AlpacaEval annotations) are
fitted by Bradley–Terry (:mod:`evaladdon.stats.bradley_terry`); logs and tables (the canonical
per-item table, through :func:`evaladdon.cli.options.load_runs`) are ranked per (task, metric)
from their per-item scores on shared items (:mod:`evaladdon.stats.ranking`).

For the HTML report: :func:`evaladdon.analysis.rank.preference_ranking` / ``score_rankings`` compute
(also importable from here), and
``evaladdon.report.html.render_rank_section(preferences=..., scores=...)`` renders.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from evaladdon.analysis.rank import (PreferenceRanking, ScoreRanking, preference_ranking,  # noqa: F401 - docs/ranking.md
                                     score_rankings)
from evaladdon.cli.options import add_better, add_inputs, add_output
from evaladdon.report.rank import (_md_table, _pref_lines, _rows_pairs, _rows_pref, _rows_score, _score_lines,
                                   _warnings, preference_json, score_json)


def add_parser(sub: Any) -> None:
    p = sub.add_parser("rank", help="leaderboard with rating and rank intervals (Bradley–Terry or per-item scores)")
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="preference files (Arena, MT-bench pair, AlpacaEval), or logs/tables, or directories")
    add_inputs(p, engine=False)  # reads every row: no Dask reduction (analysis.options.DASK_COMMANDS)
    add_better(p)
    p.add_argument("--ties", choices=("half", "davidson"), default="half",
                   help="ties as half a win each (Arena, default) or Davidson's tie model")
    p.add_argument("--anchor", metavar="MODEL", help="this model's rating is fixed at 1000 (default: mean 1000)")
    p.add_argument("--n-boot", type=int, default=1000, help="bootstrap replicates over prompts/items (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--sandwich", action="store_true",
                   help="Bradley–Terry: cluster-robust sandwich intervals instead of the bootstrap")
    p.add_argument("--unit", choices=("cluster", "item"), default="cluster",
                   help="preferences: resample clusters (default; AlpacaEval: dataset) or single prompts")
    p.add_argument("--control", metavar="LIST",
                   help="preferences: also fit Bradley–Terry with the answers' style as covariates (Chatbot Arena's "
                        "style control): length, markdown (headers, lists, bold), or header/list/bold, comma-separated")
    p.add_argument("--html", metavar="FILE", help="also write a self-contained HTML page (table, interval plot, "
                   "win-rate heatmap)")
    add_output(p)
    p.set_defaults(run=run)


def _write_html(args: argparse.Namespace, **section: Any) -> None:
    from evaladdon.cli.options import input_paths
    from evaladdon._util.safe_write import atomic_write_text
    from evaladdon.report.html import render_rank_page, render_rank_section

    page = render_rank_page(render_rank_section(**section))
    out = atomic_write_text(args.html, page, inputs=input_paths(args))
    if not args.quiet and not args.json:
        sys.stderr.write(f"wrote {out}\n")


def _controls(args: argparse.Namespace) -> tuple[str, ...]:
    """``--control`` as style features (an InputError naming an unknown one)."""
    from evaladdon.analysis.style_control import parse_controls
    from evaladdon.errors import InputError

    if not getattr(args, "control", None):
        return ()
    try:
        return parse_controls(args.control)
    except ValueError as exc:
        raise InputError(str(exc)) from None


def _with_style(out: dict[str, Any], pr: PreferenceRanking) -> dict[str, Any]:
    """The preference JSON, with the ``style_control`` record when ``--control`` was given."""
    if pr.style is not None:
        from evaladdon.report.style_control import style_json

        out["style_control"] = style_json(pr.style)
    return out


def _pref_blocks(pr: PreferenceRanking, args: argparse.Namespace, cell: Any) -> list[tuple[Any, ...]]:
    """The text/markdown blocks of a preference ranking: (columns, rows, lines, warnings) each."""
    cols, rows = _rows_pref(pr, cell)
    lines = _pref_lines(pr, cell)
    warn = _warnings(pr.dropped, pr.notes + list(pr.result.notes), cell)
    blocks: list[tuple[Any, ...]] = [(cols, rows, lines, [])]
    pcols, prows = _rows_pairs(pr, cell)
    if prows and not args.quiet:  # the win-rate matrix, pair by pair, when it is small
        blocks.append((pcols, prows, [], []))
    blocks[-1] = (*blocks[-1][:3], warn)
    if pr.style is not None:  # rank --control: raw and controlled ratings side by side
        from evaladdon.report.style_control import lc_rows, style_lines, style_rows

        blocks.append((*style_rows(pr.style, cell), style_lines(pr.style, cell), []))
        if pr.style.lc:  # AlpacaEval annotations: the length-controlled win rate
            blocks.append((*lc_rows(pr.style, cell), [], []))
    return blocks


def run(args: argparse.Namespace) -> int:
    from evaladdon.adapters.preferences import any_preferences, looks_like_preferences
    from evaladdon.errors import InputError
    from evaladdon.report.escape import clean, markdown_cell
    from evaladdon.report.text import console, table, write_json

    if args.n_boot and args.n_boot < 100:
        raise InputError("--n-boot must be 0 or at least 100")
    paths = list(args.paths or [])
    prefs = bool(paths) and any_preferences(paths)
    if prefs:
        from pathlib import Path

        if getattr(args, "store", None):
            raise InputError("--store holds per-item scores; give preference files as PATHs without --store")
        others = [p for p in paths if Path(p).is_file() and not looks_like_preferences(Path(p))]
        if others:
            raise InputError("mixes pairwise-preference files with score logs; rank them separately", others[0])
        pr = preference_ranking(paths, args.ties, args.anchor, args.n_boot, args.seed, args.level,
                                args.sandwich, args.unit, _controls(args))
        ignored = [f for f, v in (("--metric", args.metric), ("--cluster", args.cluster)) if v]
        if ignored:
            verb = "apply" if len(ignored) > 1 else "applies"
            pr.notes.append(f"{' and '.join(ignored)} {verb} to per-item scores; not used for preferences "
                            "(see --unit)")
        if args.html:
            _write_html(args, bt=pr.result, position=pr.position, dropped=pr.dropped, notes=pr.notes,
                        style=pr.style)
        if args.json:
            write_json(_with_style(preference_json(pr), pr))
            return 0
        cell = markdown_cell if args.markdown else clean
        blocks = _pref_blocks(pr, args, cell)
    else:
        if getattr(args, "control", None):
            raise InputError("--control applies to pairwise-preference files (Arena, MT-bench pair, AlpacaEval)")
        from evaladdon.cli.options import load_runs

        loaded = load_runs(args)
        notes = list(loaded.notes)
        srs = score_rankings(loaded.table, args.metric, args.level, args.n_boot, args.seed, notes, better=args.better)
        if args.html:
            _write_html(args, rankings=[(f"{s.task}/{s.metric}", s.result, s.dropped) for s in srs], notes=notes)
        if args.json:
            write_json({"kind": "scores", "rankings": [score_json(s) for s in srs], "notes": notes})
            return 0
        cell = markdown_cell if args.markdown else clean
        blocks = []
        for i, s in enumerate(srs):
            cols, rows = _rows_score(s, cell)
            blocks.append((cols, rows, _score_lines(s, cell),
                           _warnings(s.dropped, s.notes + list(s.result.notes) + (notes if i == 0 else []), cell,
                                     "rows or items")))
    import textwrap

    con = console(sys.stdout)
    for n_block, (cols, rows, lines, warn) in enumerate(blocks):
        if args.markdown and n_block:
            con.file.write("\n")
        if not args.markdown:  # the terminal: at most 100 columns, like the tables
            lines = [textwrap.fill(x, 100, subsequent_indent="  ", break_on_hyphens=False) for x in lines]
            warn = [textwrap.fill(x, 100, subsequent_indent="  ", break_on_hyphens=False) for x in warn]
        if args.markdown:
            if cols:
                con.file.write(_md_table(cols, rows))
            for line in lines + ([] if args.quiet else warn):
                con.file.write(f"\n{line}\n")
        else:
            if cols:
                con.print(table(None, cols, rows, n_left=2))
            for line in lines + ([] if args.quiet else warn):
                con.print(line)
    return 0
