"""``export --format every-eval-ever``: records valid against the project's own JSON schemas, carrying
the same estimates ``summarize`` prints, and reading back to the same numbers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from built_logs import synthetic
from conftest import REPO

DATA = REPO / "tests" / "data" / "every_eval_ever"
jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not installed")


def _validate(out: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    agg_schema = json.loads((DATA / "eval.schema.json").read_text())
    inst_schema = json.loads((DATA / "instance_level_eval.schema.json").read_text())
    aggs, insts = [], []
    for f in sorted(out.rglob("*.json")):
        doc = json.loads(f.read_text())
        jsonschema.Draft7Validator(agg_schema).validate(doc)
        aggs.append(doc)
    for f in sorted(out.rglob("*_samples.jsonl")):
        for line in f.read_text().splitlines():
            rec = json.loads(line)
            jsonschema.Draft7Validator(inst_schema).validate(rec)
            insts.append(rec)
    return aggs, insts


@pytest.mark.parametrize("cluster", [None, "passage"])
def test_export_is_valid_and_carries_our_estimates(cli: Any, tmp_path: Path, cluster: str | None) -> None:
    src = synthetic(tmp_path / "a.csv", "org/model-a", 3, binary=True)
    more = ["--cluster", cluster] if cluster else []
    code, _, err = cli("export", src, "--format", "every-eval-ever", "-o", tmp_path / "out", *more)
    assert code == 0, err
    aggs, insts = _validate(tmp_path / "out")
    code, out, _ = cli("summarize", src, "--json", *more)
    (want,) = json.loads(out)["results"]
    (agg,) = aggs
    (res,) = agg["evaluation_results"]
    sd = res["score_details"]
    assert sd["score"] == want["mean"] and sd["uncertainty"]["standard_error"]["value"] == want["se"]
    ci = sd["uncertainty"]["confidence_interval"]
    assert (ci["lower"], ci["upper"], ci["confidence_level"]) == (want["ci_low"], want["ci_high"], 0.95)
    assert sd["uncertainty"]["num_samples"] == want["n_items"]
    assert ("cluster-robust" in sd["uncertainty"]["standard_error"]["method"]) == (cluster is not None)
    # every row left out is counted with its reason; the others are instance records
    assert int(sd["details"]["n_dropped"]) == want["n_dropped"] > 0
    assert len(insts) == 60 * 3 - want["n_dropped"]  # synthetic(): 60 items, 3 epochs
    assert sd["details"]["dropped"] == "; ".join(f"{k}: {v}" for k, v in sorted(want["dropped"].items()))
    assert agg["model_info"]["id"] == "org/model-a" and agg["model_info"]["developer"] == "org"
    assert agg["detailed_evaluation_results"]["total_rows"] == len(insts)


def test_export_reads_back_to_the_same_numbers(cli: Any, tmp_path: Path) -> None:
    a = synthetic(tmp_path / "a.csv", "org/a", 4, binary=True)
    b = synthetic(tmp_path / "b.csv", "org/b", 5, binary=True)
    code, _, err = cli("export", a, b, "--format", "every-eval-ever", "-o", tmp_path / "out")
    assert code == 0, err
    _, before, _ = cli("summarize", a, b, "--json")
    _, after, _ = cli("summarize", tmp_path / "out", "--json")
    key = ("model", "task", "metric")
    old = {tuple(r[k] for k in key): r for r in json.loads(before)["results"]}
    new = {tuple(r[k] for k in key): r for r in json.loads(after)["results"]}
    assert old.keys() == new.keys() and len(old) == 2
    for k, r in old.items():
        assert new[k]["mean"] == pytest.approx(r["mean"], abs=1e-12)
        assert new[k]["se"] == pytest.approx(r["se"], abs=1e-12)
        assert new[k]["n_items"] == r["n_items"] and new[k]["n_epochs"] == r["n_epochs"]
    notes = "\n".join(json.loads(after)["notes"])
    assert "reproduce the aggregate score" in notes and "DOES NOT" not in notes


def test_export_to_a_file_is_refused(cli: Any, tmp_path: Path) -> None:
    src = synthetic(tmp_path / "a.csv", "m", 1)
    target = tmp_path / "x.json"
    target.write_text("{}")
    code, _, err = cli("export", src, "--format", "every-eval-ever", "-o", target)
    assert code == 2 and "writes a folder" in err and "Traceback" not in err


def _with_left_out_rows(path: Path, cli: Any, clustered: bool) -> Path:
    """Two runs whose rows left out have three reasons: a value that is no number, an empty score
    and an error (``timeout``, set in an exported table: the table reader keeps an export's errors)."""
    import csv

    import pandas as pd

    raw = path.with_name("raw.csv")
    with raw.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["model", "task", "id", "epoch", "score", "passage"])
        for m in ("org/a", "org/b"):
            for i in range(30):
                for e in (0, 1):
                    v = "oops" if (i, e) == (3, 0) else "" if i == 5 else str(int((i * 3 + e + len(m)) % 4 < 2))
                    w.writerow([m, "t", f"q{i}", e, v, f"p{i // 5}"])
    code, _, err = cli("export", raw, *(["--cluster", "passage"] if clustered else []), "-o", path)
    assert code == 0, err
    df = pd.read_csv(path, dtype={"item": str})
    timeout = (df["item"] == "q7") & (df["epoch"] == 1)
    df.loc[timeout, "error"], df.loc[timeout, "value"] = "timeout", float("nan")
    df.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("clustered", [False, True])
