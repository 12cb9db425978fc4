"""Inspect AI plug-ins: metrics, an epoch reducer and a scorer wrapper.

Registered in Inspect's registry under the ``evaladdon/`` namespace (so they never collide
with Inspect's own ``stderr``, ``ci``, ...) and exposed through the ``inspect_ai`` entry
point, so ``inspect score``, recompute and retry find them by name.

Every metric translates Inspect's ``SampleScore`` objects into arrays and calls
:mod:`evaladdon.stats`.  On degenerate input (one cluster, no overlap with the baseline,
a judge no better than chance) a metric logs a warning and reports NaN instead of failing
the evaluation.
"""

from __future__ import annotations

import logging
import math
import os
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd
from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    Value,
    ValueToFloat,
    metric,
    score_reducer,
    value_to_float,
)
from inspect_ai.scorer._reducer.types import ScoreReducer
from inspect_ai.solver import TaskState

from evaladdon import stats
from evaladdon.adapters.inspect.log import read_inspect_log
from evaladdon.table.names import dotted
from evaladdon.table.usable import usable_rows

logger = logging.getLogger("evaladdon")
NAN = float("nan")
EPOCH_KEY = "evaladdon_epoch"
VALUE_KEY = "evaladdon_value"
EPOCHS_KEY = "evaladdon_epochs"


_WARNED: set[tuple[str, str]] = set()


def _nan_dict(keys: tuple[str, ...], why: str, name: str, interim: bool = False) -> dict[str, float]:
    """NaN for every key, with one warning per (metric, reason) and process.

    Inspect also computes metrics on the samples finished so far, to show them while an
    eval runs; conditions that partial results produce (no samples yet, one cluster so far)
    are ``interim`` and logged at debug level only, so ``inspect eval`` shows no false warnings.
    """
    if interim:
        logger.debug("evaladdon %s: %s; reporting NaN", name, why)
    elif (name, why) not in _WARNED:
        _WARNED.add((name, why))
        logger.warning("evaladdon %s: %s; reporting NaN", name, why)
    return {k: NAN for k in keys}


def _floats(scores: list[SampleScore], to_float: ValueToFloat) -> np.ndarray:
    return np.array([to_float(s.score.value) for s in scores], dtype=float)


def _item_means(scores: list[SampleScore], to_float: ValueToFloat) -> tuple[np.ndarray, np.ndarray, list[Any]]:
    """Per-sample means over epochs (unreduced scores), epoch counts, and sample ids."""
    values = _floats(scores, to_float)
    codes, ids = pd.factorize(pd.Series([str(s.sample_id) for s in scores], dtype=object))
    counts = np.bincount(codes, minlength=len(ids))
    means = np.bincount(codes, weights=values, minlength=len(ids)) / counts
    return means, counts, list(ids)


CLUSTER_KEYS = ("clustered_se", "n_clusters", "clustered_df", "clustered_se_cr1", "clustered_se_cr2",
                "clustered_df_cr2", "deff")
"""Keys of :func:`clustered_se`: never a bare ``se`` beside Inspect's own ``stderr``."""
CLUSTER_ENV = "EVALADDON_CLUSTER"
HOW_TO_CLUSTER = (f"no cluster field given: use clustered_se('FIELD') in the task, or for `inspect score "
                  f"--metric evaladdon/clustered_se` set {CLUSTER_ENV}=FIELD (a sample metadata field, dotted paths allowed)")


