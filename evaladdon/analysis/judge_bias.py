"""Judge-bias diagnostics: does an LLM judge's verdict move with things that are not quality?

Per (task, metric) of judge-scored runs, one least-squares regression with robust SEs
(:func:`evaladdon.stats.robust_ols.robust_ols`: HC3, or CR1 when the rows have clusters) of

* **with human labels** (``labels``): the judge's *error*, verdict - human label (positive: the
  judge credits more than the humans), on an intercept and the answer's features.  A non-zero
  coefficient is a bias: the judge errs more for that kind of answer.
* **without labels**: the verdict on one intercept per run and the answer's features, so each
  feature's coefficient compares answers of the same run.  An association is then *not* proof of
  bias (longer answers may really be better); labels are what tell the two apart.

Features, from the logged answer (the canonical table's ``prediction``: Inspect's score ``answer``,
which for model-graded scorers is the model's output, as Inspect keeps it in summaries, cut at
1,024 characters):

* ``length``: log2 of the answer's characters + 1 -- the coefficient is the change per doubling;
* ``headers``, ``lists``, ``bold``: whether the answer has a markdown header (``# ``), a list item
  (``- ``, ``* ``, ``1. ``) or bold text (``**x**``);
* ``self-preference`` (with labels): the candidate model is of the judge's family (provider or
  model family from the logged names, :func:`model_family`; with several voting judges, the share
  of them of that family).  The judge is ``judge_model`` when given, else the grader the log names
  (the table's ``judge`` column: Inspect's model-graded scorers, promptfoo's and DeepEval's
  model-graded assertions and metrics).  Without labels it cannot be told from better answers
  and is not estimated.

Position bias needs pairwise verdicts (MT-bench, Arena): ``evaladdon rank`` reports it on pair
files.  The biases reported are one family: Holm-adjusted p-values (statsmodels
``multipletests(method="holm")`` is the oracle of :func:`evaladdon.stats.adjust_pvalues`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evaladdon.errors import EvalAddonError

import pandas as pd

__all__ = ["BiasReport", "judge_bias", "model_family"]

FEATURES = ("length", "headers", "lists", "bold")
_MARKDOWN = {"headers": r"(?m)^\s{0,3}#{1,6}\s", "lists": r"(?m)^\s*(?:[-*+]|\d+[.)])\s", "bold": r"\*\*[^*\n]+\*\*|__[^_\n]+__"}
_FAMILIES = (("openai", r"\b(gpt|o1|o3|o4|chatgpt|davinci)"), ("anthropic", r"claude"), ("google", r"gemini|gemma|palm"),
             ("meta", r"llama"), ("mistral", r"mistral|mixtral|codestral"), ("qwen", r"qwen"),
             ("deepseek", r"deepseek"), ("xai", r"grok"), ("cohere", r"command"))


def model_family(name: str) -> str:
    """A model's family from its logged name: a known family in the name, else the provider prefix."""
    low = name.lower()
    for fam, pattern in _FAMILIES:
        if re.search(pattern, low):
            return fam
    return low.split("/", 1)[0]


@dataclass(frozen=True)
class BiasReport:
    """One (task, metric): each bias's coefficient (``stats.robust_ols.Coefficient``) and its Holm p."""

    task: str
    metric: str
    outcome: str  # "judge error (verdict - human)" or "verdict"
    n_rows: int
    n_clusters: int | None
    biases: list[tuple[Any, float]]  # (Coefficient, Holm-adjusted p)
    notes: list[str] = field(default_factory=list)

    def flat(self) -> dict[str, Any]:
        return {"task": self.task, "metric": self.metric, "outcome": self.outcome, "n_rows": self.n_rows,
                "n_clusters": self.n_clusters, "notes": list(self.notes),
                "biases": [dict(c.to_dict(), p_holm=p) for c, p in self.biases]}


def _features(answers: pd.Series) -> dict[str, np.ndarray]:
    text = answers.fillna("").astype(str)
    out = {"length": np.log2(text.str.len().to_numpy(dtype=float) + 1.0)}
    for name, pattern in _MARKDOWN.items():
        out[name] = text.str.contains(pattern, regex=True).to_numpy(dtype=float)
    return out


def _logged_judges(rows: pd.DataFrame) -> pd.Series | None:
    """The logged grader of each row (the table's optional ``judge`` column), when every row has one."""
    if "judge" not in rows.columns or not rows["judge"].notna().all():
        return None
    return rows["judge"].astype(str)


