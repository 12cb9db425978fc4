"""Short readable names of the runs of a table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from evaladdon.table.codes import distinct_tuples

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


def run_labels(df: pd.DataFrame) -> dict[str, str]:
    """Short readable names for runs, unique among the runs of ``df``
    (:func:`evaladdon.run_names.labels_of` of its distinct (run, model, task, source) rows;
    runs the user named, ``NAME=PATH``, are in ``df.attrs["run_names"]``)."""
    from evaladdon.run_names import labels_of

    return labels_of(distinct_tuples(df, ("run", "model", "task", "source")), df.attrs.get("run_names", {}))
