"""The directions logs declare, read by the adapters into ``table.attrs["lower_is_better"]``
(evaladdon.table.direction) and kept by the store: lm-eval results ``higher_is_better`` and task
configs' ``metric_list``, HELM's suite schema, Every Eval Ever ``metric_config.lower_is_better``,
lighteval ``config_tasks``.  Oracle: each file's own declaration, negated where it says
higher-is-better."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any


from evaladdon.adapters import read_runs
from evaladdon.adapters.lighteval import declared_directions as lighteval_directions
from evaladdon.adapters.lm_eval.results import declared_directions, read_results
from evaladdon.table.direction import ATTR

from conftest import REPO

SAMPLE_LM = REPO / "sample_logs" / "lm_eval"
EEE = REPO / "tests" / "data" / "every_eval_ever" / "demo"


def _oracle(doc: dict) -> dict[str, dict[str, bool]]:
    """The results file's own ``higher_is_better`` negated, then its configs' ``metric_list`` for
    the metrics it does not name (written out independently of the reader)."""
    out: dict[str, dict[str, bool]] = {}
    for task, metrics in (doc.get("higher_is_better") or {}).items():
        out.setdefault(task, {}).update({m: v is False for m, v in metrics.items() if isinstance(v, bool)})
    for task, cfg in (doc.get("configs") or {}).items():
        for entry in cfg.get("metric_list") or [] if isinstance(cfg.get("metric_list"), list) else []:
            if isinstance(entry.get("higher_is_better"), bool):
                out.setdefault(task, {}).setdefault(entry["metric"], entry["higher_is_better"] is False)
    return {t: m for t, m in out.items() if m}


def _real_results(real_logs: Path) -> list[Path]:
    found = sorted((real_logs / "lmeh_results_only_04x").rglob("results_*.json"))
    found += sorted((real_logs / "lmeh_pr1668_wmdp_jsonarray").glob("results*.json"))
    return found


def test_lm_eval_real_results_files(real_logs: Path) -> None:
    files = _real_results(real_logs)
    assert files
    seen_lower = False
    for f in files:
        doc = json.loads(f.read_text())
        got = declared_directions(read_results(f))
        assert got == _oracle(doc), f
        seen_lower |= any(v for m in got.values() for v in m.values())
    assert seen_lower  # e.g. lambada_openai's perplexity: higher_is_better false


def test_lm_eval_real_perplexity_is_declared_lower(real_logs: Path) -> None:
    f = next(p for p in _real_results(real_logs) if "lambada_openai" in (json.loads(p.read_text()).get(
        "higher_is_better") or {}))
    loaded = read_runs([f], results_only=True)
    assert loaded.table.attrs[ATTR]["lambada_openai"]["perplexity"] is True
    assert loaded.table.attrs[ATTR]["lambada_openai"]["acc"] is False


def test_lm_eval_samples_carry_their_results_declaration(real_logs: Path) -> None:
    folder = real_logs / "lmeh_pr1668_wmdp_jsonarray"  # configs' metric_list only (no higher_is_better dict)
    declared = read_runs([folder]).table.attrs[ATTR]
    assert declared == {t: {"exact_match": False} for t in ("wmdp_bio", "wmdp_chem", "wmdp_cyber")}


def test_lm_eval_shipped_sample_logs() -> None:
    declared = read_runs([SAMPLE_LM]).table.attrs[ATTR]
    docs = [json.loads(p.read_text()) for p in SAMPLE_LM.glob("*/results_*.json")]
    assert declared == _oracle(docs[0]) == _oracle(docs[1])
    assert declared["evaladdon_clustered_example"]["acc_clustered_se"] is True  # higher_is_better: false


def test_every_eval_ever_declarations(tmp_path: Path) -> None:
    assert read_runs([EEE]).table.attrs[ATTR] == {"demo-source.demo_bench": {"accuracy": False}}
    copy = tmp_path / "demo"
    shutil.copytree(EEE, copy)
    agg = next(copy.glob("*[0-9a-f].json"))
    doc = json.loads(agg.read_text())
    doc["evaluation_results"][0]["metric_config"]["lower_is_better"] = True
    agg.write_text(json.dumps(doc))
    assert read_runs([copy]).table.attrs[ATTR] == {"demo-source.demo_bench": {"accuracy": True}}


def test_helm_suite_schema(real_logs: Path, tmp_path: Path) -> None:
    runs = real_logs / "helm_bbq_official" / "benchmark_output_bbq" / "runs" / "v1"
    run = sorted(p for p in runs.iterdir() if p.is_dir())[0]
    suite = tmp_path / "runs" / "v1"
    shutil.copytree(run, suite / run.name)
    assert ATTR not in read_runs([suite / run.name]).table.attrs  # no schema: nothing declared
    (suite / "schema.json").write_text(json.dumps({"metrics": [
        {"name": "exact_match", "display_name": "EM", "lower_is_better": False},
        {"name": "logprob", "lower_is_better": True}, {"name": "not_in_the_run", "lower_is_better": True},
        {"name": "max_prob"}]}))
    table = read_runs([suite / run.name]).table
    (task,) = table["task"].unique()
    assert table.attrs[ATTR] == {task: {"exact_match": False, "logprob": True}}


def test_lighteval_config_tasks() -> None:
    # as lighteval's EvaluationTracker serializes its task configs: Metric(metric_name, higher_is_better, ...)
    # and MetricGrouping(metric_name=[...], higher_is_better={name: bool})
    doc = {"config_tasks": {"lighteval|wikitext": {"metrics": [
        {"metric_name": "word_perplexity", "higher_is_better": False, "category": "PERPLEXITY"},
        {"metric_name": ["bleu", "ter"], "higher_is_better": {"bleu": True, "ter": False}},
        {"metric_name": "odd", "higher_is_better": "yes"}]},
        "lighteval|boolq|0": {"metric": [{"metric_name": "acc", "higher_is_better": True}]}}}
    assert lighteval_directions(doc, ["lighteval|wikitext|0", "lighteval|boolq|0", "absent|x|0"]) == {
        "lighteval|wikitext|0": {"word_perplexity": True, "bleu": False, "ter": True},
        "lighteval|boolq|0": {"acc": False}}
    assert lighteval_directions({}, ["t"]) == {} and lighteval_directions(None, ["t"]) == {}


def test_the_store_keeps_the_declarations(tmp_path: Path) -> None:
    from evaladdon.routes.ingest import ingest
    from evaladdon.store.query import load_selection, select

    ingest([SAMPLE_LM], tmp_path / "store", workers=1)
    manifest = json.loads((tmp_path / "store" / "manifest.json").read_text())
    kept = [e[ATTR] for e in manifest["files"].values() if ATTR in e]  # a samples file: its own task's
    assert len(kept) == 4 and all(len(k) == 1 for k in kept)
    assert sum(k.get("evaladdon_clustered_example", {}).get("acc_clustered_se", False) for k in kept) == 2
    sel = select(str(tmp_path / "store"), None)
    assert load_selection(sel, sel.files).table.attrs[ATTR] == read_runs([SAMPLE_LM]).table.attrs[ATTR]


def test_an_evaladdon_export_from_before_directions_declares_only_lower() -> None:
    """Exports made before directions were known wrote ``false`` for every per-item metric (a
    ``brier`` too): such a file (``statistics: evaladdon`` without ``directions``) is trusted only
    where it says lower; a current export, or another tool's file, is taken at its word."""
    from evaladdon.adapters.every_eval_ever import declared_directions
    from evaladdon.table.direction import EXPORTED_DIRECTIONS

    def doc(details: dict[str, str]) -> dict[str, Any]:
        return {"eval_library": {"name": "unknown", "additional_details": details}, "evaluation_results": [
            {"evaluation_name": "t", "metric_config": {"metric_id": "brier", "lower_is_better": False}},
            {"evaluation_name": "t", "metric_config": {"metric_id": "ter,none", "lower_is_better": True}}]}

    assert declared_directions(doc({"statistics": "evaladdon"})) == {"t": {"ter,none": True}}
    both = {"t": {"brier": False, "ter,none": True}}
    assert declared_directions(doc({"statistics": "evaladdon", EXPORTED_DIRECTIONS: "x"})) == both
    assert declared_directions(doc({})) == both
