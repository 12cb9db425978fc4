"""Corpus-level metrics: sufficient statistics against scikit-learn / sacrebleu / lm-eval's own
aggregations, reproduction of real results files, and a seeded coverage check of the default
cluster bootstrap interval."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import f1_score, matthews_corrcoef
from sklearn.preprocessing import MultiLabelBinarizer

from evaladdon.adapters import read_runs
from evaladdon.adapters.lm_eval import CORPUS_LEVEL, read_samples
from evaladdon.analysis.corpus import compare_corpus_level, corpus_level_estimates
from evaladdon.stats import corpus as C

from built_logs import lm_eval_corpus_run


def test_sufficient_statistics_reproduce_sklearn() -> None:
    rng = np.random.default_rng(3)
    g = rng.integers(0, 2, 400)
    p = np.where(rng.random(400) < 0.7, g, 1 - g)
    assert C.f1_from_totals(C.binary_f1_stats(g, p).sum(0)) == pytest.approx(f1_score(g, p), abs=1e-15)
    assert C.f1_from_totals(C.binary_f1_stats(np.zeros(5), np.zeros(5)).sum(0)) == 0.0  # sklearn's 0
    g3 = rng.integers(0, 4, 400)
    p3 = np.where(rng.random(400) < 0.5, g3, rng.integers(0, 4, 400))
    stats, k = C.confusion_stats(g3, p3)
    assert k == 4 and C.mcc_from_totals(stats.sum(0)) == pytest.approx(matthews_corrcoef(g3, p3), abs=1e-14)
    const, _ = C.confusion_stats(g3, np.zeros(400, dtype=int))
    assert C.mcc_from_totals(const.sum(0)) == matthews_corrcoef(g3, np.zeros(400, dtype=int)) == 0.0
    labels = list("abcdef")
    gold = [set(rng.choice(labels, rng.integers(1, 3), replace=False)) for _ in range(200)]
    pred = [set(rng.choice(labels, rng.integers(0, 3), replace=False)) for _ in range(200)]
    ml, names = C.multilabel_stats([sorted(x) for x in gold], [sorted(x) for x in pred])
    mlb = MultiLabelBinarizer(classes=names).fit([names])
    G, P = mlb.transform(gold), mlb.transform(pred)
    assert C.micro_f1_from_totals(ml.sum(0)) == pytest.approx(f1_score(G, P, average="micro"), abs=1e-14)
    assert C.macro_f1_from_totals(ml.sum(0)) == pytest.approx(f1_score(G, P, average="macro", zero_division=0),
                                                               abs=1e-14)


def test_sacrebleu_statistics_sum_to_the_corpus_scores() -> None:
    import sacrebleu

    from evaladdon.analysis.corpus import prepare

    rng = np.random.default_rng(0)
    words = "the cat sat on a mat dog ran far away quickly today".split()
    refs = [" ".join(rng.choice(words, rng.integers(3, 12))) for _ in range(60)]
    preds = [" ".join(w for w in r.split() if rng.random() < 0.8) + (" now" if rng.random() < 0.3 else "")
             for r in refs]
    items = [[r, p] for r, p in zip(refs, preds, strict=True)]
    for agg, want in [("bleu", sacrebleu.corpus_bleu(preds, [refs]).score),
                      ("chrf", sacrebleu.corpus_chrf(preds, [refs]).score),
                      ("chrf++", sacrebleu.corpus_chrf(preds, [refs], word_order=2).score),
                      ("ter", sacrebleu.corpus_ter(preds, [refs]).score)]:
        prep = prepare(agg, agg, items)
        assert not isinstance(prep, str) and prep.stats is not None and prep.statistic is not None
        assert float(prep.statistic(prep.stats.sum(0)[None, :])[0]) == pytest.approx(want, rel=1e-12), agg


def test_real_corpus_metrics_reproduce_the_results_files(real_logs: Path) -> None:
    df = read_runs([real_logs / "lmeh_pr3936_negotiationtom_repeats"]).table
    skipped: list[str] = []
    got = corpus_level_estimates(df, n_boot=500, skipped=skipped)
    assert not skipped and len(got) == 8  # micro_f1 and macro_f1 of 4 runs
    for _run, task, est in got:
        assert task == "negotiationtom_intention" and est.name in ("micro_f1,none", "macro_f1,none")
        assert any(n.startswith("reproduces the results file's value") for n in est.notes), est.notes
        assert est.ci_low <= est.estimate <= est.ci_high and est.method == "item bootstrap percentile"
    runs = sorted(df["run"].unique())
    same = compare_corpus_level(df, runs[0], runs[1], "negotiationtom_intention", "micro_f1,none", n_boot=300)
    assert same.estimate == 0.0 and same.ci_low == same.ci_high == 0.0


def test_registry_aggregations_reproduce_lm_eval(tmp_path: Path) -> None:
    lm_eval_corpus_run(tmp_path / "a", 1)
    lm_eval_corpus_run(tmp_path / "b", 2)
    df = read_runs([tmp_path / "a", tmp_path / "b"], cluster="topic").table
    assert (df["error"] == CORPUS_LEVEL).sum() == 2 * 4 * 120
    got = corpus_level_estimates(df, n_boot=300)
    assert len(got) == 8
    for _, _, est in got:
        assert any(n.startswith("reproduces the results file's value") for n in est.notes), (est.name, est.notes)
        assert any(n.startswith("equals lm-eval's own") for n in est.notes), (est.name, est.notes)
        assert est.n_clusters == 15 and est.method == "cluster bootstrap percentile"
    runs = sorted(df["run"].unique())
    d = compare_corpus_level(df, runs[0], runs[1], "synth", "bleu,none", n_boot=300)
    by = {(r, e.name): e.estimate for r, _, e in got}
    assert d.estimate == pytest.approx(by[(runs[1], "bleu,none")] - by[(runs[0], "bleu,none")])
    assert d.ci_low <= d.estimate <= d.ci_high and any("paired bootstrap p" in n for n in d.notes)
    df1 = read_samples(next((tmp_path / "a").glob("samples_*.jsonl")))
    assert json.loads(df1.loc[df1["metric"] == "bleu,none", "raw"].iloc[0])[0].count(" ") == 5


def test_cluster_bootstrap_interval_covers_the_population_f1() -> None:
    """Seeded Monte-Carlo: clustered corpus with a known population F1 (ratio of expected counts)."""
    rng = np.random.default_rng(2026)
    n_clusters, size, reps = 40, 10, 300
    prevalences = np.array([0.1, 0.3, 0.5, 0.7])  # cluster-level prevalence, uniform over these
    sens, spec = 0.8, 0.9
    pi = prevalences.mean()
    tp, fp, fn = pi * sens, (1 - pi) * (1 - spec), pi * (1 - sens)
    truth = 2 * tp / (2 * tp + fp + fn)
    covered = 0
    for r in range(reps):
        prev = rng.choice(prevalences, n_clusters)
        gold = (rng.random((n_clusters, size)) < prev[:, None]).ravel().astype(int)
        u = rng.random(gold.size)
        pred = np.where(gold == 1, u < sens, u > spec).astype(int)
        est = C.bootstrap_corpus(C.binary_f1_stats(gold, pred), C.f1_from_totals, np.repeat(np.arange(n_clusters), size),
                                 n_resamples=1000, seed=r)
        covered += est.ci_low <= truth <= est.ci_high
    coverage = covered / reps
    assert 0.90 <= coverage <= 0.99, coverage


def test_paired_bootstrap_p_is_uniformish_under_the_null() -> None:
    """Two systems drawn from the same distribution: the paired test rejects about 5 %."""
    rng = np.random.default_rng(7)
    rejections, reps = 0, 150
    for r in range(reps):
        gold = rng.integers(0, 2, 300)
        a = np.where(rng.random(300) < 0.8, gold, 1 - gold)
        b = np.where(rng.random(300) < 0.8, gold, 1 - gold)
        res = C.paired_totals_difference(C.binary_f1_stats(gold, a), C.binary_f1_stats(gold, b), C.f1_from_totals,
                                         np.repeat(np.arange(60), 5), n_resamples=400, seed=r)
        rejections += res.p_value < 0.05
    assert rejections / reps <= 0.09, rejections / reps


def test_generic_route_matches_the_totals_route() -> None:
    rng = np.random.default_rng(5)
    g = rng.integers(0, 2, 200)
    p = np.where(rng.random(200) < 0.7, g, 1 - g)
    cl = np.repeat(np.arange(40), 5)
    fast = C.bootstrap_corpus(C.binary_f1_stats(g, p), C.f1_from_totals, cl, n_resamples=2000)
    def f1(items: list[tuple[int, int]]) -> float:  # plain Python (sklearn is the oracle above)
        tp = sum(1 for a, b in items if a == 1 and b == 1)
        wrong = sum(1 for a, b in items if a != b)
        return 2 * tp / (2 * tp + wrong) if tp + wrong else 0.0

    assert f1(list(zip(g, p, strict=True))) == pytest.approx(f1_score(g, p))
    slow = C.bootstrap_items(list(zip(g.tolist(), p.tolist(), strict=True)), f1, cl, n_resamples=400)
    assert slow.estimate == fast.estimate
    assert slow.se == pytest.approx(fast.se, rel=0.2)
