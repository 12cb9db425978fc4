"""HELM, promptfoo and DeepEval readers: every shipped file, crafted variants of every format
generation in SEED_SYSTEMS.md, and one-line refusals of what cannot be read."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd
import pytest

from evaladdon.adapters import expand_paths, read_runs, sniff
from evaladdon.adapters.deepeval import read_deepeval
from evaladdon.adapters.helm import read_helm_run
from evaladdon.adapters.common.jsondoc import stable_hash
from evaladdon.adapters.promptfoo import read_promptfoo
from evaladdon.errors import InputError
from evaladdon.table import validate

HELM_RUNS = "helm_bbq_official/benchmark_output_bbq/runs/v1"


def helm_dirs(real_logs: Path) -> list[Path]:
    dirs = sorted(p for p in (real_logs / HELM_RUNS).iterdir() if p.is_dir())
    assert len(dirs) == 3
    return dirs


def promptfoo_files(real_logs: Path) -> list[Path]:
    files = sorted((real_logs / "promptfoo_examples").glob("*/output.*")) + \
        sorted((real_logs / "promptfoo_tds_project").glob("*/*.json"))
    assert len(files) == 10
    return files


def deepeval_files(real_logs: Path) -> list[Path]:
    files = sorted((real_logs / "deepeval_beeai").rglob("*.json"))
    assert len(files) == 2  # dot-files in dot-folders are found
    return files


# ---------------------------------------------------------------- HELM


def test_helm_every_shipped_run_reproduces_stats_json(real_logs: Path) -> None:
    for d in helm_dirs(real_logs):
        t = validate(read_helm_run(d, all_metrics=True))  # every stat, HELM's bookkeeping too
        spec = json.loads((d / "run_spec.json").read_text())
        assert set(t["model"]) == {spec["adapter_spec"]["model"]}
        assert set(t["task"]) == {"bbq:subject=all,method=multiple_choice_joint"}
        assert t["item"].nunique() == 50 and set(t["epoch"]) == {1}
        raw = json.loads((d / "per_instance_stats.json").read_text())
        n_positive = sum(1 for e in raw for s in e["stats"] if s["count"] > 0)
        n_zero = sum(1 for e in raw for s in e["stats"] if s["count"] == 0)
        assert len(t) == n_positive  # one row per stat with a value
        assert any(f"{n_zero} HELM stat(s) with count 0" in n for n in t.attrs["notes"])
        # HELM: per trial, sums over counts pooled; then the mean over trials -- for every stat at once
        pooled = t.assign(s=t["value"] * t["meta.count"]).groupby(["metric", "meta.split", "epoch"])[
            ["s", "meta.count"]].sum()
        run_level = (pooled["s"] / pooled["meta.count"]).groupby(level=["metric", "meta.split"]).mean().to_dict()
        checked = 0
        for st in json.loads((d / "stats.json").read_text()):
            name = st["name"]
            if name.get("perturbation") or st["count"] == 0:  # robustness/fairness "worst": not per instance
                continue
            key = (name["name"], name["split"])
            if key not in run_level:  # run-level only (e.g. bbq bias metrics)
                continue
            assert run_level[key] == pytest.approx(st["mean"], rel=1e-12, abs=1e-12), name
            checked += 1
        assert checked >= 20


def write_helm_run(root: Path, entries: list[dict], spec: dict | None, state: dict | None = None,
                   name: str = "mmlu:subject=anatomy,method=multiple_choice_joint,model=openai_gpt2") -> Path:
    d = root / "runs" / "suite1" / name
    d.mkdir(parents=True)
    (d / "per_instance_stats.json").write_text(json.dumps(entries))
    if spec is not None:
        (d / "run_spec.json").write_text(json.dumps(spec))
    if state is not None:
        (d / "scenario_state.json").write_text(json.dumps(state))
    (d / "stats.json").write_text(json.dumps([{"name": {"name": "exact_match", "split": "test"}, "count": 1,
                                               "sum": 0.5, "mean": 0.5}]))
    return d


def stat(name: str, mean: float, count: int = 1, split: str = "test") -> dict:
    return {"name": {"name": name, "split": split}, "count": count, "sum": mean * count, "mean": mean}


def test_helm_medhelm_duplicate_entries_merged_not_overwritten(tmp_path: Path) -> None:
    # MedHELM 2025: one entry per metric class with the same key; stats lists are united
    entries = []
    for iid, em in (("id1", 1.0), ("id2", 0.0)):
        entries.append({"instance_id": iid, "train_trial_index": 0, "stats": [stat("rouge_l", 0.4)]})
        entries.append({"instance_id": iid, "train_trial_index": 0, "stats": [stat("exact_match", em)]})
        entries.append({"instance_id": iid, "train_trial_index": 0,
                        "stats": [stat("jury_score", 3.0, count=2), {"name": {"name": "unused", "split": "test"},
                                                                      "count": 0, "sum": 0}]})
    # the same stat logged again for one key: merged as HELM merges stats (sums, counts added)
    entries.append({"instance_id": "id1", "train_trial_index": 0, "stats": [stat("jury_score", 5.0, count=1)]})
    spec = {"name": "aci_bench:model=openai_gpt-4.1-nano", "adapter_spec": {"model": "openai/gpt-4.1-nano"}}
    t = validate(read_helm_run(write_helm_run(tmp_path, entries, spec, name="aci_bench:model=openai_gpt-4.1-nano")))
    assert sorted(t["metric"].unique()) == ["exact_match", "jury_score", "rouge_l"]
    assert len(t) == 6
    j = t[t["metric"] == "jury_score"].set_index("item")
    assert j.loc["id1", "value"] == pytest.approx((3.0 * 2 + 5.0) / 3) and j.loc["id1", "meta.count"] == 3
    assert float(j.loc["id1", "raw"]) == pytest.approx(11 / 3)
    assert j.loc["id2", "value"] == 3.0
    assert t[t["metric"] == "exact_match"].set_index("item")["value"].to_dict() == {"id1": 1.0, "id2": 0.0}
    assert set(t["run"]) == {"suite1/openai/gpt-4.1-nano"} and set(t["task"]) == {"aci_bench"}
    notes = " ".join(t.attrs["notes"])
    assert "merged" in notes and "count 0" in notes


def test_helm_trials_perturbations_and_model_fallbacks(tmp_path: Path) -> None:
    pert = {"name": "typos", "robustness": True, "fairness": False, "prob": 0.1}
    entries = [
        {"instance_id": "id7", "train_trial_index": 0, "stats": [stat("exact_match", 1.0)]},
        {"instance_id": "id7", "train_trial_index": 1, "stats": [stat("exact_match", 0.0)]},
        {"instance_id": "id7", "train_trial_index": 0, "perturbation": pert, "stats": [stat("exact_match", 0.0)]},
        {"instance_id": "id8", "train_trial_index": 0, "stats": [stat("exact_match", 1.0, split="valid")]},
        {"instance_id": "id9", "train_trial_index": 0, "stats": []},
    ]
    # 2023 run: no model in the run spec, the model is in scenario_state's adapter_spec
    spec = {"name": "mmlu:subject=anatomy,method=multiple_choice_joint,model=openai_gpt2",
            "scenario_spec": {"class_name": "x.MMLUScenario", "args": {"subject": "anatomy"}}, "adapter_spec": {}}
    state = {"adapter_spec": {"model": "openai/gpt2"}, "request_states": []}
    t = validate(read_helm_run(write_helm_run(tmp_path, entries, spec, state) / "per_instance_stats.json",
                               split="valid"))
    assert set(t["model"]) == {"openai/gpt2"} and set(t["item"]) == {"id8"}
    t = validate(read_helm_run(tmp_path / "runs" / "suite1" / spec["name"], all_metrics=True))
    assert any("1 stat(s) of 1 instance(s) of split 'valid'" in n for n in t.attrs["notes"])
    notes = t.attrs["notes"]
    t = pd.concat([t, read_helm_run(tmp_path / "runs" / "suite1" / spec["name"], split="valid")], ignore_index=True)
    t.attrs["notes"] = notes
    base = "mmlu:subject=anatomy,method=multiple_choice_joint"
    assert set(t["task"]) == {base, f"{base}[typos:prob=0.1]"}
    plain = t[t["task"] == base].set_index(["item", "epoch"])["value"]
    assert plain.to_dict() == {("id7", 1): 1.0, ("id7", 2): 0.0, ("id8", 1): 1.0}
    assert t.set_index("item")["meta.split"].to_dict()["id8"] == "valid"
    assert any("scenario_state" in n for n in t.attrs["notes"])
    assert any("1 HELM per-instance entr(ies) with no stat" in n for n in t.attrs["notes"])
    # sniffed by content: a per-instance stats file under another name
    other = tmp_path / "elsewhere" / "pis_copy.json"
    other.parent.mkdir()
    other.write_text(json.dumps(entries))
    reader, what = sniff(other)
    assert what == "HELM run" and len(validate(reader(other, None))) == len(t) - 1  # the test split
    # no run spec and no state: the model from the folder's run name
    t2 = read_helm_run(write_helm_run(tmp_path / "b", entries[:1], None))
    assert set(t2["model"]) == {"openai_gpt2"}


def test_helm_suite_folder_expands_to_run_directories(real_logs: Path) -> None:
    suite = real_logs / HELM_RUNS
    files, notes = expand_paths([suite])
    assert [f for f, _, _ in files] == helm_dirs(real_logs) or sorted(f.parent for f, _, _ in files) == helm_dirs(real_logs)
    assert not notes  # run_spec/stats/scenario_state are parts of the runs, not skipped logs
    one, _ = expand_paths([helm_dirs(real_logs)[0]])
    assert len(one) == 1 and one[0][0].parent == helm_dirs(real_logs)[0]
    loaded = read_runs([suite])
    assert loaded.table["run"].nunique() == 3 and set(loaded.table["harness"]) == {"helm"}


def test_helm_lone_stats_json_and_bad_entries_refused(tmp_path: Path, real_logs: Path) -> None:
    lone = tmp_path / "stats.json"
    lone.write_bytes((helm_dirs(real_logs)[0] / "stats.json").read_bytes())
    reader, _ = sniff(lone)
    with pytest.raises(InputError, match="run-level aggregates only"):
        reader(lone, None)
    d = write_helm_run(tmp_path, [{"instance_id": "a", "stats": {"oops": 1}}], {"name": "x:model=m"})
    with pytest.raises(InputError, match="'stats' is an object"):
        read_helm_run(d)


# ---------------------------------------------------------------- promptfoo


def _raw_rows(path: Path) -> tuple[list[dict], dict]:
    d = json.loads(path.read_text())
    s = d["results"] if isinstance(d.get("results"), dict) else d
    return s["results"], s.get("stats", {})


def test_promptfoo_every_shipped_file_read_or_refused(real_logs: Path) -> None:
    refused = {}
    for f in promptfoo_files(real_logs):
        try:
            t = validate(read_promptfoo(f))
        except InputError as exc:
            refused[f.parent.name] = str(exc)
            assert "\n" not in str(exc) and str(f) in str(exc)
            continue
        assert set(t["harness"]) == {"promptfoo"}
        assert not any("disagree" in n for n in t.attrs["notes"])
        if f.suffix == ".json":
            rows, stats = _raw_rows(f)
            p = t[t["metric"] == "pass"]
            assert len(p) == len(rows)
            # the file's own stats reproduced from the rows
            assert int((p["value"] == 1).sum()) == stats["successes"]
            assert int((p["value"] == 0).sum()) + int(p["error"].notna().sum()) == \
                stats["failures"] + stats.get("errors", 0)
    assert set(refused) == {"pf-v0-list-2023-04-29", "pf-csv-2023-05-01"}
    assert all("holds no scores" in m for m in refused.values())


TDS_FILE = "promptfoo_tds_project/tds-project-1/promptfoo_results.json"


def test_promptfoo_arms_items_and_pairs(real_logs: Path, tmp_path: Path) -> None:
    tds = read_promptfoo(real_logs / TDS_FILE)
    assert sorted(tds["run"].unique()) == ["https://tds-project-1-ruby-one.vercel.app/query", "openai:chat:gpt-4o-mini"]
    assert sorted(tds["metric"].unique()) == ["pass", "score"]
    rows, _ = _raw_rows(real_logs / "promptfoo_tds_project/tds-project-1/promptfoo_results.json")
    by_idx = {str(r["testIdx"]): stable_hash(r["vars"]) for r in rows}
    for _run, g in tds[tds["metric"] == "pass"].groupby("run"):
        assert sorted(g["item"]) == ["0", "1", "2", "3", "4"]
        assert g.set_index("item")["item_hash"].to_dict() == by_idx
    # v3's per-arm counts (prompts[].metrics) are checked too: a wrong one is reported
    data = json.loads((real_logs / TDS_FILE).read_text())
    data["results"]["prompts"][1]["metrics"]["testPassCount"] = 5
    (tmp_path / "tds.json").write_text(json.dumps(data))
    bad = read_promptfoo(tmp_path / "tds.json", cluster="question")
    assert [n for n in bad.attrs["notes"] if "disagree" in n][0].count("testPassCount") == 2
    assert bad["cluster"].nunique() == 5  # --cluster names a var
    v2 = read_promptfoo(real_logs / "promptfoo_examples/pf-v2-2024-06-05/output.json")
    assert v2["run"].nunique() == 8 and v2["model"].nunique() == 2
    assert v2.groupby("run")[["meta.provider", "meta.prompt"]].nunique().eq(1).all().all()
    assert v2[["meta.provider", "meta.prompt"]].drop_duplicates().shape[0] == 8
    assert (v2[v2["metric"] == "pass"].groupby("run")["item"].nunique() == 2).all()
    # the v3 JSON and the CSV export of the same eval hold the same tests (vars hashes) and outcomes
    js = read_promptfoo(real_logs / "promptfoo_examples/pf-v3-2024-10-07/output.json")
    cs = read_promptfoo(real_logs / "promptfoo_examples/pf-csv-2024-10-07/output.csv")
    assert set(js["item_hash"]) == set(cs["item_hash"]) and len(set(cs["item_hash"])) == 4
    assert sorted(js["run"].unique()) == sorted(cs["run"].unique())
    assert set(js["meta.prompt"]) == set(cs["meta.prompt"])
    # CSV cells parsed independently of the reader
    f = real_logs / "promptfoo_examples/pf-csv-2023-07-20/output.csv"
    t = read_promptfoo(f)
    with f.open(newline="") as fh:
        grid = list(csv.reader(fh))
    cells = [c for row in grid[1:] for c in row[:3]]
    assert int((t[t["metric"] == "pass"]["value"] == 1).sum()) == sum(c.startswith("[PASS]") for c in cells)
    assert int((t[t["metric"] == "pass"]["value"] == 0).sum()) == sum(c.startswith("[FAIL]") for c in cells)
    assert t["run"].nunique() == 3 and t["item"].nunique() == 8


def pf_row(provider: str, test: int, success: bool, *, fr: int | None = 0, grading: dict | None | str = "auto",
           error: str | None = None, named: dict | None = None, vars_: dict | None = None) -> dict:
    row = {"provider": {"id": provider, "label": ""}, "prompt": {"raw": "Q {{q}}", "label": "Q {{q}}"},
           "promptIdx": 0, "promptId": "p0", "testIdx": test, "vars": vars_ or {"q": f"question {test}"},
           "success": success, "score": float(success), "namedScores": named or {}, "failureReason": fr}
    if error:
        row["error"] = error
    row["gradingResult"] = {"pass": success, "score": float(success), "reason": error or "ok"} \
        if grading == "auto" else grading
    return row


def pf_file(path: Path, rows: list[dict], stats: dict) -> Path:
    path.write_text(json.dumps({"evalId": "eval-x", "results": {"version": 3, "timestamp": "t", "prompts": [],
                                                                "results": rows, "stats": stats},
                                "config": {"description": "crafted"}}))
    return path


def test_promptfoo_provider_errors_are_errors_not_failures(tmp_path: Path) -> None:
    rows = [pf_row("a", i, i % 2 == 0, fr=0 if i % 2 == 0 else 1, error=None if i % 2 == 0 else "wrong",
                   named={"Accuracy": float(i % 2 == 0)}) for i in range(6)]
    rows += [pf_row("b", i, True, named={"Accuracy": 1.0}) for i in range(4)]
    rows += [pf_row("b", 4, False, fr=2, grading=None, error="API error: 503"),
             pf_row("b", 5, False, fr=None, grading=None, error="Request timed out")]
    t = validate(read_promptfoo(pf_file(tmp_path / "out.json", rows, {"successes": 7, "failures": 3, "errors": 2})))
    assert not any("disagree" in n for n in t.attrs["notes"])
    b = t[(t["run"] == "b") & (t["metric"] == "pass")].set_index("item")
    assert b["value"].isna().sum() == 2 and b.loc["4", "error"].startswith("provider error: API error: 503")
    assert b["value"].dropna().tolist() == [1.0] * 4  # errors are not averaged in as failures
    assert sorted(t["metric"].unique()) == ["Accuracy", "pass", "score"]
    assert len(t[t["metric"] == "Accuracy"]) == 10  # named scores only where logged
    # the file's stats disagree with the rows: reported
    t2 = read_promptfoo(pf_file(tmp_path / "bad.json", rows, {"successes": 9, "failures": 3, "errors": 0}))
    assert any("disagree" in n for n in t2.attrs["notes"])


def test_promptfoo_arm_where_every_assertion_threw_is_reported(tmp_path: Path) -> None:
    threw = {"pass": False, "score": 0, "reason": "Custom function threw error: x is not defined\nStack Trace: ..."}
    rows = [pf_row("a", i, False, fr=1, grading=threw, error=threw["reason"]) for i in range(5)]
    rows += [pf_row("b", i, i != 0) for i in range(5)]
    rows += [pf_row("c", i, False, fr=1, error="Expected output to contain 'ok'") for i in range(5)]
    t = validate(read_promptfoo(pf_file(tmp_path / "o.json", rows, {"successes": 4, "failures": 11, "errors": 0})))
    # an arm failing everything for one reason is kept as failures, with a warning
    assert (t.loc[(t["run"] == "c") & (t["metric"] == "pass"), "value"] == 0).all()
    assert any("'c': every row failed with the same reason" in n for n in t.attrs["notes"])
    a = t[t["run"] == "a"]
    assert a["value"].isna().all() and a["error"].str.startswith("assertion error").all()
    assert any("every row failed because an assertion threw" in n for n in t.attrs["notes"])
    assert not any("disagree" in n for n in t.attrs["notes"])  # promptfoo counts these as failures


def test_promptfoo_old_generations_crafted(tmp_path: Path) -> None:
    # v2 wrapped with config.providers, no provider per row; items by vars hash; a repeated test -> epochs
    rows = [{"prompt": {"raw": "x", "display": "P {{t}}"}, "vars": {"t": t}, "success": s, "score": float(s),
             "response": {"output": "o"}} for t, s in (("a", True), ("b", False), ("a", False))]
    f = tmp_path / "w.json"
    f.write_text(json.dumps({"results": {"version": 2, "results": rows, "stats": {"successes": 1, "failures": 2}},
                             "config": {"providers": ["openai:gpt-4"]}, "shareableUrl": None}))
    reader, what = sniff(f)
    assert what == "promptfoo output"
    t = validate(reader(f, None))
    assert set(t["run"]) == {"openai:gpt-4"} and set(t["model"]) == {"openai:gpt-4"}
    p = t[t["metric"] == "pass"]
    assert sorted(p["epoch"]) == [1, 1, 2] and p["item"].nunique() == 2
    assert p["item"].str.startswith("vars:").all()
    # JSON lines of v3 result rows
    jl = tmp_path / "results.jsonl"
    jl.write_text("\n".join(json.dumps(pf_row(p, i, i % 2 == 0)) for p in ("a", "b") for i in range(4)) + "\n")
    assert sniff(jl)[1] == "promptfoo output"
    jt = validate(read_runs([jl]).table)
    assert sorted(jt["run"].unique()) == ["a", "b"] and (jt[jt["metric"] == "pass"].groupby("run")["value"].mean()
                                                          == 0.5).all()
    # a CSV export with an [ERROR] cell: a provider error
    c = tmp_path / "e.csv"
    c.write_text('q,[openai:a] P {{q}},[openai:b] P {{q}}\n1,[PASS] (1.00) ok,[ERROR] timeout\n'
                 '2,"[FAIL] (0.25) no\n---\nx",[PASS] (1.00) y\n')
    ct = validate(read_runs([c]).table)
    assert ct[ct["metric"] == "score"].set_index(["run", "item_hash"])["value"].dropna().round(2).tolist() == \
        [1.0, 0.25, 1.0]
    assert ct["error"].dropna().str.startswith("provider error").all() and ct["error"].notna().sum() == 2


# ---------------------------------------------------------------- DeepEval


def test_deepeval_every_shipped_file(real_logs: Path) -> None:
    tables = {f.parent.parent.name: validate(read_deepeval(f)) for f in deepeval_files(real_logs)}
    a, b = tables["beeai-2025-12-22"], tables["beeai-2025-12-31"]
    assert set(a["item"]) == set(b["item"]) == {"test_case_0"}
    assert set(a["item_hash"]) == set(b["item_hash"])  # the same input text
    assert set(b["metric"]) == {"Exact Match/score", "Exact Match/success", "ToolUsageMetric/score",
                                "ToolUsageMetric/success"}
    # errored metrics (timeouts) are errors, not failures
    assert a["error"].notna().sum() == 8 and a.loc[a["error"].notna(), "error"].str.startswith("metric error").all()
    # the run's own metricsScores reproduced
    raw = json.loads((real_logs / "deepeval_beeai/beeai-2025-12-31/.deepeval/.latest_test_run.json").read_text())
    for ms in raw["testRunData"]["metricsScores"]:
        s = b[b["metric"] == ms["metric"] + "/score"]["value"].dropna().tolist()
        ok = b[b["metric"] == ms["metric"] + "/success"]["value"]
        assert sorted(s) == sorted(ms["scores"]) and int((ok == 1).sum()) == ms["passes"]
        assert int((ok == 0).sum()) == ms["fails"] and int(ok.isna().sum()) == ms["errors"]
    assert not any("disagree" in n for t in tables.values() for n in t.attrs["notes"])


def de_case(name: str, inp: str, metrics: dict[str, float | None], threshold: float = 0.5) -> dict:
    md = []
    for m, score in metrics.items():
        d = {"name": m, "threshold": threshold, "success": score is not None and score >= threshold,
             "strictMode": False}
        if score is None:
            d["error"] = "Timed out"
        else:
            d["score"] = score
        md.append(d)
    return {"name": name, "input": inp, "actualOutput": "o", "success": all(x["success"] for x in md),
            "metricsData": md, "order": 0}


def de_file(folder: Path, cases: list[dict], hp: dict | None = None, wrapped: bool = True) -> Path:
    d = folder / ".deepeval"
    d.mkdir(parents=True)
    run = {"testCases": cases, "conversationalTestCases": [], "metricsScores": [], "hyperparameters": hp}
    path = d / (".latest_test_run.json" if wrapped else ".temp_test_run_data.json")
    path.write_text(json.dumps({"testRunData": run} if wrapped else run))
    return path


def test_deepeval_repeated_names_link_and_hyperparameters(tmp_path: Path) -> None:
    cases = [de_case("test_case_0", "q0", {"Exact Match": 1.0}), de_case("test_case_1", "q1", {"Exact Match": 0.0}),
             de_case("test_case_0", "q0", {"Faithfulness [GEval]": 0.8, "Exact Match": 0.0}),
             de_case("test_case_2", "q2", {})]
    f = de_file(tmp_path / "proj", cases, hp={"retriever": "reranker", "judge_model": "gpt-4o"})
    t = validate(read_runs([tmp_path / "proj"]).table)
    assert set(t["model"]) == {"judge_model=gpt-4o, retriever=reranker"}
    em = t[t["metric"] == "Exact Match/score"].set_index(["item", "epoch"])["value"].to_dict()
    assert em == {("test_case_0", 1): 1.0, ("test_case_1", 1): 0.0, ("test_case_0", 2): 0.0}
    assert set(t.loc[t["item"] == "test_case_0", "metric"]) >= {"Faithfulness [GEval]/score"}
    notes = " ".join(read_deepeval(f).attrs["notes"])
    assert "share 1 name" in notes and "repeated epochs" in notes
    assert "1 DeepEval test case(s) have no metric results (first: test_case_2)" in notes
    link = tmp_path / "link" / ".deepeval" / ".latest_test_run.json"
    link.parent.mkdir(parents=True)
    link.write_text(json.dumps({"testRunLink": "https://app.confident-ai.com/x"}))
    with pytest.raises(InputError, match="uploaded to Confident AI; no local test cases"):
        read_runs([link])
    # one name for two different inputs cannot be merged
    g = de_file(tmp_path / "clash", [de_case("t", "a", {"M": 1.0}), de_case("t", "b", {"M": 1.0})], wrapped=False)
    with pytest.raises(InputError, match="different inputs"):
        read_deepeval(g)


# ---------------------------------------------------------------- wrong types anywhere


def _paths(obj: object, pre: tuple = ()) -> list[tuple]:
    out = [pre]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, pre + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:2]):
            out += _paths(v, pre + (i,))
    return out


def _set(obj: object, path: tuple, value: object) -> object:
    if not path:
        return value
    cur = obj
    for k in path[:-1]:
        cur = cur[k]  # type: ignore[index]
    cur[path[-1]] = value  # type: ignore[index]
    return obj


def test_wrong_types_give_one_line_errors_never_crashes(tmp_path: Path, real_logs: Path) -> None:
    import copy
    import random

    from evaladdon.errors import EvalAddonError

    rng = random.Random(7)
    weird = [None, 1, "x", [], {}, True, 1.5, [1], {"a": 1}]
    sources = [real_logs / "promptfoo_tds_project/tds-project-1/promptfoo_results.json",
               real_logs / "promptfoo_examples/pf-v2-wrapped-2023-07-19/output.json"] + deepeval_files(real_logs)
    helm_entries = json.loads((helm_dirs(real_logs)[0] / "per_instance_stats.json").read_text())[:2]
    cases: list[tuple[str, object]] = []
    for src in sources:
        base = json.loads(src.read_text())
        ps = _paths(base)
        cases += [(src.name, _set(copy.deepcopy(base), rng.choice(ps), rng.choice(weird))) for _ in range(6)]
    ps = _paths(helm_entries)
    cases += [("helm", _set(copy.deepcopy(helm_entries), rng.choice(ps), rng.choice(weird))) for _ in range(10)]
    for k, (name, data) in enumerate(cases):
        if name == "helm":
            target = tmp_path / "runs" / "v1" / f"s:model=m{k}"
            target.mkdir(parents=True)
            (target / "per_instance_stats.json").write_text(json.dumps(data))
        else:
            target = tmp_path / f"{k}{name}"
            target.write_text(json.dumps(data))
        try:
            validate(read_runs([target]).table)
        except EvalAddonError as exc:
            assert "\n" not in str(exc)
