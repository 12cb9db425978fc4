"""The canonical per-item table: one row per (run, task, metric, item, epoch).

Column names and meanings are the contract between adapters and statistics (see
``docs/table.md``).  :func:`validate` checks names, dtypes and the key's uniqueness;
:func:`empty_table` and :func:`finalize` build conforming frames.

Modules: :mod:`~evaladdon.table.columns` (names, kinds, ``finalize``),
:mod:`~evaladdon.table.codes` (label and key codes), :mod:`~evaladdon.table.validate`
(``validate``, ``concat``), :mod:`~evaladdon.table.names` (run labels). Every public name is
here too, so ``from evaladdon.table import finalize`` keeps working.
"""

from evaladdon.table.codes import distinct_rows, distinct_tuples, duplicated_keys, key_codes, label_codes
from evaladdon.table.columns import (
    COLUMNS,
    GROUP,
    HARNESSES,
    KEY,
    NULLABLE_STRING_COLUMNS,
    OPTIONAL_COLUMNS,
    STRING_COLUMNS,
    all_missing,
    empty_table,
    finalize,
    no_values,
    object_values,
    plain_columns,
)
from evaladdon.table.names import run_labels
from evaladdon.table.validate import concat, validate

__all__ = [
    "COLUMNS", "GROUP", "HARNESSES", "KEY", "NULLABLE_STRING_COLUMNS", "OPTIONAL_COLUMNS", "STRING_COLUMNS",
    "all_missing", "concat", "distinct_rows", "distinct_tuples", "duplicated_keys", "empty_table", "finalize",
    "key_codes", "label_codes", "no_values", "object_values", "plain_columns", "run_labels", "validate",
]
