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
