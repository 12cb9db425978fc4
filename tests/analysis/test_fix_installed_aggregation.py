"""Issue 25 item 13: a task-defined corpus aggregation (lm-eval writes only its source code into the
results file, e.g. masakhaner's ``span_f1_agg``) is recomputed with the *installed* harness's own
function, found through lm-eval's task registry, never from the log's copy of the code; when the
installed lm-eval lacks the task, ``metrics`` shows the results file's value marked as such.

The files are built to lm-eval 0.4.x's documented layout (``results_<ts>.json`` and
``samples_<task>_<ts>.jsonl``); no real log of a task with a code aggregation that the installed
lm-eval also has is in the dev kit.  The oracle is the harness's own ``span_f1_agg`` on all items."""

from __future__ import annotations

import importlib.util
import inspect
import json
import random
from pathlib import Path
from typing import Any, Callable

import pytest

Cli = Callable[..., tuple[int, str, str]]
TASK = "masakhaner_bbj_prompt_1"
STAMP = "2025-01-01T00-00-00.000000"
METRIC = "f1,flexible-extract"
LOG_ONLY = "def span_f1_agg(items):\n    raise SystemExit('the log's code must never run')\n"


def _span_f1_agg() -> Callable[[list[Any]], float]:
    lm_eval = pytest.importorskip("lm_eval", reason="lm-eval is not installed (the [lm-eval] extra)")
    utils = Path(lm_eval.__file__).parent / "tasks/afrobench/masakhaner/prompt_1/utils.py"
    if not utils.is_file():
        pytest.skip(f"the installed lm-eval {getattr(lm_eval, '__version__', '?')} has no masakhaner task")
    spec = importlib.util.spec_from_file_location("masakhaner_utils_oracle", utils)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.span_f1_agg  # type: ignore[no-any-return]


def _write_run(folder: Path, task: str, n: int = 40) -> list[tuple[str, str]]:
    rng = random.Random(0)
    labels, words = ["PER", "LOC", "ORG"], ["a", "b", "c", "d", "e", "f"]

    def spans(k: int) -> str:
        return " $$ ".join(f"{rng.choice(labels)}: {rng.choice(words)}" for _ in range(k))

    items, lines = [], []
    for i in range(n):
        gold = spans(rng.randint(1, 3))
        pred = gold if rng.random() < 0.5 else spans(2)
        items.append((gold, pred))
        lines.append(json.dumps({"doc_id": i, "doc": {"text": f"t{i}"}, "target": gold, "arguments": {},
                                 "resps": [[pred]], "filtered_resps": [pred], "filter": "flexible-extract",
                                 "metrics": ["f1"], "doc_hash": f"{i:064x}", "prompt_hash": "0" * 64,
                                 "target_hash": "1" * 64, "f1": [gold, pred]}))
    folder.mkdir(parents=True)
    (folder / f"samples_{task}_{STAMP}.jsonl").write_text("\n".join(lines) + "\n")
    return items


def _write_results(folder: Path, task: str, value: float, aggregation_source: str) -> None:
    results = {"results": {task: {"alias": task, METRIC: value, "f1_stderr,flexible-extract": "N/A"}},
               "configs": {task: {"task": task, "output_type": "generate_until", "repeats": 1,
                                  "metric_list": [{"metric": "f1", "aggregation": aggregation_source,
                                                   "higher_is_better": True}]}},
               "versions": {task: 1.1}, "n-samples": {task: {"original": 40, "effective": 40}},
               "model_name": "m", "config": {"model": "hf", "model_args": "pretrained=m"}}
    (folder / f"results_{STAMP}.json").write_text(json.dumps(results))


def test_the_installed_task_aggregation_recomputes_the_harness_value(tmp_path: Path, cli: Cli) -> None:
    span_f1_agg = _span_f1_agg()
    folder = tmp_path / "run"
    items = _write_run(folder, TASK)
    harness = span_f1_agg(items)
    # the results file carries a different function body under the same name: it must never run
    _write_results(folder, TASK, harness, LOG_ONLY)
    code, out, err = cli("metrics", folder, "--json", "--n-boot", "200")
    assert code == 0, err
    (group,) = json.loads(out)["groups"]
    est = group["metrics"][METRIC]
    assert est["estimate"] == pytest.approx(harness, abs=1e-12)
    assert est["ci_low"] < harness < est["ci_high"]
    assert est["method"] == "item bootstrap percentile"
    assert any("installed lm-eval's own 'span_f1_agg'" in n for n in est["notes"])
    assert any(n.startswith("reproduces the results file's value") for n in est["notes"])
    code, out, _ = cli("metrics", folder, "--n-boot", "200")
    assert code == 0 and "missing:" not in out and f"{harness:.4f}" in out


def test_an_unknown_task_shows_the_harness_value_marked_as_such(tmp_path: Path, cli: Cli) -> None:
    span_f1_agg = _span_f1_agg()
    folder = tmp_path / "run"
    items = _write_run(folder, "my_private_ner")
    value = span_f1_agg(items)
    _write_results(folder, "my_private_ner", value, inspect.getsource(span_f1_agg))
    code, out, err = cli("metrics", folder, "--json", "--n-boot", "200")
    assert code == 0, err
    (group,) = json.loads(out)["groups"]
    est = group["metrics"][METRIC]
    assert est["estimate"] == value and est["ci_low"] is None and est["method"] == "harness value (not recomputed)"
    assert "the installed lm-eval has no task 'my_private_ner'" in est["notes"][0]
    code, out, _ = cli("metrics", folder, "--n-boot", "200")
    row = next(line for line in out.splitlines() if line.startswith("m "))
    assert "harness value" in row and "nan" not in row and f"{value:.4f}" in row
