"""Checks of what a user names against what a table holds: a ``--metric`` no row has, a
``--cluster`` field that does not exist, each refused with the names that do and the closest."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any, Iterable

from evaladdon.errors import EvalAddonError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["check_metric", "check_metric_name", "closest", "cluster_fields", "rows_of_metric"]


def closest(name: str, choices: Iterable[str]) -> str:
    """``; did you mean 'x'? (available: a, b, c)`` for an error message."""
    options = sorted({str(c) for c in choices})
    close = difflib.get_close_matches(name, options, n=1, cutoff=0.5)
    shown = ", ".join(options[:15]) + (f", ... ({len(options) - 15} more)" if len(options) > 15 else "")
    return (f"; did you mean {close[0]!r}?" if close else "") + f" (available: {shown or 'none'})"


def check_metric(df: "pd.DataFrame", metric: str | None) -> None:
    """Refuse a ``--metric`` no row has, listing the metrics that exist."""
    if metric is not None:
        check_metric_name(metric, lambda: df["metric"].unique().tolist())


def check_metric_name(metric: str | None, metrics: Any) -> None:
    """:func:`check_metric` given ``metrics()``, the metric names that exist."""
    if metric is None:
        return
    from evaladdon.stats.families.names import family_of

    if family_of(metric):  # a metric family computed from the rows (f1_macro, roc_auc, ece, pass@k)
        return
    names = metrics()
    if metric not in names:
        raise EvalAddonError(f"no rows with metric {metric!r}{closest(metric, names)}")


def rows_of_metric(df: "pd.DataFrame", metric: str) -> "pd.DataFrame":
    """The rows of ``metric``; none refused with the metrics that exist and the closest (an
    Inspect user may name the metric Inspect shows, ``accuracy``, for the scorer ``match``)."""
    rows = df[df["metric"] == metric]
    if rows.empty:
        names = [str(m) for m in df["metric"].unique()]
        raise EvalAddonError(f"no rows with metric {metric!r}{closest(metric, names)}{_scorer_hint(metric)}")
    return rows


INSPECT_METRICS = {"accuracy", "stderr", "mean", "std", "var", "bootstrap_stderr"}
"""Names Inspect shows for the metrics it computes from a scorer; the table holds the scorer's
name (``match``, ``includes``, ``model_graded_qa``), since the scores are per scorer."""


def _scorer_hint(metric: str) -> str:
    if metric not in INSPECT_METRICS:
        return ""
    return f"; {metric!r} is a metric Inspect computes from a scorer's values: name the scorer instead"


def cluster_fields(df: "pd.DataFrame") -> list[str]:
    """Fields a ``--cluster`` could name: the ``meta.*`` columns of a table (without ``meta.``)."""
    return [c[len("meta."):] for c in df.columns if str(c).startswith("meta.")]
