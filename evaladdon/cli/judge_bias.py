"""``evaladdon judge bias RUN... [--labels FILE] [--judge-model NAME]``: does the judge's verdict
move with the answer's length, markdown or family? (:mod:`evaladdon.analysis.judge_bias`)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from evaladdon.cli.common import emit, load


def run(args: argparse.Namespace, labels: Any) -> int:
    from evaladdon.analysis.judge_bias import judge_bias
    from evaladdon.report.judge_bias import render_bias

    args.paths = args.paths[1:]
    from evaladdon.adapters.preferences import any_preferences

    if args.paths and any_preferences(args.paths):  # pairwise verdicts: position, length, markdown, family
        from evaladdon.analysis.judge_bias_pairs import pairwise_bias
        from evaladdon.table import empty_table
        from evaladdon.table.loaded import Loaded

        notes: list[str] = []
        reports, dropped = pairwise_bias(list(args.paths), judge_model=getattr(args, "judge_model", None),
                                         level=args.level, notes=notes)
        read = Loaded(empty_table(), notes)  # no item table: the preference reader's notes only
        if args.json:  # the envelope every --json output uses (evaladdon.report.envelope)
            emit(args, [dict(r.flat(), dropped=dropped) for r in reports], read, notes)
            return 0
        render_bias(reports, dropped, sys.stdout, markdown=args.markdown)
        emit(args, [], read, notes)
        return 0
    args.judged = True  # promptfoo/DeepEval model-graded results with their answers and graders
    loaded = load(args)
    reports, dropped = judge_bias(loaded.table, labels=labels, judge_model=getattr(args, "judge_model", None),
                                  metric=args.metric, level=args.level)
    if args.json:
        emit(args, [dict(r.flat(), dropped=dropped) for r in reports], loaded, loaded.notes)
        return 0
    render_bias(reports, dropped, sys.stdout, markdown=args.markdown)
    emit(args, [], loaded, list(loaded.notes))
    return 0
