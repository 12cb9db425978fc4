"""Classification metrics: scikit-learn as oracle for the point values, coverage of the
cluster bootstrap intervals against the population values of a known joint law."""

from __future__ import annotations

import numpy as np
import pytest

from evaladdon.stats.classification import (
    SUMMARY_NAMES,
    classification_metrics,
    compare_classification,
    confusion_tables,
    metrics_from_confusion,
)

sk = pytest.importorskip("sklearn.metrics")


def _sklearn(yt: np.ndarray, yp: np.ndarray) -> dict[str, float]:
    kw = {"zero_division": 0}
    out = {
        "accuracy": sk.accuracy_score(yt, yp),
        "balanced_accuracy": sk.balanced_accuracy_score(yt, yp),
        "mcc": sk.matthews_corrcoef(yt, yp),
        "kappa": sk.cohen_kappa_score(yt, yp),
    }
    for avg in ("macro", "micro", "weighted"):
        out[f"precision_{avg}"] = sk.precision_score(yt, yp, average=avg, **kw)
        out[f"recall_{avg}"] = sk.recall_score(yt, yp, average=avg, **kw)
        out[f"f1_{avg}"] = sk.f1_score(yt, yp, average=avg, **kw)
    return out


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("k,seed", [(2, 0), (3, 1), (5, 2), (4, 3)])
def test_point_values_match_sklearn(k: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 300
    yt = rng.integers(0, k, n).astype(str)
    yp = np.where(rng.random(n) < 0.6, yt, rng.integers(0, k + (seed == 3), n).astype(str))  # seed 3: extra class
    res = classification_metrics(yt, yp, n_boot=200)
    ref = _sklearn(yt, yp)
    for name in SUMMARY_NAMES:
        assert res.get(name).estimate == pytest.approx(ref[name], abs=1e-12), name
    labels = list(res.labels)
    p, r, f, _ = sk.precision_recall_fscore_support(yt, yp, labels=labels, zero_division=0)
    for i, c in enumerate(labels):
        assert res.get(f"precision[{c}]").estimate == pytest.approx(p[i])
        assert res.get(f"recall[{c}]").estimate == pytest.approx(r[i])
        assert res.get(f"f1[{c}]").estimate == pytest.approx(f[i])
    assert np.array_equal(np.array(res.confusion), sk.confusion_matrix(yt, yp, labels=labels))


def test_tables_sum_to_confusion_and_replicate_is_weighted_sum() -> None:
    rng = np.random.default_rng(5)
    yt = rng.integers(0, 3, 90).astype(str)
    yp = rng.integers(0, 3, 90).astype(str)
    cl = np.repeat(np.arange(9), 10)
    tables, labels = confusion_tables(yt, yp, cl)
    assert tables.shape == (9, 3, 3)
    w = rng.multinomial(9, np.full(9, 1 / 9))
    idx = np.repeat(np.arange(9), w)  # the clusters drawn, as a resample of items
    items = np.concatenate([np.flatnonzero(cl == c) for c in idx])
    direct = _sklearn(yt[items], yp[items])
    via = metrics_from_confusion(np.tensordot(w, tables, axes=1)[None])[0]
    for j, name in enumerate(SUMMARY_NAMES):
        assert via[j] == pytest.approx(direct[name], abs=1e-12), name


def _simulate(rng: np.random.Generator, joint: list[np.ndarray], n_clusters: int, size: int) -> tuple[
        np.ndarray, np.ndarray, np.ndarray]:
    k = joint[0].shape[0]
    kind = rng.integers(0, len(joint), n_clusters)
    cdf = np.stack([np.cumsum(j.ravel()) for j in joint])[np.repeat(kind, size)]
    cell = (rng.random(n_clusters * size)[:, None] > cdf).sum(axis=1)
    return (cell // k).astype(str), (cell % k).astype(str), np.repeat(np.arange(n_clusters), size)


def test_cluster_bootstrap_coverage() -> None:
    """Clusters of two kinds (easy and hard) with known joint laws; truth = metric(mean law)."""
    easy = np.array([[0.30, 0.02, 0.01], [0.03, 0.25, 0.02], [0.02, 0.05, 0.30]])
    hard = np.array([[0.15, 0.10, 0.08], [0.10, 0.15, 0.08], [0.06, 0.08, 0.20]])
    truth = metrics_from_confusion(((easy + hard) / 2)[None])[0]
    check = ["accuracy", "balanced_accuracy", "f1_macro", "mcc", "kappa", "precision_weighted"]
    cols = [SUMMARY_NAMES.index(c) for c in check]
    rng = np.random.default_rng(11)
    reps = 150
    hits = np.zeros(len(check))
    for i in range(reps):
        yt, yp, cl = _simulate(rng, [easy, hard], 40, 8)
        res = classification_metrics(yt, yp, cl, labels=["0", "1", "2"], n_boot=300, seed=i)
        for j, c in enumerate(check):
            e = res.get(c)
            hits[j] += e.ci_low <= truth[cols[j]] <= e.ci_high
    cover = hits / reps
    assert np.all(cover >= 0.88) and np.all(cover <= 0.99), dict(zip(check, cover, strict=True))


def test_paired_comparison_coverage_and_sharing() -> None:
    """Two classifiers of the same items; truth of the F1/accuracy difference known."""
    rng = np.random.default_rng(3)
    reps, hits = 150, np.zeros(2)
    # B is right with prob 0.8, A with 0.7 on class-balanced binary labels; errors flip the label
    truth = {"accuracy": 0.1, "f1_macro": 0.1}
    for i in range(reps):
        n_c, size = 50, 6
        yt = rng.integers(0, 2, n_c * size)
        u = rng.random(n_c)[np.repeat(np.arange(n_c), size)] * 0.4 + rng.random(n_c * size) * 0.6
        pa = np.where(u < 0.7, yt, 1 - yt)
        pb = np.where(u < 0.8, yt, 1 - yt)
        res = {r.name: r for r in compare_classification(yt, pa, pb, np.repeat(np.arange(n_c), size), n_boot=300,
                                                         seed=i)}
        for j, name in enumerate(truth):
            hits[j] += res[name].ci_low <= truth[name] <= res[name].ci_high
    assert np.all(hits / reps >= 0.88) and np.all(hits / reps <= 0.99), hits / reps


def test_paired_identical_runs_give_zero() -> None:
    yt = np.array(list("abcabcabca"))
    yp = np.array(list("abccbcaaca"))
    res = compare_classification(yt, yp, yp, n_boot=200)
    assert all(r.delta == 0 and r.ci_low == 0 and r.ci_high == 0 for r in res if np.isfinite(r.delta))


def test_bca_and_refusals() -> None:
    rng = np.random.default_rng(0)
    yt = rng.integers(0, 2, 200)
    yp = np.where(rng.random(200) < 0.8, yt, 1 - yt)
    r = classification_metrics(yt, yp, method="bca", n_boot=500).get("accuracy")
    assert r.ci_low < r.estimate < r.ci_high and "bca" in r.method
    with pytest.raises(ValueError):
        classification_metrics([], [])
    with pytest.raises(ValueError):
        classification_metrics(["a"], ["a", "b"])
    with pytest.raises(ValueError):
        classification_metrics(["a", "b"], ["a", "b"], n_boot=10)


@pytest.mark.parametrize("method,scipy_method", [("percentile", "percentile"), ("bca", "BCa")])
def test_intervals_match_scipy_bootstrap_on_items(method: str, scipy_method: str) -> None:
    """Singleton clusters: our confusion-table bootstrap is scipy's paired item bootstrap
    (BCa with the item jackknife), for accuracy and the binary MCC."""
    from scipy import stats as sps

    rng = np.random.default_rng(1)
    n = 250
    yt = rng.integers(0, 2, n)
    yp = np.where(rng.random(n) < 0.75 - 0.2 * yt, yt, 1 - yt)

    def mcc(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
        tp = np.sum(a * b, axis=axis)
        tn = np.sum((1 - a) * (1 - b), axis=axis)
        fp = np.sum((1 - a) * b, axis=axis)
        fn = np.sum(a * (1 - b), axis=axis)
        return (tp * tn - fp * fn) / np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))

    def acc(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.mean(a == b, axis=axis)

    res = classification_metrics(yt, yp, n_boot=20_000, method=method, seed=2)  # type: ignore[arg-type]
    for name, fn in (("accuracy", acc), ("mcc", mcc)):
        ref = sps.bootstrap((yt.astype(float), yp.astype(float)), fn, paired=True, vectorized=True,
                            n_resamples=20_000, method=scipy_method, random_state=3).confidence_interval
        ours = res.get(name)
        assert ours.estimate == pytest.approx(fn(yt, yp))
        assert ours.ci_low == pytest.approx(ref.low, abs=0.012), name
        assert ours.ci_high == pytest.approx(ref.high, abs=0.012), name


@pytest.mark.filterwarnings("ignore")
def test_edge_cases_match_sklearn_property() -> None:
    """Any small label/prediction vectors (absent classes, one class, never-predicted classes)."""
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies

    @hypothesis.settings(max_examples=20, deadline=None, derandomize=True)
    @hypothesis.given(st.lists(st.tuples(st.sampled_from("abcd"), st.sampled_from("abcd")), min_size=2, max_size=30))
    def check(pairs: list[tuple[str, str]]) -> None:
        yt = np.array([p[0] for p in pairs])
        yp = np.array([p[1] for p in pairs])
        classes = np.unique(np.concatenate([yt, yp]))
        tables, _ = confusion_tables(yt, yp)
        got = metrics_from_confusion(tables.sum(axis=0)[None])[0]
        ref = _sklearn(yt, yp)
        for j, name in enumerate(SUMMARY_NAMES):
            if name == "kappa" and not np.isfinite(ref[name]):
                assert not np.isfinite(got[j])
                continue
            assert got[j] == pytest.approx(ref[name], abs=1e-12), (name, classes)

    check()


def test_distinct_rows_path_matches_the_gather_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many identical unit tables are drawn as Multinomial(C, mult/C) over the distinct rows;
    the intervals agree with the per-unit gather within Monte-Carlo error."""
    import evaladdon.stats.metric_bootstrap as mb

    rng = np.random.default_rng(4)
    yt = rng.integers(0, 3, 400)
    yp = np.where(rng.random(400) < 0.7, yt, rng.integers(0, 3, 400))
    t = np.eye(9)[yt * 3 + yp]
    uniq, inverse, mult = mb._distinct_rows(t)
    assert mult is not None and inverse is not None and np.array_equal(uniq[inverse], t) and mult.sum() == 400
    fast = classification_metrics(yt, yp, n_boot=20_000, seed=1, method="bca")
    monkeypatch.setattr(mb, "_distinct_rows", lambda t: (t, None, None))
    slow = classification_metrics(yt, yp, n_boot=20_000, seed=1, method="bca")
    for name in ("accuracy", "f1_macro", "kappa"):
        assert fast.get(name).ci_low == pytest.approx(slow.get(name).ci_low, abs=0.006)
        assert fast.get(name).ci_high == pytest.approx(slow.get(name).ci_high, abs=0.006)
