"""The one converter from logged score values to floats, shared by every reader.

One rule for every harness and table (issue 12.12), vectorised, with a reason for every
value that is not a usable number:

- numbers (int, float) and booleans are taken as they are; a float NaN or infinity is
  ``non-finite``; ``None``/null and the empty (or blank) string are ``missing``;
- strings are stripped of surrounding white space, then accepted when they are
  * an ASCII decimal number: ``[+-]digits[.digits][e[+-]digits]`` (``"0.25"``, ``"-1"``,
    ``"1e-3"``, ``".5"``).  Python's ``float()`` also accepts ``"1_000"`` and other
    scripts' digits (``"١"``, Arabic-Indic one); these are refused as ``non-numeric``: a
    score written that way is almost certainly not meant as a number, and accepting them
    made readers disagree;
  * the words ``true``/``yes`` (1) and ``false``/``no`` (0) in any case (as Inspect's
    ``value_to_float``);
  * ``nan``, ``inf``, ``infinity`` (any case, signed) are ``non-finite``; a number that
    overflows (``"1e999"``) too;
- with ``letters=True`` only (Inspect scores, where Inspect's own ``value_to_float`` does it,
  and only exactly as it does: ``value == "C"``, case-sensitive, not stripped) the letters
  ``C``/``I``/``P``/``N`` map to 1/0/0.5/0.  In a table or an lm-eval log ``"C"`` is
  ``non-numeric``;
- anything else (other strings, lists, dicts) is ``non-numeric``.

Numeric columns never go through strings (no ``astype(str)`` and back); string columns are
converted by pyarrow compute kernels (RE2 regular expressions, casts) when pyarrow is
installed, else by pandas' vectorised string methods.

:func:`coerce_values` is the same rule for a batch of logged values without pandas or
pyarrow (the lean summarize of Inspect logs, :mod:`evaladdon.routes`): numbers as numpy
arrays, ASCII strings by Python's ``re`` and ``float`` (which agree with the arrow kernels
on ASCII input: same white space, same pattern, correctly rounded casts), and
:class:`NeedsStringKernels` for a non-ASCII string (Unicode white space and case mapping
differ between Python and arrow; the caller then takes the pandas path).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

MISSING = "missing value"
NON_NUMERIC = "non-numeric value"
NON_FINITE = "non-finite value (NaN or Infinity)"

WORDS: dict[str, float] = {"true": 1.0, "yes": 1.0, "false": 0.0, "no": 0.0}
LETTERS: dict[str, float] = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
NONFINITE_WORDS: tuple[str, ...] = ("nan", "+nan", "-nan", "inf", "-inf", "+inf", "infinity", "-infinity", "+infinity")
NUMBER_RE = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"
"""ASCII decimal numbers only (RE2 and Python ``re`` agree on this pattern)."""


class NeedsStringKernels(Exception):
    """A value :func:`coerce_values` does not convert by itself (a non-ASCII string)."""


def raw_strings(series: pd.Series) -> pd.Series:
    """The value as logged, as a string (``""`` for missing)."""
    s = series.astype(object)
    return s.where(s.notna(), "").astype(str)


def _finish(values: np.ndarray, missing: np.ndarray, nonfinite: np.ndarray, index: Any) -> tuple[np.ndarray, pd.Series]:
    """Errors from the masks: missing, non-finite, and NaN left over = non-numeric."""
    import pandas as pd

    values, error = _finish_arrays(values, missing, nonfinite)
    return values, pd.Series(error, index=index, dtype=object)


def _finish_arrays(values: np.ndarray, missing: np.ndarray, nonfinite: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_finish` with the errors as an object array."""
    nonfinite = nonfinite | (~missing & np.isinf(values))
    non_numeric = np.isnan(values) & ~missing & ~nonfinite
    error = np.full(values.shape[0], None, dtype=object)
    error[non_numeric] = NON_NUMERIC
    error[nonfinite] = NON_FINITE
    error[missing] = MISSING
    values = np.where(np.isfinite(values) & ~missing, values, np.nan)
    return values, error


_NUMBER = re.compile(NUMBER_RE)
_ASCII_SPACE = " \t\n\r\x0b\x0c"  # what arrow's utf8_trim_whitespace strips of ASCII text (tested)


