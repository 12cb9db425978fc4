"""``evaladdon report RUN... -o report.html``: one self-contained HTML file."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Any

from evaladdon.cli.common import add_reporting, other_notes, skip_lines
from evaladdon.cli.options import add_better, add_inputs
from evaladdon.cli.report_sections import add_report_sections, report_sections
from evaladdon.errors import EvalAddonError, OptionError

SUFFIXES = (".html", ".htm")


def add_parser(sub: Any) -> None:
    p = sub.add_parser("report", help="self-contained HTML report: tables, forest plot, power curve, epochs")
    p.add_argument("paths", nargs="+", metavar="RUN", help="log or table files, or directories; NAME=PATH names a run")
    p.add_argument("-o", "--output", required=True,
                   help="the .html file to write (never an input; replaced atomically)")
    p.add_argument("--baseline", metavar="RUN",
                   help="compare every run against this one: its label, model, file, eval id or a unique prefix")
    p.add_argument("--all-pairs", action="store_true", help="compare every pair of runs (default with 3+ runs)")
    add_inputs(p)
    add_better(p)
    p.add_argument("--title", default="evaladdon report", help="the page title")
    p.add_argument("--power", type=float, default=0.8, help="power for the minimum detectable effect (default 0.8)")
    p.add_argument("--flips", type=int, nargs="?", const=10, metavar="N",
                   help="add the items that flipped, worst first: N per comparison (default 10; 0: all)")
    p.add_argument("--quiet", action="store_true", help="print nothing on success")
    from evaladdon.cli.options import add_errors

    add_errors(p)
    add_report_sections(p)
    add_reporting(p)
    from evaladdon.cli.decision_sections import add_report_decisions

    add_report_decisions(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from evaladdon.analysis.compare_table import Skipped
    from evaladdon.table.names import choose_pairs_in, resolve_run_in
    from evaladdon._util.safe_write import atomic_write_text, check_destination
    from evaladdon.report.html import render_report
    from evaladdon.analysis.summarize import summarize_table

    out = Path(args.output)
    if out.suffix.lower() not in SUFFIXES:
        raise EvalAddonError(f"the report is HTML; give a .html file (a PDF: open the HTML in a browser and "
                             f"print it) instead of {out.suffix or 'no suffix'!r}", str(out))
    from evaladdon.adapters import split_name
    from evaladdon.cli.options import input_options, input_paths
    from evaladdon.routes.plan import load_table as load

    inputs = [split_name(p)[1] for p in input_paths(args)]
    reading = input_options(args)
    check_destination(out, inputs)  # before the work: never overwrite an input
    # pairwise-preference files named on the command line: a Bradley–Terry leaderboard section
    from evaladdon.adapters.preferences import looks_like_preferences

    pref_paths = [p for p in (args.paths or []) if Path(p).is_file() and looks_like_preferences(Path(p))]
    rank_sections = []
    if pref_paths:
        from evaladdon.analysis.rank import preference_ranking
        from evaladdon.report.html import render_rank_section

        pr = preference_ranking(pref_paths, level=args.level)
        rank_sections.append(render_rank_section(bt=pr.result, position=pr.position, dropped=pr.dropped,
                                                 notes=pr.notes))
        reading = dataclasses.replace(reading, paths=tuple(p for p in reading.paths if p not in pref_paths))
        if not reading.paths and not reading.store:  # a leaderboard-only report
            from evaladdon.report.html import render_rank_page

            atomic_write_text(out, render_rank_page(rank_sections[0], args.title), inputs)
            if not args.quiet:
                sys.stderr.write(f"wrote {out} (Bradley–Terry leaderboard of {len(pref_paths)} preference file(s))\n")
            return 0
    loaded = load(reading)
    df = loaded.table
    if args.baseline is not None:
        resolve_run_in(df, args.baseline)  # a wrong name is an error here too, never ignored
    notes = list(loaded.notes)
    summaries = summarize_table(df, metric=args.metric, level=args.level, notes=notes, errors=args.errors)
    comparisons = []
    skipped: list[Skipped] = []
    n_runs = df["run"].nunique()
    if n_runs >= 2:
        pairs = choose_pairs_in(df, baseline=args.baseline,
                             all_pairs=args.all_pairs or (n_runs > 2 and args.baseline is None))
        comparisons = _comparisons(df, pairs, args, skipped, notes)
    elif args.baseline is not None or args.all_pairs:
        notes.append("no comparison: only one run was read")
    from evaladdon.analysis.metrics import compute_metrics, has_metric_inputs
    from evaladdon.report.html import metrics_section

    sections = [metrics_section(compute_metrics(df, level=args.level, n_boot=1000, notes=notes))] \
        if has_metric_inputs(df) else []
    from evaladdon.cli.decision_sections import decision_sections

    sections += [s for s in decision_sections(df, args, notes) if s]  # ROC/PR curves, recalibration
    sections += rank_sections
    sections += _flips_section(df, pairs if n_runs >= 2 else [], args)
    sections += report_sections(loaded, reading, args, summaries, comparisons, pairs if n_runs >= 2 else [], notes)
    skips = skip_lines(loaded, skipped)
    page = render_report(summaries, comparisons, other_notes(loaded, notes), args.title, args.power, skipped=skips,
                         sections=sections)
    atomic_write_text(out, page, inputs)
    if not args.quiet:
        from evaladdon.report.escape import clean

        left = f", {len(skips)} skipped" if skips else ""
        sys.stderr.write(clean(f"wrote {out} ({len(summaries)} summaries, {len(comparisons)} comparisons{left})") + "\n")
    return 0


def _comparisons(df: Any, pairs: Any, args: argparse.Namespace, skipped: list, notes: list[str]) -> list:
    """The paired comparisons of ``pairs`` with their minimum detectable effects; when none can be
    made, a note saying why (the page still shows the scores), unless an option was refused."""
    from evaladdon.analysis.compare_table import compare_table
    from evaladdon.analysis.power import minimum_detectable

    try:
        comparisons = compare_table(df, pairs, args.metric, level=args.level, skipped=skipped, errors=args.errors,
                                    better=args.better)
    except OptionError:  # the user's option, refused: an error, not a note
        raise
    except EvalAddonError as exc:
        notes.append(f"no comparison: {exc}")
        return []
    return [dataclasses.replace(r, mde=minimum_detectable(r, args.power, 1 - args.level)) for r in comparisons]


def _flips_section(df: Any, pairs: Any, args: argparse.Namespace) -> list[str]:
    """With ``--flips`` and runs to compare: the report's collapsible "What flipped" section
    (:mod:`evaladdon.report.flips`)."""
    from evaladdon.adapters.inspect.inputs import input_lines
    from evaladdon.analysis.flips import find_flips
    from evaladdon.report.flips import html_section

    if getattr(args, "flips", None) is None or not pairs:
        return []
    if args.flips < 0:
        raise EvalAddonError(f"--flips {args.flips}: give how many flips to list per comparison (0: all)")
    return [html_section(find_flips(df, pairs, args.metric, input_lines, better=args.better), args.flips)]
