"""The mean computed a part at a time (issue 15): ``estimate_mean_parts`` against its oracle,
``estimate_mean`` on the concatenated parts (item and cluster codes made global).

The battery of ``tests/mean_battery.py`` (0/1 and continuous, epochs, clusters, zero SE, 1e308,
every method, CR1/CR2, three levels) split at random into 1-6 parts (items whole, clusters whole
when clustered, empty parts included, codes local to each part and not 0..G-1): every field equal
to 1e-12 relative, counts, methods and notes exactly; one part: bit-identical.  Also the refusals,
a memory bound (tracemalloc) and a seeded Monte-Carlo coverage check of the default interval.
"""

from __future__ import annotations

import math
import time
import tracemalloc
from typing import Any, Iterator

import numpy as np
import pytest

import mean_battery
from closeness import mismatches
from evaladdon.stats import estimate_mean
from evaladdon.stats.mean_parts import MeanPart, estimate_mean_parts

CASES = mean_battery.cases()


def split(case: dict[str, Any], k: int, rng: np.random.Generator) -> tuple[list[MeanPart], np.ndarray, bool]:
    """``case`` in ``k`` random parts (whole clusters when clustered, else whole items), with local
    codes (a random relabelling per part, sometimes sparse), and the row order of their concatenation."""
    clustered = case["clusters"] is not None
    unit = case["clusters"] if clustered else case["items"]
    uniq = np.unique(unit)
    part_of = rng.integers(0, k, size=uniq.size)[np.searchsorted(uniq, unit)]
    parts, rows_all = [], []
    for j in range(k):
        rows = np.flatnonzero(part_of == j)
        rows_all.append(rows)
        _, inv = np.unique(case["items"][rows], return_inverse=True)
        items = (rng.permutation(inv.max() + 1) * int(rng.choice([1, 3, 1_000_003])))[inv] if rows.size else inv
        clusters = None
        if clustered:
            _, inv_c = np.unique(case["clusters"][rows], return_inverse=True)
            clusters = rng.permutation(inv_c.max() + 1)[inv_c] if rows.size else inv_c
        parts.append(MeanPart(case["values"][rows], items.astype(np.int64), clusters))
    return parts, np.concatenate(rows_all), clustered


def round_off(d: dict[str, Any]) -> dict[str, Any]:
    """A result of values that all agree but are no binary fraction (0.7): its SEs are round-off of 0,
    which no two summation orders reproduce, and so are the ratios of round-off (the epoch ICC and
    decomposition, whether the between-item round-off came out negative) and whether the item SE came
    out exactly 0 (then no design effect: None, else NaN with a note).  Those are left out; the SEs
    are compared to 1e-12 of ``max|x|`` (the zero-SE rule's own tolerance)."""
    out = {k: v for k, v in d.items() if k not in ("epoch_variance", "icc_epochs", "deff", "icc", "n_eff")}
    out["notes"] = [n for n in d["notes"] if "between-item" not in n and "design effect" not in n]
    return out


def run_parts(parts: list[MeanPart], clustered: bool, case: dict[str, Any]) -> Any:
    try:
        return estimate_mean_parts(lambda: iter(parts), clustered=clustered, level=case["level"],
                                   method=case["method"], cluster_method=case["cluster_method"])
    except ValueError as e:
        return f"ValueError: {e}"


def assert_close(case: dict[str, Any], want: Any, got: Any, n_parts: int) -> None:
    """``got`` (parts) equals ``want`` (the concatenation): the same refusal text, or every
    field equal, floats to 1e-12 (round-off SEs of zero-variance cases to 1e-12 of max|x|)."""
    if isinstance(want, str) or isinstance(got, str):
        assert got == want, case["kind"]
    elif case["kind"].startswith("zero-odd"):
        atol = 1e-12 * float(np.max(np.abs(case["values"])))
        assert mismatches(round_off(want.to_dict()), round_off(got.to_dict()), atol=atol) == [], case["kind"]
    else:
        assert mismatches(want.to_dict(), got.to_dict()) == [], (case["kind"], n_parts)


