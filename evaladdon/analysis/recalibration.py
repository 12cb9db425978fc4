"""Recalibration fitted on validation rows, judged on test rows: ``metrics --recalibrate METHOD
--validation RUN_OR_SPLIT``.

The rows are split as for thresholds (:func:`evaladdon.analysis.decisions.split_validation`; the
same refusal when validation and test rows hold the same items).  Per test (run, task, scorer)
group the forecast is the ``score`` against a 0/1 ``label`` when present, else the
``confidence`` against the correctness of the prediction (top-label calibration).  The map
(:func:`evaladdon.stats.families.recalibrate.fit_recalibration`: temperature, Platt or
isotonic) is fitted on the validation rows of the same task and scorer only, then applied to
the test rows; the calibration metrics (ECE, Brier, NLL ...) before and after are computed on
the test rows, and their paired differences (after - before, the same cluster weights for both)
with intervals (:func:`evaladdon.stats.families.calibration.compare_calibration`).

lm-eval multiple choice: the rows carry every choice's log-likelihood (``choice_lls``), so the
temperature is Guo et al.'s exact K-choice one, fitted on the validation rows' gold choices and
applied to the test rows' softmax (:mod:`evaladdon.analysis.choice_temperature`; said in a note).
Where those are missing (a table without the column, validation rows without a gold index) it
is fitted to the logit of the top-label ``confidence`` against correctness: Guo et al.'s
temperature exactly for two choices, the top-label (one-vs-rest) version for more (a note says
so, and why).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from evaladdon.analysis.choice_temperature import ChoiceFit, choice_temperature
from evaladdon.analysis.decisions import SharedItems, _refuse_shared, _validation_for, split_validation
from evaladdon.analysis.metrics import _binary_labels, _correct, _units, with_optional_columns
from evaladdon.errors import EvalAddonError
from evaladdon.stats.families.calibration import CalibrationResult, calibration_metrics, compare_calibration
from evaladdon.stats.families.estimates import PairedMetric
from evaladdon.stats.families.recalibrate import fit_recalibration
from evaladdon.table import run_labels
from evaladdon.table.usable import usable_rows

__all__ = ["RecalibrationResult", "recalibrate"]

SHOWN = ("ece", "ece_equal_mass", "ece_sq_debiased", "brier", "nll")
"""The metrics of the before/after table (every calibration metric is in --json)."""


@dataclass
class RecalibrationResult:
    run: str
    label: str
    task: str
    metric: str
    forecast: str
    fit: str
    params: dict[str, Any]
    before: CalibrationResult
    after: CalibrationResult
    change: list[PairedMetric]
    validation: dict[str, Any]
    dropped: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def flat(self) -> dict[str, Any]:
        return {"run": self.run, "label": self.label, "task": self.task, "metric": self.metric,
                "forecast": self.forecast, "fit": self.fit, "params": self.params, "validation": self.validation,
                "before": {e.name: e.to_dict() for e in self.before.metrics},
                "after": {e.name: e.to_dict() for e in self.after.metrics},
                "change": {c.name: c.to_dict() for c in self.change},
                "reliability_before": [b.to_dict() for b in self.before.bins],
                "reliability_after": [b.to_dict() for b in self.after.bins],
                "n_dropped": int(sum(self.dropped.values())), "dropped": dict(self.dropped), "notes": list(self.notes)}


def _forecasts(rows: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray, np.ndarray, str, dict[str, int]]:
    """Usable rows with a forecast and an outcome: (rows, forecasts, outcomes, kind, dropped)."""
    good, dropped = usable_rows(rows)
    dropped = dict(dropped)
    cols: tuple[str, ...]
    if "score" in good and "label" in good and good["score"].notna().any():
        ok = (good["score"].notna() & good["label"].notna()).to_numpy()
        kind, cols = "score (probability of label 1) vs label", ("score", "label")
    elif "confidence" in good and good["confidence"].notna().any():
        ok = good["confidence"].notna().to_numpy()
        kind, cols = "confidence of the prediction vs its correctness", ("confidence",)
    else:
        raise EvalAddonError("needs 'score' with 0/1 'label', or 'confidence' with the correctness of the prediction")
    if (~ok).any():
        dropped[f"no {' or '.join(cols)}"] = int((~ok).sum())
    good = good.loc[ok]
    if good.empty:
        raise EvalAddonError(f"no row has {' and '.join(cols)}")
    if cols[0] == "score":
        outcome = _binary_labels(good["label"])
        f = good["score"].to_numpy(dtype=float)
    else:
        outcome = _correct(good)
        f = good["confidence"].to_numpy(dtype=float)
    if outcome is None:
        raise EvalAddonError("needs 0/1 outcomes (binary labels, or prediction and label / 0/1 values)")
    return good, f, outcome, kind, dropped


def recalibrate(df: pd.DataFrame, method: str, validation: str, *, level: float = 0.95, n_boot: int = 2000,
                seed: int | None = 0, notes: list[str] | None = None) -> list[RecalibrationResult]:
    """One :class:`RecalibrationResult` per test (run, task, scorer) group (module doc)."""
    df = with_optional_columns(df)
    val, test, how = split_validation(df, validation)
    labels = run_labels(df)
    out = []
    for (run, task, scorer), g in test.groupby(["run", "task", "metric"], sort=False):
        where = f"{labels.get(str(run), run)} / {task} / {scorer}"
        v = _validation_for(val, str(run), str(task), str(scorer), how.endswith("of the same run"))
        try:
            if v.empty:
                raise EvalAddonError(f"no validation rows ({how}) of this task and scorer")
            res = _one(g, v, method, how, where, level, n_boot, seed)
        except SharedItems:
            raise
        except (ValueError, EvalAddonError) as exc:
            if notes is not None:
                notes.append(f"{where}: recalibration not computed: {exc}")
            continue
        res.run, res.label, res.task, res.metric = str(run), labels.get(str(run), str(run)), str(task), str(scorer)
        out.append(res)
    if not out:
        raise EvalAddonError("no group could be recalibrated" + (f" ({notes[-1]})" if notes else ""))
    return out


def _one(g: pd.DataFrame, v: pd.DataFrame, method: str, how: str, where: str, level: float, n_boot: int,
         seed: int | None) -> RecalibrationResult:
    rows, f, o, kind, dropped = _forecasts(g)
    v_rows, vf, vo, v_kind, v_dropped = _forecasts(v)
    if v_kind != kind:
        raise EvalAddonError(f"the validation rows have {v_kind}, the test rows {kind}")
    _refuse_shared(v_rows, rows, where)
    k_fit = choice_temperature(rows, v_rows) if method == "temperature" and kind.startswith("confidence") else None
    if isinstance(k_fit, ChoiceFit):  # lm-eval multiple choice: the exact K-choice temperature
        fit, after = k_fit.fit, k_fit.after
    else:
        fit = fit_recalibration(vf, vo, method)  # validation rows only
        after = fit.apply(f)
    units, _ = _units(rows)
    kw: dict[str, Any] = {"level": level, "n_boot": n_boot, "seed": seed}
    before_r = calibration_metrics(f, o, units, **kw)
    after_r = calibration_metrics(after, o, units, **kw)
    change = compare_calibration(f, o, after, o, units, **kw)
    notes = [f"after recalibration: {n}" for n in after_r.notes if "clipped" in n]
    if isinstance(k_fit, ChoiceFit):
        notes.append(k_fit.note)
    elif method == "temperature" and kind.startswith("confidence") and (rows["harness"] == "lm_eval").any():
        why = f" ({k_fit})" if isinstance(k_fit, str) else ""
        notes.append("lm-eval multiple choice: temperature fitted to the top-label softmax confidence of the "
                     "choices' log-likelihoods (Guo et al.'s temperature exactly for two choices, top-label for "
                     f"more){why}")
    params: dict[str, Any] = {"method": fit.method, "params": list(fit.params), "n_fit": fit.n_fit}
    if isinstance(k_fit, ChoiceFit):
        params.update(fitted_on="choice log-likelihoods (K-choice softmax)", choice_nll=k_fit.nll)
    validation = {"rows": how, "n_rows": int(len(v_rows)), "n_items": int(v_rows["item"].nunique()),
                  "dropped": v_dropped}
    return RecalibrationResult(run="", label="", task="", metric="", forecast=kind, fit=fit.describe(), params=params,
                               before=before_r, after=after_r, change=change, validation=validation,
                               dropped=dropped, notes=notes)
