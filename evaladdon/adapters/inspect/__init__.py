"""Inspect AI logs (``.eval`` zips and JSON logs) -> the canonical table or the lean columns.

- :mod:`.log`: the reader the registry calls (native, else Inspect's own ``inspect_ai.log``);
- :mod:`.native` (``.eval`` zips) and :mod:`.stream` (JSON logs, streamed): the native reader;
- :mod:`.records`: a sample -> its :class:`~.records.SampleRecord`;
- :mod:`.walk`: ONE walk over the records (every per-sample rule once) into a sink:
  :mod:`.rows` (the canonical table's rows, :func:`~.rows.frame`) or :mod:`.columns` (the
  numbers-only columns of the pandas-free summarize routes);
- :mod:`.parts`: one log's rows as columns (:class:`~.parts.Part`, :class:`~.parts.Pending`).
"""

from __future__ import annotations

from evaladdon.adapters.inspect.log import READERS, is_inspect_json, read_inspect_log, read_inspect_part

__all__ = ["READERS", "is_inspect_json", "read_inspect_log", "read_inspect_part"]
