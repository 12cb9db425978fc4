"""Every Eval Ever aggregate and instance-level records -> canonical rows (evaladdon.adapters.every_eval_ever).

Real files from evaleval/every_eval_ever (MIT; tests/data/every_eval_ever/SOURCE.md) and small
instance files built to its instance_level_eval.schema.json (validated against it here).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO

DATA = REPO / "tests" / "data" / "every_eval_ever"


def _json(cli: Any, *args: object) -> dict[str, Any]:
    code, out, err = cli(*args, "--json")
    assert code == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


def test_real_aggregate_gives_its_scores_as_reported(cli: Any) -> None:
    path = DATA / "hfopenllm_v2" / "98ea850e-7019-4728-a558-8b1819ec47c2.json"
    doc = json.loads(path.read_text())
    got = _json(cli, "summarize", path)
    want = {r["evaluation_name"]: r["score_details"]["score"] for r in doc["evaluation_results"]}
    assert {r["task"]: r["mean"] for r in got["results"]} == want
    assert all(r["harness_reported"] and r["model"] == "TencentARC/LLaMA-Pro-8B-Instruct" for r in got["results"])
    assert {r["run"] for r in got["results"]} == {doc["evaluation_id"]}


def test_real_instances_read_once_and_the_difference_explained(cli: Any) -> None:
    from evaladdon.adapters import read_runs

    loaded = read_runs([DATA / "demo"])
    t = loaded.table
    assert len(t) == 1 and t["item"].iat[0] == "demo_0001" and t["value"].iat[0] == 1.0
    assert t["metric"].iat[0] == "accuracy" and t["task"].iat[0] == "demo-source.demo_bench"
    assert t["item_hash"].iat[0].startswith("9c94305328f8") and t["harness"].iat[0] == "every_eval_ever"
    assert not loaded.reported  # the aggregate's one result is read from its instances, not twice
    got = _json(cli, "summarize", DATA / "demo")
    assert any("0.75" in n and "DOES NOT reproduce" in n for n in got["notes"])


def _record(i: int, score: Any, **more: Any) -> dict[str, Any]:
    rec = {"schema_version": "0.3.0", "evaluation_id": "src/org_m/1", "model_id": "org/m",
           "evaluation_name": "bench", "evaluation_result_id": "bench", "sample_id": f"s{i}",
           "sample_hash": f"h{i}", "interaction_type": "single_turn", "input": {"raw": "q", "reference": ["a"]},
           "output": {"raw": ["a"]}, "answer_attribution": [],
           "evaluation": {"score": score, "is_correct": score == 1}}
    rec.update(more)
    return rec


def test_built_instances_with_errors_and_epochs(tmp_path: Path) -> None:
    import jsonschema

    from evaladdon.adapters import read_runs

    schema = json.loads((DATA / "instance_level_eval.schema.json").read_text())
    recs = [_record(i, float(i % 2), metadata={"epoch": str(e), "subject": f"c{i % 3}"})
            for i in range(6) for e in (1, 2)]
    recs[3]["evaluation"] = {"score": None, "is_correct": False}
    recs[3]["error"] = "timeout"
    for r in recs:
        if r["evaluation"]["score"] is not None:
            jsonschema.validate(r, schema)
    p = tmp_path / "x_samples.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))
    loaded = read_runs([p], cluster="subject")
    t = loaded.table
    assert len(t) == 12 and sorted(set(t["epoch"])) == [1, 2]
    assert t.loc[t["error"].notna(), "error"].tolist() == ["timeout"]
    assert t["metric"].unique().tolist() == ["score"] and t["cluster"].tolist()[:2] == ["c0", "c0"]
    assert any("no Every Eval Ever aggregate record beside it" in n for n in loaded.notes)


def test_a_bad_line_is_one_line(cli: Any, tmp_path: Path) -> None:
    p = tmp_path / "x_samples.jsonl"
    p.write_text(json.dumps(_record(0, 1.0)) + "\n{not json\n")
    code, _, err = cli("summarize", p)
    assert code == 2 and "Traceback" not in err and str(p) in err and "line 2" in err


@pytest.mark.parametrize("missing", ["sample_id", "evaluation_id"])
def test_records_without_keys_are_refused(cli: Any, tmp_path: Path, missing: str) -> None:
    rec = _record(0, 1.0)
    p = tmp_path / "y_samples.jsonl"
    p.write_text(json.dumps(rec) + "\n" + json.dumps({k: v for k, v in rec.items() if k != missing}) + "\n")
    code, _, err = cli("summarize", p)
    assert code == 2 and "Traceback" not in err and (missing in err or "not a log" in err)
