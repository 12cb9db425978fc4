"""QA: ``compare --sequential`` / ``watch`` say the rows left out, with their reasons, as a line in
text (the table drops its ``left out`` column when the terminal is narrow); markdown keeps the
column, JSON the ``left_out`` record."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Callable

from built_logs import inspect_base, write_inspect_json

Cli = Callable[..., tuple[int, str, str]]


def _run(tmp_path: Path, name: str) -> Path:
    header, samples = inspect_base()
    header = copy.deepcopy(header)
    header["eval"].update(run_id=f"r-{name}", eval_id=f"e-{name}", model=f"m/{name}-" + "x" * 60)
    samples = copy.deepcopy(samples)
    for i, s in enumerate(samples):
        if i % 9 == 5:
            s["error"], s["scores"] = {"message": "boom"}, None
    return write_inspect_json(tmp_path / f"{name}.json", header, samples)


def test_sequential_text_counts_left_out_rows(tmp_path: Path, cli: Cli) -> None:
    a, b = _run(tmp_path, "a"), _run(tmp_path, "b")
    code, out, err = cli("compare", a, b, "--sequential")
    assert code == 0
    lines = [x for x in err.splitlines() if "left out" in x]
    assert len(lines) == 1 and "row(s) left out (" in lines[0] and "sample error)" in lines[0]
    code, out, _ = cli("compare", a, b, "--sequential", "--json")
    left = json.loads(out)["results"][0]["left_out"]
    assert str(sum(left.values())) + " row(s) left out" in lines[0]
    code, out, err = cli("watch", b, "--baseline", a, "--once")
    assert any("row(s) left out (" in x for x in err.splitlines())
