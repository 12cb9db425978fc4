"""Issue 28 (self-preference from the log): the Inspect reader names the grader of each
model-graded scorer in an optional ``judge`` column.  Inspect's rule (``inspect_ai/scorer/_model.py``):
the scorer's ``model`` option, else the model bound to its ``model_role`` (default ``grader``) in
``eval.model_roles``, else the model under test.  Real logs: the scanner examples'
``model_graded_fact`` logs (no options, no roles: the graders are the models under test); built
JSON logs (Inspect's log format, the sample log's header with its scorers changed) for the option,
the role and a repeated scorer name (``unique_scorer_name``)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from evaladdon.adapters.inspect.judges import judges_of
from evaladdon.adapters.read import read_runs

from built_logs import inspect_base, write_inspect_json


def _graded_log(path: Path, options: dict[str, Any], roles: dict[str, Any] | None = None) -> Path:
    header, samples = inspect_base()
    header = copy.deepcopy(header)
    header["eval"]["scorers"] = [{"name": "match", "options": {}, "metrics": []},
                                 {"name": "inspect_ai/model_graded_qa", "options": options, "metrics": []},
                                 {"name": "model_graded_qa", "options": {}, "metrics": []}]
    if roles is not None:
        header["eval"]["model_roles"] = roles
    header.pop("results", None)
    out = []
    for s in samples[:30]:
        s = copy.deepcopy(s)
        s["scores"] = {"match": s["scores"]["match"], "model_graded_qa": {"value": "C", "answer": "yes"},
                       "model_graded_qa1": {"value": "I", "answer": "no"}}
        out.append(s)
    return write_inspect_json(path, header, out)


def _judges(table: Any) -> dict[str, Any]:
    pairs = table[["metric", "judge"]].drop_duplicates()
    return {m: None if pd.isna(j) else j for m, j in zip(pairs["metric"], pairs["judge"], strict=True)}


def test_scorer_option_then_role_then_model_under_test(tmp_path: Path) -> None:
    got = read_runs([_graded_log(tmp_path / "a.json", {"model": "anthropic/claude-3-5-sonnet"})]).table
    assert _judges(got) == {"match": None, "model_graded_qa": "anthropic/claude-3-5-sonnet",
                            "model_graded_qa1": "mockllm/model"}
    roles = {"grader": {"model": "google/gemini-2.0-flash", "config": {}}}
    got = read_runs([_graded_log(tmp_path / "b.json", {}, roles)]).table
    assert _judges(got) == {"match": None, "model_graded_qa": "google/gemini-2.0-flash",
                            "model_graded_qa1": "google/gemini-2.0-flash"}
    got = read_runs([_graded_log(tmp_path / "c.json", {"model_role": None}, roles)]).table
    assert _judges(got)["model_graded_qa"] == "mockllm/model"  # model_role=None: the model under test
    got = read_runs([_graded_log(tmp_path / "d.json", {"model": ["openai/gpt-4o", "anthropic/claude-3"]})]).table
    assert _judges(got)["model_graded_qa"] == "openai/gpt-4o, anthropic/claude-3"  # a majority of graders


def test_no_model_graded_scorer_no_column(tmp_path: Path) -> None:
    header, samples = inspect_base()
    got = read_runs([write_inspect_json(tmp_path / "m.json", header, samples)]).table
    assert "judge" not in got.columns
    assert judges_of({"eval": {"scorers": "bad"}}) == {} and judges_of({}) == {}


def test_real_model_graded_fact_logs(real_logs: Path) -> None:
    logs = real_logs / "inspect_scout_examples" / "examples" / "scanner" / "logs"
    files = sorted(logs.glob("*theory-of-mind*")) + sorted(logs.glob("*security-guide*"))
    if len(files) != 2:
        pytest.skip("the scanner example logs are not all present")
    table = read_runs(files).table
    assert set(table["metric"]) == {"model_graded_fact"}
    assert (table["judge"] == table["model"]).all() and table["judge"].notna().all()
    pytest.importorskip("inspect_ai", reason="inspect-ai is not installed")
    from evaladdon.adapters.inspect.log import read_inspect_part
    from evaladdon.adapters.inspect.rows import frame

    theirs = frame([read_inspect_part(files[0], reader="inspect")])  # Inspect's own reader: the same graders
    assert (theirs["judge"] == theirs["model"]).all()
