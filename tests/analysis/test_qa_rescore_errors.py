"""QA: re-scoring keeps every left-out row's own reason (a sample error stays a sample error), so
the rescored metric is computed on the same items as the logged one and --errors means the same."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Callable

from built_logs import inspect_edge_samples, write_inspect_json


def _edge(tmp_path: Path, name: str = "edge") -> Path:
    header, samples = inspect_edge_samples()
    header = copy.deepcopy(header)
    header["eval"].update(run_id=f"run-{name}", eval_id=f"eval-{name}", model=f"mockllm/{name}")
    return write_inspect_json(tmp_path / f"{name}.json", header, samples)


def test_rescore_keeps_the_logged_reasons(tmp_path: Path, cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = cli("rescore", _edge(tmp_path), "--rule", "exact", "--metric", "other", "--json")
    assert code == 0
    recs: list[dict[str, Any]] = [r for r in json.loads(out)["results"] if r.get("metric", "").startswith("other")]
    logged = next(r for r in recs if r["rule"] == "logged")
    exact = next(r for r in recs if r["rule"] == "exact")
    # the same rows are scored under the rule as by the logged scorer (every errored one left out)
    assert exact["n_items"] == logged["n_items"] == 30
    assert exact["dropped"]["sample error"] == logged["dropped"]["sample error"] == 7
    assert exact["dropped"]["unscored sample"] == logged["dropped"]["unscored sample"]


def test_compare_rules_pairs_the_same_items(tmp_path: Path, cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = cli("compare", _edge(tmp_path, "a"), _edge(tmp_path, "b"), "--rules", "exact", "--metric", "other", "--json")
    assert code == 0
    rows = json.loads(out)["results"][0]["rules"]
    ns = {r["rule"]: r["n"] for r in rows}
    assert ns["exact"] == ns["logged"] == 30
    rates = {r["rule"]: r["error_rate_a"] for r in rows}
    assert rates["exact"] == rates["logged"] > 0.5


def test_compare_rules_counts_left_out_rows_in_text(tmp_path: Path, cli: Callable[..., tuple[int, str, str]]) -> None:
    for mode in ([], ["--markdown"]):
        code, out, err = cli("compare", _edge(tmp_path, "a"), _edge(tmp_path, "b"), "--rules", "exact",
                             "--metric", "other", *mode)
        assert code == 0, err
        text = (out + err).replace("\\(", "(").replace("\\)", ")").replace("\\[", "[").replace("\\]", "]")
        for metric in ("other", "other [exact]"):
            assert f"/ reading / {metric}: 51 row(s) of A left out (34 unscored sample, 10 limit reached (token), " \
                   "7 sample error)" in text
        policy = [x for x in text.splitlines() if "errored samples: --errors exclude (" in x]
        assert len(policy) == 1 and "(82 errored item(s)" in policy[0]  # the logged comparison's, once
