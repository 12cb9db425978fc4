"""The metrics glue and CLI: every family its inputs support, missing fields named, rows left
out counted, compare --metric for our families; numbers equal the stats functions and sklearn."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evaladdon.cli.main import main
from evaladdon.analysis.metrics import compare_metric, compute_metrics, family_of
from evaladdon.stats.calibration import calibration_metrics
from evaladdon.stats.classification import compare_classification
from evaladdon.stats.passk import pass_at_k
from evaladdon.stats.roc import roc_auc
from evaladdon.table import finalize

sk = pytest.importorskip("sklearn.metrics")


def _table(seed: int = 0, epochs: int = 1, n: int = 80, with_optional: bool = True) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, n).astype(str)
    rows = []
    for run, acc in (("A", 0.65), ("B", 0.8)):
        for ep in range(1, epochs + 1):
            right = rng.random(n) < acc
            pred = np.where(right, labels, np.where(labels == "1", "0", "1"))
            p1 = np.clip(np.where(pred == "1", acc, 1 - acc) + rng.normal(0, 0.1, n), 0.01, 0.99)
            conf = np.where(pred == "1", p1, 1 - p1)
            for i in range(n):
                row = dict(run=run, source=f"{run}.csv", harness="table", task="t", model=run, metric="match",
                           item=f"q{i}", epoch=ep, value=float(right[i]), raw=str(float(right[i])),
                           cluster=None, item_hash=None, error=None)
                if with_optional:
                    row.update(prediction=pred[i], label=labels[i], confidence=float(conf[i]), score=float(p1[i]))
                rows.append(row)
    return finalize(pd.DataFrame(rows))


def test_every_family_equals_the_stats_functions() -> None:
    df = _table()
    groups = compute_metrics(df, n_boot=300)
    assert [g.run for g in groups] == ["A", "B"]
    g = groups[0]
    a = df[df["run"] == "A"]
    est = {e.name: e for e in g.estimates}
    assert est["f1_macro"].estimate == pytest.approx(sk.f1_score(a["label"], a["prediction"], average="macro"))
    assert est["kappa"].estimate == pytest.approx(sk.cohen_kappa_score(a["label"], a["prediction"]))
    y = a["label"].astype(float).to_numpy()
    assert est["roc_auc"].estimate == pytest.approx(sk.roc_auc_score(y, a["score"]))
    assert est["roc_auc"].ci_low == pytest.approx(roc_auc(a["score"], y).ci_low)
    assert est["average_precision"].estimate == pytest.approx(sk.average_precision_score(y, a["score"]))
    assert est["brier"].estimate == pytest.approx(sk.brier_score_loss(y, a["score"]))  # from score vs label
    assert est["nll"].estimate == pytest.approx(sk.log_loss(y, a["score"]))
    correct = (a["prediction"] == a["label"]).to_numpy(dtype=float)
    ref = calibration_metrics(a["confidence"], correct, n_boot=300)  # ECE: confidence vs correct
    assert est["ece"].estimate == pytest.approx(ref.get("ece").estimate)
    assert est["ece"].ci_high == pytest.approx(ref.get("ece").ci_high)
    assert "passk" in g.missing and "one" in g.missing["passk"]
    assert g.confusion is not None and np.sum(g.confusion["matrix"]) == 80


def test_missing_fields_are_named_not_filled() -> None:
    g = compute_metrics(_table(with_optional=False), n_boot=200)[0]
    assert "prediction" in g.missing["classification"]
    assert "score" in g.missing["roc"]
    assert "confidence" in g.missing["calibration"]
    assert g.estimates == []


def test_passk_through_the_table_and_dropped_rows_counted() -> None:
    df = _table(epochs=4, n=40)
    df.loc[0, ["value", "error"]] = [np.nan, "timeout"]
    groups = compute_metrics(df, n_boot=200)
    g = groups[0]
    assert g.dropped == {"timeout": 1}
    good = df[(df["run"] == "A") & df["error"].isna()]
    ref = {e.name: e for e in pass_at_k(good["value"], good["item"])}
    est = {e.name: e for e in g.estimates}
    for k in (1, 2, 3, 4):
        assert est[f"pass@{k}"].estimate == pytest.approx(ref[f"pass@{k}"].estimate)
        assert est[f"pass^{k}"].ci_low == pytest.approx(ref[f"pass^{k}"].ci_low)
    assert "1 item(s) have fewer than 4" in " ".join(est["pass@4"].notes)
    assert "item bootstrap" in est["accuracy"].method and est["accuracy"].n_clusters is None


def test_compare_metric_equals_paired_bootstrap() -> None:
    df = _table(n=120)
    (r,) = compare_metric(df, [("A", "B")], "f1_macro", n_boot=400, seed=3)
    a, b = df[df["run"] == "A"], df[df["run"] == "B"]
    ref = {x.name: x for x in compare_classification(a["label"], a["prediction"], b["prediction"].to_numpy(),
                                                     n_boot=400, seed=3)}["f1_macro"]
    assert r.comparison.delta == pytest.approx(ref.delta) and r.comparison.ci_low == pytest.approx(ref.ci_low)
    for name in ("roc_auc", "average_precision", "ece", "brier", "pass@1"):
        assert family_of(name) is not None
        (c,) = compare_metric(df, [("A", "B")], name, n_boot=200)
        assert c.comparison.name == name and np.isfinite(c.comparison.delta)
    assert family_of("match") is None


def _csv(tmp_path: Path, epochs: int = 1) -> Path:
    df = _table(epochs=epochs)
    path = tmp_path / "runs.csv"
    cols = ["run", "task", "model", "metric", "item", "epoch", "value", "prediction", "label", "confidence"]
    df[cols].to_csv(path, index=False)
    return path


def test_cli_json_markdown_and_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _csv(tmp_path, epochs=2)
    assert main(["metrics", str(path), "--json", "--n-boot", "200"]) == 0
    out = json.loads(capsys.readouterr().out)
    m = out["groups"][0]["metrics"]
    for key in ("accuracy", "balanced_accuracy", "precision_macro", "recall_macro", "f1_macro", "f1_micro", "mcc",
                "kappa", "ece", "ece_equal_mass", "brier", "nll", "pass@1", "pass@2", "pass^2"):
        assert {"estimate", "ci_low", "ci_high", "method"} <= set(m[key]), key
    assert "score" in out["groups"][0]["missing"]["roc"]
    assert main(["metrics", str(path), "--markdown", "--n-boot", "200"]) == 0
    md = capsys.readouterr().out
    assert md.startswith("| run | task/metric | name |") and "f1\\_macro" in md
    assert main(["metrics", str(path), "--n-boot", "200"]) == 0
    text = capsys.readouterr().out
    assert "missing:" in text and "roc" in text and "pass^2" in text
    assert main(["compare", str(path), "--metric", "kappa", "--json"]) == 0
    (rec,) = json.loads(capsys.readouterr().out)["results"]
    assert rec["name"] == "kappa" and rec["run_a"] == "A" and rec["ci_low"] <= rec["delta"] <= rec["ci_high"]


def test_cli_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _csv(tmp_path)
    assert main(["compare", str(path), "--metric", "roc_auc"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "score" in err


def test_report_has_metrics_section_and_reliability_diagram(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    path = _csv(tmp_path)
    out = tmp_path / "r.html"
    assert main(["report", str(path), "-o", str(out), "--quiet"]) == 0
    page = out.read_text()
    assert "Metrics beyond the mean" in page and 'alt="reliability diagram"' in page
    assert "f1_macro" in page and "needs column &#x27;score&#x27;" in page


def test_report_without_metric_inputs_has_no_section(tmp_path: Path) -> None:
    df = _table(with_optional=False)
    path = tmp_path / "plain.csv"
    df[["run", "task", "model", "metric", "item", "epoch", "value"]].to_csv(path, index=False)
    out = tmp_path / "r.html"
    assert main(["report", str(path), "-o", str(out), "--quiet"]) == 0
    assert "Metrics beyond the mean" not in out.read_text()


def test_metric_option_names_one_of_our_metrics(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _csv(tmp_path)
    assert main(["metrics", str(path), "--metric", "mcc", "--json", "--n-boot", "200"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert all(set(g["metrics"]) == {"mcc"} for g in out["groups"])
    assert main(["metrics", str(path), "--metric", "nosuch"]) == 2


def test_corpus_level_estimates_are_added_when_the_module_exists(monkeypatch: pytest.MonkeyPatch) -> None:
    """The lmeval helper's corpus_level_estimates(df, level, n_boot, seed) -> [(run, task, MetricEstimate)]."""
    import sys
    import types

    from evaladdon.stats.metric_estimate import MetricEstimate

    seen = {}

    def corpus_level_estimates(df: pd.DataFrame, level: float, n_boot: int, seed: int) -> list:  # type: ignore[type-arg]
        seen.update(level=level, n_boot=n_boot, seed=seed, rows=len(df))
        return [("A", "t", MetricEstimate("f1,none", 0.5, 0.4, 0.6, level, "cluster bootstrap", 80))]

    fake = types.ModuleType("evaladdon.analysis.corpus")
    fake.corpus_level_estimates = corpus_level_estimates  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "evaladdon.analysis.corpus", fake)
    groups = compute_metrics(_table(with_optional=False), level=0.9, n_boot=150, seed=4)
    assert seen == {"level": 0.9, "n_boot": 150, "seed": 4, "rows": 160}
    (est,) = [e for g in groups for e in g.estimates]
    assert est.name == "f1,none" and groups[0].flat()["metrics"]["f1,none"]["estimate"] == 0.5


