"""The gate policy file (evaladdon.analysis.policy): YAML and JSON read, every mistake one line
naming the file and the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaladdon.analysis.policy import load_policy, parse_policy
from evaladdon.errors import EvalAddonError

GOOD = """
level: 0.9
adjust: bh
inconclusive: fail
missing: fail
max_supporting_no_go: 1
benchmarks:
  - task: gsm8k
    metric: "exact_match,*"
    tier: critical
    max_drop: 2pt
  - task: mmlu_*
    name: MMLU
    tier: supporting
    max_drop: 0.01
    max_relative_drop: 5%
    mode: equivalence
    test: t
  - task: judge
    tier: advisory
    max_relative_drop: 0.1
"""


def test_a_yaml_policy_and_the_same_in_json(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(GOOD)
    p = load_policy(path)
    assert (p.level, p.adjust, p.inconclusive, p.missing, p.max_supporting_no_go) == (0.9, "bh", "fail", "fail", 1)
    gsm, mmlu, judge = p.benchmarks
    assert gsm.max_drop is not None and gsm.max_drop.points and gsm.max_drop.value == 2 and gsm.mode == "non-inferiority"
    assert mmlu.name == "MMLU" and mmlu.max_drop is not None and not mmlu.max_drop.points
    assert mmlu.max_relative_drop == pytest.approx(0.05) and mmlu.mode == "equivalence" and mmlu.test == "t"
    assert judge.max_drop is None and judge.max_relative_drop == pytest.approx(0.1) and judge.name == "judge"
    assert p.tests == ("auto", "t") and mmlu.key == "benchmarks[1]"
    import yaml

    as_json = tmp_path / "policy.json"
    as_json.write_text(json.dumps(yaml.safe_load(GOOD)))
    assert load_policy(as_json) == p.__class__(**{**p.__dict__, "source": str(as_json)})


@pytest.mark.parametrize("text, key, what", [
    ("benchmarks: []", "benchmarks", "non-empty list"),
    ("- 1", "policy.yaml", "mapping"),
    ("benchmark: []", "benchmark", "unknown key"),
    ("benchmarks:\n  - task: a\n    tier: critcal\n    max_drop: 2pt", "benchmarks[0].tier", "'critcal' is not one of"),
    ("benchmarks:\n  - task: a\n    tier: critical", "benchmarks[0].max_drop", "required"),
    ("benchmarks:\n  - tier: critical\n    max_drop: 2pt", "benchmarks[0].task", "required"),
    ("benchmarks:\n  - task: a\n    tier: critical\n    max_drop: two", "benchmarks[0].max_drop", "not an effect size"),
    ("benchmarks:\n  - task: a\n    tier: critical\n    max_drop: -2pt", "benchmarks[0].max_drop", ">= 0"),
    ("benchmarks:\n  - task: a\n    tier: critical\n    max_drop: 2pt\n    test: ttest", "benchmarks[0].test", "not one of"),
    ("benchmarks:\n  - task: a\n    tier: critical\n    max_drop: 0\n    mode: equivalence", "benchmarks[0].max_drop",
     "> 0"),
    ("benchmarks:\n  - task: a\n    tier: critical\n    max_drop: 2pt\n    max_relative_drop: 150%",
     "benchmarks[0].max_relative_drop", "between 0 and 1"),
    ("benchmarks:\n  - task: a\n    tier: critical\n    max_drop: 2pt\n    maxdrop: 3pt", "benchmarks[0].maxdrop", "unknown key"),
    ("level: 95\nbenchmarks:\n  - task: a\n    tier: critical\n    max_drop: 2pt", "level", "between 0 and 1"),
    ("missing: ignore\nbenchmarks:\n  - task: a\n    tier: critical\n    max_drop: 2pt", "missing", "not one of"),
    ("benchmarks:\n  - task: a\n   tier: critical", "policy.yaml", "not valid YAML (line"),
    ("benchmarks:\n  - !!python/object/apply:os.system ['true']", "policy.yaml", "not valid YAML"),
])
def test_each_mistake_is_one_line_naming_the_file_and_the_key(tmp_path: Path, text: str, key: str, what: str) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(text)
    with pytest.raises(EvalAddonError) as err:
        load_policy(path)
    message = str(err.value)
    assert message.startswith(f"{path}: ") and key in message and what in message and "\n" not in message


def test_unreadable_and_bad_json(tmp_path: Path) -> None:
    with pytest.raises(EvalAddonError, match="cannot read the policy"):
        load_policy(tmp_path / "absent.yaml")
    bad = tmp_path / "p.json"
    bad.write_text("{")
    with pytest.raises(EvalAddonError, match="not valid JSON"):
        load_policy(bad)
    with pytest.raises(EvalAddonError, match="^x: benchmarks"):
        parse_policy({"benchmarks": None}, "x")


@pytest.mark.parametrize(("second", "said"), [
    ({"task": "gsm8k", "tier": "supporting", "max_drop": "1pt"}, "benchmarks[1]: task 'gsm8k' is listed twice (also benchmarks[0])"),
    ({"task": "mmlu", "metric": "acc", "tier": "critical", "max_drop": "1pt"},
     "benchmarks[1]: task 'mmlu', metric 'acc' is listed twice (also benchmarks[0])"),
    ({"task": "math", "name": "first", "tier": "critical", "max_drop": "1pt"},
     "benchmarks[1].name: 'first' names two benchmarks (also benchmarks[0])"),
])
def test_a_benchmark_listed_twice_is_refused(tmp_path: Path, second: dict[str, str], said: str) -> None:
    first = {"task": second["task"] if "name" not in second else "gsm8k", "tier": "critical", "max_drop": "2pt",
             **({"metric": second["metric"]} if "metric" in second else {}), **({"name": "first"} if "name" in second else {})}
    path = tmp_path / "twice.json"
    path.write_text(json.dumps({"benchmarks": [first, second]}))
    with pytest.raises(EvalAddonError) as exc:
        load_policy(path)
    assert str(exc.value).startswith(f"{path}: {said}") and "\n" not in str(exc.value)
