"""The Inspect early-stopping plug-in ``evaladdon.inspect_ai.sequential_stop``.

Inside real ``inspect eval`` runs, offline (``mockllm/model`` with custom outputs that set
``usage``): the width rule, a paired regression against a baseline log, the budget with epochs
and clusters; what is written to ``results.early_stopping``.  Oracle: the interval written at the
stop equals :func:`evaluate.stats.betting_sequence` on the scores of the items finished by then
(``max_samples=1`` makes the order the dataset's).  Monte Carlo of the manager itself (driven
through its protocol methods): decision error under no difference <= alpha, and the average
saving under an effect.
"""

from __future__ import annotations

import asyncio
import math
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

import numpy as np
import pytest

pytest.importorskip("inspect_ai", reason="inspect-ai is not installed")

from evaladdon.inspect_ai import SequentialStop, sequential_stop  # noqa: E402
from evaladdon.stats.sequential.bounded import betting_sequence  # noqa: E402


def _run(log_dir: Path, n: int, answer_of: Callable[[int], str], stopper: Any, epochs: int = 1,
         groups: int | None = None) -> Any:
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import match

    calls = {"n": 0}

    def answer(messages: list[Any], *_: Any) -> ModelOutput:
        text = str(messages[-1].content) if messages else ""
        i = int(text[1:]) if text[1:].isdigit() else calls["n"]
        calls["n"] += 1
        out = ModelOutput.from_content(model="mockllm/model", content=answer_of(i))
        out.usage = ModelUsage(input_tokens=3, output_tokens=1, total_tokens=4)
        return out

    samples = [Sample(id=f"s{i:03d}", input=f"q{i}", target="1",
                      metadata={"group": f"g{i // (n // groups)}" if groups else "one"}) for i in range(n)]
    task = Task(dataset=samples, scorer=match(), epochs=epochs, early_stopping=stopper)
    (log,) = eval(task, model=get_model("mockllm/model", custom_outputs=answer), display="none",
                  log_dir=str(log_dir), max_samples=1)
    return log


def test_width_rule_stops_and_writes_the_interval(tmp_path: Path) -> None:
    log = _run(tmp_path, 200, lambda i: "1" if i % 5 else "0", sequential_stop(width=0.3))
    es = log.results.early_stopping
    meta = es.metadata
    assert es.manager == "evaladdon/sequential_stop" and meta["rule"] == "width" and meta["stopped"]
    k = meta["at_stop"]["units"]
    assert 0 < k < 200 and len(es.early_stops) == 200 - k
    assert all(s.reason == meta["reason"] for s in es.early_stops)
    ref = betting_sequence([0.0 if i % 5 == 0 else 1.0 for i in range(k)]).last
    assert (meta["at_stop"]["low"], meta["at_stop"]["high"]) == pytest.approx((ref.low, ref.high))
    assert ref.high - ref.low <= 0.3 < betting_sequence([0.0 if i % 5 == 0 else 1.0 for i in range(k - 1)]).last.high \
        - betting_sequence([0.0 if i % 5 == 0 else 1.0 for i in range(k - 1)]).last.low
    assert log.results.completed_samples == k


def test_paired_regression_against_a_baseline_log(tmp_path: Path) -> None:
    base = _run(tmp_path / "base", 100, lambda i: "1", None)
    log = _run(tmp_path / "cand", 100, lambda i: "1" if i % 3 else "0",
               sequential_stop(baseline=base.location, margin=0.05))
    meta = log.results.early_stopping.metadata
    assert meta["rule"] == "regression" and meta["at_stop"]["high"] < -0.05
    assert meta["estimand"].startswith("paired") and meta["at_stop"]["units"] < 100
    assert len(log.results.early_stopping.early_stops) == 100 - meta["at_stop"]["units"]


def test_lower_is_better_mirrors_the_decision(tmp_path: Path) -> None:
    """``better="lower"``: the same fall of the score is the improvement, not the regression (as
    ``compare --sequential`` decides on the mirrored sequence); the interval written is unchanged."""
    base = _run(tmp_path / "base", 100, lambda i: "1", None)
    higher = _run(tmp_path / "higher", 100, lambda i: "1" if i % 3 else "0",
                  sequential_stop(baseline=base.location, margin=0.05)).results.early_stopping.metadata
    lower = _run(tmp_path / "lower", 100, lambda i: "1" if i % 3 else "0",
                 sequential_stop(baseline=base.location, margin=0.05, better="lower")).results.early_stopping.metadata
    assert higher["rule"] == "regression" and higher["lower_is_better"] is False
    assert lower["rule"] == "improvement" and lower["lower_is_better"] is True
    assert "(lower is better)" in lower["reason"] and lower["at_stop"] == higher["at_stop"]
    rise = _run(tmp_path / "rise", 100, lambda i: "1", sequential_stop(baseline=_run(
        tmp_path / "base0", 100, lambda i: "1" if i % 3 else "0", None).location, margin=0.05, better="lower"))
    assert rise.results.early_stopping.metadata["rule"] == "regression"
    with pytest.raises(ValueError, match="better must be higher or lower"):
        sequential_stop(width=0.1, better="smaller")


