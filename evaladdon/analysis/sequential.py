"""Anytime-valid intervals of runs read in their logged order: ``compare --sequential`` and ``watch``.

Order: the order the log holds the items (the canonical table keeps it: an Inspect ``.eval`` log
holds its samples in the order they finished; a JSON log and lm-eval samples files in the order
written).  An item's score is the mean of its epochs; the item enters the sequence at its first
row.  With ``live`` (a log still being written) an item counts only when it has as many epochs as
the most complete item of its run: the others are left out as ``epochs still running``.

Pair: the candidate's items in the candidate's logged order, each paired with the baseline's
score of that item (items the baseline lacks are left out, counted).  Scores in [0, 1] use the
bounded constructions (:func:`evaladdon.stats.sequential.decide.paired_sequence`); other scores
the asymptotic normal mixture on the differences (a note says so).  The decision is the gate's,
read at the first t where it holds (:func:`evaladdon.stats.sequential.decide.first_decision`):
what an early stop would have decided and how many items it would have saved.  Several sequences
(pairs, tasks, metrics) are made simultaneous by Bonferroni (each at ``alpha / K``).  For a metric
where lower is better (:func:`evaladdon.table.direction.lower_is_better`: the log's declaration,
``--better``, the built-in names) the decision is read off the mirrored sequence of ``A - B`` (a
rise of B beyond the margin is the regression); the interval shown stays that of ``B - A``.  Clusters are not
supported here (the sequence needs independent units in order): ``--cluster`` is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from evaladdon.errors import EvalAddonError
from evaladdon.stats._base.result import Result
from evaladdon.stats.sequential.decide import UNDECIDED, confidence_sequence, first_decision, paired_sequence
from evaladdon.stats.sequential.mixture import normal_mixture_sequence
from evaladdon.stats.sequential.sequence import ConfidenceSequence
from evaladdon.table.direction import declared_in, lower_is_better
from evaladdon.table.names import choose_pairs_in, resolve_run_in, run_labels, run_order_in
from evaladdon.table.scale import unit_interval
from evaladdon.table.usable import usable_rows

if TYPE_CHECKING:  # pragma: no cover
    from evaladdon.analysis.options import SequentialOptions

__all__ = ["EPOCHS_RUNNING", "NOT_IN_BASELINE", "SequentialResult", "sequential_results"]

EPOCHS_RUNNING = "epochs still running"
NOT_IN_BASELINE = "item not in the baseline"


@dataclass(frozen=True)
class SequentialResult(Result):
    """One run (or pair) on one task and metric: the interval after the last item, and the first
    t at which the gate's decision held (``decided_at``; None if never) with the interval there."""

    task: str
    metric: str
    run: str
    baseline: str | None
    method: str
    level: float
    n: int
    estimate: float
    ci_low: float
    ci_high: float
    points: bool
    margin: float | None = None
    decision: str = UNDECIDED
    decided_at: int | None = None
    saved: int = 0
    stop_low: float | None = None
    stop_high: float | None = None
    left_out: dict[str, int] = field(default_factory=dict)
    lower_is_better: bool = False

    @property
    def is_regression(self) -> bool:
        return self.decision == "regression"


def _item_scores(rows: pd.DataFrame, live: bool) -> tuple[pd.Series, dict[str, int]]:
    """Per-item mean of the usable rows in first-appearance order, and the rows left out by reason."""
    usable, dropped = usable_rows(rows)
    dropped = dict(dropped)
    if live and len(rows):
        epochs = rows.groupby("item", sort=False)["epoch"].nunique()
        done = epochs.index[epochs.to_numpy() == epochs.max()]
        waiting = ~usable["item"].isin(done)
        if waiting.any():
            dropped[EPOCHS_RUNNING] = int(waiting.sum())
            usable = usable.loc[~waiting]
    scores = usable.groupby("item", sort=False)["value"].mean()
    return scores, dropped


def _margin(opts: SequentialOptions, bounded: bool) -> float:
    return opts.margin.resolve(bounded, "--margin") if opts.margin is not None else 0.0


def _sequence(x: np.ndarray, bounded: bool, method: str, alpha: float,
              base: np.ndarray | None = None) -> ConfidenceSequence:
    if base is None:
        return confidence_sequence(x, method if bounded else "mixture", alpha)
    if bounded:
        return paired_sequence(base, x, method, alpha)
    return normal_mixture_sequence(x - base, alpha)