@pytest.mark.parametrize("k", range(mean_battery.N_CASES))
def test_parts_equal_the_concatenation(k: int) -> None:
    case = CASES[k]
    rng = np.random.default_rng(1000 + k)
    for n_parts in (1, 2, 3, int(rng.integers(4, 9))):
        parts, order, clustered = split(case, n_parts, rng)
        nonempty = [p for p in parts if p.values.size]
        got = run_parts(parts, clustered, case)
        if len(nonempty) == 1:  # one part: estimate_mean itself, bit for bit
            only = nonempty[0]
            want = estimate_mean(only.values, only.items, only.clusters, level=case["level"],
                                 method=case["method"], cluster_method=case["cluster_method"]) \
                if not isinstance(mean_battery.run(case), str) else mean_battery.run(case)
            assert mean_battery.encode(got) == mean_battery.encode(want), case["kind"]
            continue
        if case["method"] == "bootstrap":
            assert isinstance(got, str) and "bootstrap interval needs all item means" in got
            continue
        clusters = None if case["clusters"] is None else case["clusters"][order]
        want = mean_battery.run(case, case["values"][order], case["items"][order], clusters)
        assert_close(case, want, got, n_parts)


def split_spanning(case: dict[str, Any], k: int, rng: np.random.Generator) -> tuple[list[MeanPart], np.ndarray, int]:
    """``case`` (clustered) in ``k`` random parts by item (items whole, clusters spanning parts),
    item codes local to each part, cluster codes global (a random relabelling of
    ``0..n_clusters-1`` with unused codes), and the row order of their concatenation."""
    uniq_i = np.unique(case["items"])
    part_of = rng.integers(0, k, size=uniq_i.size)[np.searchsorted(uniq_i, case["items"])]
    _, inv_c = np.unique(case["clusters"], return_inverse=True)
    n_clusters = int(inv_c.max()) + 1 + int(rng.integers(0, 3))
    glob = rng.permutation(n_clusters)[inv_c.reshape(-1)].astype(np.int64)
    parts, rows_all = [], []
    for j in range(k):
        rows = np.flatnonzero(part_of == j)
        rows_all.append(rows)
        _, inv = np.unique(case["items"][rows], return_inverse=True)
        parts.append(MeanPart(case["values"][rows], inv.reshape(-1).astype(np.int64), glob[rows]))
    return parts, np.concatenate(rows_all), n_clusters


@pytest.mark.parametrize("k", [k for k in range(mean_battery.N_CASES) if CASES[k]["clusters"] is not None])
def test_clusters_spanning_parts_equal_the_concatenation(k: int) -> None:
    """Global cluster codes (``n_clusters``), items whole in a part, clusters across parts: the
    concatenation's ``estimate_mean`` to 1e-12 (one part: bit for bit)."""
    case = CASES[k]
    rng = np.random.default_rng(5000 + k)
    for n_parts in (2, 3, int(rng.integers(4, 9))):
        parts, order, n_clusters = split_spanning(case, n_parts, rng)
        try:
            got: Any = estimate_mean_parts(lambda parts=parts: iter(parts), clustered=True, level=case["level"],
                                           method=case["method"], cluster_method=case["cluster_method"],
                                           n_clusters=n_clusters)
        except ValueError as e:
            got = f"ValueError: {e}"
        nonempty = [p for p in parts if p.values.size]
        if case["method"] == "bootstrap" and len(nonempty) > 1:
            assert isinstance(got, str) and ("bootstrap interval needs all item means" in got
                                             or got == mean_battery.run(case)), got
            continue
        want = mean_battery.run(case, case["values"][order], case["items"][order], case["clusters"][order])
        if len(nonempty) == 1:
            want = mean_battery.run(case, nonempty[0].values, nonempty[0].items, nonempty[0].clusters)
            assert mean_battery.encode(got) == mean_battery.encode(want), case["kind"]
            continue
        assert_close(case, want, got, n_parts)


@pytest.mark.parametrize("shape", ["one", "singletons", "few", "many"])
@pytest.mark.parametrize("cluster_method", ["cr1", "cr2"])
@pytest.mark.parametrize("epochs", [1, 3])
def test_few_large_clusters_across_parts(shape: str, cluster_method: str, epochs: int) -> None:
    """One cluster, singleton clusters, 3 clusters, 40 clusters over 600 items in 5 parts by item
    (every cluster in several parts), 1 or 3 epochs, CR1 and CR2: the concatenation's to 1e-12."""
    rng = np.random.default_rng(77 + epochs)
    n_items = 600
    cl_of_item = {"one": np.zeros(n_items, np.int64), "singletons": np.arange(n_items),
                  "few": rng.integers(0, 3, n_items), "many": rng.integers(0, 40, n_items)}[shape]
    items = np.repeat(np.arange(n_items), epochs)
    rng.shuffle(items)
    values = rng.normal(0.3, 1.0, items.size) + 0.5 * cl_of_item[items]
    clusters = cl_of_item[items]
    part_of = (items * 7919) % 5
    order = np.concatenate([np.flatnonzero(part_of == j) for j in range(5)])
    parts = [MeanPart(values[part_of == j], items[part_of == j], clusters[part_of == j]) for j in range(5)]
    want: Any
    try:
        want = estimate_mean(values[order], items[order], clusters[order], cluster_method=cluster_method)
    except ValueError as e:
        want = str(e)
    try:
        got: Any = estimate_mean_parts(lambda: iter(parts), clustered=True, cluster_method=cluster_method,
                                       n_clusters=int(cl_of_item.max()) + 1)
    except ValueError as e:
        got = str(e)
    if isinstance(want, str) or isinstance(got, str):
        assert got == want
    else:
        assert mismatches(want.to_dict(), got.to_dict()) == []
        assert got.to_dict()["n_clusters"] == want.to_dict()["n_clusters"]


