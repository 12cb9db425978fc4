"""What flipped between two runs (``compare --flips``): the items that went from right to wrong and
from wrong to right, or, for graded scores, the items whose score changed, worst first.

The pairing is the comparison's own: each run's usable rows (:func:`~evaladdon.table.usable.usable_rows`)
averaged over epochs per item, on the (task, metric, item) both runs have.  An item *flips* when its
per-item score differs: with 0/1 scores in both runs (one epoch, or every epoch agreeing) that is
right -> wrong (1 -> 0) or wrong -> right (0 -> 1), the discordant pairs n10 and n01 of McNemar's
table, so the counts here equal the comparison's; otherwise the per-item change d = B - A, the
largest drops first (NeMo Evaluator's ``nel compare`` flip report; Inspect has none).  Each flip
carries the item's id, cluster, both answers (the ``prediction`` column, the first usable epoch's;
in full where the route gives a lookup, as Inspect's table holds the whitespace-collapsed summary
form) and the first line of its input where the log has one (looked up by a callable the route gives).
No statistic is computed here: the flips are the evidence behind the paired test, not a test.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from evaladdon.table import run_labels
from evaladdon.table.usable import usable_rows

__all__ = ["Flip", "FlipSet", "FullAnswers", "find_flips", "RIGHT_TO_WRONG", "WRONG_TO_RIGHT", "DROP", "GAIN", "RISE", "FALL"]

RIGHT_TO_WRONG = "right->wrong"
WRONG_TO_RIGHT = "wrong->right"
DROP = "drop"
GAIN = "gain"
RISE = "rise"
FALL = "fall"
"""The kinds of a graded metric where a lower score is better: a rise is worse, a fall better."""

InputLines = Callable[[str, Iterable[str]], dict[str, str]]
"""``(source file, item ids) -> {item: first line of its input}``."""
FullAnswers = Callable[[str, str, dict[str, str]], dict[str, str]]
"""``(source file, metric, {item: answer as the table holds it}) -> {item: the answer in full}``
(a reader that keeps answers in a summary form, as Inspect's does, gives them back whole)."""


@dataclass(frozen=True)
class Flip:
    """One item whose score changed from run A to run B (``delta`` = score_b - score_a)."""

    item: str
    cluster: str | None
    kind: str
    score_a: float
    score_b: float
    delta: float
    answer_a: str | None
    answer_b: str | None
    input: str | None


@dataclass(frozen=True)
class FlipSet:
    """The flips of one comparison (a pair of runs on one task and metric), worst first.

    ``binary``: both runs' per-item scores are 0/1 (kinds right->wrong / wrong->right), else graded
    (drop / gain).  ``n_shared`` items were paired; ``n_worse``/``n_better`` of them got worse /
    better (for 0/1 scores McNemar's n10 and n01)."""

    task: str
    metric: str
    run_a: str
    run_b: str
    label_a: str
    label_b: str
    binary: bool
    n_shared: int
    n_worse: int
    n_better: int
    flips: tuple[Flip, ...]
    lower_is_better: bool = False
    """A lower score is better (:mod:`evaladdon.table.direction`): worse is a rise of the score."""

    def records(self) -> list[dict[str, Any]]:
        """One flat record per flip (JSON and ``export --flips``)."""
        head = {"record": "flip", "task": self.task, "metric": self.metric, "run_a": self.run_a,
                "run_b": self.run_b, "label_a": self.label_a, "label_b": self.label_b}
        return [dict(head, rank=k + 1, **asdict(f)) for k, f in enumerate(self.flips)]

    def summary(self) -> dict[str, Any]:
        """The counts, without the flips (JSON)."""
        return {"record": "flips", "task": self.task, "metric": self.metric, "run_a": self.run_a,
                "run_b": self.run_b, "label_a": self.label_a, "label_b": self.label_b, "binary": self.binary,
                "n_shared": self.n_shared, "n_worse": self.n_worse, "n_better": self.n_better,
                **({"lower_is_better": True} if self.lower_is_better else {})}


def _per_item(rows: pd.DataFrame) -> pd.DataFrame:
    """Usable rows averaged per item (order of first appearance), with the first usable row's
    cluster, answer and source."""
    good, _ = usable_rows(rows)
    answer = good["prediction"] if "prediction" in good else pd.Series(None, index=good.index, dtype=object)
    frame = pd.DataFrame({"item": good["item"].astype(str).to_numpy(), "value": good["value"].to_numpy(dtype=float),
                          "cluster": good["cluster"].to_numpy(dtype=object), "answer": answer.to_numpy(dtype=object),
                          "source": good["source"].astype(str).to_numpy()})
    g = frame.groupby("item", sort=False)
    out = g[["cluster", "answer", "source"]].first()  # first non-null of each (pandas' first)
    out["value"] = g["value"].mean()
    return out


def _text_or_none(values: np.ndarray) -> list[str | None]:
    return [None if v is None or (isinstance(v, float) and np.isnan(v)) else str(v) for v in values]


def _whole(answers: list[str | None], items: Sequence[str], sources: np.ndarray, metric: str,
           lookup: FullAnswers | None) -> list[str | None]:
    """``answers`` with each one the lookup finds in its item's source given in full."""
    if lookup is None:
        return answers
    found: dict[str, str] = {}
    for source in dict.fromkeys(sources.tolist()):  # one read per source file, not per flip
        shown = {i: a for i, a, s in zip(items, answers, sources, strict=True) if a is not None and s == source}
        found.update(lookup(str(source), metric, shown))
    return [found.get(i, a) for i, a in zip(items, answers, strict=True)]


def _one(rows_a: pd.DataFrame, rows_b: pd.DataFrame, head: dict[str, str], inputs: InputLines | None,
         answers: FullAnswers | None = None, lower: bool = False) -> FlipSet | None:
    ia, ib = _per_item(rows_a), _per_item(rows_b)
    shared = ia.index.intersection(ib.index, sort=False)
    if len(shared) == 0:
        return None
    a, b = ia.loc[shared], ib.loc[shared]
    va, vb = a["value"].to_numpy(), b["value"].to_numpy()
    binary = bool(np.isin(va, (0.0, 1.0)).all() and np.isin(vb, (0.0, 1.0)).all())
    delta = vb - va
    gain = -delta if lower else delta  # the change for the better (a fall where lower is better)
    changed = np.flatnonzero(delta != 0)
    # worst first: the largest change for the worse first, then for the better (stable: ties keep item order)
    order = changed[np.lexsort((np.arange(len(changed)), -np.abs(delta[changed]), gain[changed] > 0))]
    items = shared[order].astype(str)
    lines: dict[str, str] = {}
    if inputs is not None and len(items):
        lines = inputs(str(a["source"].iloc[0]), items)
        missing = [i for i in items if i not in lines]
        if missing:
            lines.update(inputs(str(b["source"].iloc[0]), missing))
    worse, better = (RIGHT_TO_WRONG, WRONG_TO_RIGHT) if binary else (RISE, FALL) if lower else (DROP, GAIN)
    cluster = a["cluster"].where(a["cluster"].notna(), b["cluster"]).to_numpy(dtype=object)[order]
    ids = [str(i) for i in items]
    said_a = _whole(_text_or_none(a["answer"].to_numpy(dtype=object)[order]), ids,
                    a["source"].to_numpy(dtype=object)[order], head["metric"], answers)
    said_b = _whole(_text_or_none(b["answer"].to_numpy(dtype=object)[order]), ids,
                    b["source"].to_numpy(dtype=object)[order], head["metric"], answers)
    flips = tuple(Flip(item=str(i), cluster=c, kind=worse if g < 0 else better, score_a=float(x), score_b=float(y),
                       delta=float(d), answer_a=p, answer_b=q, input=lines.get(str(i)))
                  for i, c, x, y, d, g, p, q in zip(items, _text_or_none(cluster), va[order], vb[order], delta[order],
                                                    gain[order], said_a, said_b, strict=True))
    return FlipSet(**head, binary=binary, n_shared=len(shared), n_worse=int((gain < 0).sum()),
                   n_better=int((gain > 0).sum()), flips=flips, lower_is_better=lower)


def find_flips(df: pd.DataFrame, pairs: Sequence[tuple[str, str]], metric: str | None = None,
               inputs: InputLines | None = None, answers: FullAnswers | None = None,
               better: str | None = None) -> list[FlipSet]:
    """The :class:`FlipSet` of every pair of runs on every (task, metric) both have (pairs and
    keys in the order the comparisons come); ``inputs`` looks up the first lines of the flipped
    items' inputs (None: none shown), ``answers`` their answers in full where the table holds a
    summary form (None: the table's answers).  Worse and better follow each metric's direction
    (:func:`evaladdon.table.direction.lower_is_better` of the table's declarations and ``better``)."""
    from evaladdon.table.direction import declared_in, lower_is_better

    labels = run_labels(df)
    declared = declared_in(df)
    if metric is not None:
        df = df[df["metric"] == metric]
    groups = {key: rows for key, rows in df.groupby(["run", "task", "metric"], sort=False)}
    out: list[FlipSet] = []
    for run_a, run_b in pairs:
        for (run, task, met), rows_a in groups.items():
            rows_b = groups.get((run_b, task, met)) if run == run_a else None
            if rows_b is None:
                continue
            head = {"task": str(task), "metric": str(met), "run_a": str(run_a), "run_b": str(run_b),
                    "label_a": labels.get(run_a, str(run_a)), "label_b": labels.get(run_b, str(run_b))}
            found = _one(rows_a, rows_b, head, inputs, answers, lower_is_better(str(task), str(met), declared, better))
            if found is not None:
                out.append(found)
    return out
