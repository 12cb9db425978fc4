"""The CI recipe examples/ci/evaladdon-gate.yml: its shell ``run:`` steps, taken from the parsed
workflow, run as GitHub runs them (``bash --noprofile --norc -eo pipefail``) on sample_logs/, with
the paths substituted through the env variables the workflow defines; they must exit as the
workflow documents (0 GO or INCONCLUSIVE, 1 NO-GO, 2 MISSING or an input error) and leave the
markdown the comment step posts."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO

yaml = pytest.importorskip("yaml", reason="PyYAML is not installed")
WORKFLOW = REPO / "examples" / "ci" / "evaladdon-gate.yml"
POLICY = REPO / "examples" / "ci" / "evaladdon-policy.yml"
INSPECT = REPO / "sample_logs" / "inspect"
LM_EVAL = REPO / "sample_logs" / "lm_eval"
EXPRESSION = re.compile(r"\$\{\{\s*(steps\.([\w-]+)\.outputs\.([\w-]+)|env\.(\w+))\s*\}\}")

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not available")


def job() -> dict[str, Any]:
    (gate,) = yaml.safe_load(WORKFLOW.read_text())["jobs"].values()
    return dict(gate)


def shell_steps() -> list[dict[str, Any]]:
    """The steps with a shell ``run:`` that calls evaladdon (the install step is not run: tests
    never install anything)."""
    steps = [s for s in job()["steps"] if "run" in s]
    assert any("pip install evaladdon" in s["run"] for s in steps)
    return [s for s in steps if re.search(r"\bevaladdon (gate|compare)\b", s["run"]) or "GATE_EXIT" in s["run"]]


def _shim(folder: Path) -> Path:
    """An ``evaladdon`` on PATH that runs this checkout's package."""
    exe = folder / "evaladdon"
    exe.write_text(f'#!/bin/sh\nPYTHONPATH="{REPO}" exec "{sys.executable}" -m evaladdon.cli.main "$@"\n')
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return folder


def _expand(value: str, env: dict[str, str], outputs: dict[str, dict[str, str]]) -> str:
    def one(m: re.Match[str]) -> str:
        return outputs.get(m.group(2), {}).get(m.group(3), "") if m.group(2) else env.get(m.group(4), "")

    return EXPRESSION.sub(one, value)


def run_workflow(tmp_path: Path, **paths: Path) -> tuple[list[int], dict[str, str], Path]:
    """Run the shell steps in order (as ``if: always()`` would: each, whatever the last gave);
    their exit codes, the gate step's outputs and the work folder."""
    defined = job()["env"]
    assert set(paths) <= set(defined), f"the workflow no longer defines {set(paths) - set(defined)}"
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, **{k: str(v) for k, v in defined.items()}, **{k: str(v) for k, v in paths.items()}}
    env["PATH"] = f"{_shim(tmp_path)}{os.pathsep}{env['PATH']}"
    outputs: dict[str, dict[str, str]] = {}
    codes = []
    for k, step in enumerate(shell_steps()):
        out_file = tmp_path / f"output-{k}"
        out_file.write_text("")
        step_env = {**env, "GITHUB_OUTPUT": str(out_file),
                    **{n: _expand(str(v), env, outputs) for n, v in (step.get("env") or {}).items()}}
        script = tmp_path / f"step-{k}.sh"
        script.write_text(_expand(step["run"], env, outputs))
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=work,
                              env=step_env, capture_output=True, text=True, timeout=300)
        codes.append(done.returncode)
        if "id" in step:
            outputs[step["id"]] = dict(line.split("=", 1) for line in out_file.read_text().splitlines() if "=" in line)
    return codes, outputs.get("gate", {}), work


def _markdown(work: Path) -> str:
    return (work / job()["env"]["GATE_MARKDOWN"]).read_text()


def test_the_sample_logs_pass_and_leave_the_comment(tmp_path: Path) -> None:
    codes, out, work = run_workflow(tmp_path, EVALADDON_POLICY=POLICY, BASELINE_LOGS=INSPECT / "baseline.eval",
                                    CANDIDATE_LOGS=INSPECT / "candidate.eval")
    assert codes == [0, 0] and out["exit_code"] == "0"
    md = _markdown(work)
    assert md.startswith("### evaladdon gate: GO (exit 0)") and "| reading comprehension | candidate | critical |" in md
    assert "MISSING" in md  # the lm-eval benchmarks of the policy are not in these runs: shown, not blocking
    verdict = json.loads((work / job()["env"]["GATE_JSON"]).read_text())["results"][0]
    assert verdict["verdict"] == "GO" and verdict["exit_code"] == 0


def test_a_regression_fails_the_check(tmp_path: Path) -> None:
    strict = yaml.safe_load(POLICY.read_text())
    strict["benchmarks"][0]["max_drop"] = "0pt"  # any drop shown blocks; the runs swapped: -8.3 points, p = 0.046
    policy = tmp_path / "strict.yml"
    policy.write_text(yaml.safe_dump(strict))
    codes, out, work = run_workflow(tmp_path, EVALADDON_POLICY=policy, BASELINE_LOGS=INSPECT / "candidate.eval",
                                    CANDIDATE_LOGS=INSPECT / "baseline.eval")
    assert codes == [0, 1] and out["exit_code"] == "1"
    assert _markdown(work).startswith("### evaladdon gate: NO-GO (exit 1)")


def test_a_missing_critical_benchmark_exits_2(tmp_path: Path) -> None:
    codes, out, work = run_workflow(tmp_path, EVALADDON_POLICY=POLICY, BASELINE_LOGS=LM_EVAL / "dummy-seed1",
                                    CANDIDATE_LOGS=LM_EVAL / "dummy-seed2")
    assert codes == [0, 2] and out["exit_code"] == "2"
    assert _markdown(work).startswith("### evaladdon gate: MISSING (exit 2)")


def test_a_broken_policy_exits_2_and_still_leaves_a_comment(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text("benchmarks:\n  - task: reading\n    tier: blocker\n    max_drop: 5pt\n")
    codes, out, work = run_workflow(tmp_path, EVALADDON_POLICY=broken, BASELINE_LOGS=INSPECT / "baseline.eval",
                                    CANDIDATE_LOGS=INSPECT / "candidate.eval")
    assert codes == [0, 2] and out["exit_code"] == "2"
    assert _markdown(work).startswith("### evaladdon gate: ERROR (exit 2)")
