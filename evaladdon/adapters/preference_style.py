"""Style features of the two answers of a pairwise battle, read from the preference file.

Used by ``rank --control length,markdown`` (Chatbot Arena's style control).  Only what the file
logs is used, nothing is guessed:

- **Arena** battles with ``conv_metadata`` (FastChat ``clean_battle_data.py`` and
  ``add_markdown_info.py``): ``sum_assistant_a_tokens`` / ``_b`` (length in tokens),
  ``header_count_a`` / ``list_count_a`` / ``bold_count_a`` (and ``_b``), each an int or a dict of
  counts that is summed, as Arena's ``preprocess_for_style`` does.
- **AlpacaEval** annotations: ``output_1`` / ``output_2`` (the answers' text): length in
  characters (AlpacaEval's ``len(output)``), markdown counted from the text.
- **MT-bench** pair judgments (turn 1): the two answers sit in ``g1_user_prompt`` between
  ``[The Start of Assistant A's Answer]`` and ``[The End of Assistant A's Answer]`` (A = model_1).

Markdown counts follow FastChat's ``add_markdown_info.count_markdown_elements`` after code
blocks (```...```) are removed: headers ``^#{1,6}\\s``, list items ``^\\s*\\d+\\.\\s`` plus
``^\\s*[-*+]\\s``, bold ``\\*\\*[^*\\n]+\\*\\*`` plus ``__[^_\\n]+__`` (multiline).  Counting is
vectorised with pandas' string methods (no Python call per row).  A battle whose features are
not logged gets NaN; the analysis counts and reports those battles.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
else:
    from evaladdon._util.lazy import lazy_module

    pd = lazy_module("pandas")

__all__ = ["STYLE_COLUMNS", "STYLE_FEATURES", "style_columns"]

STYLE_FEATURES: tuple[str, ...] = ("length", "header", "list", "bold")
STYLE_COLUMNS: tuple[str, ...] = tuple(f"{f}_{s}" for f in STYLE_FEATURES for s in ("a", "b")) + ("length_unit",)
_CODE = r"```[^`]*```"
_HEADER = r"^#{1,6}\s"
_LIST = r"^\s*\d+\.\s|^\s*[-*+]\s"
_BOLD = r"\*\*[^*\n]+\*\*|__[^_\n]+__"
_ARENA_KEYS = {"length": "sum_assistant_{}_tokens", "header": "header_count_{}", "list": "list_count_{}",
               "bold": "bold_count_{}"}
_MT_A = re.escape("[The Start of Assistant A's Answer]") + r"\n?(.*?)\n?" + re.escape("[The End of Assistant A's Answer]")
_MT_B = re.escape("[The Start of Assistant B's Answer]") + r"\n?(.*?)\n?" + re.escape("[The End of Assistant B's Answer]")


def _empty(n: int, index: pd.Index) -> pd.DataFrame:
    out = pd.DataFrame({c: np.full(n, np.nan) for c in STYLE_COLUMNS[:-1]}, index=index)
    out["length_unit"] = None
    return out


def _text_counts(text: pd.Series, side: str, out: pd.DataFrame) -> None:
    """Character length and markdown counts of answers given as text (NaN where not a string)."""
    if pd.api.types.infer_dtype(text, skipna=True) in ("string", "empty"):  # the usual file: no per-value check
        is_str = text.notna().to_numpy()
    else:  # answers logged as lists or objects in a malformed file: checked value by value
        is_str = text.map(type).eq(str).to_numpy()
    s = text.where(is_str, "").astype(str)
    body = s.str.replace(_CODE, "", regex=True)
    out[f"length_{side}"] = np.where(is_str, s.str.len().to_numpy(dtype=float), np.nan)
    for name, pat in (("header", _HEADER), ("list", _LIST), ("bold", _BOLD)):
        out[f"{name}_{side}"] = np.where(is_str, body.str.count(pat, flags=re.MULTILINE).to_numpy(dtype=float), np.nan)


def _summed(col: pd.Series) -> np.ndarray:
    """An Arena count: a number, or a dict of counts that is summed (NaN for anything else)."""
    num = pd.to_numeric(col.where(col.map(type).isin([int, float])), errors="coerce")
    dicts = col.map(type).eq(dict)
    if dicts.any():
        frame = pd.DataFrame.from_records(col[dicts].tolist(), index=col.index[dicts])
        num[dicts] = frame.apply(pd.to_numeric, errors="coerce").sum(axis=1, min_count=1)
    return num.to_numpy(dtype=float)


def _arena(df: pd.DataFrame, out: pd.DataFrame) -> None:
    if "conv_metadata" not in df:
        return
    meta = df["conv_metadata"]
    ok = meta.map(type).eq(dict)
    if not ok.any():
        return
    frame = pd.DataFrame.from_records(meta[ok].tolist(), index=df.index[ok])
    for feat, key in _ARENA_KEYS.items():
        for side in ("a", "b"):
            col = key.format(side)
            if col in frame:
                out.loc[ok, f"{feat}_{side}"] = _summed(frame[col])
    out.loc[ok & out["length_a"].notna(), "length_unit"] = "tokens"


def style_columns(df: pd.DataFrame, kind: str) -> pd.DataFrame:
    """The style columns (:data:`STYLE_COLUMNS`) of the records ``df`` of a ``kind`` file, same index."""
    out = _empty(len(df), df.index)
    if kind == "arena":
        _arena(df, out)
    elif kind == "alpaca_eval" and "output_1" in df and "output_2" in df:
        # generator_1 (output_1) is model_a, as in the battle table
        _text_counts(df["output_1"], "a", out)
        _text_counts(df["output_2"], "b", out)
        out.loc[out["length_a"].notna(), "length_unit"] = "characters"
    elif kind == "mtbench" and "g1_user_prompt" in df:
        prompt = df["g1_user_prompt"].where(df["g1_user_prompt"].map(type).eq(str))
        a = prompt.str.extract(_MT_A, flags=re.DOTALL)[0]
        b = prompt.str.extract(_MT_B, flags=re.DOTALL)[0]
        _text_counts(a.where(a.notna() & b.notna()), "a", out)
        _text_counts(b.where(a.notna() & b.notna()), "b", out)
        out.loc[out["length_a"].notna(), "length_unit"] = "characters"
    return out
