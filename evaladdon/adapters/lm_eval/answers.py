"""The answers and targets of lm-eval ``generate_until`` samples, for re-scoring (``evaladdon rescore``).

Read only when asked (:class:`~evaladdon.adapters.tuning.ReadOptions` ``answers``): a second pass
over the samples file, apart from the reader's fast path, so no other command pays for it.  A
generation record is one whose first filtered response is text (lm-eval logs
``filtered_resps`` as one entry per request; a ``generate_until`` doc has one request, whose entry is
the filtered text -- or, with ``repeats``, a list of texts, of which the first is kept).  Its rows
get ``prediction`` = that text and ``label`` = the logged ``target`` (several targets, a list, as a
JSON array, which :mod:`evaladdon.analysis.rescore` reads as "any of these"); rows of other records
(log-likelihood requests: pairs of numbers) and corpus-level metrics' rows get neither.

Rows and records meet on (``doc_id``, ``filter``): the row's item and the filter in its metric name
(``exact_match,strict-match``).  Records that log no ``filter`` (before lm-eval 0.4) meet on the doc
alone, when no doc repeats.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from evaladdon.adapters.lm_eval.samples import _records_of
from evaladdon.table.usable import CORPUS_LEVEL

__all__ = ["add_answers", "generation_answers"]


def _first_text(filtered: Any) -> str | None:
    """The first filtered response when it is text (a generation), else None."""
    if not isinstance(filtered, list) or not filtered:
        return None
    first = filtered[0]
    if isinstance(first, list) and first and isinstance(first[0], str):
        first = first[0]  # repeats: the first repeat's text
    return first if isinstance(first, str) else None


def _target_text(target: Any) -> str | None:
    if isinstance(target, str):
        return target
    if isinstance(target, list):
        return json.dumps([t if isinstance(t, str) else json.dumps(t) for t in target], ensure_ascii=False)
    if isinstance(target, (int, float)) and not isinstance(target, bool):
        return str(target)
    return None


def generation_answers(path: str | Path) -> pd.DataFrame:
    """One row per generation record: ``item`` (doc_id as text), ``filter`` (None when not logged),
    ``prediction``, ``label``."""
    records, _ = _records_of(Path(path))
    keep: list[tuple[str, Any, str, str | None]] = []
    for _, r in records:  # one Python step a record: the records are parsed JSON objects
        if not isinstance(r, dict):
            continue
        text = _first_text(r.get("filtered_resps"))
        doc = r.get("doc_id")
        if text is None or not isinstance(doc, (int, str)) or isinstance(doc, bool):
            continue
        filt = r.get("filter")
        keep.append((str(doc), filt if isinstance(filt, str) else None, text, _target_text(r.get("target"))))
    return pd.DataFrame(keep, columns=["item", "filter", "prediction", "label"])


def _row_filters(metric: pd.Series) -> pd.Series:
    """The filter part of ``name,filter`` metric names (``""`` for a name without one)."""
    parts = metric.astype(str).str.rsplit(",", n=1)
    return parts.str[1].fillna("")


def answer_columns(items: pd.Series, metrics: pd.Series, errors: pd.Series,
                   answers: pd.DataFrame) -> tuple[np.ndarray, np.ndarray] | None:
    """``prediction`` and ``label`` for rows (items, metrics, errors), or None when no row meets a record."""
    if answers.empty:
        return None
    rows = pd.DataFrame({"item": items.astype(str).to_numpy(), "filter": _row_filters(metrics).to_numpy()})
    if answers["filter"].notna().all():
        on = ["item", "filter"]
        table = answers.drop_duplicates(on)
    elif not answers["item"].duplicated().any():
        on, table = ["item"], answers.drop(columns="filter")
    else:
        return None
    got = rows.merge(table, on=on, how="left", sort=False)
    keep = (~errors.astype(str).str.startswith(CORPUS_LEVEL)).to_numpy() & got["prediction"].notna().to_numpy()
    if not keep.any():
        return None
    pred = np.full(len(got), None, dtype=object)
    lab = np.full(len(got), None, dtype=object)
    pred[keep] = got["prediction"].to_numpy(dtype=object)[keep]
    has_label = keep & got["label"].notna().to_numpy()
    lab[has_label] = got["label"].to_numpy(dtype=object)[has_label]
    return pred, lab


def add_answers(table: Any, path: str | Path) -> Any:
    """``table`` (a :class:`~evaladdon.adapters.lm_eval.SamplesPart` or a samples file's DataFrame)
    with ``prediction`` and ``label`` on its generation rows; unchanged when it has none, or already
    has answers (multiple-choice rows)."""
    cols = table.cols if hasattr(table, "cols") else table
    if "prediction" in cols or len(cols["metric"]) == 0:
        return table
    column = table.column if hasattr(table, "cols") else cols.__getitem__  # a part's: numpy (SamplesPart.column)
    found = answer_columns(pd.Series(column("item")), pd.Series(column("metric")), pd.Series(column("error")),
                           generation_answers(path))
    if found is None:
        return table
    if hasattr(table, "cols"):
        table.cols["prediction"], table.cols["label"] = found
        return table
    out = table.copy()
    out["prediction"], out["label"] = found
    return out
