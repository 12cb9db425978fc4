"""An Inspect early-stopping manager with a statistical guarantee: ``evaladdon.inspect_ai.sequential_stop``.

``Task(..., early_stopping=sequential_stop(width=0.1))`` (or ``eval(..., early_stopping=...)``):
Inspect calls :meth:`SequentialStop.schedule_sample` before each sample and
:meth:`SequentialStop.complete_sample` after it (``inspect_ai.util.EarlyStopping``).  Each completed
item (with all its epochs) updates a confidence sequence of the task's score in O(1)
(:class:`evaladdon.stats.RunningSequence`; betting CS by default, O(grid)), and once a rule holds
every later sample is stopped:

(a) ``width``: the interval of the score is at most ``width`` wide;
(b) ``baseline``: against a finished baseline log, the interval of the paired difference
    ``delta = this run - baseline`` (per item, rescaled from [-1, 1] to [0, 1]) lies above
    ``+margin`` (``improvement``), below ``-margin`` (``regression``), or inside
    ``[-band, +band]`` (``equivalent``); for a score where lower is better (``better="lower"``,
    or a scorer with a built-in lower-is-better name such as ``perplexity``:
    :func:`evaladdon.table.direction.lower_is_better`) the two are mirrored: below ``-margin`` is
    the improvement, above ``+margin`` the regression (as ``compare --sequential``);
(c) ``budget``: this many items have been admitted (new items are stopped; admitted ones run all
    their epochs: the samples spent are ``budget x epochs``).

Because the interval is a confidence sequence (P(the truth ever leaves it) <= alpha), stopping at
the first t where (a) or (b) holds keeps the decision's error <= alpha.  The reason, the rule and
the interval at the stop go into the log's ``results.early_stopping.metadata``
(:meth:`SequentialStop.complete_task`).

Epochs: Inspect runs epoch by epoch (every sample's epoch 1, then epoch 2 ...), so with K epochs
an item is complete only in the last pass: the stop then saves samples of that pass only.
Clusters (``cluster="FIELD"``, a sample metadata field): the unit of the sequence is the cluster
-- a cluster enters when every one of its items has all its epochs, with the mean of its items'
scores -- so the interval is of the mean of cluster means (the item mean when clusters are of
equal size) and holds for dependent items within a cluster; order the dataset by cluster for the
stop to save anything.  Scores must lie in ``[lo, hi]`` (default [0, 1]).
"""

from __future__ import annotations

import math
import numbers
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from inspect_ai.scorer import ValueToFloat, value_to_float
from inspect_ai.util import EarlyStop

from evaladdon.stats.sequential.decide import UNDECIDED, decisions
from evaladdon.stats.sequential.stream import RunningSequence
from evaladdon.table.direction import BETTER, lower_is_better
from evaladdon.table.names import dotted

if TYPE_CHECKING:  # pragma: no cover
    from inspect_ai.dataset import Sample
    from inspect_ai.log import EvalSpec
    from inspect_ai.scorer import SampleScore

__all__ = ["MANAGER", "SequentialStop", "sequential_stop"]

MANAGER = "evaladdon/sequential_stop"


def _finite(x: Any) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and math.isfinite(x)


def _check_numbers(**given: Any) -> None:
    """Refuse at construction, in one message naming the argument, what would make the sequence
    meaningless later (alpha outside (0, 1), a negative width, margin or band, a budget that is not
    a whole number >= 1, bounds that are not finite with lo < hi) instead of failing or misleading
    mid-run."""
    optional = {k: v for k, v in given.items() if v is not None}
    bad = [k for k, v in optional.items() if not _finite(v)]
    bad += [k for k in ("width", "margin", "band") if k in optional and k not in bad and optional[k] < 0]
    bad += [k for k in ("width",) if k in optional and k not in bad and optional[k] == 0]
    if "budget" in optional and "budget" not in bad and (optional["budget"] < 1
                                                           or optional["budget"] != int(optional["budget"])):
        bad.append("budget")
    if "alpha" not in bad and not 0 < given["alpha"] < 1:
        bad.append("alpha")
    if not {"lo", "hi"} & set(bad) and not given["lo"] < given["hi"]:
        bad.append("lo/hi")
    if bad:
        raise ValueError("sequential_stop: " + "; ".join(f"{k} = {given.get(k, (given['lo'], given['hi']))!r}"
                                                         for k in bad)
                         + " (alpha in (0, 1); width > 0; margin, band >= 0; budget a whole number >= 1; "
                         "finite lo < hi)")