def test_global_codes_item_in_two_clusters_and_bad_codes() -> None:
    """An item in two clusters is refused as by the concatenation; codes outside 0..n_clusters-1 refused."""
    items = np.array([0, 0, 1, 1, 2, 2])
    clusters = np.array([0, 0, 1, 0, 1, 1])
    parts = [MeanPart(np.arange(2.0), items[:2], clusters[:2]), MeanPart(np.arange(4.0), items[2:], clusters[2:])]
    with pytest.raises(ValueError) as want:
        estimate_mean(np.concatenate([np.arange(2.0), np.arange(4.0)]), items, clusters)
    with pytest.raises(ValueError) as got:
        estimate_mean_parts(lambda: iter(parts), clustered=True, n_clusters=2)
    assert str(got.value) == str(want.value)
    ok = [MeanPart(np.arange(2.0), items[:2], np.array([0, 0])), MeanPart(np.arange(2.0), items[4:], np.array([5, 5]))]
    with pytest.raises(ValueError, match="global cluster codes"):
        estimate_mean_parts(lambda: iter(ok), clustered=True, n_clusters=2)


def test_round_off_zero_se_agrees_with_the_concatenation() -> None:
    """All values 0.1 (no binary fraction), 3 epochs, clusters of 7 items in 3 parts: every SE is
    round-off of 0; the same zero-SE fallback interval, method and notes as the concatenation."""
    items = np.repeat(np.arange(3003), 3)
    clusters = items // 7
    part_of = clusters % 3
    parts = [MeanPart(np.full(int(np.sum(part_of == j)), 0.1), items[part_of == j], clusters[part_of == j])
             for j in range(3)]
    order = np.concatenate([np.flatnonzero(part_of == j) for j in range(3)])
    want = estimate_mean(np.full(items.size, 0.1), items[order], clusters[order])
    got = estimate_mean_parts(lambda: iter(parts), clustered=True)
    assert got.method == want.method == "zero-se-wilson-clusters"
    assert mismatches(round_off(want.to_dict()), round_off(got.to_dict()), atol=1e-12 * 0.1) == []


def test_refusals_are_estimate_means() -> None:
    def message(call: Any) -> str:
        with pytest.raises(ValueError) as info:
            call()
        return str(info.value)

    # an item in two clusters (third part, second row of the item): the same text, the same global row
    good = MeanPart(np.array([1.0, 0.0, 1.0]), np.array([0, 1, 0]), np.array([4, 4, 4]))
    bad = MeanPart(np.array([1.0, 0.0, 1.0, 0.0]), np.array([5, 6, 5, 6]), np.array([0, 1, 2, 1]))
    values = np.r_[good.values, good.values, bad.values]
    items = np.r_[good.items, good.items + 10, bad.items + 20]
    clusters = np.r_[good.clusters, good.clusters + 10, bad.clusters + 20]
    want = message(lambda: estimate_mean(values, items, clusters))
    assert "two clusters (row 8)" in want
    assert message(lambda: estimate_mean_parts(lambda: iter([good, good, bad]), clustered=True)) == want
    # no parts, or only empty ones
    empty = MeanPart(np.empty(0), np.empty(0, dtype=np.int64), None)
    want = message(lambda: estimate_mean(np.empty(0)))
    assert message(lambda: estimate_mean_parts(lambda: iter([]), clustered=False)) == want
    assert message(lambda: estimate_mean_parts(lambda: iter([empty, empty]), clustered=False)) == want
    # options, checked as estimate_mean checks them
    two = [good, MeanPart(np.array([0.0]), np.array([0]), np.array([0]))]
    for kwargs in ({"method": "nope"}, {"cluster_method": "cr3"}, {"level": 1.5}):
        want = message(lambda kwargs=kwargs: estimate_mean([1.0, 0.0], **kwargs))
        assert message(lambda kwargs=kwargs: estimate_mean_parts(lambda: iter(two), clustered=True, **kwargs)) == want
    # the bootstrap needs every item mean at once
    assert "bootstrap interval needs all item means" in message(
        lambda: estimate_mean_parts(lambda: iter(two), clustered=True, method="bootstrap"))
    # one part with the bootstrap is estimate_mean's bootstrap
    one = estimate_mean_parts(lambda: iter([empty, good]), clustered=False, method="bootstrap")
    assert one == estimate_mean(good.values, good.items, method="bootstrap")
    # clustered parts need cluster codes
    assert "cluster codes" in message(lambda: estimate_mean_parts(
        lambda: iter([good, MeanPart(np.array([1.0]), np.array([0]), None)]), clustered=True))


