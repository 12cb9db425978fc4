"""Which rows of a canonical table are usable, and an account of the others by reason.

A row is usable when it has a finite value and no error.  A row with an error is counted under
that error; one without an error whose value is NaN as ``missing value``; one whose value is
+-inf as ``non-finite value (inf)`` (a harness may log ``inf`` for a metric such as ``mae``:
the mean is then over the finite values only, and the summary says so).  Every route (the
table, the pandas-free Inspect columns, the store arrays) uses these, so rows left out are
counted the same way everywhere.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "CORPUS_LEVEL", "CORPUS_LEVEL_PREFIX", "MISSING_FROM_LOG", "MISSING_VALUE", "NONFINITE", "PLUGIN_PAYLOAD", "count_nonfinite", "count_reasons", "unusable", "unusable_reasons", "usable_rows",
]

NONFINITE = "non-finite value"
MISSING_VALUE = "missing value"
"""The reason of a row with no error whose value is NaN (:func:`unusable_reasons`)."""
MISSING_FROM_LOG = "missing from log"  # the error of rows a log declares but does not hold
CORPUS_LEVEL_PREFIX = "corpus-level metric"
CORPUS_LEVEL = f"{CORPUS_LEVEL_PREFIX} (per-item inputs, not a score)"
"""The error of the rows of an lm-eval corpus-level metric: per-item inputs (``[gold, pred]``,
``[refs, hyp]``) that :mod:`evaladdon.analysis.corpus` aggregates; never a mean of item scores."""
PLUGIN_PAYLOAD = "evaladdon plug-in payload (per-item inputs of a clustered aggregation, not a score)"
"""The error of rows evaladdon's own lm-eval plug-in logged (``<metric>_clustered`` and
``<metric>_clustered_se``: the value and cluster of each doc, for the harness to aggregate).  The
run's own ``<metric>`` holds the scores; these rows are counted under this reason, and the outputs
mention them only when asked (``--verbose``, and always in ``--json``)."""


def unusable(values: np.ndarray, error: np.ndarray,
             has_error: np.ndarray | None = None) -> tuple[np.ndarray, dict[str, int]]:
    """Mask of the rows :func:`usable_rows` leaves out, and their counts by reason
    (``values`` float, ``error`` the object array of the ``error`` column; ``has_error``
    its not-null mask when the caller knows it, else ``pd.isna``)."""
    bad, reasons = unusable_reasons(values, error, has_error)
    return bad, count_reasons(reasons) if reasons is not None else {}


def unusable_reasons(values: np.ndarray, error: np.ndarray,
                     has_error: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """Mask of the rows :func:`usable_rows` leaves out, and the reason of each of them (an
    object array of ``str`` in row order; ``None`` when no row is left out): the error, else
    ``non-finite value (inf)`` for +-inf, else ``missing value``."""
    if has_error is None:
        import pandas as pd

        has_error = ~pd.isna(error)
    bad = has_error | ~np.isfinite(values)
    if not bad.any():  # the usual group: nothing left out, no counting to do
        return bad, None
    reasons = error[bad].copy()
    no_error = ~has_error[bad]
    infinite = np.isinf(values[bad])
    reasons[no_error & infinite] = f"{NONFINITE} (inf)"
    reasons[no_error & ~infinite] = MISSING_VALUE
    return bad, reasons


def count_reasons(reasons: np.ndarray) -> dict[str, int]:
    """``pd.Series(reasons).value_counts()`` as a dict, without pandas: the most frequent
    first, ties in order of first appearance (``value_counts`` sorts its first-appearance
    counts with a stable descending sort); ``reasons`` an object array of ``str``."""
    if reasons.size == 0:
        return {}
    uniq, first, counts = np.unique(reasons, return_index=True, return_counts=True)
    order = np.argsort(first, kind="stable")
    order = order[np.argsort(-counts[order], kind="stable")]
    return {str(uniq[i]): int(counts[i]) for i in order}


def usable_rows(df: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, int]]:
    """Rows with a finite value and no error, and the counts of the others by reason.

    A row without an error whose value is NaN counts as ``missing value``; one whose value
    is +-inf as ``non-finite value (inf)`` (a harness may log ``inf`` for a metric such as
    ``mae``: the mean is then over the finite values only, and the summary says so).
    """
    bad, dropped = unusable(df["value"].to_numpy(dtype=float), df["error"].to_numpy(dtype=object))
    return df.loc[~bad], dropped


def count_nonfinite(dropped: dict[str, int]) -> int:
    """Rows left out because their value was NaN/inf as logged (not merely unscored)."""
    return sum(v for k, v in dropped.items() if k.startswith(NONFINITE))
