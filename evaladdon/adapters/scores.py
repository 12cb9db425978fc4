"""Turning logged score values into floats, vectorised, with a reason for every failure."""

from __future__ import annotations

import numpy as np
import pandas as pd

MISSING = "missing value"
NON_NUMERIC = "non-numeric value"
NON_FINITE = "non-finite value (NaN or Infinity)"

_BOOL_WORDS = {"true": 1.0, "false": 0.0}
_NONFINITE_WORDS = ["nan", "inf", "-inf", "+inf", "infinity", "-infinity", "+infinity"]


def raw_strings(series: pd.Series) -> pd.Series:
    """The value as logged, as a string (``""`` for missing)."""
    s = series.astype(object)
    return s.where(s.notna(), "").astype(str)


def coerce_scores(series: pd.Series) -> tuple[np.ndarray, pd.Series]:
    """Numeric values and a per-row error (``None`` where usable).

    Accepts numbers, booleans, numeric strings and the words true/false (any case).
    Missing (null, empty), non-numeric and non-finite values (a JSON ``NaN``/``Infinity``
    literal, or the words) become NaN with a reason; nothing is dropped here.
    """
    s = series.astype(object)
    arr = s.to_numpy(dtype=object)
    null = pd.isna(s).to_numpy()
    null_idx = np.flatnonzero(null)
    # a float NaN among the nulls is a NaN literal (a non-finite score), not a missing one;
    # this loop runs over the null rows only
    nan_literal = np.zeros(len(s), dtype=bool)
    nan_literal[null_idx] = [isinstance(arr[i], float) for i in null_idx]
    text = s.astype(str).str.strip().str.lower()
    missing = (null & ~nan_literal) | (text == "").to_numpy()
    values = pd.to_numeric(s, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    words = text.map(_BOOL_WORDS).to_numpy(dtype=float, na_value=np.nan)
    values = np.where(np.isnan(values) & ~np.isnan(words), words, values)
    nonfinite = ~missing & (nan_literal | text.isin(_NONFINITE_WORDS).to_numpy() | np.isinf(values))
    non_numeric = np.isnan(values) & ~missing & ~nonfinite
    error = np.full(len(s), None, dtype=object)
    error[missing] = MISSING
    error[non_numeric] = NON_NUMERIC
    error[nonfinite] = NON_FINITE
    values = np.where(np.isfinite(values), values, np.nan)
    return values, pd.Series(error, index=series.index, dtype=object)
