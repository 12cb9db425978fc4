"""``evaladdon judge --labels FILE RUN...``: correct a judge's pass rate with human labels;
``evaladdon judge agree FILES...``: agreement between judges (:mod:`evaladdon.cli.judge_agree`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evaladdon.cli.common import add_reporting, emit, load
from evaladdon.cli.options import add_output, level_type
from evaladdon.errors import InputError
from evaladdon.report.judge import judge_warnings, write_judge_table

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

HUMAN_ALIASES = ("human", "human_label", "label", "gold")


def add_parser(sub: Any) -> None:
    p = sub.add_parser("judge", help="correct an LLM judge's pass rate with human labels; "
                       "'judge agree|bias|drift RUN...': agreement between judges, the judge's biases, its drift")
    p.add_argument("paths", nargs="+", metavar="RUN",
                   help="judge-scored runs (files or directories); NAME=PATH names a run; first 'agree' for "
                        "agreement between judges (kappas, Gwet's AC1, Krippendorff's alpha), 'bias' for the "
                        "judge's biases (length, markdown, self-preference), 'drift' for the same outputs "
                        "judged twice")
    p.add_argument("--labels", help="table with item ids and human 0/1 labels (required, except for 'agree', "
                   "where it adds the humans as one more rater)")
    p.add_argument("--human-col", help=f"label column (default: first of {', '.join(HUMAN_ALIASES)})")
    p.add_argument("--metric", help="the judge's metric")
    p.add_argument("--method", choices=("rogan-gladen", "rogan-gladen-bootstrap", "ppi", "ppi++"),
                   default="rogan-gladen", help="correction (default rogan-gladen)")
    p.add_argument("--level", type=level_type, default=0.95, help="confidence level (default 0.95)")
    p.add_argument("--seed", type=int, default=0, help="seed for the bootstrap")
    p.add_argument("--n-boot", type=int, default=1000, help="judge agree: bootstrap replicates (default 1000)")
    p.add_argument("--cluster", metavar="FIELD",
                   help="judge agree/bias/drift: clusters of items (resampled, or cluster-robust SEs) by this field")
    p.add_argument("--judge-model", metavar="NAME",
                   help="judge bias: the judge's model, for self-preference (with --labels)")
    p.add_argument("--baseline", metavar="RUN", help="judge drift: the run judged first (A)")
    add_output(p)
    add_reporting(p)
    p.set_defaults(run=run)


def read_labels(path: str, human_col: str | None, binary: bool = True) -> "pd.Series":
    import numpy as np
    import pandas as pd

    from evaladdon.adapters.common.scores import coerce_scores
    from evaladdon.adapters.long_table import ALIASES, read_raw_table

    raw = read_raw_table(Path(path))
    item_col = next((c for c in ALIASES["item"] if c in raw.columns), None)
    col = human_col or next((c for c in HUMAN_ALIASES if c in raw.columns), None)
    if item_col is None or col is None or col not in raw.columns:
        raise InputError(f"the labels need an item column and a human label column (found {', '.join(raw.columns)})", path)
    values, errors = coerce_scores(raw[col])
    bad = errors.notna().to_numpy() | (~np.isin(values, [0.0, 1.0]) if binary else ~np.isfinite(values))
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise InputError(f"row {first + 1}: human label {raw[col].iloc[first]!r} is not {'0/1' if binary else 'a number'} "
                         f"({int(bad.sum())} such row(s))", path)
    labels = pd.Series(values, index=raw[item_col].astype(str))
    if labels.index.duplicated().any():
        raise InputError(f"item {labels.index[labels.index.duplicated()][0]!r} is labelled twice", path)
    return labels


def run(args: argparse.Namespace) -> int:
    from evaladdon.analysis.judge import correct_judge

    action = args.paths[0] if args.paths and args.paths[0] in ("agree", "bias", "drift") else None
    if action == "agree":
        from evaladdon.cli.judge_agree import run as agree

        return agree(args, read_labels(args.labels, args.human_col, binary=False) if args.labels else None)
    if action == "bias":
        from evaladdon.cli.judge_bias import run as bias

        return bias(args, read_labels(args.labels, args.human_col, binary=False) if args.labels else None)
    if action == "drift":
        from evaladdon.cli.judge_drift import run as drift

        return drift(args)
    if args.judge_model or args.baseline:
        raise InputError("--judge-model applies to judge bias, --baseline to judge drift")
    if not args.labels:  # argparse's own words, as before 'agree' made --labels optional
        import sys

        sys.stderr.write("evaladdon: error: the following arguments are required: --labels\n")
        return 2
    if args.cluster or args.n_boot != 1000:
        raise InputError("--cluster and --n-boot apply to judge agree")

    labels = read_labels(args.labels, args.human_col)
    loaded = load(args)
    results = correct_judge(loaded.table, labels, args.method, metric=args.metric, level=args.level, seed=args.seed)
    if args.json:
        emit(args, results, loaded, loaded.notes)
        return 0
    write_judge_table(results, markdown=args.markdown, wide=args.wide)
    emit(args, [], loaded, list(loaded.notes) + judge_warnings(results))
    return 0
