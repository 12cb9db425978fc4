"""Input checks shared by the estimators (one-line ``ValueError`` messages), and the codes of labels
and of rows they need."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "as_finite_1d", "check_level", "codes", "distinct_rows", "finite", "first_appearance", "first_appearance_top",
    "is_binary", "pow2_scale", "pow2_scale_of_top", "whole",
]


def as_finite_1d(values: npt.ArrayLike, name: str = "values") -> np.ndarray:
    """Return ``values`` as a 1-d float array; refuse other shapes, empty input and NaN/inf.

    A 2-d array is refused rather than flattened: which axis holds the items is not
    something to guess.
    """
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a 1-d array of numbers") from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-d array, got shape {arr.shape}; pass one value per row")
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


def finite(value: Any, name: str, *, positive: bool = False, non_negative: bool = False) -> float:
    """``value`` as a finite float (optionally > 0 or >= 0), else a one-line ``ValueError``."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(v):
        raise ValueError(f"{name} must be a finite number, got {v}")
    if positive and not v > 0:
        raise ValueError(f"{name} must be positive, got {v}")
    if non_negative and v < 0:
        raise ValueError(f"{name} must be >= 0, got {v}")
    return v


def whole(value: Any, name: str, minimum: int = 0) -> int:
    """``value`` as an int >= ``minimum`` (a float must be whole), else a one-line ``ValueError``."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a whole number, got {value!r}") from None
    if not math.isfinite(v) or v != int(v):
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    if v < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {int(v)}")
    return int(v)


def codes(labels: Any, n: int, name: str) -> tuple[np.ndarray, int]:
    """Integer codes 0..G-1 for a label array of length ``n`` (``None`` -> each row its own)."""
    if labels is None:
        return np.arange(n), n
    arr = np.asarray(labels)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-d array of labels, got shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(f"{name} has {arr.shape[0]} labels for {n} values")
    import pandas as pd  # only here: keeps `evaladdon ci` start-up free of pandas

    codes_, uniques = pd.factorize(arr, use_na_sentinel=True)
    if (codes_ < 0).any():
        raise ValueError(f"{name} has missing labels (first at position {int(np.flatnonzero(codes_ < 0)[0])})")
    return codes_.astype(np.int64), len(uniques)


def first_appearance(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(codes, uniques) of sortable labels without missing values, codes 0..G-1 and uniques in
    order of first appearance: ``pd.factorize``'s answer by sorting, without pandas (the
    pandas-free summarize and compare pass such codes to :func:`evaladdon.stats.cluster.codes`,
    which takes them as they are)."""
    if labels.size == 0:
        return np.empty(0, dtype=np.int64), labels[:0]
    uniq, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty(len(uniq), dtype=np.int64)
    rank[order] = np.arange(len(uniq))
    return rank[inverse.reshape(-1)], uniq[order]


def first_appearance_top(labels: np.ndarray, block: int = 1 << 20) -> int | None:
    """The largest label when ``labels`` (non-negative, starting at 0) are first-appearance codes,
    else ``None``; checked a block at a time, so a 10-million-row check allocates no
    10-million-element temporaries (the running maximum carries over between blocks)."""
    carry = -1
    for at in range(0, labels.shape[0], block):
        part = labels[at:at + block]
        if int(part.min()) < 0:
            return None
        top = np.maximum(np.maximum.accumulate(part).astype(np.int64, copy=False), carry)
        if int(top[0]) > carry + 1 or bool((np.diff(top) > 1).any()):
            return None
        carry = int(top[-1])
    return carry


def is_binary(values: np.ndarray) -> bool:
    return bool(np.all((values == 0.0) | (values == 1.0)))


def pow2_scale(*arrays: np.ndarray) -> float:
    """A power of two to divide by so sums and squares cannot overflow (1.0 for ordinary data).

    Dividing by a power of two is exact in binary floating point, so results scaled back are
    the same numbers as an infinitely wide computation would give (Higham 2002, sec. 2.1).
    """
    # max |a| as max(max a, -min a): no n-element temporary of |a| (10M values: 76 MB)
    top = max((max(float(np.max(a)), -float(np.min(a))) for a in arrays if a.size), default=0.0)
    return pow2_scale_of_top(top)


def pow2_scale_of_top(top: float) -> float:
    """:func:`pow2_scale` for values whose largest magnitude is ``top``."""
    if top < 2.0**500:
        return 1.0
    return math.ldexp(1.0, math.frexp(top)[1] - 1)  # top / scale in [1, 2)


def distinct_rows(t: np.ndarray, max_distinct: int = 512) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """The distinct rows of ``t``, each row's index among them and their multiplicities, when
    there are at most ``max_distinct`` of them and at most a quarter of the rows; else ``t``.

    Rows of small non-negative integers are keyed exactly by a mixed-radix integer and
    hashed (``pandas.factorize``), which is much faster than ``np.unique(axis=0)``'s sort.
    """
    if not np.all(t == np.floor(t)) or t.min() < 0:
        return t, None, None
    radix = t.max(axis=0).astype(np.int64) + 1
    if np.sum(np.log2(radix.astype(float))) >= 62:
        return t, None, None
    place = np.concatenate([[1], np.cumprod(radix[:-1])]).astype(np.int64)
    key = t.astype(np.int64) @ place
    inverse, first = _factorize(key)
    if first.size > min(max_distinct, t.shape[0] // 4):
        return t, None, None
    mult = np.bincount(inverse, minlength=first.size).astype(float)
    return t[first], inverse, mult


def _factorize(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes of ``key`` and the index of each code's first row."""
    import pandas as pd

    codes_, uniq = pd.factorize(key)
    first = np.zeros(len(uniq), dtype=np.int64)
    first[codes_[::-1]] = np.arange(key.size)[::-1]
    return codes_.astype(np.int64), first
