"""Pandas-free pieces of ``evaladdon summarize`` (issue 15: ``.json`` logs under 100 MB RSS).

- :mod:`evaladdon.lean.summarize`: the Inspect-only path of ``summarize`` that keeps a few
  numbers per sample (no pandas, no pyarrow) and ends in the same per-group core
  (:func:`evaladdon.analysis.summarize.summarize_groups`) and the same output functions.
"""