@metric(name="clustered_se")
def clustered_se(cluster: str | None = None, method: str = "cr2", to_float: ValueToFloat = value_to_float()) -> Metric:
    """Clustered SE of the mean (``clustered_se``), with the number of clusters and the t df.

    ``cluster`` names a sample metadata field (dotted paths allowed); without it (as
    ``inspect score --metric evaladdon/clustered_se`` creates the metric) the field is read
    from the ``EVALADDON_CLUSTER`` environment variable, else the metric reports NaN with one
    line saying how to name it.  ``method="cr2"`` (default: Bell-McCaffrey with Satterthwaite
    df, right for few or unequal clusters) or ``"cr1"`` (``C/(C-1)`` sandwich, ``C - 1`` df,
    what Inspect's ``stderr(cluster=)`` gives).
    """
    if method not in ("cr1", "cr2"):
        raise ValueError(f"method must be 'cr1' or 'cr2', got {method!r}")

    def compute(scores: list[SampleScore]) -> Value:
        import os

        field = cluster or os.environ.get(CLUSTER_ENV) or None
        if field is None:
            return _nan_dict(CLUSTER_KEYS, HOW_TO_CLUSTER, "clustered_se")
        if not scores:  # Inspect's live display before any sample finished
            return _nan_dict(CLUSTER_KEYS, "no samples yet", "clustered_se", interim=True)
        labels = [dotted(s.sample_metadata or {}, field) for s in scores]
        missing = sum(lab is None for lab in labels)
        if missing:
            return _nan_dict(CLUSTER_KEYS, f"{missing} of {len(scores)} sample(s) have no metadata field {field!r}",
                             "clustered_se")
        values = _floats(scores, to_float)
        r = stats.clustered_se(values, [str(lab) for lab in labels])
        if r.n_clusters < 2:
            return _nan_dict(CLUSTER_KEYS, "one cluster so far: no clustered SE", "clustered_se", interim=True)
        item_se = float(values.std(ddof=1) / math.sqrt(values.size)) if values.size > 1 else NAN
        se, df = (r.se_cr2, r.df_cr2) if method == "cr2" else (r.se_cr1, r.df_cr1)
        deff = (se / item_se) ** 2 if item_se > 0 else NAN  # of the SE reported, as summarize does
        return {"clustered_se": se, "n_clusters": float(r.n_clusters), "clustered_df": df,
                "clustered_se_cr1": r.se_cr1, "clustered_se_cr2": r.se_cr2, "clustered_df_cr2": r.df_cr2, "deff": deff}

    return compute


EPOCH_KEYS = ("within_var", "between_var", "icc_epochs", "se_item", "se_floor", "n_epochs")
"""Keys of :func:`epoch_variance`; ``icc_epochs`` (the epoch ICC) as in ``summarize --json``,
where ``icc`` is the cluster ICC."""


@metric(name="epoch_variance", scores="unreduced")
def epoch_variance(to_float: ValueToFloat = value_to_float()) -> Metric:
    """Within- and between-item variance of repeated epochs, the ICC and the item-level SE.

    Receives one score per sample per epoch (``scores="unreduced"``) and applies
    :func:`evaladdon.stats.epoch_variance` (Miller 2024, section 2.3).
    """

    def compute(scores: list[SampleScore]) -> Value:
        values = _floats(scores, to_float)
        ids = [str(s.sample_id) for s in scores]
        try:
            r = stats.epoch_variance(values, ids)
        except ValueError as exc:
            # partial results while an eval runs rarely have repeated epochs yet: debug level
            return _nan_dict(EPOCH_KEYS, str(exc), "epoch_variance", interim=True)
        return {"within_var": r.within_var, "between_var": r.between_var, "icc_epochs": r.icc, "se_item": r.se_item,
                "se_floor": r.se_floor, "n_epochs": float(r.n_epochs_max)}

    return compute


