"""Corpus-level lm-eval metrics (f1, mcc, bleu, chrf, ter, ...): recomputed, with cluster intervals.

lm-eval logs the *inputs* of a corpus-level metric per doc (``[gold, pred]`` pairs, ``[refs,
pred]``, ``[loglikelihood, weight]``) and aggregates them over the corpus; the canonical
table keeps those rows with the error ``corpus-level metric`` and the input as JSON in
``raw`` (:mod:`evaladdon.adapters.lm_eval`).  Here each (run, task, metric) is:

1. given its aggregation: the one the task config names (``metric_list``), else lm-eval's
   registry default for the metric (imported lazily);
2. turned into per-item sufficient statistics (:mod:`evaladdon.stats.corpus`): binary F1
   counts, confusion matrices (MCC), per-label multilabel counts (micro/macro F1 of label
   sets), sacrebleu's per-segment statistics (BLEU, chrF, chrF++, TER), (log-likelihood,
   weight) sums (weighted perplexity, bits per byte), Brier sums; an aggregation with no
   such form is bootstrapped generically with the harness's own function;
3. checked against the results file's value (and the harness's own aggregation function
   on all items when lm-eval is installed) -- the note says whether it reproduces;
4. given a cluster bootstrap interval (clusters from the ``cluster`` column, else items with
   all their repeats), and for two runs a paired cluster bootstrap of the difference.

An aggregation written as code in the task config is never executed: the multilabel
``micro_f1``/``macro_f1`` of label sets are recomputed with evaladdon's own counts (and must
reproduce the logged value); other code aggregations are skipped with that reason.

lm-eval's own stderr for these metrics is an i.i.d. bootstrap over docs with (by default)
100,000 calls of the aggregation; ours resamples clusters, sums sufficient statistics,
and is much faster (``benchmarks/bench_corpus.py``).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Callable

import numpy as np
import pandas as pd

from evaladdon.stats.families import corpus as C
from evaladdon.table.usable import CORPUS_LEVEL_PREFIX
from evaladdon.stats.families.estimates import MetricEstimate

CORPUS_ERROR_PREFIX = CORPUS_LEVEL_PREFIX  # the reason the reader gives those rows (table.usable)
_BY_NAME = {"f1": "f1", "mcc": "matthews_corrcoef", "matthews_corrcoef": "matthews_corrcoef", "bleu": "bleu",
            "chrf": "chrf", "chrf++": "chrf++", "ter": "ter", "brier_score": "brier_score",
            "word_perplexity": "weighted_perplexity", "byte_perplexity": "weighted_perplexity",
            "bits_per_byte": "bits_per_byte"}
_MULTILABEL = ("micro_f1", "macro_f1")


class Prepared:
    """Per-item sufficient statistics (or raw items for the generic route) of one metric."""

    def __init__(self, aggregation: str, stats: np.ndarray | None, statistic: C.TotalsStatistic | None,
                 generic: Callable[[list[Any]], float] | None = None, how: str = "") -> None:
        self.aggregation, self.stats, self.statistic, self.generic, self.how = aggregation, stats, statistic, generic, how


def _registry_aggregation(name: str) -> Callable[[list[Any]], float] | None:
    try:
        from lm_eval.api.registry import get_aggregation
    except Exception:  # lm-eval not installed (or broken): our own formulas still apply
        return None
    try:
        return get_aggregation(name)  # type: ignore[no-any-return]
    except Exception:
        return None


def _default_aggregation(metric: str) -> str | None:
    try:
        from lm_eval.api.registry import AGGREGATION_REGISTRY, get_metric_aggregation

        fn = get_metric_aggregation(metric)
        for name, f in AGGREGATION_REGISTRY.items():
            if f is fn:
                return str(name)
    except Exception:
        pass
    return _BY_NAME.get(metric)


def _sacreformat(refs: list[Any], preds: list[Any]) -> tuple[list[Any], list[str]]:
    try:
        from lm_eval.api.metrics import _sacreformat as harness_format  # the harness's own shaping

        return harness_format(refs, preds)  # type: ignore[no-any-return]
    except ImportError:  # same rules, for an install without lm-eval
        if not isinstance(refs[0], (list, tuple)):
            refs = [[r] for r in refs]
        streams = list(zip(*refs, strict=True))
        preds = [p[0] if isinstance(p, (list, tuple)) else p for p in preds]
        return streams, preds


def _sacrebleu_metric(aggregation: str) -> Any:
    from sacrebleu.metrics import BLEU, CHRF, TER

    # the objects sacrebleu.corpus_bleu / corpus_chrf / corpus_ter build with their defaults
    return {"bleu": lambda: BLEU(), "chrf": lambda: CHRF(), "chrf++": lambda: CHRF(word_order=2),
            "ter": lambda: TER()}[aggregation]()


def prepare(aggregation: str, metric: str, items: list[Any]) -> Prepared | str:
    """Sufficient statistics for ``items`` under ``aggregation``, or the reason it cannot."""
    pairs = all(isinstance(x, list) and len(x) == 2 for x in items)
    if aggregation.startswith("code:"):
        if metric in _MULTILABEL and pairs and all(isinstance(x[0], list) and isinstance(x[1], list) for x in items):
            stats, _ = C.multilabel_stats([x[0] for x in items], [x[1] for x in items])
            stat = C.micro_f1_from_totals if metric == "micro_f1" else C.macro_f1_from_totals
            return Prepared(aggregation, stats, stat, how=f"evaladdon's multilabel {metric.replace('_', ' ')} of "
                            "label sets (the task's aggregation is code in the log and is never run)")
        return f"aggregation {aggregation[5:]!r} is code in the task config (never executed)"
    if aggregation in ("f1", "matthews_corrcoef") and pairs:
        gold = np.array([x[0] for x in items], dtype=object)
        pred = np.array([x[1] for x in items], dtype=object)
        if aggregation == "f1":
            labels = set(map(str, gold)) | set(map(str, pred))
            if labels <= {"0", "1", "True", "False"}:
                as01 = np.vectorize(lambda v: 1 if str(v) in ("1", "True") else 0, otypes=[int])
                return Prepared(aggregation, C.binary_f1_stats(as01(gold), as01(pred)), C.f1_from_totals,
                                how="binary F1 from per-cluster (tp, fp, fn)")
        else:
            stats, _ = C.confusion_stats(gold, pred)
            return Prepared(aggregation, stats, C.mcc_from_totals, how="MCC from per-cluster confusion matrices")
    if aggregation in ("bleu", "chrf", "chrf++", "ter") and pairs:
        refs, preds = _sacreformat([x[0] for x in items], [x[1] for x in items])
        m = _sacrebleu_metric(aggregation)
        stats = np.asarray(m._extract_corpus_statistics(preds, refs), dtype=float)

        def score(row: list[float], m: Any = m) -> float:
            return float(m._compute_score_from_stats(row).score)

        return Prepared(aggregation, stats, C.rowwise(score),
                        how=f"sacrebleu {aggregation} from summed per-segment statistics")
    if aggregation in ("weighted_perplexity", "bits_per_byte") and pairs:
        stats = np.array([[float(x[0]), float(x[1])] for x in items])
        tf = (lambda r: np.exp(-r)) if aggregation == "weighted_perplexity" else (lambda r: -r / math.log(2))
        return Prepared(aggregation, stats, C.ratio_stat(tf), how=f"{aggregation} from (log-likelihood, weight) sums")
    if aggregation == "brier_score" and pairs:
        probs = [np.asarray(x[1], dtype=float) for x in items]
        sq = [float(((p - np.eye(len(p))[int(x[0])]) ** 2).sum()) for p, x in zip(probs, items, strict=True)]
        stats = np.column_stack([sq, np.ones(len(sq))])
        return Prepared(aggregation, stats, C.ratio_stat(lambda r: r), how="Brier score from per-cluster sums")
    fn = _registry_aggregation(aggregation)
    if fn is not None:
        return Prepared(aggregation, None, None, generic=fn,
                        how=f"lm-eval's {aggregation!r} aggregation, called once per replicate")
    return f"no known way to aggregate {metric!r} (aggregation {aggregation!r})"


def _prepare_for(aggregation: str, task: str, metric: str, items: list[Any]) -> Prepared | str:
    """:func:`prepare`, or for a code aggregation the installed task's own function
    (:func:`evaladdon.analysis.installed_tasks.installed_aggregation`: never the log's code)."""
    prep = prepare(aggregation, metric, items)
    if not isinstance(prep, str) or not aggregation.startswith("code:"):
        return prep
    from evaladdon.analysis.installed_tasks import installed_aggregation

    found = installed_aggregation(task, metric, aggregation[5:])
    if found is None:
        return prep + f"; the installed lm-eval has no task {task!r} with it"
    fn, where = found
    return Prepared(aggregation, None, None, generic=fn,
                    how=f"the installed lm-eval's own {aggregation[5:]!r} of task {task!r} ({where}; "
                        "the log's copy of the code is never run), called once per replicate")


def _harness_value_only(metric: str, why: str, ctx: dict[str, Any], n_items: int,
                        level: float) -> MetricEstimate | None:
    """The results file's own value, marked as such, for a metric evaladdon cannot recompute."""
    reported = ctx["reported"].get(metric)
    if not isinstance(reported, (int, float)) or isinstance(reported, bool):
        return None
    nan = float("nan")
    return MetricEstimate(name=metric, estimate=float(reported), ci_low=nan, ci_high=nan, level=level,
                          method="harness value (not recomputed)", n_items=n_items,
                          notes=(f"the value lm-eval's results file reports, not recomputed: {why}",))


def _harness_value(aggregation: str, items: list[Any]) -> float | None:
    """The harness's own aggregation function on all items (None when not importable/applicable)."""
    if aggregation.startswith("code:"):
        return None
    fn = _registry_aggregation(aggregation)
    if fn is None:
        return None
    try:
        return float(fn([tuple(x) if isinstance(x, list) else x for x in items]))
    except Exception:
        return None


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _context(source: str, task: str) -> dict[str, Any]:
    if source.endswith(".parquet"):  # lighteval details: its aggregations and results file
        from evaladdon.adapters.lighteval import harness_context as lighteval_context

        return lighteval_context(source, task)
    from evaladdon.adapters.lm_eval import harness_context

    try:
        return harness_context(source, task)
    except Exception:  # an unreadable results file: no config, no reported value
        return {"aggregations": {}, "reported": {}, "results_path": None}


def _corpus_rows(df: pd.DataFrame) -> pd.DataFrame:
    err = df["error"].astype(object)
    return df[err.notna().to_numpy() & err.astype(str).str.startswith(CORPUS_ERROR_PREFIX).to_numpy()]


def _items_of(rows: pd.DataFrame) -> list[Any]:
    import orjson

    return [orjson.loads(r) for r in rows["raw"].to_numpy()]  # one parse per corpus input


def _clusters_of(rows: pd.DataFrame) -> tuple[np.ndarray, bool]:
    """Resampling units: the cluster column when filled, else items (with all their repeats)."""
    cl = rows["cluster"]
    clustered = bool(cl.notna().all())
    return (cl if clustered else rows["item"]).astype(str).to_numpy(), clustered


def _label_unit(est: MetricEstimate, clustered: bool) -> MetricEstimate:
    if clustered:
        return est
    return replace(est, method=est.method.replace("cluster bootstrap", "item bootstrap"), n_clusters=None,
                   notes=tuple(n.replace(" clusters,", " items,") for n in est.notes))


def _resolve(rows: pd.DataFrame, task: str, metric: str) -> tuple[str | None, dict[str, Any]]:
    base = metric.split(",", 1)[0]
    ctx = _context(str(rows["source"].iloc[0]), task)
    agg = ctx["aggregations"].get(base) or _default_aggregation(base)
    return agg, ctx


def _estimate(prep: Prepared, items: list[Any], clusters: np.ndarray, name: str, level: float, n_boot: int,
              seed: int | None) -> MetricEstimate:
    if prep.stats is not None and prep.statistic is not None:
        return C.bootstrap_corpus(prep.stats, prep.statistic, clusters, name=name, n_resamples=n_boot, level=level,
                                  seed=seed)
    assert prep.generic is not None
    tuples = [tuple(x) if isinstance(x, list) else x for x in items]
    return C.bootstrap_items(tuples, prep.generic, clusters, name=name, n_resamples=min(n_boot, 1_000), level=level,
                             seed=seed)


def corpus_level_estimates(
    df: pd.DataFrame,
    level: float = 0.95,
    n_boot: int = 2_000,
    seed: int | None = 0,
    skipped: list[str] | None = None,
) -> list[tuple[str, str, MetricEstimate]]:
    """(run, task, estimate) for every corpus-level metric of a canonical table.

    ``estimate.name`` is the metric as lm-eval writes it (``f1,none``); ``notes`` say how it
    was computed, whether it reproduces the results file's value, and lm-eval's own stderr.
    A metric that cannot be recomputed is left out and its reason appended to ``skipped``.
    """
    rows_all = _corpus_rows(df)
    out: list[tuple[str, str, MetricEstimate]] = []
    for (run, task, metric), rows in rows_all.groupby(["run", "task", "metric"], sort=True):
        run, task, metric = str(run), str(task), str(metric)
        where = f"run {run!r}, task {task!r}, metric {metric!r}"
        agg, ctx = _resolve(rows, task, metric)
        if agg is None:
            if skipped is not None:
                skipped.append(f"{where}: unknown aggregation")
            continue
        items = _items_of(rows)
        prep = _prepare_for(agg, task, metric.split(",", 1)[0], items)
        if isinstance(prep, str):
            shown = _harness_value_only(metric, prep, ctx, len(rows), level)
            if shown is not None:
                out.append((run, task, shown))
            elif skipped is not None:
                skipped.append(f"{where}: {prep}")
            continue
        units, clustered = _clusters_of(rows)
        est = _label_unit(_estimate(prep, items, units, metric, level, n_boot, seed), clustered)
        notes = [prep.how]
        reported = ctx["reported"].get(metric)
        if isinstance(reported, (int, float)) and not isinstance(reported, bool):
            notes.append(("reproduces" if _close(est.estimate, float(reported)) else "DOES NOT reproduce")
                         + f" the results file's value {reported!r}")
        harness = _harness_value(agg, items) if prep.generic is None else None
        if harness is not None:
            notes.append(("equals" if _close(est.estimate, harness) else "differs from")
                         + f" lm-eval's own {agg!r} on these items ({harness!r})")
        name, _, filt = metric.partition(",")
        se = ctx["reported"].get(f"{name}_stderr,{filt}" if filt else f"{name}_stderr")
        if se is not None:
            notes.append(f"lm-eval's stderr (i.i.d. bootstrap over docs): {se!r}")
        out.append((run, task, replace(est, notes=tuple(notes) + est.notes)))
    return out


def compare_corpus_level(
    df: pd.DataFrame,
    run_a: str,
    run_b: str,
    task: str,
    metric: str,
    level: float = 0.95,
    n_boot: int = 2_000,
    seed: int = 0,
) -> MetricEstimate:
    """metric(B) − metric(A) on the items both runs share, by paired cluster bootstrap.

    The returned estimate is named ``<metric> difference``; its notes give both runs'
    values, the number of shared items and the two-sided bootstrap p-value.
    """
    from evaladdon.errors import EvalAddonError

    rows = _corpus_rows(df)
    rows = rows[(rows["task"] == task) & (rows["metric"] == metric)]
    a = rows[rows["run"] == run_a].set_index(["item", "epoch"])
    b = rows[rows["run"] == run_b].set_index(["item", "epoch"])
    if a.empty or b.empty:
        raise EvalAddonError(f"no corpus-level rows of {metric!r} on task {task!r} for "
                             f"{run_a if a.empty else run_b!r}")
    shared = a.index.intersection(b.index)
    if len(shared) < 2:
        raise EvalAddonError(f"runs {run_a!r} and {run_b!r} share {len(shared)} item(s) of {task!r} {metric!r}")
    a, b = a.loc[shared].reset_index(), b.loc[shared].reset_index()
    agg, _ = _resolve(a, task, metric)
    if agg is None:
        raise EvalAddonError(f"{metric!r}: unknown aggregation")
    items_a, items_b = _items_of(a), _items_of(b)
    both = prepare(agg, metric.split(",", 1)[0], items_a + items_b)  # one label space for both runs
    if isinstance(both, str):
        raise EvalAddonError(f"{metric!r}: {both}")
    clusters, clustered = _clusters_of(a)
    n = len(items_a)
    name = f"{metric} difference"
    if both.stats is None or both.statistic is None:
        raise EvalAddonError(f"{metric!r}: a paired comparison needs sufficient statistics ({both.how})")
    res = C.paired_totals_difference(both.stats[:n], both.stats[n:], both.statistic, clusters, name=name,
                                     n_resamples=n_boot, level=level, seed=seed)
    notes = (f"B = {run_b}: {res.estimate_b!r}; A = {run_a}: {res.estimate_a!r}", f"{n} shared items",
             f"paired bootstrap p = {res.p_value:.4g}", both.how)
    est = _label_unit(res.estimate, clustered)
    return replace(est, notes=notes + est.notes)
