"""From a canonical table to every metric family its inputs support: the glue of ``evaladdon metrics``.

Per (run, task, metric) group of the table (the ``metric`` column names the scorer), with the
optional columns of :data:`evaladdon.table.OPTIONAL_COLUMNS`:

- classification (``accuracy`` ... ``kappa``): ``prediction`` and ``label``;
- ROC / PR (``roc_auc``, ``average_precision``): ``score`` and a 0/1 ``label``;
- calibration (``ece``, ``ece_equal_mass``, ``ece_sq_debiased``): ``confidence`` with the
  correctness of the prediction (``prediction == label``, else a 0/1 ``value``); ``brier`` and
  ``nll`` (with Brier's decomposition) from ``score`` and a 0/1 ``label`` when present, else from
  the confidence and the correctness (top-label);
- ``pass@K`` / ``pass^K``: 0/1 values over repeated epochs.

Classification needs *categorical* predictions.  An Inspect log's ``prediction`` is the
scorer's answer and ``label`` the sample's target, which are classes for a ``choice`` scorer but
free text for a judge (``model_graded_*``) and a number per item for a maths task; so for Inspect
rows (other than a choice scorer's) the answers count as classes only when there are few distinct
values (at most ``max_classes``, and one per ``rows_per_class`` rows), at least half the answers
are among the targets, and ``answer == target`` agrees with the scorer's 0/1 verdicts on at least
``min_agreement`` of the rows (:func:`categorical_reason`).  A long table's columns and
lm-eval's multiple-choice answers are declared label sets.  Classes are compared with surrounding
whitespace removed (Inspect's targets often carry a leading space).

Where a family's inputs are missing, the group's ``missing`` says which field is missing;
nothing is filled in.  Rows without a value (errors) are left out and counted by reason, as
in ``summarize``; rows without the family's inputs are counted per family.  The independent
unit is the ``cluster`` column when filled (``--cluster``), else the item (all its epochs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pandas as pd

from evaladdon.errors import EvalAddonError
from evaladdon.stats.families.calibration import CalibrationResult, calibration_metrics, compare_calibration
from evaladdon.stats.families.classification import classification_metrics, compare_classification
from evaladdon.stats.families.estimates import PairedMetric
from evaladdon.stats.families.estimates import MetricEstimate
from evaladdon.stats.families.passk import compare_pass_at_k, pass_at_k
from evaladdon.stats.families.roc import average_precision, compare_average_precision, compare_roc_auc, roc_auc
from evaladdon.table.usable import usable_rows
from evaladdon.stats.families.names import CALIBRATION_NAMES
from evaladdon.stats.families.names import PASSK as _PASSK
from evaladdon.stats.families.names import family_of  # noqa: F401 - re-exported (tests, older callers)
from evaladdon.stats.families.names import beta_of
from evaladdon.table import GROUP, run_labels
from evaladdon.table.direction import LOWER_IS_BETTER, named_lower  # noqa: F401 - LOWER_IS_BETTER: its old place

_BINARY = {"0": 0.0, "1": 1.0, "0.0": 0.0, "1.0": 1.0, "false": 0.0, "true": 1.0}


UNBOUNDED = frozenset({"nll"})
"""Metrics not on a [0, 1] scale: ``--margin`` is in their own units (``2pt`` is refused)."""


@dataclass
class GroupMetrics:
    """Every metric computed for one (run, task, metric) group, and why others are not."""

    run: str
    task: str
    metric: str
    label: str
    n_rows: int
    dropped: dict[str, int]
    estimates: list[MetricEstimate] = field(default_factory=list)
    missing: dict[str, str] = field(default_factory=dict)
    family_dropped: dict[str, dict[str, int]] = field(default_factory=dict)
    confusion: dict[str, Any] | None = None
    reliability: CalibrationResult | None = None

    def flat(self) -> dict[str, Any]:
        """The JSON record of ``evaladdon metrics --json``: metric names are keys."""
        return {
            "run": self.run,
            "label": self.label,
            "task": self.task,
            "metric": self.metric,
            "n_rows": self.n_rows,
            "n_dropped": int(sum(self.dropped.values())),
            "dropped": dict(self.dropped),
            "metrics": {e.name: e.to_dict() for e in self.estimates},
            "missing": dict(self.missing),
            "family_dropped": {k: dict(v) for k, v in self.family_dropped.items()},
            "confusion": self.confusion,
            "reliability": [b.to_dict() for b in self.reliability.bins] if self.reliability else None,
        }


def _column(df: pd.DataFrame, name: str) -> pd.Series | None:
    return df[name] if name in df.columns and df[name].notna().any() else None


def _binary_labels(labels: pd.Series) -> np.ndarray | None:
    mapped = labels.astype(str).str.strip().str.lower().map(_BINARY)
    return None if mapped.isna().any() else mapped.to_numpy(dtype=float)


def _units(g: pd.DataFrame) -> tuple[np.ndarray | None, str]:
    """Cluster of each row: the ``cluster`` column when filled, else the item when an item has
    several epochs, else None (each row independent)."""
    has = g["cluster"].notna()
    if has.all():
        return g["cluster"].to_numpy(), "cluster"
    if has.any():
        raise EvalAddonError(f"{int((~has).sum())} row(s) have no cluster id")
    if g["item"].duplicated().any():
        return g["item"].to_numpy(), "item"
    return None, "item"


def _item_level(estimates: Any, kind: str) -> list[Any]:
    """When items (with their epochs) were the resampled units, say so: no clusters."""
    if kind != "item":
        return list(estimates)
    from dataclasses import replace

    return [replace(e, n_clusters=None, method=e.method.replace("cluster bootstrap", "item bootstrap")
                    .replace("clustered DeLong (Obuchowski 1997)", "DeLong, epochs clustered within items"))
            for e in estimates]


def _need(g: pd.DataFrame, cols: tuple[str, ...]) -> tuple[pd.DataFrame | None, str | None, dict[str, int]]:
    """Rows with every column in ``cols``; or None and the missing field."""
    for c in cols:
        if _column(g, c) is None:
            return None, f"needs column '{c}' (not in this input)", {}
    ok = np.ones(len(g), dtype=bool)
    dropped: dict[str, int] = {}
    for c in cols:
        bad = g[c].isna().to_numpy()
        if bad.any():
            dropped[f"no {c}"] = int((bad & ok).sum())
        ok &= ~bad
    if not ok.any():
        return None, f"no row has all of {', '.join(cols)}", dropped
    return g.loc[ok], None, dropped


def categorical_reason(rows: pd.DataFrame, scorer: str, *, max_classes: int = 20, rows_per_class: int = 5,
                       min_agreement: float = 0.9) -> str | None:
    """Why the ``prediction``/``label`` of ``rows`` (one scorer's) are not classes, or None when
    they are (see the module doc); None too when a column is absent (the family says so)."""
    if "prediction" not in rows or "label" not in rows or "harness" not in rows:
        return None
    if not (rows["harness"] == "inspect").any() or scorer.split("/")[0] == "choice":
        return None  # a declared label set, or a choice scorer's letters
    pred, lab = rows["prediction"].astype(str), rows["label"].astype(str)
    targets = set(lab.unique())
    few = max(2, min(max_classes, len(rows) // rows_per_class))
    n_classes = len(targets | set(pred.unique()))
    shared = float(pred.isin(targets).mean())
    v = rows["value"].to_numpy(dtype=float)
    agree = float(((pred == lab).to_numpy() == (v == 1)).mean()) if np.all((v == 0) | (v == 1)) else 1.0
    if n_classes <= few and shared >= 0.5 and agree >= min_agreement:
        return None
    return (f"the answers are not classes: {pred.nunique()} distinct answers and {len(targets)} distinct targets "
            f"in {len(rows)} rows, {shared:.0%} of the answers among the targets, answer == target agrees with "
            f"the scorer's verdict on {agree:.0%} of the rows (needs a choice scorer, or at most {few} distinct "
            f"values shared by answers and targets that the scorer grades by equality)")


def _guard(group: GroupMetrics, family: str, fn: Callable[[], None]) -> None:
    try:
        fn()
    except (ValueError, EvalAddonError) as exc:
        group.missing[family] = f"not computed: {exc}"


def group_metrics(
    g: pd.DataFrame,
    out: GroupMetrics,
    *,
    level: float = 0.95,
    n_boot: int = 2000,
    seed: int | None = 0,
    method: str = "percentile",
    beta: float | None = None,
) -> GroupMetrics:
    """Fill ``out`` with every family the scored rows ``g`` support (see the module doc);
    ``beta`` adds F-beta beside F1."""
    kw: dict[str, Any] = {"level": level, "n_boot": n_boot, "seed": seed, "method": method}

    # classification
    rows, why, dropped = _need(g, ("prediction", "label"))
    if dropped:
        out.family_dropped["classification"] = dropped
    not_classes = None if rows is None else categorical_reason(rows, out.metric)
    if rows is None or not_classes is not None:
        out.missing["classification"] = str(why if rows is None else not_classes)
    else:
        def classify(rows: pd.DataFrame = rows) -> None:
            units, kind = _units(rows)
            r = classification_metrics(rows["label"].astype(str).to_numpy(), rows["prediction"].astype(str).to_numpy(),
                                       units, beta=beta, **kw)
            out.estimates.extend(_item_level(r.metrics, kind))
            out.confusion = {"labels": list(r.labels), "matrix": [list(x) for x in r.confusion]}

        _guard(out, "classification", classify)

    # ROC / PR
    rows, why, dropped = _need(g, ("score", "label"))
    if dropped:
        out.family_dropped["roc"] = dropped
    y = None if rows is None else _binary_labels(rows["label"])
    if rows is None:
        out.missing["roc"] = str(why)
    elif y is None:
        out.missing["roc"] = "needs binary 0/1 labels in 'label' (found other labels)"
    else:
        def roc() -> None:
            units, kind = _units(rows)
            s = rows["score"].to_numpy(dtype=float)
            out.estimates.extend(_item_level([roc_auc(s, y, units, level=level),
                                              average_precision(s, y, units, **kw)], kind))

        _guard(out, "roc", roc)

    # calibration
    _calibration(g, out, kw)

    # pass@k
    if g["item"].duplicated().any():
        v = g["value"].to_numpy()
        if np.all((v == 0) | (v == 1)):
            def passk() -> None:
                units, kind = _units(g)
                out.estimates.extend(pass_at_k(v, g["item"].to_numpy(), units if kind == "cluster" else None,
                                               level=level))

            _guard(out, "passk", passk)
        else:
            out.missing["passk"] = "needs 0/1 values (pass/fail per epoch)"
    else:
        out.missing["passk"] = "needs repeated epochs (every item has one)"
    return out


def _correct(rows: pd.DataFrame) -> np.ndarray | None:
    """Whether each prediction was right: ``prediction == label``, else a 0/1 ``value``."""
    if "prediction" in rows and "label" in rows and rows["prediction"].notna().all() and rows["label"].notna().all():
        return (rows["prediction"].astype(str).to_numpy() == rows["label"].astype(str).to_numpy()).astype(float)
    v = rows["value"].to_numpy()
    return v.astype(float) if np.all((v == 0) | (v == 1)) else None


def _calibration(g: pd.DataFrame, out: GroupMetrics, kw: dict[str, Any]) -> None:
    conf_rows, why_conf, dropped_conf = _need(g, ("confidence",))
    score_rows, why_score, dropped_score = _need(g, ("score", "label"))
    y = None if score_rows is None else _binary_labels(score_rows["label"])
    if dropped_conf or dropped_score:
        out.family_dropped["calibration"] = {**dropped_conf, **dropped_score}
    have_conf = conf_rows is not None and _correct(conf_rows) is not None
    have_score = score_rows is not None and y is not None
    if not have_conf and not have_score:
        out.missing["calibration"] = (f"{why_conf or 'needs 0/1 correctness (prediction and label, or 0/1 values)'}"
                                      f"; or 'score' with 0/1 'label'")
        return
    names_from_score = {"brier", "brier_reliability", "brier_resolution", "brier_uncertainty", "brier_within_bin",
                        "nll"}

    def run() -> None:
        chosen: list[MetricEstimate] = []
        if have_conf:
            assert conf_rows is not None
            units, kind = _units(conf_rows)
            correct = _correct(conf_rows)
            assert correct is not None  # (have_conf)
            r = calibration_metrics(conf_rows["confidence"].to_numpy(dtype=float), correct, units, **kw)
            out.reliability = r
            note = "forecast: confidence of the prediction; outcome: prediction correct; " + "; ".join(r.notes)
            for e in _item_level(r.metrics, kind):
                if not (have_score and e.name in names_from_score):
                    chosen.append(_with_note(e, note))
        if have_score:
            assert score_rows is not None and y is not None
            units, kind = _units(score_rows)
            r2 = calibration_metrics(score_rows["score"].to_numpy(dtype=float), y, units, **kw)
            if out.reliability is None:
                out.reliability = r2
            note = "forecast: score (probability of label 1); outcome: label; " + "; ".join(r2.notes)
            for e in _item_level(r2.metrics, kind):
                if e.name in names_from_score or not have_conf:
                    chosen.append(_with_note(e, note))
        order = {n: i for i, n in enumerate(CALIBRATION_NAMES)}
        out.estimates.extend(sorted(chosen, key=lambda e: order[e.name]))

    _guard(out, "calibration", run)


def _with_note(e: MetricEstimate, note: str) -> MetricEstimate:
    from dataclasses import replace

    return replace(e, notes=(note, *e.notes))


def with_optional_columns(df: pd.DataFrame) -> pd.DataFrame:
    """Use ``meta.prediction`` / ``meta.label`` / ``meta.confidence`` (kept by the long-table
    reader from columns it does not know) as the optional columns when those are absent."""
    renames = {f"meta.{c}": c for c in ("prediction", "label", "confidence") if c not in df and f"meta.{c}" in df}
    out = df.rename(columns=renames) if renames else df.copy()
    for c in ("confidence", "score"):
        if c in out and not pd.api.types.is_float_dtype(out[c]):
            out[c] = pd.to_numeric(out[c], errors="coerce")
    for c in ("prediction", "label"):
        if c in out:
            out[c] = _as_class_labels(out[c])
    return out


def _as_class_labels(s: pd.Series) -> pd.Series:
    """Classes as strings without surrounding whitespace; whole numbers read as floats (``1.0``)
    written as ``1`` so a numeric label column and a string prediction column name the same class
    the same way."""
    if pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s):
        v = s.to_numpy(dtype=float, na_value=np.nan)
        whole = np.isfinite(v) & (v == np.round(v))
        text = np.where(whole, np.round(np.nan_to_num(v)).astype(np.int64).astype(str), v.astype(str))
        return pd.Series(np.where(np.isnan(v), None, text), index=s.index, dtype=object)
    text = s.astype(str).str.strip().to_numpy(dtype=object)
    text[s.isna().to_numpy()] = None
    return pd.Series(text, index=s.index, dtype=object)


def has_metric_inputs(df: pd.DataFrame) -> bool:
    """Whether any family beyond the mean could apply (an optional column, or repeated epochs)."""
    df = with_optional_columns(df)
    if any(c in df and df[c].notna().any() for c in ("prediction", "confidence", "score")):
        return True
    return bool(df.duplicated(["run", "task", "metric", "item"]).any())


def compute_metrics(
    df: pd.DataFrame,
    *,
    metric: str | None = None,
    level: float = 0.95,
    n_boot: int = 2000,
    seed: int | None = 0,
    method: str = "percentile",
    notes: list[str] | None = None,
    beta: float | None = None,
) -> list[GroupMetrics]:
    """One :class:`GroupMetrics` per (run, task, metric) group of a canonical table (``beta``:
    F-beta beside F1; ``--metric f2_macro`` asks for it by name)."""
    only = metric if metric is not None and family_of(metric) else None  # e.g. --metric f1_macro
    beta = beta if beta is not None or only is None else beta_of(only)
    if metric is not None and only is None:
        from evaladdon.table.checks import rows_of_metric

        df = rows_of_metric(df, metric)
    df = with_optional_columns(df)
    labels = run_labels(df)
    out = []
    for (run, task, metric_name), group in df.groupby(list(GROUP), sort=False):
        good, dropped = usable_rows(group)
        gm = GroupMetrics(run=str(run), task=str(task), metric=str(metric_name), label=labels[str(run)],
                          n_rows=len(group), dropped=dropped)
        if good.empty:
            gm.missing["all"] = "no scored rows"
        else:
            group_metrics(good, gm, level=level, n_boot=n_boot, seed=seed, method=method, beta=beta)
        out.append(gm)
    _add_corpus_level(df, out, level, n_boot, seed, notes)
    if only is not None:
        for g in out:
            g.estimates = [e for e in g.estimates if e.name == only]
            g.missing = {k: v for k, v in g.missing.items() if k == family_of(only)}
    return out


def _add_corpus_level(df: pd.DataFrame, out: list[GroupMetrics], level: float, n_boot: int, seed: int | None,
                      notes: list[str] | None) -> None:
    """Corpus-level lm-eval metrics (the lmeval helper's module), when it is installed."""
    try:
        from evaladdon.analysis.corpus import corpus_level_estimates  # type: ignore[import-not-found]
    except ImportError:
        return
    try:
        found = corpus_level_estimates(df, level, n_boot, seed)
    except (ValueError, EvalAddonError) as exc:
        if notes is not None:
            notes.append(f"corpus-level metrics not computed: {exc}")
        return
    labels = run_labels(df)
    for run, task, est in found:
        same = [g for g in out if g.run == str(run) and g.task == str(task)]  # its own group first: the rows it read
        target = next((g for g in same if g.metric == est.name), same[0] if same else None)
        if target is None:
            target = GroupMetrics(run=str(run), task=str(task), metric=est.name, label=labels.get(str(run), str(run)),
                                  n_rows=0, dropped={})
            out.append(target)
        target.estimates.append(est)


# --- paired comparison (compare --metric NAME) -------------------------------------------------

@dataclass(frozen=True)
class MetricComparison:
    run_a: str
    run_b: str
    task: str
    metric: str
    comparison: PairedMetric
    n_left_out: int

    def flat(self) -> dict[str, Any]:
        return {"run_a": self.run_a, "run_b": self.run_b, "task": self.task, "metric": self.metric,
                "n_left_out": self.n_left_out, **self.comparison.to_dict()}


def compare_metric(
    df: pd.DataFrame,
    pairs: list[tuple[str, str]],
    name: str,
    *,
    level: float = 0.95,
    n_boot: int = 2000,
    seed: int | None = 0,
) -> list[MetricComparison]:
    """Paired comparison of metric ``name`` (one of our families) for each (A, B) pair, per
    (task, scorer) both runs have, on the (item, epoch) rows both runs scored."""
    family = family_of(name)
    if family is None:
        raise EvalAddonError(f"{name!r} is not a classification, ROC, calibration or pass@k metric")
    good, _ = usable_rows(with_optional_columns(df))
    out = []
    for run_a, run_b in pairs:
        a_all, b_all = good[good["run"] == run_a], good[good["run"] == run_b]
        for (task, scorer), a in a_all.groupby(["task", "metric"], sort=False):
            b = b_all[(b_all["task"] == task) & (b_all["metric"] == scorer)]
            if b.empty:
                continue
            where = f"{run_b} vs {run_a} / {task} / {scorer}"
            not_classes = [categorical_reason(x, str(scorer)) for x in (a, b)] if family == "classification" else []
            if any(not_classes):
                raise EvalAddonError(f"{where}: {name}: {next(w for w in not_classes if w)}")
            try:
                r, left = _compare_family(family, name, a, b, level, n_boot, seed)
            except (ValueError, EvalAddonError) as exc:
                raise EvalAddonError(f"{where}: {name}: {exc}") from None
            out.append(MetricComparison(str(run_a), str(run_b), str(task), str(scorer), r, left))
    if not out:
        raise EvalAddonError(f"no task and scorer shared by the runs to compare {name!r} on")
    return out


def _compare_family(family: str, name: str, a: pd.DataFrame, b: pd.DataFrame, level: float, n_boot: int,
                    seed: int | None) -> tuple[PairedMetric, int]:
    if family == "passk":
        m = _PASSK.match(name)
        assert m is not None
        units, kind = _units(a)
        r = compare_pass_at_k(a["value"].to_numpy(), a["item"].to_numpy(), b["value"].to_numpy(),
                              b["item"].to_numpy(), int(m.group(2)), kind=f"pass{m.group(1)}",
                              clusters_a=units if kind == "cluster" else None, level=level)
        return r, 0
    j = a.merge(b, on=["item", "epoch"], suffixes=("_a", "_b"))
    left = len(a) + len(b) - 2 * len(j)
    if len(j) < 2:
        raise EvalAddonError("fewer than two (item, epoch) rows shared by both runs")
    j = j.assign(cluster=j["cluster_a"])
    units, unit_kind = _units(j)
    if "label_a" in j and "label_b" in j:
        differ = (j["label_a"].astype(str) != j["label_b"].astype(str)) & j["label_a"].notna() & j["label_b"].notna()
        if differ.any():
            raise EvalAddonError(f"the runs give different labels to {int(differ.sum())} shared row(s) "
                                 f"(e.g. item {j.loc[differ, 'item'].iloc[0]!r}); they are not the same items")
    r, left = _compare_shared(family, name, j, units, left, level, n_boot, seed)
    return _item_level([r], unit_kind)[0], left  # type: ignore[list-item,return-value]


def _compare_shared(family: str, name: str, j: pd.DataFrame, units: np.ndarray | None, left: int, level: float,
                    n_boot: int, seed: int | None) -> tuple[PairedMetric, int]:
    kw: dict[str, Any] = {"level": level, "n_boot": n_boot, "seed": seed}

    def need(*cols: str) -> None:
        for c in cols:
            for side in ("a", "b"):
                if f"{c}_{side}" not in j or j[f"{c}_{side}"].isna().any():
                    raise EvalAddonError(f"needs column '{c}' on every shared row of run {side.upper()}")

    if family == "classification":
        need("prediction", "label")
        res = compare_classification(j["label_a"].astype(str).to_numpy(), j["prediction_a"].astype(str).to_numpy(),
                                     j["prediction_b"].astype(str).to_numpy(), units, beta=beta_of(name), **kw)
        return next(r for r in res if r.name == name), left
    if family == "roc":
        need("score", "label")
        y = _binary_labels(j["label_a"])
        if y is None:
            raise EvalAddonError("needs binary 0/1 labels")
        sa, sb = j["score_a"].to_numpy(dtype=float), j["score_b"].to_numpy(dtype=float)
        if name == "roc_auc":
            return compare_roc_auc(sa, sb, y, units, level=level), left
        return compare_average_precision(sa, sb, y, units, **kw), left
    # calibration: confidence + correctness, or score + binary label (the same choice as metrics)
    score_names = {"brier", "brier_reliability", "brier_resolution", "brier_uncertainty", "brier_within_bin", "nll"}
    use_score = name in score_names and all(f"score_{s}" in j and j[f"score_{s}"].notna().all() for s in "ab")
    if use_score:
        need("label")
        y = _binary_labels(j["label_a"])
        if y is None:
            raise EvalAddonError("needs binary 0/1 labels")
        fa, oa, fb, ob = j["score_a"], y, j["score_b"], y
    else:
        need("confidence")
        ca = _correct(j.rename(columns={"prediction_a": "prediction", "label_a": "label", "value_a": "value"}))
        cb = _correct(j.rename(columns={"prediction_b": "prediction", "label_b": "label", "value_b": "value"}))
        if ca is None or cb is None:
            raise EvalAddonError("needs the correctness of each prediction (prediction and label, or 0/1 values)")
        fa, oa, fb, ob = j["confidence_a"], ca, j["confidence_b"], cb
    res = compare_calibration(np.asarray(fa, dtype=float), oa, np.asarray(fb, dtype=float), ob, units, **kw)
    return next(r for r in res if r.name == name), left


def metric_gates(results: list[Any], metric: str, margin: Any, fail_on_regression: bool) -> list[Any]:
    """The regression gate of each comparison of ``compare --metric NAME`` (none asked: ``[]``).

    Lower is better for ece/brier/nll (:func:`evaladdon.table.direction.named_lower`), so the gate is mirrored; ``margin`` is
    an :class:`~evaladdon.cli.units.Effect` (or None: 0), resolved on the metric's scale (nll has
    no [0, 1] scale: its margin is in nats, never points)."""
    if not fail_on_regression and margin is None:
        return []
    from evaladdon.stats import regression_gate

    gates = []
    for r in results:
        c = r.comparison
        m = margin.resolve(in_points(metric, c), "--margin") if margin is not None else 0.0
        gates.append(regression_gate(c.ci_low, c.ci_high, m, named_lower(metric)))
    return gates


def in_points(metric: str, comparison: Any) -> bool:
    """Whether a ``compare --metric`` comparison is shown (and its ``--margin`` read) in points:
    the units rule of :func:`evaladdon.table.scale.shown_in_points`, on the two estimates compared
    (a metric that can leave [0, 1] -- nll, an mcc or kappa below 0, a corpus BLEU on 0-100 -- is
    in its own units)."""
    import math

    values = (comparison.estimate_a, comparison.estimate_b)
    return metric not in UNBOUNDED and all(math.isfinite(v) and 0.0 <= v <= 1.0 for v in values)