def _convert_ascii(text: str) -> tuple[float, bool, bool]:
    """(value, missing, non-finite) of one ASCII string, as :func:`convert_strings` gives them."""
    stripped = text.strip(_ASCII_SPACE)
    if not stripped:
        return np.nan, True, False
    value = float(stripped) if _NUMBER.match(stripped) else np.nan
    lower = stripped.lower()
    word = WORDS.get(lower)
    if word is not None:
        value = word
    return value, False, lower in NONFINITE_WORDS


def coerce_values(values: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    """``coerce_scores(pd.Series(values, dtype=object))`` (values and the error of each, as an
    object array) without pandas or pyarrow, for a list of parsed JSON values (one Python pass
    over a batch the caller built anyway); ``letters`` is not offered (Inspect's reader maps
    its grades itself).  Raises :class:`NeedsStringKernels` for a non-ASCII string."""
    n = len(values)
    if all(type(v) is float or type(v) is int for v in values):  # the numeric path: no strings involved
        arr = np.array(values, dtype=float) if n else np.empty(0)
        return _finish_arrays(arr, np.zeros(n, dtype=bool), ~np.isfinite(arr))
    out = np.full(n, np.nan)
    missing = np.zeros(n, dtype=bool)
    nonfinite = np.zeros(n, dtype=bool)
    nums: list[Any] = []
    at: list[int] = []
    for i, v in enumerate(values):
        if isinstance(v, str):
            if not v.isascii():
                raise NeedsStringKernels(v[:40])
            out[i], missing[i], nonfinite[i] = _convert_ascii(v)
        elif isinstance(v, (int, float, np.integer, np.floating)):
            nums.append(v)
            at.append(i)
        elif v is None:
            missing[i] = True
    if nums:
        x = np.asarray(nums, dtype=float)
        out[at] = x
        nonfinite[at] = ~np.isfinite(x)
    return _finish_arrays(out, missing, nonfinite)


def _numeric(series: pd.Series) -> tuple[np.ndarray, pd.Series]:
    """A numeric or boolean column: no strings involved.  Nulls (a pandas nullable dtype or
    a float column's NaN from a null) count as missing only where the column can say so."""
    import pandas as pd

    if isinstance(series.dtype, pd.api.extensions.ExtensionDtype) and not isinstance(series.dtype, np.dtype):
        null = series.isna().to_numpy()
        values = series.to_numpy(dtype=float, na_value=np.nan)
    else:
        values = series.to_numpy(dtype=float)
        null = np.zeros(values.shape[0], dtype=bool)  # a NaN in a float column is a NaN score
    nonfinite = ~null & ~np.isfinite(values)
    return _finish(values, null, nonfinite, series.index)


def convert_strings(text: Any, letters: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Values, ``missing`` and ``non-finite`` masks for an array of strings (nulls allowed).

    ``text`` is anything ``pyarrow.array`` takes as strings (a pyarrow array, a numpy/pandas
    object array of ``str``/``None``).  Unconvertible strings are NaN in ``values`` and in
    neither mask (the caller names them ``non-numeric``).
    """
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
    except ImportError:  # pragma: no cover - pyarrow is in every extra that reads tables
        import pandas as pd

        return _convert_strings_pandas(pd.Series(np.asarray(text, dtype=object)), letters)
    arr = text if isinstance(text, (pa.Array, pa.ChunkedArray)) else pa.array(np.asarray(text, dtype=object), type=pa.string())
    if not pa.types.is_string(arr.type) and not pa.types.is_large_string(arr.type):
        arr = pc.cast(arr, pa.string())
    null = arr.is_null().to_numpy(zero_copy_only=False)
    if pc.all(pc.ascii_is_decimal(arr)).as_py() is not False:
        # every non-null value is plain ASCII digits (the common 0/1 column): nothing to strip,
        # no word or letter can match, the number pattern matches all -- the same cast as below
        values = np.empty(len(arr), dtype=np.float64)  # a chunk at a time: no second whole-column copy
        at = 0
        for chunk in arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]:
            values[at:at + len(chunk)] = pc.cast(chunk, pa.float64()).to_numpy(zero_copy_only=False)
            at += len(chunk)
        if null.any():
            values[null] = np.nan
        return values, null, np.zeros(len(arr), dtype=bool)
    stripped = pc.utf8_trim_whitespace(arr)
    empty = pc.fill_null(pc.equal(stripped, ""), True).to_numpy(zero_copy_only=False)
    is_number = pc.fill_null(pc.match_substring_regex(stripped, NUMBER_RE), False)
    values = pc.cast(pc.if_else(is_number, stripped, pa.scalar(None, pa.string())), pa.float64())
    values = values.to_numpy(zero_copy_only=False).astype(float, copy=True)
    lower = pc.utf8_lower(stripped)
    for word, v in WORDS.items():
        values[pc.fill_null(pc.equal(lower, word), False).to_numpy(zero_copy_only=False)] = v
    if letters:
        for letter, v in LETTERS.items():
            values[pc.fill_null(pc.equal(arr, letter), False).to_numpy(zero_copy_only=False)] = v
    nonfinite = pc.fill_null(pc.is_in(lower, pa.array(list(NONFINITE_WORDS))), False).to_numpy(zero_copy_only=False)
    return values, null | empty, nonfinite


def _convert_strings_pandas(s: pd.Series, letters: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    null = s.isna().to_numpy()
    stripped = s.where(~null, "").astype(str).str.strip()
    empty = (stripped == "").to_numpy()
    is_number = stripped.str.match(NUMBER_RE).to_numpy(dtype=bool)
    values = np.full(len(s), np.nan)
    values[is_number] = stripped[is_number].astype(float).to_numpy()
    lower = stripped.str.lower()
    words = lower.map(WORDS).to_numpy(dtype=float, na_value=np.nan)
    values = np.where(np.isnan(words), values, words)
    if letters:
        hit = s.where(~null, "").map(LETTERS).to_numpy(dtype=float, na_value=np.nan)
        values = np.where(np.isnan(hit), values, hit)
    nonfinite = lower.isin(NONFINITE_WORDS).to_numpy()
    return values, null | empty, nonfinite


def coerce_scores(series: Any, *, letters: bool = False) -> tuple[np.ndarray, pd.Series]:
    """Numeric values and a per-row error (``None`` where usable), by the module's rule.

    ``series``: a pandas Series (any dtype) or a sequence of logged values.  ``letters``:
    map Inspect's ``C``/``I``/``P``/``N`` (set only by the Inspect reader).  Nothing is
    dropped: unusable rows are NaN with their reason.
    """
    import pandas as pd

    if not isinstance(series, pd.Series):
        series = pd.Series(list(series) if not isinstance(series, np.ndarray) else series, dtype=object)
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype) or (pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_object_dtype(dtype)):
        return _numeric(series)
    arr = series.to_numpy(dtype=object)
    n = arr.shape[0]
    if pd.api.types.is_string_dtype(dtype) and not pd.api.types.is_object_dtype(dtype):
        try:
            import pyarrow as pa

            text: Any = pa.array(series.array)  # pyarrow-backed strings: zero copy
        except (ImportError, TypeError, ValueError):
            text = np.where(series.isna().to_numpy(), None, arr)
        values, missing, nonfinite = convert_strings(text, letters)
        return _finish(values, missing, nonfinite, series.index)
    kind = pd.api.types.infer_dtype(arr, skipna=False)
    if kind == "string":
        values, missing, nonfinite = convert_strings(arr, letters)
        return _finish(values, missing, nonfinite, series.index)
    # mixed Python objects (JSON values): classify by type, one C-driven pass per type test
    is_str = np.frompyfunc(lambda v: isinstance(v, str), 1, 1)(arr).astype(bool) if n else np.zeros(0, bool)
    is_num = np.frompyfunc(lambda v: isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, str),
                           1, 1)(arr).astype(bool) if n else np.zeros(0, bool)
    is_none = pd.isna(arr) & ~is_num if n else np.zeros(0, bool)  # None / pd.NA (a float NaN is a number)
    values = np.full(n, np.nan)
    missing = is_none.copy()
    nonfinite = np.zeros(n, dtype=bool)
    if is_num.any():
        nums = np.asarray(arr[is_num].tolist(), dtype=float)
        values[is_num] = nums
        nonfinite[is_num] = ~np.isfinite(nums)
    if is_str.any():
        v, m, nf = convert_strings(arr[is_str], letters)
        values[is_str], missing[is_str], nonfinite[is_str] = v, m, nf
    return _finish(values, missing, nonfinite, series.index)
