"""Files in, canonical item table out.  Adapters know nothing about statistics.

:func:`read_runs` takes files and directories, picks the reader for each file by its
name and first bytes, and returns one validated canonical table with notes on what was
skipped or is incomplete.  Rows that cannot be scored stay in the table with their reason
in ``error``; the summaries count them.

The registry of formats (:mod:`.registry`: :class:`Reader`, :func:`sniff`, :func:`expand_paths`)
and the reading (:mod:`.read`: :func:`read_runs`) live in their own modules; their names are
re-exported here, as is :class:`~evaladdon.table.loaded.Loaded` (its old place).
"""

from __future__ import annotations

from evaladdon.adapters import helm
from evaladdon.adapters.inspect.log import read_inspect_log, read_inspect_part
from evaladdon.adapters.read import (
    PARTS,
    _convert_pending,
    _frames,
    _progress,
    load,
    name_runs,
    read_runs,
    separate_runs,
)
from evaladdon.adapters.registry import (
    BOOKKEEPING,
    REGISTRY,
    SNIFF_BYTES,
    Format,
    Head,
    ReadFn,
    Reader,
    _head,
    expand_paths,
    format_of,
    inputs,
    is_bookkeeping,
    reader_of,
    sniff,
    split_name,
    walk_files,
)
from evaladdon.adapters.tuning import ReadOptions, ReadTuning
from evaladdon.table.loaded import Loaded

__all__ = [
    "BOOKKEEPING", "PARTS", "REGISTRY", "SNIFF_BYTES", "Format", "Head", "Loaded", "ReadFn", "ReadOptions",
    "ReadTuning", "Reader", "_convert_pending", "_frames", "_head", "_progress", "expand_paths", "format_of", "helm",
    "inputs", "is_bookkeeping", "load", "name_runs", "read_inspect_log", "read_inspect_part", "read_runs",
    "reader_of", "separate_runs", "sniff", "split_name", "walk_files",
]