def test_equivalence_band_and_budget_with_epochs(tmp_path: Path) -> None:
    base = _run(tmp_path / "base", 60, lambda i: "1", None)
    log = _run(tmp_path / "eq", 60, lambda i: "1", sequential_stop(baseline=base.location, band=0.3))
    meta = log.results.early_stopping.metadata
    assert meta["rule"] == "equivalent" and -0.3 <= meta["at_stop"]["low"] and meta["at_stop"]["high"] <= 0.3
    log = _run(tmp_path / "budget", 20, lambda i: "1", sequential_stop(budget=5), epochs=2)
    meta = log.results.early_stopping.metadata
    assert meta["rule"] == "budget" and meta["admitted_items"] == 5 and meta["epochs"] == 2
    assert log.results.completed_samples == 10 and meta["final"]["units"] == 5  # every admitted item ran 2 epochs


def test_clusters_are_the_units(tmp_path: Path) -> None:
    log = _run(tmp_path, 80, lambda i: "1" if i % 4 else "0", sequential_stop(width=0.8, cluster="group"), groups=20)
    meta = log.results.early_stopping.metadata
    assert meta["unit"] == "cluster (group)" and meta["rule"] == "width"
    k = meta["at_stop"]["units"]  # clusters of 4 items, each with mean 0.75
    assert 0 < k < 20 and log.results.completed_samples == 4 * k
    ref = betting_sequence([0.75] * k).last
    assert (meta["at_stop"]["low"], meta["at_stop"]["high"]) == pytest.approx((ref.low, ref.high))


def _simulate(stopper: SequentialStop, a: np.ndarray, b: np.ndarray) -> tuple[str | None, int]:
    """Drive the manager through the protocol: baseline scores ``a``, this run's ``b``."""
    stopper.baseline_path = "given"  # the baseline's item means are set directly
    n = a.size

    async def go() -> None:
        samples = [SimpleNamespace(id=i, metadata={}) for i in range(n)]
        stopper.base = {}
        await SequentialStop.start_task(stopper, None, [], 1)  # type: ignore[arg-type]
        stopper.base = {str(i): float(a[i]) for i in range(n)}
        for s in samples:
            stopper.unit_of[str(s.id)] = str(s.id)
            stopper.unit_size[str(s.id)] = 1
        for i in range(n):
            if await stopper.schedule_sample(i, 1) is None:
                score = SimpleNamespace(score=SimpleNamespace(value=float(b[i])))
                await stopper.complete_sample(i, 1, {"match": score})  # type: ignore[dict-item]

    asyncio.run(go())
    return (stopper.stop or {}).get("rule"), len(stopper.admitted)


def test_decision_error_under_no_difference_and_saving_under_an_effect(monkeypatch: pytest.MonkeyPatch) -> None:
    import evaladdon.integrations.inspect_plugin as plugin

    monkeypatch.setattr(plugin, "_baseline_item_means", lambda *a: ({}, True))
    rng = np.random.default_rng(29)
    reps, n = 150, 300
    for better in ("higher", "lower"):  # lower: the mirrored decision keeps the same error
        wrong = 0
        for _ in range(reps):  # no difference: discordant pairs equally likely both ways
            a = (rng.random(n) < 0.6).astype(float)
            flip = rng.random(n) < 0.3
            b = np.where(flip, rng.random(n) < 0.6, a).astype(float)
            rule, _ = _simulate(sequential_stop(baseline="x", margin=0.0, better=better), a, b)
            wrong += rule in ("regression", "improvement")
        # 150 replicates: a true error rate of 5 % exceeds 5 % + 2.5 SE = 9.5 % with p < 0.01
        assert wrong / reps <= 0.05 + 2.5 * math.sqrt(0.05 * 0.95 / reps), better
    used = []
    for _ in range(40):  # the candidate loses a quarter of its passes: delta about -0.19
        a = (rng.random(n) < 0.75).astype(float)
        b = np.where(rng.random(n) < 0.25, 0.0, a)
        rule, admitted = _simulate(sequential_stop(baseline="x", margin=0.0), a, b)
        used.append(admitted if rule == "regression" else n)
    assert np.mean(used) < 0.8 * n
