"""From scores to decisions: ``metrics --threshold RULE --validation RUN_OR_SPLIT [--prevalence P]``.

The rows are split once into *validation* and *test* rows (:func:`split_validation`):

- ``--validation RUN`` (a run's label, id, model, file or prefix, as ``--baseline``): that run's
  rows are the validation rows, every other run's rows are test rows;
- ``--validation FIELD=VALUE`` (a column of the table, ``meta.`` optional): the rows whose field
  equals VALUE are validation rows, the others test rows, within each run.

Per test (run, task, scorer) group, the validation rows of the same task and scorer (of the same
scorer when the validation rows hold one task) choose the threshold
(:func:`evaladdon.stats.families.threshold.choose_threshold`); the test rows are then scored at
it (:func:`~evaladdon.stats.families.threshold.evaluate_threshold`).  The two must be different
items: a threshold tuned on the test items is not tested on them, so any item (its
``item_hash`` where both sides log one, else its id) on both sides is refused, naming how many.

Without ``--threshold``, ``--prevalence`` reads binary 0/1 ``prediction`` and ``label`` (a
detector's own decisions) and reports its precision and F1 at that base rate.

Rows left out are counted by reason for the validation and the test side; the unit of the
intervals is the cluster, else the item (:func:`evaladdon.analysis.metrics._units`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from evaladdon.analysis.metrics import _binary_labels, _units, with_optional_columns
from evaladdon.errors import EvalAddonError
from evaladdon.stats.families.estimates import MetricEstimate
from evaladdon.stats.families.threshold import ThresholdRule, choose_threshold, evaluate_threshold
from evaladdon.table import run_labels
from evaladdon.table.usable import usable_rows

__all__ = ["DecisionOptions", "DecisionResult", "decide", "split_validation"]

GIVEN = "given predictions (positive class 1)"


class SharedItems(EvalAddonError):
    """The validation and test rows hold the same items: refused, never a note."""


@dataclass(frozen=True)
class DecisionOptions:
    """What ``metrics --threshold/--validation/--prevalence`` asked for."""

    rule: ThresholdRule | None = None
    validation: str | None = None
    prevalence: float | None = None
    level: float = 0.95


@dataclass
class DecisionResult:
    """One test (run, task, scorer) group at the chosen threshold."""

    run: str
    label: str
    task: str
    metric: str
    rule: str
    threshold: float | None
    counts: dict[str, int]
    estimates: list[MetricEstimate]
    validation: dict[str, Any] | None = None
    dropped: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def flat(self) -> dict[str, Any]:
        """The JSON record (``metrics --threshold ... --json``)."""
        return {"run": self.run, "label": self.label, "task": self.task, "metric": self.metric, "rule": self.rule,
                "threshold": self.threshold if self.threshold is None or math.isfinite(self.threshold) else "inf",
                "confusion": dict(self.counts),
                "metrics": {e.name: e.to_dict() for e in self.estimates}, "validation": self.validation,
                "n_dropped": int(sum(self.dropped.values())), "dropped": dict(self.dropped), "notes": list(self.notes)}


def split_validation(df: pd.DataFrame, spec: str) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """``(validation rows, test rows, how)`` of ``--validation spec`` (module doc)."""
    name, eq, value = spec.partition("=")
    column = next((c for c in (name.strip(), f"meta.{name.strip()}") if eq and c in df.columns), None)
    if column is not None:
        val = (df[column].astype(str).str.strip() == value.strip()).to_numpy() & df[column].notna().to_numpy()
        how = f"rows with {column} = {value.strip()}"
    else:
        from evaladdon.table.names import resolve_run_in

        run = resolve_run_in(df, spec, "--validation")
        val = (df["run"] == run).to_numpy()
        how = f"run {run_labels(df).get(run, run)}"
    if column is not None:  # within each run: a validation run of another model would be another detector
        how += " of the same run"
    if not val.any():
        raise EvalAddonError(f"--validation {spec}: no row is a validation row")
    if val.all():
        raise EvalAddonError(f"--validation {spec}: every row is a validation row; no test rows are left")
    return df.loc[val], df.loc[~val], how


def _scored(rows: pd.DataFrame, given: bool) -> tuple[pd.DataFrame, np.ndarray, np.ndarray, dict[str, int]]:
    """Usable rows with a score (or a 0/1 prediction) and a 0/1 label: rows, scores, labels, dropped."""
    good, dropped = usable_rows(rows)
    dropped = dict(dropped)
    cols = ("prediction", "label") if given else ("score", "label")
    ok = np.ones(len(good), dtype=bool)
    for c in cols:
        bad = ~good[c].notna().to_numpy() if c in good else np.ones(len(good), dtype=bool)
        if (bad & ok).any():
            dropped[f"no {c}"] = int((bad & ok).sum())
        ok &= ~bad
    good = good.loc[ok]
    y = _binary_labels(good["label"]) if len(good) else np.empty(0)
    s = _binary_labels(good["prediction"]) if given and len(good) else (
        good["score"].to_numpy(dtype=float) if len(good) else np.empty(0))
    if y is None or s is None:
        what = "label and prediction" if given else "label"
        raise EvalAddonError(f"needs binary 0/1 {what} values (found other values)")
    return good, s, y, dropped


def _item_keys(rows: pd.DataFrame, other: pd.DataFrame) -> tuple[pd.Series, pd.Series, str]:
    both_hash = all("item_hash" in x and x["item_hash"].notna().all() for x in (rows, other))
    col = "item_hash" if both_hash else "item"
    return rows[col].astype(str), other[col].astype(str), col


def _refuse_shared(val: pd.DataFrame, test: pd.DataFrame, where: str) -> None:
    kv, kt, col = _item_keys(val, test)
    shared = pd.Index(kv.unique()).intersection(pd.Index(kt.unique()))
    if len(shared):
        raise SharedItems(
            f"{where}: the validation and test rows share {len(shared)} of {kt.nunique()} item(s) (by {col}, "
            f"e.g. {shared[0]!r}): a threshold or calibration fitted on the test items is not tested on them; "
            "give --validation rows of other items")


def _validation_for(val: pd.DataFrame, run: str, task: str, scorer: str, same_run: bool) -> pd.DataFrame:
    if same_run:
        val = val[val["run"] == run]
    same = val[(val["task"] == task) & (val["metric"] == scorer)]
    if same.empty and val["task"].nunique() == 1:
        same = val[val["metric"] == scorer]
    return same


def decide(df: pd.DataFrame, options: DecisionOptions, notes: list[str] | None = None) -> list[DecisionResult]:
    """One :class:`DecisionResult` per test (run, task, scorer) group (module doc)."""
    df = with_optional_columns(df)
    given = options.rule is None
    if given:
        val, test, how = df.iloc[:0], df, ""
    else:
        if options.validation is None:
            raise EvalAddonError("--threshold needs --validation RUN_OR_SPLIT: a threshold chosen on the test rows "
                                 "is not tested by them")
        val, test, how = split_validation(df, options.validation)
    labels = run_labels(df)
    out = []
    for (run, task, scorer), g in test.groupby(["run", "task", "metric"], sort=False):
        where = f"{labels.get(str(run), run)} / {task} / {scorer}"
        try:
            res = _one(g, val, options, how, where)
        except SharedItems:
            raise
        except (ValueError, EvalAddonError) as exc:
            if notes is not None:
                notes.append(f"{where}: not computed: {exc}")
            continue
        res.run, res.label, res.task, res.metric = str(run), labels.get(str(run), str(run)), str(task), str(scorer)
        out.append(res)
    if not out:
        detail = f" ({notes[-1]})" if notes else ""
        raise EvalAddonError(f"no group has the inputs for a decision{detail}")
    return out


def _one(g: pd.DataFrame, val_all: pd.DataFrame, options: DecisionOptions, how: str, where: str) -> DecisionResult:
    given = options.rule is None
    rows, s, y, dropped = _scored(g, given)
    if rows.empty:
        raise EvalAddonError("no test row has a " + ("0/1 prediction and label" if given else "score and a label"))
    units, _kind = _units(rows)
    notes: list[str] = []
    validation = None
    rule = options.rule
    if rule is None:
        threshold = 1.0
    else:
        v_rows = _validation_for(val_all, str(g["run"].iloc[0]), str(g["task"].iloc[0]), str(g["metric"].iloc[0]),
                                 how.endswith("of the same run"))
        if v_rows.empty:
            raise EvalAddonError(f"no validation rows ({how}) of this task and scorer")
        v_rows, vs, vy, v_dropped = _scored(v_rows, False)
        _refuse_shared(v_rows, rows, where)
        choice = choose_threshold(vs, vy, rule)
        threshold = choice.threshold
        validation = {"rows": how, "n_rows": int(len(v_rows)), "n_items": int(v_rows["item"].nunique()),
                      "n_positive": choice.n_positive, "n_negative": choice.n_negative, "tpr": choice.tpr,
                      "fpr": choice.fpr, "precision": choice.precision, "dropped": v_dropped}
        if not math.isfinite(threshold):
            notes.append("the rule flags nothing on the validation rows (threshold +inf)")
    ev = evaluate_threshold(s, y, threshold, units, fp_cost=rule.fp_cost if rule else 1.0,
                            fn_cost=rule.fn_cost if rule else 1.0, prevalence=options.prevalence,
                            level=options.level)
    return DecisionResult(run="", label="", task="", metric="", rule=rule.describe() if rule else GIVEN,
                          threshold=threshold if rule else None, counts=ev.counts, estimates=list(ev.metrics),
                          validation=validation, dropped=dropped, notes=notes + list(ev.notes))
