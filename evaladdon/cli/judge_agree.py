"""``evaladdon judge agree FILES... [--labels FILE]``: agreement between judges (and humans).

A sub-action of ``judge`` (:mod:`evaladdon.cli.judge_cmd` hands over when the first path is
``agree``; a file or folder named ``agree`` is given as ``./agree``).  Every (run, metric) read from
FILES is a rater; ``--labels`` adds the human labels as one more rater."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


def run(args: argparse.Namespace, labels: "pd.Series | None" = None) -> int:
    """``judge agree``; ``labels``: the human labels read by :mod:`evaladdon.cli.judge_cmd` (or None)."""
    from evaladdon.analysis.agreement import rater_agreement
    from evaladdon.cli.common import emit, load
    from evaladdon.errors import InputError
    from evaladdon.report.agreement import agreement_warnings, write_agreement
    from evaladdon.report.escape import clean, markdown_cell

    if args.method != "rogan-gladen":
        raise InputError("--method applies to the judge correction, not to judge agree")
    if args.n_boot and args.n_boot < 100:
        raise InputError("--n-boot must be 0 or at least 100")
    sub = argparse.Namespace(**{**vars(args), "paths": list(args.paths[1:])})
    if not sub.paths:
        raise InputError("judge agree needs the judges' runs or tables: judge agree FILES...")
    loaded = load(sub)
    rep = rater_agreement(loaded.table, extra=labels, n_boot=args.n_boot, level=args.level, seed=args.seed)
    if args.json:
        emit(args, rep.records(), loaded, list(loaded.notes) + agreement_warnings(rep, str))
        return 0
    write_agreement(rep, markdown=args.markdown, wide=args.wide)
    emit(args, [], loaded, list(loaded.notes) + agreement_warnings(rep, markdown_cell if args.markdown else clean))
    return 0
