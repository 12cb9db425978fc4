"""Input checks shared by the estimators (one-line ``ValueError`` messages)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt


def as_finite_1d(values: npt.ArrayLike, name: str = "values") -> np.ndarray:
    """Return ``values`` as a 1-d float array; refuse empty input and NaN/inf."""
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1:
        arr = arr.reshape(-1)
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    bad = ~np.isfinite(arr)
    if bad.any():
        raise ValueError(
            f"{name} has {int(bad.sum())} non-finite value(s) (first at position "
            f"{int(np.flatnonzero(bad)[0])}); drop or score them before estimating"
        )
    return arr


def check_level(level: float) -> float:
    level = float(level)
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must be in (0, 1), got {level}")
    return level


def codes(labels: Any, n: int, name: str) -> tuple[np.ndarray, int]:
    """Integer codes 0..G-1 for a label array of length ``n`` (``None`` -> each row its own)."""
    if labels is None:
        return np.arange(n), n
    arr = np.asarray(labels)
    if arr.shape[0] != n:
        raise ValueError(f"{name} has {arr.shape[0]} labels for {n} values")
    import pandas as pd  # only here: keeps `evaladdon ci` start-up free of pandas

    codes_, uniques = pd.factorize(arr, use_na_sentinel=True)
    if (codes_ < 0).any():
        raise ValueError(f"{name} has missing labels (first at position {int(np.flatnonzero(codes_ < 0)[0])})")
    return codes_.astype(np.int64), len(uniques)


def is_binary(values: np.ndarray) -> bool:
    return bool(np.all((values == 0.0) | (values == 1.0)))