class SequentialStop:
    """The early-stopping manager (module doc); build it with :func:`sequential_stop`."""

    def __init__(self, width: float | None = None, baseline: str | None = None, margin: float = 0.0,
                 band: float | None = None, budget: int | None = None, scorer: str | None = None,
                 alpha: float = 0.05, method: str = "betting", cluster: str | None = None, lo: float = 0.0,
                 hi: float = 1.0, to_float: ValueToFloat = value_to_float(), better: str | None = None) -> None:
        if width is None and baseline is None and budget is None:
            raise ValueError("sequential_stop needs a rule: width=, baseline= (with margin=/band=) or budget=")
        if method not in ("betting", "bernstein"):
            raise ValueError(f"method must be betting or bernstein, got {method!r}")
        if better is not None and better not in BETTER:
            raise ValueError(f"better must be higher or lower, got {better!r}")
        _check_numbers(width=width, margin=margin, band=band, budget=budget, alpha=alpha, lo=lo, hi=hi)
        self.width, self.baseline_path, self.margin, self.band, self.budget = width, baseline, margin, band, budget
        self.scorer, self.alpha, self.method, self.cluster = scorer, alpha, method, cluster
        self.lo, self.hi, self.to_float, self.better = lo, hi, to_float, better
        self.lower: bool | None = None  # lower is better: decided by the scorer's name at its first score
        self.epochs = 1
        self.unit_of: dict[str, str] = {}
        self.unit_size: dict[str, int] = {}
        self.base: dict[str, float] = {}
        self.values: dict[str, list[float]] = defaultdict(list)
        self.unit_done: dict[str, list[float]] = defaultdict(list)
        self.admitted: set[str] = set()
        self.sequence: RunningSequence | None = None
        self.stop: dict[str, Any] | None = None
        self.left_out: dict[str, int] = defaultdict(int)

    async def start_task(self, task: EvalSpec, samples: list[Sample], epochs: int) -> str:
        self.epochs = max(int(epochs), 1)
        span = self.hi - self.lo
        if self.baseline_path is not None:
            from evaladdon.integrations.inspect_plugin import _baseline_item_means

            self.base, _ = _baseline_item_means(self.baseline_path, self.scorer, self.scorer)
            self.sequence = RunningSequence(self.method, self.alpha, lo=-span, hi=span)
        else:
            self.sequence = RunningSequence(self.method, self.alpha, lo=self.lo, hi=self.hi)
        for s in samples:
            if self.baseline_path is not None and str(s.id) not in self.base:
                continue  # never enters: a cluster is complete without it
            unit = str(s.id)
            if self.cluster is not None:
                value = dotted(s.metadata or {}, self.cluster)
                unit = f"cluster:{value}" if value is not None else f"item:{s.id}"
            self.unit_of[str(s.id)] = unit
            self.unit_size[unit] = self.unit_size.get(unit, 0) + 1
        return MANAGER

    async def schedule_sample(self, id: str | int, epoch: int) -> EarlyStop | None:  # noqa: A002 - the protocol's name
        key = str(id)
        if self.stop is None and self.budget is not None and key not in self.admitted \
                and len(self.admitted) >= self.budget:
            self._stop("budget", f"budget of {self.budget} items spent")
        if self.stop is not None:
            if self.stop["rule"] == "budget" and key in self.admitted:
                return None  # an admitted item runs all its epochs
            return EarlyStop(id=id, epoch=epoch, reason=self.stop["reason"], metadata=self._interval())
        self.admitted.add(key)
        return None

    async def complete_sample(self, id: str | int, epoch: int, scores: dict[str, SampleScore]) -> None:  # noqa: A002
        value = self._value(scores)
        key = str(id)
        if value is None:
            self.left_out["unscored sample"] += 1
            return
        self.values[key].append(value)
        if len(self.values[key]) < self.epochs or self.stop is not None and self.stop["rule"] != "budget":
            return
        score = sum(self.values[key]) / len(self.values[key])
        if self.baseline_path is not None:
            if key not in self.base:
                self.left_out["item not in the baseline"] += 1
                return
            score -= self.base[key]
        unit = self.unit_of.get(key, key)
        self.unit_done[unit].append(score)
        if len(self.unit_done[unit]) == self.unit_size.get(unit, 1):
            self._update(sum(self.unit_done[unit]) / len(self.unit_done[unit]))

    def _value(self, scores: dict[str, SampleScore]) -> float | None:
        if not scores:
            return None
        name = self.scorer if self.scorer in scores else next(iter(scores))
        if self.lower is None:  # the one rule: the user's word, else the built-in names, else higher
            self.lower = lower_is_better("", name, None, self.better)
        try:
            value = float(self.to_float(scores[name].score.value))
        except (TypeError, ValueError):
            return None
        return value if math.isfinite(value) else None

    def _update(self, x: float) -> None:
        assert self.sequence is not None
        iv = self.sequence.update(x)
        if self.stop is not None:
            return
        if self.width is not None and iv.high - iv.low <= self.width:
            self._stop("width", f"interval {iv.high - iv.low:.4g} wide <= target {self.width:g}")
            return
        if self.baseline_path is not None:
            import numpy as np

            low, high = (-iv.high, -iv.low) if self.lower else (iv.low, iv.high)  # lower is better: mirrored
            dec = decisions(np.array([low]), np.array([high]), self.margin, improvement=True, band=self.band)[0]
            if dec != UNDECIDED:
                self._stop(str(dec), f"{dec}: paired difference {iv.low:+.4g} to {iv.high:+.4g}"
                                     f"{' (lower is better)' if self.lower else ''} "
                                     f"(margin {self.margin:g}{'' if self.band is None else f', band {self.band:g}'})")

    def _stop(self, rule: str, reason: str) -> None:
        self.stop = {"rule": rule, "reason": f"evaladdon: {reason}"}
        self.stop.update(self._interval())

    def _interval(self) -> dict[str, Any]:
        seq = self.sequence
        if seq is None or seq.t == 0:
            return {"units": 0}
        iv = seq.interval()
        return {"units": seq.t, "estimate": iv.estimate, "low": iv.low, "high": iv.high}

    async def complete_task(self) -> dict[str, Any]:
        seq = self.sequence
        out: dict[str, Any] = {
            "method": f"confidence sequence ({self.method})", "alpha": self.alpha,
            "guarantee": "P(the truth ever leaves the interval) <= alpha",
            "estimand": "paired difference (this run - baseline)" if self.baseline_path else "mean score",
            "unit": f"cluster ({self.cluster})" if self.cluster else "item", "epochs": self.epochs,
            "width": self.width, "margin": self.margin if self.baseline_path else None, "band": self.band,
            "budget": self.budget, "baseline": self.baseline_path, "lower_is_better": bool(self.lower),
            "stopped": self.stop is not None,
            "reason": self.stop["reason"] if self.stop else None, "rule": self.stop["rule"] if self.stop else None,
            "at_stop": {k: v for k, v in (self.stop or {}).items() if k not in ("reason", "rule")} or None,
            "final": self._interval(), "admitted_items": len(self.admitted), "left_out": dict(self.left_out),
        }
        if seq is None:
            out["final"] = {"units": 0}
        return out


def sequential_stop(width: float | None = None, baseline: str | None = None, margin: float = 0.0,
                    band: float | None = None, budget: int | None = None, scorer: str | None = None,
                    alpha: float = 0.05, method: str = "betting", cluster: str | None = None, lo: float = 0.0,
                    hi: float = 1.0, better: str | None = None) -> SequentialStop:
    """An ``inspect_ai.util.EarlyStopping`` manager that stops on a confidence sequence (module doc).
    ``better``: ``"higher"`` or ``"lower"``, which way the score is better (default: lower for the
    built-in lower-is-better names, else higher); it decides which side is the improvement."""
    return SequentialStop(width=width, baseline=baseline, margin=margin, band=band, budget=budget, scorer=scorer,
                          alpha=alpha, method=method, cluster=cluster, lo=lo, hi=hi, better=better)