def _result(task: str, metric: str, labels: tuple[str, str | None], cs: ConfidenceSequence, bounded: bool,
            margin: float | None, dropped: dict[str, int], level: float, lower: bool = False) -> SequentialResult:
    last = cs.last
    out = SequentialResult(task, metric, labels[0], labels[1], cs.method, level, cs.n, last.estimate, last.low,
                           last.high, bounded, margin, left_out=dropped, lower_is_better=lower)
    if margin is None:
        return out
    if lower:  # the gate's rule on A - B: the sequence mirrored, its stopping interval mirrored back
        mirrored = ConfidenceSequence(cs.method, cs.alpha, -cs.estimate, -cs.high, -cs.low)
        dec = first_decision(mirrored, margin)
        stop_low, stop_high = -dec.high, -dec.low
    else:
        dec = first_decision(cs, margin)
        stop_low, stop_high = dec.low, dec.high
    from dataclasses import replace

    return replace(out, decision=dec.decision, decided_at=dec.t, saved=dec.saved, stop_low=stop_low,
                   stop_high=stop_high)


def _groups(df: pd.DataFrame, run: str) -> list[tuple[tuple[str, str], pd.DataFrame]]:
    part = df[df["run"] == run]
    return [((str(t), str(m)), g) for (t, m), g in part.groupby(["task", "metric"], sort=False)]


def sequential_results(df: pd.DataFrame, opts: SequentialOptions) -> tuple[list[SequentialResult], list[str]]:
    """Every (run or pair, task, metric) of ``df`` read in logged order (module doc), and notes."""
    if opts.inputs.cluster is not None:
        raise EvalAddonError("--sequential and watch read items one at a time and do not take --cluster "
                             "(a confidence sequence over clusters needs each cluster complete)")
    if opts.inputs.metric is not None:
        df = df[df["metric"] == opts.inputs.metric]
    if df.empty:
        raise EvalAddonError("no rows to read in order")
    labels, alpha = run_labels(df), 1.0 - opts.level
    runs = run_order_in(df)
    if opts.baseline is None and len(runs) == 1:
        pairs: list[tuple[str | None, str]] = [(None, runs[0])]
    else:
        if opts.baseline is not None:
            resolve_run_in(df, opts.baseline)  # a name that matches no run: one line, with the names
        pairs = list(choose_pairs_in(df, baseline=opts.baseline, needs=opts.needs))
    results: list[SequentialResult] = []
    notes: list[str] = []
    family = sum(len(_groups(df, cand)) for _, cand in pairs)
    if family > 1:  # simultaneous over the family, as compare's intervals are (Bonferroni)
        alpha /= family
        notes.append(f"note: {family} sequences: intervals simultaneous (Bonferroni), each at "
                     f"{100 * (1 - alpha):.3g}%")
    for base, cand in pairs:
        results += _pair_results(df, base, cand, labels, opts, alpha, notes)
    return results, notes


def _pair_results(df: pd.DataFrame, base: str | None, cand: str, labels: dict[str, str], opts: SequentialOptions,
                  alpha: float, notes: list[str]) -> list[SequentialResult]:
    base_groups = dict(_groups(df, base)) if base is not None else {}
    out = []
    for (task, metric), rows in _groups(df, cand):
        scores, dropped = _item_scores(rows, opts.live)
        base_scores = None
        if base is not None:
            if (task, metric) not in base_groups:
                notes.append(f"{task} {metric}: not in the baseline run {labels[base]}; left out")
                continue
            base_all, _ = _item_scores(base_groups[(task, metric)], False)
            shared = scores.index.isin(base_all.index)
            if (~shared).any():
                dropped[NOT_IN_BASELINE] = int((~shared).sum())
            scores = scores[shared]
            base_scores = base_all.reindex(scores.index).to_numpy(dtype=float)
        if scores.empty:
            notes.append(f"{task} {metric}: no complete items yet (left out: {dropped})")
            continue
        x = scores.to_numpy(dtype=float)
        bounded = unit_interval(x) and (base_scores is None or unit_interval(base_scores))
        if not bounded:
            notes.append(f"{task} {metric}: scores outside [0, 1]: the asymptotic normal-mixture sequence "
                         "(approximate at small n) is used")
        cs = _sequence(x, bounded, opts.method, alpha, base_scores)
        margin = _margin(opts, bounded) if base is not None else None
        lower = lower_is_better(task, metric, declared_in(df), opts.better)
        out.append(_result(task, metric, (labels[cand], labels[base] if base is not None else None), cs, bounded,
                           margin, dropped, 1.0 - alpha, lower))
    return out
