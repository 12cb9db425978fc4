"""Errored and unscored samples: which rows they are, and the policy that says how they count.

A row is *errored* when the harness ran the sample and got no verdict on the model because
the run itself failed: Inspect's ``sample error``, ``limit reached (<type>)`` and ``unscored
sample`` (a sample without scores), promptfoo's ``provider error``.  Rows left out for other
reasons (a grader that threw, a NaN or non-numeric value, corpus-level inputs, samples a log
declares but does not hold) are failures of the measuring instrument or the file, not of the
model: every policy leaves them out and counts them by reason, as before.

The policy (``--errors``), after Inspect's own conventions (``docs/errors.md``):

- ``exclude`` (default; Inspect's default with ``fail_on_error`` tolerating errors): errored
  rows leave numerator and denominator;
- ``fail`` (Inspect's ``score_on_error``, where an errored sample scored on its partial state
  is almost always incorrect): each errored row scores 0, the worst value of a metric in
  [0, 1]; a metric on another scale has no worst value, so its errored rows stay excluded
  and the summary says so;
- ``bounds``: the estimate as ``exclude``, and beside it the worst and best case (every
  errored row 0, every errored row 1: Manski-style bounds on what the errored samples could
  have scored).

The rule is applied once, on a group's arrays (:func:`apply_policy`), by the per-group
kernels every route ends in, so every route gives the same answer.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from evaladdon.errors import EvalAddonError
from evaladdon.table.scale import unit_interval

__all__ = ["ERRORED_REASONS", "ERROR_POLICIES", "apply_policy", "apply_policy_table", "check_policy", "count_errors",
           "errored_mask", "errors_by_group", "is_errored"]

ERROR_POLICIES = ("exclude", "fail", "bounds")
ERRORED_REASONS = ("sample error", "unscored sample", "provider error")
"""Reasons of the errored rows (the adapters' spellings: ``adapters.inspect.walk.SAMPLE_ERROR``,
``UNSCORED``, ``adapters.promptfoo.PROVIDER_ERROR``), plus any ``limit reached (...)``."""
LIMIT_PREFIX = "limit reached"


def check_policy(policy: str) -> str:
    """``policy`` when it is one of :data:`ERROR_POLICIES`, else an error (exit 2)."""
    if policy not in ERROR_POLICIES:
        raise EvalAddonError(f"--errors {policy}: choose one of {', '.join(ERROR_POLICIES)}")
    return policy


def is_errored(reason: object) -> bool:
    """Whether a row left out for ``reason`` is an errored sample (see the module docstring)."""
    return isinstance(reason, str) and (reason in ERRORED_REASONS or reason.startswith(LIMIT_PREFIX))


def count_errors(dropped: Mapping[str, int]) -> int:
    """Rows of errored samples among the rows left out by reason (``dropped``)."""
    return int(sum(n for reason, n in dropped.items() if is_errored(reason)))


def errored_mask(error: Any, has_error: np.ndarray) -> np.ndarray:
    """Boolean mask of the errored rows, given the ``error`` column as an object array (or
    coded texts that integer indexing turns into one) and its not-null mask.  Vectorised over the few
    distinct reasons, not per row."""
    out = np.zeros(len(has_error), dtype=bool)
    if not has_error.any():
        return out
    at = np.flatnonzero(has_error)
    reasons = np.asarray(error[at], dtype=object)  # an array, or coded texts indexed to one
    uniq, inverse = np.unique(reasons.astype(str), return_inverse=True)
    hit = np.array([is_errored(u) for u in uniq.tolist()], dtype=bool)  # per distinct reason
    out[at] = hit[inverse.reshape(-1)]
    return out


def apply_policy(values: np.ndarray, error: Any, has_error: np.ndarray, policy: str,
                 fill: float = 0.0) -> tuple[np.ndarray, Any, np.ndarray, int]:
    """The group's (values, error, has_error) under ``policy``, and its number of errored rows.

    ``exclude`` returns the arrays as given.  ``fail`` (``fill=0``; ``bounds`` calls it with 0
    and 1) gives every errored row the value ``fill`` and no error, so it is usable; a group
    whose finite values are not all in [0, 1] is returned unchanged (no worst value).  The
    arrays given are never written to."""
    bad = errored_mask(error, has_error)
    n_errors = int(bad.sum())
    if policy == "exclude" or n_errors == 0 or not unit_interval(values[~has_error]):
        return values, error, has_error, n_errors
    values = values.copy()
    values[bad] = fill
    error = np.asarray(error[np.arange(len(values))], dtype=object)  # a copy (fancy indexing)
    error[bad] = None
    return values, error, has_error & ~bad, n_errors


def apply_policy_table(df: Any, policy: str) -> tuple[Any, int]:
    """A canonical table under ``policy`` (``fail``: :func:`apply_policy` on each (run, task, metric)
    whose usable values lie in [0, 1], vectorised over groups), and its number of errored rows.
    For the commands that read the table itself (``metrics``); ``exclude``/``bounds`` return it as given."""
    import pandas as pd

    from evaladdon.table.codes import key_codes
    from evaladdon.table.columns import GROUP

    error = df["error"].to_numpy(dtype=object)
    has_error = ~pd.isna(error)
    bad = errored_mask(error, has_error)
    n_errors = int(bad.sum())
    if policy != "fail" or n_errors == 0:
        return df, n_errors
    values = df["value"].to_numpy(dtype=float)
    group = pd.factorize(key_codes(df, GROUP))[0]
    usable = ~has_error & np.isfinite(values)
    outside = usable & ((values < 0) | (values > 1))
    off_unit = np.bincount(group[outside], minlength=int(group.max()) + 1) > 0  # a group with a value off [0, 1]
    fill = bad & ~off_unit[group]
    values = values.copy()
    values[fill] = 0.0
    error = error.copy()
    error[fill] = None
    return df.assign(value=values, error=error), n_errors


def errors_by_group(df: Any) -> list[tuple[Any, Any, Any, int, int]]:
    """Per (run, task, metric) of a canonical table with an errored row: (run, task, metric, errored
    rows, attempted rows), attempted = the errored rows and the usable ones (no error, a finite
    value), as ``summarize`` counts them; vectorised over groups (one ``bincount`` each)."""
    import pandas as pd

    from evaladdon.table.codes import key_codes
    from evaladdon.table.columns import GROUP

    if df.empty:
        return []
    error = df["error"].to_numpy(dtype=object)
    has_error = ~pd.isna(error)
    bad = errored_mask(error, has_error)
    if not bad.any():
        return []
    group, _ = pd.factorize(key_codes(df, GROUP))
    usable = ~has_error & np.isfinite(df["value"].to_numpy(dtype=float))
    n_bad = np.bincount(group[bad], minlength=int(group.max()) + 1)
    n_tried = n_bad + np.bincount(group[usable], minlength=int(group.max()) + 1)
    first = pd.Series(np.arange(len(group))).groupby(group).first().to_numpy()
    keys = df[list(GROUP)].iloc[first].itertuples(index=False, name=None)
    return [(run, task, metric, int(n_bad[g]), int(n_tried[g])) for g, (run, task, metric) in enumerate(keys)
            if n_bad[g]]
