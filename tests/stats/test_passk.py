"""pass@k / pass^k: math.comb and Inspect's reducers as oracles, coverage with Beta item rates,
and a real offline Inspect eval whose pass_at_2 reducer must equal ours."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import special

from evaladdon.stats.passk import compare_pass_at_k, pass_at_k, pass_at_k_items, pass_hat_k_items


def test_per_item_values_match_math_comb() -> None:
    ns, cs, ks = [], [], []
    for n in range(1, 13):
        for c in range(n + 1):
            for k in range(1, 14):
                ns.append(n), cs.append(c), ks.append(k)
    for k in range(1, 14):
        sel = np.array(ks) == k
        n, c = np.array(ns)[sel], np.array(cs)[sel]
        at = pass_at_k_items(n, c, k)
        hat = pass_hat_k_items(n, c, k)
        for i in range(n.size):
            if n[i] < k:
                assert math.isnan(at[i]) and math.isnan(hat[i])
                continue
            assert at[i] == pytest.approx(1 - math.comb(n[i] - c[i], k) / math.comb(n[i], k), abs=1e-12)
            assert hat[i] == pytest.approx(math.comb(c[i], k) / math.comb(n[i], k), abs=1e-12)


def test_large_n_is_stable() -> None:
    v = pass_at_k_items([2000], [3], 100)[0]
    exact = 1 - math.comb(1997, 100) / math.comb(2000, 100)
    assert v == pytest.approx(exact, rel=1e-10)


def test_matches_inspect_reducer_functions() -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai.scorer import Score
    from inspect_ai.scorer._reducer.reducer import pass_at, pass_k

    rng = np.random.default_rng(0)
    for _ in range(30):
        n = int(rng.integers(1, 9))
        vals = rng.integers(0, 2, n).astype(float)
        for k in range(1, n + 1):
            theirs_at = pass_at(k)([Score(value=v) for v in vals]).value
            theirs_hat = pass_k(k)([Score(value=v) for v in vals]).value
            assert pass_at_k_items([n], [vals.sum()], k)[0] == pytest.approx(theirs_at)
            assert pass_hat_k_items([n], [vals.sum()], k)[0] == pytest.approx(theirs_hat)


def test_coverage_with_clustered_beta_rates() -> None:
    a, b, n_ep, n_c, size, reps = 0.6, 1.2, 5, 40, 4, 200
    truth = {}
    for k in (1, 2, 5):
        truth[f"pass@{k}"] = 1 - math.exp(special.betaln(a, b + k) - special.betaln(a, b))
        truth[f"pass^{k}"] = math.exp(special.betaln(a + k, b) - special.betaln(a, b))
    rng = np.random.default_rng(3)
    items = np.repeat(np.arange(n_c * size), n_ep)
    clusters = items // size
    hits = dict.fromkeys(truth, 0)
    for _ in range(reps):
        p = rng.beta(a, b, n_c)[clusters]  # items of a cluster share their success rate
        s = (rng.random(items.size) < p).astype(float)
        res = {e.name: e for e in pass_at_k(s, items, clusters, ks=[1, 2, 5])}
        for name, t in truth.items():
            hits[name] += res[name].ci_low <= t <= res[name].ci_high
    cover = {k: v / reps for k, v in hits.items()}
    assert all(0.90 <= c <= 0.985 for c in cover.values()), cover


def test_short_items_are_left_out_and_counted() -> None:
    items = np.array([0, 0, 0, 1, 1, 2, 2, 2])
    s = np.array([1, 0, 0, 1, 1, 0, 0, 1.0])
    res = {e.name: e for e in pass_at_k(s, items)}
    assert set(res) == {"pass@1", "pass^1", "pass@2", "pass^2", "pass@3", "pass^3"}
    assert res["pass@3"].n_items == 2 and "1 item(s) have fewer than 3" in res["pass@3"].notes[0]
    assert res["pass@1"].estimate == pytest.approx(np.mean([1 / 3, 1, 1 / 3]))


def test_paired_comparison() -> None:
    rng = np.random.default_rng(4)
    items = np.repeat(np.arange(200), 4)
    p = rng.beta(1, 1, 200)[items]
    sa = (rng.random(items.size) < p).astype(float)
    sb = (rng.random(items.size) < np.minimum(1, p + 0.15)).astype(float)
    r = compare_pass_at_k(sa, items, sb, items, 2)
    a = {e.name: e for e in pass_at_k(sa, items)}["pass@2"].estimate
    b = {e.name: e for e in pass_at_k(sb, items)}["pass@2"].estimate
    assert r.delta == pytest.approx(b - a) and r.ci_low > 0
    same = compare_pass_at_k(sa, items, sa, items, 3, kind="pass^")
    assert same.delta == 0
    with pytest.raises(ValueError):
        pass_at_k([0.5, 1.0], [0, 0])


def test_equals_inspect_pass_at_k_reducer_in_a_real_eval(tmp_path: Path) -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai import Epochs, Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import accuracy, match

    from evaladdon.adapters import load

    calls = {"n": 0}

    def answer(messages: list[Any], *_: Any) -> ModelOutput:
        calls["n"] += 1
        out = ModelOutput.from_content(model="mockllm/model", content="1" if calls["n"] % 7 in (0, 2, 3) else "0")
        out.usage = ModelUsage(input_tokens=3, output_tokens=1, total_tokens=4)
        return out

    samples = [Sample(id=f"s{i}", input=f"q{i}", target="1") for i in range(6)]
    (log,) = eval(Task(dataset=samples, scorer=match(), metrics=[accuracy()],
                       epochs=Epochs(5, ["pass_at_2", "pass_at_3"])),
                  model=get_model("mockllm/model", custom_outputs=answer), display="none", log_dir=str(tmp_path),
                  max_samples=1)
    theirs = {s.reducer: s.metrics["accuracy"].value for s in log.results.scores}
    df = load([Path(log.location)])
    ours = {e.name: e.estimate for e in pass_at_k(df["value"].to_numpy(), df["item"].to_numpy())}
    assert ours["pass@2"] == pytest.approx(theirs["pass_at_2"])
    assert ours["pass@3"] == pytest.approx(theirs["pass_at_3"])


def test_paired_coverage() -> None:
    """A's item rates p ~ U(0,1), B's min(1, p + 0.15); truth by integration over p."""
    from scipy import integrate

    k, d = 2, 0.15
    truth = integrate.quad(lambda p: (1 - p) ** k - (1 - min(1.0, p + d)) ** k, 0, 1)[0]
    rng = np.random.default_rng(8)
    items = np.repeat(np.arange(150), 3)
    reps, hits = 200, 0
    for _ in range(reps):
        p = rng.random(150)[items]
        sa = (rng.random(items.size) < p).astype(float)
        sb = (rng.random(items.size) < np.minimum(1, p + d)).astype(float)
        r = compare_pass_at_k(sa, items, sb, items, k)
        hits += r.ci_low <= truth <= r.ci_high
    assert 0.91 <= hits / reps <= 0.985
