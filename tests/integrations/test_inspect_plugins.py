"""The Inspect plug-ins, run inside real (offline) Inspect evaluations.

The numbers Inspect writes into its logs are cross-checked against ``evaladdon
summarize``/``compare`` on the same logs.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("inspect_ai")

from inspect_ai.log import read_eval_log  # noqa: E402

from evaladdon.adapters import load  # noqa: E402
from evaladdon.analysis.compare_table import compare_table  # noqa: E402
from evaladdon.analysis.summarize import summarize_table  # noqa: E402

from conftest import load_script  # noqa: E402

make_inspect_logs = load_script("make_inspect_logs")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return make_inspect_logs.run(tmp_path_factory.mktemp("inspect_runs"))  # type: ignore[no-any-return]


def logged_metrics(path: Path) -> dict[str, float]:
    header = read_eval_log(str(path), header_only=True)
    return {k: m.value for s in header.results.scores for k, m in s.metrics.items()}


@pytest.mark.slow  # real inspect eval runs
def test_metrics_written_into_the_log_match_summarize(runs: dict[str, Path]) -> None:
    m = logged_metrics(runs["baseline"])
    s = summarize_table(load([runs["baseline"]], cluster="passage.id"), cluster_method="cr1")[0].estimate
    assert m["accuracy"] == pytest.approx(s.mean)
    assert m["clustered_se_cr1"] == pytest.approx(s.se_cluster)
    assert m["clustered_se"] == pytest.approx(s.se_cluster_cr2)  # default method cr2
    assert m["clustered_df_cr2"] == pytest.approx(s.df_cluster_cr2)
    default = summarize_table(load([runs["baseline"]], cluster="passage.id"))[0].estimate  # CR2, as the plug-in
    assert m["deff"] == pytest.approx(default.deff)  # the design effect of the SE reported
    assert m["n_clusters"] == s.n_clusters == 12
    ev = s.epoch_variance
    assert ev is not None
    assert m["within_var"] == pytest.approx(ev.within_var)
    assert m["between_var"] == pytest.approx(ev.between_var)
    assert m["icc_epochs"] == pytest.approx(ev.icc)
    from evaladdon.stats import plan

    assert m["mde"] == pytest.approx(plan(n=60, variance=2 * ev.within_var / 3).mde)


def test_paired_delta_matches_compare(runs: dict[str, Path]) -> None:
    m = logged_metrics(runs["candidate"])
    df = load([runs["baseline"], runs["candidate"]])
    runs_order = list(dict.fromkeys(df["run"]))
    (r,) = compare_table(df, [(runs_order[0], runs_order[1])])
    c = r.comparison
    assert m["delta"] == pytest.approx(c.delta)
    assert (m["ci_low"], m["ci_high"]) == pytest.approx((c.ci_low, c.ci_high))
    assert m["p_value"] == pytest.approx(c.p_value)
    assert m["n"] == c.n == 60
    assert m["se_paired"] < m["se_unpaired"]


def test_judge_corrected_matches_cli_statistics(runs: dict[str, Path]) -> None:
    m = logged_metrics(runs["judge"])
    log = read_eval_log(str(runs["judge"]))
    verdicts = np.array([1.0 if s.scores["model_graded_qa"].value == "C" else 0.0 for s in log.samples])
    human = [(i, s.metadata["human_label"]) for i, s in enumerate(log.samples) if "human_label" in s.metadata]
    from evaladdon.stats import judge_agreement, rogan_gladen

    idx = [i for i, _ in human]
    agr = judge_agreement(verdicts[idx], np.array([h for _, h in human], dtype=float))
    rg = rogan_gladen(verdicts.mean(), agr.sensitivity, agr.specificity, n_observed=verdicts.size,
                      n_pos=agr.n_pos, n_neg=agr.n_neg)
    assert m["observed"] == pytest.approx(verdicts.mean())
    assert m["corrected"] == pytest.approx(rg.estimate)
    assert m["corrected_se"] == pytest.approx(rg.se)
    truth = np.mean([s.metadata["truth"] for s in log.samples])
    assert m["ci_low"] <= truth <= m["ci_high"]


def test_judge_cli_matches_the_metric(runs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from evaladdon.cli.main import main

    m = logged_metrics(runs["judge"])
    assert main(["judge", "--labels", str(runs["labels"]), str(runs["judge"]), "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["results"]
    assert row["corrected"] == pytest.approx(m["corrected"])
    assert row["se"] == pytest.approx(m["corrected_se"])
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((m["ci_low"], m["ci_high"]))


def _tiny_eval(metrics: list[Any], log_dir: Path, epochs: int = 1) -> Any:
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import match

    def answer(messages: list[Any], *_: Any) -> ModelOutput:
        out = ModelOutput.from_content(model="mockllm/model", content="1")
        out.usage = ModelUsage(input_tokens=3, output_tokens=1, total_tokens=4)
        return out

    samples = [Sample(id=f"s{i}", input=f"q{i}", target=str(i % 2), metadata={"group": "only"}) for i in range(6)]
    (log,) = eval(Task(dataset=samples, scorer=match(), metrics=metrics, epochs=epochs),
                  model=get_model("mockllm/model", custom_outputs=answer), display="none", log_dir=str(log_dir))
    return log


def test_degenerate_metrics_report_nan_and_do_not_fail(tmp_path: Path) -> None:
    from inspect_ai.scorer import accuracy

    from evaladdon.inspect_ai import clustered_se, epoch_variance, judge_corrected, paired_delta

    log = _tiny_eval([accuracy(), clustered_se("group"), epoch_variance(), paired_delta(str(tmp_path / "none.eval")),
                      judge_corrected(sensitivity=0.5, specificity=0.4)], tmp_path / "logs")
    assert log.status == "success"
    values = {k: m.value for s in log.results.scores for k, m in s.metrics.items()}
    assert values["accuracy"] == pytest.approx(0.5)
    for key in ("clustered_se", "within_var", "delta", "corrected"):
        assert np.isnan(values[key]), key


def test_reducer_and_scorer_wrapper_keep_epochs(tmp_path: Path) -> None:
    from inspect_ai.scorer import accuracy, match

    from evaladdon.inspect_ai import epoch_tagged, mean_keep_epochs

    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    calls = {"n": 0}

    def answer(messages: list[Any], *_: Any) -> ModelOutput:
        calls["n"] += 1
        out = ModelOutput.from_content(model="mockllm/model", content=str(calls["n"] % 2))
        out.usage = ModelUsage(input_tokens=3, output_tokens=1, total_tokens=4)
        return out

    from inspect_ai import Epochs

    samples = [Sample(id=f"s{i}", input=f"q{i}", target="1") for i in range(4)]
    (log,) = eval(Task(dataset=samples, scorer=epoch_tagged(match()), metrics=[accuracy()],
                       epochs=Epochs(3, mean_keep_epochs())),
                  model=get_model("mockllm/model", custom_outputs=answer), display="none", log_dir=str(tmp_path), max_samples=1)
    assert log.status == "success"
    for s in log.samples:
        meta = s.scores["match"].metadata
        assert meta["evaladdon_epoch"] == s.epoch and meta["evaladdon_value"] in ("C", "I")
    reductions = log.reductions[0]
    assert reductions.reducer == "evaladdon/mean_keep_epochs"
    for r in reductions.samples:
        assert len(r.metadata["evaladdon_epochs"]) == 3
        assert r.value == pytest.approx(np.mean(r.metadata["evaladdon_epochs"]))


def test_entry_point_makes_metrics_findable_by_name() -> None:
    code = (
        "from inspect_ai.scorer._metric import metric_create\n"
        "m = metric_create('evaladdon/clustered_se', cluster='passage.id')\n"
        "from inspect_ai._util.registry import registry_info\n"
        "print(registry_info(m).name)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "evaladdon/clustered_se"


def test_one_score_name_with_two_reducers(tmp_path: Path) -> None:
    """Epochs(3, ["mean", "max"]) logs two results for 'match'; the rows are the per-epoch
    scores once, and their item means reproduce the mean reducer's accuracy."""
    from inspect_ai import Epochs, Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import accuracy, match

    calls = {"n": 0}

    def answer(messages: list[Any], *_: Any) -> ModelOutput:
        calls["n"] += 1
        out = ModelOutput.from_content(model="mockllm/model", content="1" if calls["n"] % 3 else "0")
        out.usage = ModelUsage(input_tokens=3, output_tokens=1, total_tokens=4)
        return out

    samples = [Sample(id=f"s{i}", input=f"q{i}", target="1") for i in range(5)]
    (log,) = eval(Task(dataset=samples, scorer=match(), metrics=[accuracy()], epochs=Epochs(3, ["mean", "max"])),
                  model=get_model("mockllm/model", custom_outputs=answer), display="none", log_dir=str(tmp_path))
    reducers = {s.reducer: s.metrics["accuracy"].value for s in log.results.scores}
    assert set(reducers) == {"mean", "max"}
    df = load([Path(log.location)])
    assert set(df["metric"]) == {"match"} and len(df) == 15 and df["epoch"].max() == 3
    s = summarize_table(df)[0].estimate
    assert s.mean == pytest.approx(reducers["mean"]) and s.n_epochs_max == 3