def _same_family(rows: pd.DataFrame, judge_model: str | None) -> np.ndarray | None:
    """Per row, the share of its judges (one, or several voting: ``"a, b"``) of the candidate's family.

    The judge is ``judge_model`` when given, else the grader the log names (``judge`` column)."""
    judges = pd.Series(judge_model, index=rows.index) if judge_model is not None else _logged_judges(rows)
    if judges is None:
        return None
    # few distinct (judge, model) pairs: the family rule runs once per pair, not per row
    pairs = pd.DataFrame({"j": judges.astype(str).to_numpy(), "m": rows["model"].astype(str).to_numpy()})
    codes, uniq = pd.MultiIndex.from_frame(pairs).factorize()
    share = np.array([np.mean([model_family(j) == model_family(m) for j in js.split(", ")])
                      for js, m in uniq], dtype=float)
    return share[codes]


def _design(rows: pd.DataFrame, labelled: bool, judge_model: str | None,
            notes: list[str]) -> tuple[np.ndarray, list[str], list[str]]:
    """The regressors (intercepts first) and the names of the biases among them."""
    feats = _features(rows["prediction"])
    if labelled:
        cols, names = [np.ones(len(rows))], ["intercept"]
        same = _same_family(rows, judge_model)
        if same is not None:
            feats["self-preference"] = same
    else:
        runs = rows["run"].astype(str).to_numpy()
        levels = sorted(set(runs))
        cols = [(runs == r).astype(float) for r in levels]
        names = [f"run {r}" for r in levels]
        if judge_model is not None or _logged_judges(rows) is not None:
            notes.append("self-preference needs human labels (--labels): without them a judge's higher verdicts "
                         "for its own family cannot be told from better answers")
    biases = []
    for name, x in feats.items():
        if np.ptp(x) == 0:
            notes.append(f"{name}: no variation in these answers; not estimated")
            continue
        cols.append(x)
        names.append(name)
        biases.append(name)
    return np.column_stack(cols), names, biases


def _clusters(rows: pd.DataFrame) -> np.ndarray | None:
    """The rows' clusters; else their items when an item has several rows (epochs, several runs)."""
    if rows["cluster"].notna().all():
        return rows["cluster"].astype(str).to_numpy()
    items = rows["item"].astype(str)
    return items.to_numpy() if items.duplicated().any() else None


def _one(rows: pd.DataFrame, task: str, metric: str, labels: pd.Series | None, judge_model: str | None,
         level: float) -> BiasReport:
    from evaladdon.stats import adjust_pvalues
    from evaladdon.stats.robust_ols import robust_ols

    notes: list[str] = []
    y = rows["value"].to_numpy(dtype=float)
    outcome = "verdict"
    if labels is not None:
        y = y - labels.reindex(rows["item"].astype(str)).to_numpy(dtype=float)
        outcome = "judge error (verdict - human label)"
    X, names, biases = _design(rows, labels is not None, judge_model, notes)
    clusters = _clusters(rows)
    if len(rows) <= X.shape[1] + 1:
        raise EvalAddonError(f"task {task!r}, metric {metric!r}: {len(rows)} rows are too few for "
                             f"{X.shape[1]} regressors")
    coefs = {c.name: c for c in robust_ols(y, X, names, clusters, level)}
    found = [coefs[b] for b in biases]
    p: list[float] = (adjust_pvalues(np.array([c.p_value for c in found]), "holm", nan_policy="omit").tolist()
                      if found else [])
    n_clusters = len(set(clusters)) if clusters is not None else None
    return BiasReport(task, metric, outcome, len(rows), n_clusters, list(zip(found, map(float, p), strict=True)),
                      notes)


def judge_bias(df: pd.DataFrame, *, labels: pd.Series | None = None, judge_model: str | None = None,
               metric: str | None = None, level: float = 0.95) -> tuple[list[BiasReport], dict[str, int]]:
    """One :class:`BiasReport` per (task, metric) with logged answers, and the rows left out by reason."""
    from evaladdon.table.usable import usable_rows

    if "prediction" not in df.columns:
        raise EvalAddonError("these logs keep no answers (no prediction column): the judge's verdicts cannot be "
                             "related to the answers' length or format")
    if metric is not None:
        df = df[df["metric"] == metric]
    good, dropped = usable_rows(df)
    no_answer = good["prediction"].isna().to_numpy()
    if no_answer.any():
        dropped = {**dropped, "no logged answer": int(no_answer.sum())}
        good = good[~no_answer]
    if labels is not None:
        unlabelled = ~good["item"].astype(str).isin(labels.index).to_numpy()
        if unlabelled.any():
            dropped = {**dropped, "no human label": int(unlabelled.sum())}
            good = good[~unlabelled]
    if good.empty:
        raise EvalAddonError("no scored row with a logged answer" + (" and a human label" if labels is not None else ""))
    reports = [_one(rows, str(task), str(m), labels, judge_model, level)
               for (task, m), rows in good.groupby(["task", "metric"], sort=True)]
    return reports, dropped