def test_compare_metric_markdown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _csv(tmp_path, epochs=2)
    assert main(["compare", str(path), "--metric", "pass@2", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert "| B vs A | t/match |" in out and "pass@2" in out


def test_long_table_with_all_optional_columns_through_the_reader(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Numeric 0/1 labels (read as numbers) and string predictions name the same classes; the
    score column gives ROC/PR and Brier against the label."""
    df = _table()
    path = tmp_path / "full.csv"
    df[["run", "task", "model", "metric", "item", "epoch", "value", "prediction", "label", "confidence",
        "score"]].to_csv(path, index=False)
    assert main(["metrics", str(path), "--json", "--n-boot", "200"]) == 0
    g = json.loads(capsys.readouterr().out)["groups"][0]
    a = df[df["run"] == "A"]
    y = a["label"].astype(float)
    assert g["metrics"]["roc_auc"]["estimate"] == pytest.approx(sk.roc_auc_score(y, a["score"]))
    assert g["metrics"]["accuracy"]["estimate"] == pytest.approx((a["label"] == a["prediction"]).mean())
    assert g["metrics"]["brier"]["estimate"] == pytest.approx(sk.brier_score_loss(y, a["score"]))
    assert g["missing"] == {"passk": "needs repeated epochs (every item has one)"}


def _gate_table(tmp_path: Path) -> Path:
    """Run A right on 90 % of 200 items with honest confidence; run B right on 50 % but as sure."""
    rng = np.random.default_rng(3)
    n = 200
    label = rng.integers(0, 2, n)
    right_a = rng.random(n) < 0.9
    right_b = rng.random(n) < 0.5
    rows = []
    for run, right, conf in (("A", right_a, 0.9), ("B", right_b, 0.9)):
        pred = np.where(right, label, 1 - label)
        for i in range(n):
            rows.append({"run": run, "task": "t", "model": run, "metric": "match", "item": f"i{i}", "epoch": 1,
                         "value": float(right[i]), "prediction": str(pred[i]), "label": str(label[i]),
                         "confidence": conf})
    path = tmp_path / "gate.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_gate_works_on_metric_families(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--fail-on-regression is honoured for kappa (higher is better) and ECE (lower is better)."""
    path = _gate_table(tmp_path)
    for name in ("kappa", "ece"):
        code = main(["compare", str(path), "--metric", name, "--baseline", "A", "--fail-on-regression",
                     "--n-boot", "300", "--json"])
        rec = json.loads(capsys.readouterr().out)["results"][0]
        assert code == 1 and rec["decision"] == "regression shown", (name, rec)
        # the other direction is no regression
        code = main(["compare", str(path), "--metric", name, "--baseline", "B", "--fail-on-regression",
                     "--n-boot", "300", "--json"])
        rec = json.loads(capsys.readouterr().out)["results"][0]
        assert code == 0 and rec["decision"] != "regression shown", (name, rec)


def test_cli_beta_adds_fbeta_and_compare_by_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _csv(tmp_path)
    df = pd.read_csv(path, dtype={"label": str, "prediction": str})
    assert main(["metrics", str(path), "--json", "--n-boot", "200", "--beta", "2"]) == 0
    m = json.loads(capsys.readouterr().out)["groups"][0]["metrics"]
    a = df[df["run"] == "A"]
    assert m["f2_macro"]["estimate"] == pytest.approx(sk.fbeta_score(a["label"], a["prediction"], beta=2,
                                                                     average="macro"))
    assert m["f2[1]"]["estimate"] == pytest.approx(sk.fbeta_score(a["label"], a["prediction"], beta=2, pos_label="1"))
    assert main(["metrics", str(path), "--n-boot", "200"]) == 0  # without --beta: no F-beta rows
    assert "f2_" not in capsys.readouterr().out
    assert main(["compare", str(path), "--metric", "f2_macro", "--json"]) == 0
    (rec,) = json.loads(capsys.readouterr().out)["results"]
    b = df[df["run"] == "B"]
    ref = sk.fbeta_score(b["label"], b["prediction"], beta=2, average="macro") - m["f2_macro"]["estimate"]
    assert rec["name"] == "f2_macro" and rec["delta"] == pytest.approx(ref)
    with pytest.raises(SystemExit) as exc:
        main(["metrics", str(path), "--beta", "-1"])
    assert exc.value.code == 2 and "--beta" in capsys.readouterr().err


def test_metric_names_an_fbeta(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _csv(tmp_path)
    assert main(["metrics", str(path), "--metric", "f0.5_macro", "--json", "--n-boot", "200"]) == 0
    groups = json.loads(capsys.readouterr().out)["groups"]
    df = pd.read_csv(path, dtype={"label": str, "prediction": str})
    a = df[df["run"] == "A"]
    assert list(groups[0]["metrics"]) == ["f0.5_macro"]
    assert groups[0]["metrics"]["f0.5_macro"]["estimate"] == pytest.approx(
        sk.fbeta_score(a["label"], a["prediction"], beta=0.5, average="macro"))