ROWS = 200_000


def lazy_parts(n_parts: int) -> Iterator[MeanPart]:
    """Parts made on demand (seeded): 2-4 epochs per item, items in clusters of ~20 items."""
    for j in range(n_parts):
        rng = np.random.default_rng(j)
        items = np.sort(rng.integers(0, ROWS // 3, size=ROWS))
        p = rng.uniform(0.2, 0.8, size=ROWS // 3)[items]
        np.less(rng.uniform(size=ROWS), p, out=p)  # 0/1 in place
        part = MeanPart(p, items, items // 20)
        del items, p  # nothing of this part stays alive in the generator while the next is made
        yield part
        del part


@pytest.mark.slow  # a memory measurement
def test_memory_is_bounded_by_one_part() -> None:
    one = next(lazy_parts(1))
    part_bytes = one.values.nbytes + one.items.nbytes + one.clusters.nbytes
    del one
    tracemalloc.start()
    try:
        started = time.perf_counter()
        est = estimate_mean_parts(lambda: lazy_parts(50), clustered=True)
        seconds = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert est.n_rows == 50 * ROWS and est.n_clusters is not None and est.n_clusters > 50 * (ROWS // 3 // 20) * 0.9
    assert peak < 3 * part_bytes, (peak / part_bytes, seconds)
    print(f"peak {peak / part_bytes:.2f} x one part, {seconds:.2f} s")


def test_coverage_of_the_default_interval() -> None:
    """Seeded Monte Carlo: clustered items with 1-3 epochs, split into 4 parts; the 95 % CR2 interval
    covers the true mean in 400 replications within a binomial tolerance (and, as a sanity check
    of the oracle, matches estimate_mean on the concatenation)."""
    rng = np.random.default_rng(2026)
    reps, covered = 400, 0
    for r in range(reps):
        n_clusters = 30
        sizes = rng.integers(1, 12, size=n_clusters)
        cluster_of_item = np.repeat(np.arange(n_clusters), sizes)
        n_items = cluster_of_item.size
        item_effect = rng.normal(0, 0.5, n_clusters)[cluster_of_item] + rng.normal(0, 0.5, n_items)
        epochs = rng.integers(1, 4, size=n_items)
        item_of_row = np.repeat(np.arange(n_items), epochs)
        values = 0.3 + item_effect[item_of_row] + rng.normal(0, 1, item_of_row.size)
        part_of_cluster = rng.integers(0, 4, size=n_clusters)
        part_of_row = part_of_cluster[cluster_of_item[item_of_row]]
        parts = [MeanPart(values[part_of_row == j], item_of_row[part_of_row == j],
                          cluster_of_item[item_of_row][part_of_row == j]) for j in range(4)]
        est = estimate_mean_parts(lambda parts=parts: iter(parts), clustered=True)
        covered += est.ci_low <= 0.3 <= est.ci_high
        if r < 20:
            order = np.concatenate([np.flatnonzero(part_of_row == j) for j in range(4)])
            want = estimate_mean(values[order], item_of_row[order], cluster_of_item[item_of_row][order])
            assert mismatches(want.to_dict(), est.to_dict()) == []
            want = estimate_mean(values[order], item_of_row[order], cluster_of_item[item_of_row][order],
                                 cluster_method="cr1", level=0.9)
            got = estimate_mean_parts(lambda parts=parts: iter(parts), clustered=True, cluster_method="cr1", level=0.9)
            assert mismatches(want.to_dict(), got.to_dict()) == []
    sd = math.sqrt(0.95 * 0.05 / reps)
    print(f"coverage {covered / reps:.3f}")
    assert abs(covered / reps - 0.95) <= 3.5 * sd, covered / reps
