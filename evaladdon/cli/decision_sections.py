"""The HTML report's sections from scores: ROC/PR curves with bands (whenever scores and labels
are read) and, with ``report --recalibrate METHOD --validation RUN_OR_SPLIT``, reliability
diagrams before and after recalibration."""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_report_decisions", "decision_sections"]


def add_report_decisions(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("recalibration section (docs/metrics.md)")
    g.add_argument("--recalibrate", choices=("temperature", "platt", "isotonic"), default=None,
                   help="add reliability diagrams before and after a recalibration fitted on --validation rows")
    g.add_argument("--validation", default=None, metavar="RUN_OR_SPLIT",
                   help="the validation rows of --recalibrate: a run or FIELD=VALUE")


def decision_sections(df: Any, args: argparse.Namespace, notes: list[str]) -> list[str]:
    """HTML fragments (possibly empty strings) for the report page."""
    from evaladdon.analysis.curves import roc_pr_curves
    from evaladdon.errors import EvalAddonError
    from evaladdon.report.curves import curves_section

    out = [curves_section(roc_pr_curves(df, level=args.level, n_boot=500))]
    method, validation = getattr(args, "recalibrate", None), getattr(args, "validation", None)
    if (method is None) != (validation is None):
        raise EvalAddonError("--recalibrate and --validation go together")
    if method is not None:
        from evaladdon.analysis.recalibration import recalibrate
        from evaladdon.report.recalibration import recalibration_section

        out.append(recalibration_section(recalibrate(df, method, validation, level=args.level, n_boot=1000,
                                                     notes=notes)))
    return out
