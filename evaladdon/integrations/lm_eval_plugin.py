"""lm-evaluation-harness plug-ins: clustered means and SEs inside the harness's results.

Without monkeypatching (the default): a task's ``process_results`` returns, beside the usual
score, ``(score, cluster)`` payloads for two more metrics whose aggregations are
:func:`clustered_mean` and :func:`clustered_se` (use ``!function`` in the task YAML, see
``examples/lm_eval/``).  The SE is CR2 (Bell & McCaffrey 2002) on documents grouped by
cluster -- the same estimator as ``evaladdon summarize``'s default (``se_cluster_cr2``);
:func:`clustered_se_cr1` gives the CR1 sandwich with ``C/(C-1)`` (``se_cluster``).

Opt-in (relies on harness internals; tested with lm-eval 0.4.9-0.4.13):
:func:`enable_clustered_stderr` makes the harness fill the ``<metric>_stderr`` slot of a
metric aggregated with :func:`clustered_mean` with the clustered SE instead of ``"N/A"``.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from evaladdon import stats
from evaladdon.table.names import dotted

Payload = tuple[float, str]


def cluster_of(doc: dict[str, Any], field: str) -> str:
    """The cluster id of a doc (dotted paths allowed); a missing one is an error."""
    value = dotted(doc, field)
    if value is None or isinstance(value, (dict, list)):
        raise ValueError(f"doc has no scalar field {field!r} to cluster on (doc keys: {sorted(doc)})")
    return str(value)


def with_clusters(scores: dict[str, float], doc: dict[str, Any], cluster_field: str) -> dict[str, Any]:
    """Add ``<m>_clustered`` and ``<m>_clustered_se`` payloads for every metric in ``scores``."""
    c = cluster_of(doc, cluster_field)
    out: dict[str, Any] = dict(scores)
    for name, value in scores.items():
        out[f"{name}_clustered"] = (float(value), c)
        out[f"{name}_clustered_se"] = (float(value), c)
    return out


def multiple_choice_accuracy(doc: dict[str, Any], results: Sequence[Any], gold: int) -> float:
    """1.0 when the choice with the highest log-likelihood is ``gold`` (lm-eval's ``acc``)."""
    lls = [r[0] if isinstance(r, (tuple, list)) else float(r) for r in results]
    return 1.0 if int(np.argmax(lls)) == int(gold) else 0.0


def accuracy_with_clusters(
    doc: dict[str, Any], results: Sequence[Any], *, gold_key: str = "answer", cluster_field: str = "passage_id"
) -> dict[str, Any]:
    """``process_results`` body for a multiple-choice task: ``acc`` plus clustered payloads."""
    return with_clusters({"acc": multiple_choice_accuracy(doc, results, doc[gold_key])}, doc, cluster_field)


def _split(items: Sequence[Payload]) -> tuple[np.ndarray, list[str]]:
    values = np.array([float(v) for v, _ in items], dtype=float)
    return values, [str(c) for _, c in items]


def clustered_mean(items: Sequence[Payload]) -> float:
    """Aggregation: the mean score over documents (the payload's cluster is carried along)."""
    values, _ = _split(items)
    return float(values.mean()) if values.size else float("nan")


def clustered_se(items: Sequence[Payload]) -> float:
    """Aggregation: CR2 (Bell-McCaffrey) clustered SE of the mean, the default everywhere (NaN with one cluster)."""
    values, clusters = _split(items)
    if values.size < 2:
        return float("nan")
    return float(stats.clustered_se(values, clusters).se_cr2)


def clustered_se_cr1(items: Sequence[Payload]) -> float:
    """Aggregation: CR1 clustered SE of the mean (``C/(C-1)`` sandwich; NaN with one cluster)."""
    values, clusters = _split(items)
    if values.size < 2:
        return float("nan")
    return float(stats.clustered_se(values, clusters).se_cr1)


_ORIGINAL: dict[str, Callable[..., Any]] = {}


def enable_clustered_stderr() -> None:
    """Opt-in: fill ``<metric>_stderr`` with the clustered SE for :func:`clustered_mean` metrics.

    Wraps ``lm_eval.evaluator_utils.stderr_for_metric`` (a harness internal); idempotent.
    """
    import lm_eval.evaluator_utils as eu

    if "stderr_for_metric" in _ORIGINAL:
        return
    original = eu.stderr_for_metric
    _ORIGINAL["stderr_for_metric"] = original

    def stderr_for_metric(metric: Callable[..., float], bootstrap_iters: int) -> Callable[..., float] | None:
        if metric is clustered_mean:
            return clustered_se
        return original(metric=metric, bootstrap_iters=bootstrap_iters)

    eu.stderr_for_metric = stderr_for_metric


def disable_clustered_stderr() -> None:
    """Undo :func:`enable_clustered_stderr`."""
    if "stderr_for_metric" in _ORIGINAL:
        import lm_eval.evaluator_utils as eu

        eu.stderr_for_metric = _ORIGINAL.pop("stderr_for_metric")