def test_round_trip_keeps_the_rows_left_out(cli: Any, tmp_path: Path, clustered: bool) -> None:
    src = _with_left_out_rows(tmp_path / "d.csv", cli, clustered)
    code, _, err = cli("export", src, "--format", "every-eval-ever", "-o", tmp_path / "out")
    assert code == 0, err
    aggs, _ = _validate(tmp_path / "out")
    back = ["--cluster", "cluster"] if clustered else []  # the export keeps the cluster in each record's metadata
    _, before, _ = cli("summarize", src, "--json")
    _, after, _ = cli("summarize", tmp_path / "out", "--json", *back)
    key = ("model", "task", "metric")
    old = {tuple(r[k] for k in key): r for r in json.loads(before)["results"]}
    new = {tuple(r[k] for k in key): r for r in json.loads(after)["results"]}
    assert old.keys() == new.keys() and len(old) == 2
    for k, r in old.items():
        assert r["n_dropped"] == 4 and len(r["dropped"]) >= 3
        for field in ("n_dropped", "dropped", "n_items", "n_rows", "n_epochs", "n_clusters"):
            assert new[k][field] == r[field], (field, new[k][field], r[field])
        assert new[k]["mean"] == pytest.approx(r["mean"], abs=1e-12) and new[k]["se"] == pytest.approx(r["se"], abs=1e-12)
    assert all("left_out_records" in r["score_details"]["details"] for a in aggs for r in a["evaluation_results"])
    # the errored rows are errors again (paired error analysis), the unscored ones are not
    _, cmp_before, _ = cli("compare", src, "--errors", "fail", "--json")
    _, cmp_after, _ = cli("compare", tmp_path / "out", "--errors", "fail", "--json", *back)
    (rb,), (ra,) = json.loads(cmp_before)["results"], json.loads(cmp_after)["results"]
    assert ra["delta"] == pytest.approx(rb["delta"], abs=1e-12) and ra["n"] == rb["n"]


def test_corpus_level_metrics_are_exported_and_read_back(cli: Any, tmp_path: Path) -> None:
    pytest.importorskip("lm_eval", reason="lm-eval is not installed (its aggregations are the oracle)")
    from built_logs import lm_eval_corpus_run

    lm_eval_corpus_run(tmp_path / "run", 1)
    code, out, _ = cli("metrics", tmp_path / "run", "--json")
    assert code == 0
    want = {e["name"]: e for g in json.loads(out)["groups"] for e in g["metrics"].values()}
    code, _, err = cli("export", tmp_path / "run", "--format", "every-eval-ever", "-o", tmp_path / "out")
    assert code == 0, err
    (agg,), insts = _validate(tmp_path / "out")
    got = {r["metric_config"]["metric_id"]: r for r in agg["evaluation_results"]}
    assert set(got) == {"f1,none", "mcc,none", "bleu,none", "ter,none"} and not insts
    for name, r in got.items():
        sd = r["score_details"]
        assert sd["score"] == want[name]["estimate"] and sd["details"]["corpus_level"] == "true"
        ci = sd["uncertainty"]["confidence_interval"]
        assert (ci["lower"], ci["upper"]) == (want[name]["ci_low"], want[name]["ci_high"])
        assert sd["uncertainty"]["num_samples"] == 120
        assert r["metric_config"]["lower_is_better"] == (name == "ter,none")
    code, out, err = cli("summarize", tmp_path / "out", "--json")
    assert code == 0, err
    reported = {r["metric"]: r for r in json.loads(out)["results"]}
    assert {k: v["mean"] for k, v in reported.items()} == {k: v["score_details"]["score"] for k, v in got.items()}


