"""The canonical per-item table: one row per (run, task, metric, item, epoch).

Column names and meanings are the contract between adapters and statistics (see
``docs/table.md``).  :func:`validate` checks names, dtypes and the key's uniqueness;
:func:`empty_table` and :func:`finalize` build conforming frames.

Modules: :mod:`~evaladdon.table.columns` (names, kinds, ``finalize``),
:mod:`~evaladdon.table.codes` (label and key codes), :mod:`~evaladdon.table.validate`
(``validate``, ``concat``), :mod:`~evaladdon.table.usable` (usable rows and the others counted
by reason), :mod:`~evaladdon.table.scale` (a metric's units), :mod:`~evaladdon.table.names`
(run labels, ``--baseline``, source names, dotted paths), :mod:`~evaladdon.table.checks`
(``--metric`` and ``--cluster`` checked against the table), :mod:`~evaladdon.table.loaded`
(what reading gives). Every public name is here too, so ``from evaladdon.table import
finalize`` keeps working.
"""

from evaladdon.table.checks import check_metric, check_metric_name, closest, cluster_fields
from evaladdon.table.codes import (distinct_rows, distinct_tuples, duplicated_keys, first_present, group_positions,
                                   key_codes, label_codes, label_rows, one_value)
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
from evaladdon.table.loaded import Loaded
from evaladdon.table.names import (RunInfo, choose_pairs, choose_pairs_in, distinguishing_names, dotted, dotted_parts,
                                   labels_of, names_line, resolve_run, resolve_run_in, run_info, run_labels,
                                   run_order_in, runs_in)
from evaladdon.table.scale import bounded_metric, unit_interval
from evaladdon.table.usable import (NONFINITE, count_nonfinite, count_reasons, unusable, unusable_reasons,
                                    usable_rows)
from evaladdon.table.validate import concat, validate

__all__ = [
    "COLUMNS", "GROUP", "HARNESSES", "KEY", "NONFINITE", "NULLABLE_STRING_COLUMNS", "OPTIONAL_COLUMNS",
    "STRING_COLUMNS", "Loaded", "RunInfo", "all_missing", "bounded_metric", "check_metric",
    "check_metric_name", "choose_pairs", "choose_pairs_in", "closest", "cluster_fields", "concat",
    "count_nonfinite", "count_reasons", "distinct_rows", "distinct_tuples", "distinguishing_names", "dotted",
    "dotted_parts", "duplicated_keys", "empty_table", "finalize", "first_present", "group_positions",
    "key_codes", "label_codes", "label_rows", "labels_of", "names_line", "no_values", "object_values",
    "one_value", "plain_columns", "resolve_run", "resolve_run_in", "run_info", "run_labels", "run_order_in",
    "runs_in", "unit_interval", "unusable", "unusable_reasons", "usable_rows", "validate",
]
