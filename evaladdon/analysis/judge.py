"""LLM-judge correction of each run's 0/1 verdicts against human labels on shared items.

Per (run, task, metric): the judge's agreement with the labels (sensitivity, specificity with
intervals, kappa), then the corrected rate by ``method`` -- Rogan–Gladen (delta-method or
bootstrap interval) or prediction-powered inference (PPI, PPI++) -- from
:mod:`evaladdon.stats.judge`, whose tests hold the oracles.  One record a group, the JSON
record of ``evaladdon judge --json``; nothing printed here."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from evaladdon.errors import EvalAddonError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["correct_judge"]


def correct_judge(df: pd.DataFrame, labels: pd.Series, method: str, *, metric: str | None = None,
                  level: float = 0.95, seed: int | None = 0) -> list[dict[str, Any]]:
    """One record per (run, task, metric) of ``df`` (``metric``: that one only), ``labels`` the
    human labels by item id.  A run with epochs, non-0/1 verdicts or fewer than two labelled
    items is an error naming the group."""
    import numpy as np
    import pandas as pd

    from evaladdon.stats import judge_agreement, ppi_mean, rogan_gladen, rogan_gladen_bootstrap
    from evaladdon.table.usable import usable_rows
    from evaladdon.table import run_labels

    if metric is not None:
        df = df[df["metric"] == metric]
    results = []
    names = run_labels(df)
    for (run, task, metric_name), group in df.groupby(["run", "task", "metric"], sort=False):
        where = f"run {run!r}, task {task!r}, metric {metric_name!r}"
        good, dropped = usable_rows(group)
        if good["epoch"].max() > 1:
            raise EvalAddonError(f"{where}: judge correction needs one verdict per item; this run has epochs")
        verdicts = pd.Series(good["value"].to_numpy(), index=good["item"].to_numpy())
        if not np.all(np.isin(verdicts.to_numpy(), [0.0, 1.0])):
            raise EvalAddonError(f"{where}: judge verdicts must be 0/1")
        shared = verdicts.index.intersection(labels.index)
        if len(shared) < 2:
            raise EvalAddonError(f"{where}: only {len(shared)} labelled item(s) are in this run")
        try:
            agr = judge_agreement(verdicts.loc[shared].to_numpy(), labels.loc[shared].to_numpy(), level)
            q, n = float(verdicts.mean()), int(verdicts.size)
            if method == "rogan-gladen":
                corr = rogan_gladen(q, agr.sensitivity, agr.specificity, n_observed=n, n_pos=agr.n_pos,
                                    n_neg=agr.n_neg, level=level)
                est, se, lo, hi, notes = corr.estimate, corr.se, corr.ci_low, corr.ci_high, list(corr.notes)
            elif method == "rogan-gladen-bootstrap":
                corr = rogan_gladen_bootstrap(q, n, agr, level=level, seed=seed)
                est, se, lo, hi, notes = corr.estimate, corr.se, corr.ci_low, corr.ci_high, list(corr.notes)
            else:
                unlabelled = verdicts.drop(shared)
                ppi = ppi_mean(labels.loc[shared].to_numpy(), verdicts.loc[shared].to_numpy(),
                               unlabelled.to_numpy(), tuned=method == "ppi++", level=level)
                est, se, lo, hi, notes = ppi.estimate, ppi.se, ppi.ci_low, ppi.ci_high, [f"lambda = {ppi.lam:.3f}"]
        except ValueError as exc:
            raise EvalAddonError(f"{where}: {exc}") from None
        results.append({
            "run": run, "label": names[str(run)], "task": task, "metric": metric_name, "method": method,
            "n": n, "n_labelled": agr.n_labelled, "n_pos": agr.n_pos, "n_neg": agr.n_neg,
            "sensitivity": agr.sensitivity, "sensitivity_ci": [agr.sensitivity_low, agr.sensitivity_high],
            "specificity": agr.specificity, "specificity_ci": [agr.specificity_low, agr.specificity_high],
            "agreement": agr.agreement, "kappa": agr.kappa,
            "observed": q, "corrected": est, "se": se, "ci_low": lo, "ci_high": hi, "level": level,
            "n_dropped": int(sum(dropped.values())), "dropped": dropped, "notes": notes,
        })
    return results
