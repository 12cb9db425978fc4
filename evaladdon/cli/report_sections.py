"""``report --flaky [N]`` and ``report --by FIELD [--min-size N]``: the flaky items and the
subgroups of ``summarize``/``compare`` as sections of the HTML report
(:mod:`evaladdon.report.html_sections`)."""

from __future__ import annotations

import argparse
from typing import Any, Sequence

__all__ = ["add_report_sections", "report_sections"]


def add_report_sections(p: argparse.ArgumentParser) -> None:
    """The report's ``--flaky [N]``, ``--by FIELD`` and ``--min-size N``."""
    from evaladdon.cli.options import add_by

    p.add_argument("--flaky", nargs="?", type=int, const=10, default=None, metavar="N",
                   help="add the flaky items of runs with repeats: per run the unstable share, flip rate, pass@k "
                        "beside pass^k, and the N most unstable items (default 10; 0: all)")
    add_by(p)


def report_sections(loaded: Any, reading: Any, args: argparse.Namespace, summaries: Sequence[Any],
                    comparisons: Sequence[Any], pairs: Sequence[tuple[str, str]], notes: list[str]) -> list[str]:
    """The sections asked for (HTML fragments), in order: flaky items, then subgroups."""
    from evaladdon.errors import EvalAddonError

    out = []
    if args.flaky is not None:
        from evaladdon.analysis.flaky import flaky_table
        from evaladdon.report.html_sections import flaky_section

        if args.flaky < 0:
            raise EvalAddonError(f"--flaky {args.flaky}: give how many unstable items to list per run (0: all)")
        out.append(flaky_section(flaky_table(loaded.table, args.metric, args.level, notes), args.flaky))
    if args.by is not None and not loaded.table.empty:
        out += _by_sections(loaded, reading, args, summaries, comparisons, pairs, notes)
    return out


def _by_sections(loaded: Any, reading: Any, args: argparse.Namespace, summaries: Sequence[Any],
                 comparisons: Sequence[Any], pairs: Sequence[tuple[str, str]], notes: list[str]) -> list[str]:
    """``--by``: the subgroups of the scores, and of the comparisons when there are any."""
    from evaladdon.analysis.subgroups import compare_by, item_subgroups, summarize_by
    from evaladdon.cli.options import _min_size
    from evaladdon.report.html_sections import subgroups_section
    from evaladdon.routes.plan import subgroup_labels

    min_size = _min_size(args)
    df = loaded.table
    groups = item_subgroups(df, subgroup_labels(loaded, reading, args.by), notes)
    out = [subgroups_section(summarize_by(df, groups, args.by, metric=args.metric, level=args.level,
                                          min_size=min_size, notes=notes), summaries, min_size)]
    if comparisons:
        found = compare_by(df, groups, args.by, pairs, metric=args.metric, pairing={"level": args.level, "better": args.better},
                           min_size=min_size, notes=notes)
        out.append(subgroups_section(found, comparisons, min_size))
    return out