@metric(name="mde", scores="unreduced")
def mde(power: float = 0.8, alpha: float = 0.05, to_float: ValueToFloat = value_to_float()) -> Metric:
    """Smallest difference this run could detect against an equal run on the same items, paired.

    Two runs with the same per-item accuracies differ item by item only through sampling
    noise, so ``Var(d) = 2 sigma_w^2 / K`` (``sigma_w^2`` the within-item variance over
    ``K`` epochs).  With one epoch ``sigma_w^2`` is not identifiable and the item variance
    ``s^2`` is used (an upper bound: no credit for item-level correlation).
    ``MDE = (z_{1-alpha/2} + z_power) sqrt(Var(d)/n)`` (:func:`evaladdon.stats.plan`).
    """

    def compute(scores: list[SampleScore]) -> Value:
        means, counts, _ = _item_means(scores, to_float)
        n = means.size
        if n < 2:
            logger.debug("evaladdon mde: fewer than two samples; reporting NaN")
            return NAN
        if counts.max() >= 2:
            ev = stats.epoch_variance(_floats(scores, to_float), [str(s.sample_id) for s in scores])
            var_d = 2.0 * ev.within_var * float(np.mean(1.0 / counts))
        else:
            var_d = 2.0 * float(means.var(ddof=1))
        if var_d <= 0:
            return 0.0
        result = stats.plan(n=n, variance=var_d, power=power, alpha=alpha).mde
        return float(result) if result is not None else NAN

    return compute


PAIRED_KEYS = ("delta", "ci_low", "ci_high", "p_value", "n", "se_paired", "se_unpaired")


def _baseline_item_means(path: str, scorer: str | None, own_scorer: str | None) -> tuple[dict[str, float], bool]:
    df = read_inspect_log(Path(path))
    good, _ = usable_rows(df)
    metrics = list(dict.fromkeys(good["metric"]))
    name = scorer or (own_scorer if own_scorer in metrics else None) or (metrics[0] if len(metrics) == 1 else None)
    if name is None or name not in metrics:
        raise ValueError(f"baseline {path} has scorers {metrics}; name one with scorer=")
    rows = good[good["metric"] == name]
    g = rows.groupby("item")["value"]
    return g.mean().to_dict(), bool(g.size().max() == 1)


BASELINE_ENV = "EVALADDON_BASELINE"


@metric(name="paired_delta", scores="unreduced")
def paired_delta(baseline: str | None = None, scorer: str | None = None, level: float = 0.95,
                 to_float: ValueToFloat = value_to_float()) -> Metric:
    """This run minus a baseline log on the samples both share, paired.

    Reports ``delta``, its interval (Tango's score interval for 0/1 single-epoch scores, else paired t),
    ``p_value`` (McNemar exact for 0/1 single-epoch scores, else paired t), ``n`` shared
    samples, and the paired and unpaired SEs.  ``scorer`` picks the baseline's scorer
    (default: the same name as this one, or the baseline's only scorer).  ``baseline``: the
    baseline log; ``inspect score --metric evaladdon/paired_delta`` passes no metric arguments,
    so there it comes from the environment variable ``EVALADDON_BASELINE``; with neither, the
    metric says so in one warning and reports NaN.
    """
    baseline = baseline or os.environ.get(BASELINE_ENV) or None

    def compute(scores: list[SampleScore]) -> Value:
        if baseline is None:
            return _nan_dict(PAIRED_KEYS, f"no baseline log: pass paired_delta(baseline=PATH) in the task, or set "
                             f"{BASELINE_ENV}=PATH for `inspect score --metric evaladdon/paired_delta`",
                             "paired_delta")
        if not scores:
            return _nan_dict(PAIRED_KEYS, "no scores", "paired_delta", interim=True)
        try:
            base, base_one_epoch = _baseline_item_means(baseline, scorer, scores[0].scorer)
        except Exception as exc:  # unreadable baseline must not fail the evaluation
            return _nan_dict(PAIRED_KEYS, f"baseline unusable ({exc})", "paired_delta")
        means, counts, ids = _item_means(scores, to_float)
        shared = [i for i, sid in enumerate(ids) if sid in base]
        if len(shared) < 2:
            return _nan_dict(PAIRED_KEYS, f"only {len(shared)} sample(s) shared with the baseline", "paired_delta")
        b = means[shared]
        a = np.array([base[ids[i]] for i in shared])
        one_epoch = base_one_epoch and bool(counts[shared].max() == 1)
        r = stats.compare_paired(a, b, one_epoch=one_epoch, level=level)
        return {"delta": r.delta, "ci_low": r.ci_low, "ci_high": r.ci_high, "p_value": r.p_value,
                "n": float(r.n), "se_paired": r.se_paired, "se_unpaired": r.se_unpaired}

    return compute


