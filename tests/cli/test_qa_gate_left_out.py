"""QA: ``gate`` counts the rows left out of each judged comparison, with their reasons, and states
the errored-samples policy in text and markdown, as ``compare`` does (JSON has them per comparison:
``dropped_a`` / ``dropped_b``)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Callable

from built_logs import inspect_base, write_inspect_json
from conftest import REPO

POLICY = REPO / "examples" / "ci" / "evaladdon-policy.yml"
Cli = Callable[..., tuple[int, str, str]]


def _runs(tmp_path: Path) -> tuple[Path, Path]:
    out = []
    for name in ("base", "cand"):
        header, samples = inspect_base()
        header = copy.deepcopy(header)
        header["eval"].update(run_id=f"r-{name}", eval_id=f"e-{name}", model=f"m/{name}")
        samples = copy.deepcopy(samples)
        for i, s in enumerate(samples):
            if i % 9 == 5:  # 20 of the 180 samples errored, scores dropped as Inspect does
                s["error"], s["scores"] = {"message": "boom"}, None
        out.append(write_inspect_json(tmp_path / f"{name}.json", header, samples))
    return out[0], out[1]


def test_gate_counts_left_out_rows_in_every_mode(tmp_path: Path, cli: Cli) -> None:
    a, b = _runs(tmp_path)
    for mode in ([], ["--markdown"]):
        code, out, err = cli("gate", POLICY, a, b, *mode)
        assert code == 0, err
        text = (out + err).replace("\\(", "(").replace("\\)", ")")
        assert "20 row(s) of A left out (20 sample error)" in text
        assert "20 row(s) of B left out (20 sample error)" in text
        assert "--errors exclude" in text
    code, out, _ = cli("gate", POLICY, a, b, "--json")
    cmp = json.loads(out)["results"][0]["benchmarks"][0]["comparison"]
    assert cmp["dropped_a"] == cmp["dropped_b"] == {"sample error": 20}