def test_a_non_finite_value_left_out_reads_back_with_its_reason(tmp_path: Path) -> None:
    import numpy as np
    import pandas as pd

    from evaladdon.adapters import read_runs
    from evaladdon.analysis.summarize import summarize_table
    from evaladdon.report.every_eval_ever import write_eee
    from evaladdon.table import finalize

    n = 12
    table = finalize(pd.DataFrame({
        "run": "r", "source": "x", "harness": "inspect", "task": "t", "model": "org/m", "metric": "mae",
        "item": [f"q{i}" for i in range(n)], "epoch": 1,
        "value": np.r_[np.linspace(0.1, 2.0, n - 3), np.inf, -np.inf, np.nan], "raw": None, "cluster": None,
        "item_hash": None, "error": None}))
    summaries = summarize_table(table, notes=[])
    write_eee(table, summaries, tmp_path / "out")
    _validate(tmp_path / "out")
    back = summarize_table(read_runs([tmp_path / "out"]).table, notes=[])
    assert [(s.n_dropped, s.dropped, s.estimate.mean) for s in back] == [(s.n_dropped, s.dropped, s.estimate.mean)
                                                                         for s in summaries]
    assert summaries[0].dropped == {"non-finite value (inf)": 2, "missing value": 1}


def test_a_metric_with_every_row_left_out_keeps_its_rows(cli: Any, tmp_path: Path) -> None:
    """A (task, metric) whose every row was left out has no score (the schema requires one), so no
    result entry; its rows go to ``eval_library.additional_details.left_out_records`` and read
    back as the same rows left out (they were lost)."""
    import pandas as pd

    src = _with_left_out_rows(tmp_path / "d.csv", cli, False)
    df = pd.read_csv(src, dtype={"item": str})
    judged = df.assign(metric="judge", value=float("nan"), error="judge failed")
    pd.concat([df, judged], ignore_index=True).to_csv(src, index=False)
    code, _, err = cli("export", src, "--format", "every-eval-ever", "-o", tmp_path / "out")
    assert code == 0, err
    aggs, _ = _validate(tmp_path / "out")
    for a in aggs:
        assert {r["metric_config"]["metric_id"] for r in a["evaluation_results"]} == {"score"}
        (group,) = json.loads(a["eval_library"]["additional_details"]["left_out_records"])
        assert (group["evaluation_name"], group["metric_id"], len(group["records"])) == ("t", "judge", 60)
    _, before, _ = cli("summarize", src, "--json")
    _, after, err = cli("summarize", tmp_path / "out", "--json")
    old, new = json.loads(before), json.loads(after)

    def judge_rows(doc: dict[str, Any]) -> list[Any]:
        return sorted(json.dumps(r, sort_keys=True) for r in doc.get("results", []) if r.get("metric") == "judge")

    assert judge_rows(new) == judge_rows(old)
    assert json.dumps(old).count("judge failed") == json.dumps(new).count("judge failed") > 0, (old, new)
    for bad, says in (("not json", "is not a JSON array"), ('[{"records": []}]', "is not an array of")):
        for a in (tmp_path / "out").rglob("*.json"):
            doc = json.loads(a.read_text())
            doc["eval_library"]["additional_details"]["left_out_records"] = bad
            a.write_text(json.dumps(doc))
        named = sorted((tmp_path / "out").rglob("*_samples.jsonl"))  # named: an error, not a skip
        code, out, err = cli("summarize", *named, "--json")
        assert code == 2 and out == "" and err.count("\n") == 1 and says in err and ".json" in err, err