JUDGE_KEYS = ("corrected", "corrected_se", "ci_low", "ci_high", "observed")


@metric(name="judge_corrected")
def judge_corrected(
    sensitivity: float | None = None,
    specificity: float | None = None,
    human_field: str | None = None,
    n_pos: int | None = None,
    n_neg: int | None = None,
    level: float = 0.95,
    to_float: ValueToFloat = value_to_float(),
) -> Metric:
    """Rogan-Gladen corrected accuracy of a judge-graded scorer.

    Either give the judge's ``sensitivity`` and ``specificity`` (with ``n_pos``/``n_neg``,
    the human positives/negatives they were measured on, so their error enters the SE),
    or ``human_field``: a sample metadata field holding human 0/1 labels on a subsample,
    from which Se and Sp are estimated here.
    """

    def compute(scores: list[SampleScore]) -> Value:
        values = _floats(scores, to_float)
        if values.size < 2 or not np.all((values == 0) | (values == 1)):
            return _nan_dict(JUDGE_KEYS, "needs at least two 0/1 verdicts", "judge_corrected", interim=len(scores) < 2)
        q = float(values.mean())
        try:
            if human_field is not None:
                labels = [dotted(s.sample_metadata or {}, human_field) for s in scores]
                idx = [i for i, lab in enumerate(labels) if lab is not None]
                human = np.array([float(labels[i]) for i in idx])
                agr = stats.judge_agreement(values[idx], human, level)
                r = stats.rogan_gladen(q, agr.sensitivity, agr.specificity, n_observed=values.size,
                                       n_pos=agr.n_pos, n_neg=agr.n_neg, level=level)
            elif sensitivity is not None and specificity is not None:
                r = stats.rogan_gladen(q, sensitivity, specificity, n_observed=values.size, n_pos=n_pos,
                                       n_neg=n_neg, level=level)
            else:
                raise ValueError("give sensitivity and specificity, or human_field")
        except ValueError as exc:
            return _nan_dict(JUDGE_KEYS, str(exc), "judge_corrected")
        return {"corrected": r.estimate, "corrected_se": r.se, "ci_low": r.ci_low, "ci_high": r.ci_high, "observed": q}

    return compute


@score_reducer
def mean_keep_epochs(to_float: ValueToFloat = value_to_float()) -> ScoreReducer:
    """Mean over epochs that keeps the per-epoch values in ``metadata["evaladdon_epochs"]``."""

    def reduce(scores: list[Score]) -> Score:
        values = [to_float(s.value) for s in scores]
        return Score(value=float(np.mean(values)) if values else NAN, metadata={EPOCHS_KEY: values})

    return reduce


def keep_epoch(inner: Scorer) -> Callable[[TaskState, Target], Any]:
    """Wrap a scorer so each score's metadata records its epoch and the inner value.

    Use as ``scorer=tagged(match())`` inside an ``@scorer``-decorated factory, e.g.
    :func:`epoch_tagged`.
    """

    async def score(state: TaskState, target: Target) -> Score | None:
        result = await inner(state, target)
        if result is None:
            return result
        meta = dict(result.metadata or {})
        meta[EPOCH_KEY] = state.epoch
        meta[VALUE_KEY] = result.value
        return result.model_copy(update={"metadata": meta})

    return score


def epoch_tagged(inner: Scorer, metrics: list[Metric] | None = None, name: str | None = None) -> Scorer:
    """A registered scorer wrapping ``inner`` whose scores carry their epoch and raw value."""
    from inspect_ai._util.registry import registry_info
    from inspect_ai.scorer import accuracy, scorer, stderr

    inner_name = name or registry_info(inner).name.split("/")[-1]

    @scorer(metrics=metrics or [accuracy(), stderr()], name=inner_name)
    def _tagged() -> Scorer:
        return keep_epoch(inner)  # type: ignore[return-value]

    return _tagged()
