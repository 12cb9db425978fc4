"""``inspect score --metric evaladdon/paired_delta``, run for real (offline) on a copy of the sample
log: Inspect's command line passes no metric arguments, so the baseline comes from
``EVALADDON_BASELINE``; without one the metric says so in one warning, never a traceback (issue 25
item 17)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai", reason="the Inspect plug-ins need inspect-ai (pip install 'evaladdon[inspect]')")
from inspect_ai.log import read_eval_log  # noqa: E402

from conftest import REPO  # noqa: E402

SAMPLE = REPO / "sample_logs" / "inspect"


def _score(tmp_path: Path, env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], Path]:
    log = tmp_path / "candidate.eval"
    shutil.copy(SAMPLE / "candidate.eval", log)
    inspect = Path(sys.executable).with_name("inspect")
    out = subprocess.run([str(inspect), "score", str(log), "--metric", "evaladdon/paired_delta", "--action",
                          "append", "--overwrite", "--no-ansi"], capture_output=True, text=True, cwd=tmp_path,
                         env={**os.environ, "COLUMNS": "200", **env}, timeout=300)
    return out, log


def _appended(log: Path) -> dict[str, float]:
    scores = read_eval_log(str(log), header_only=True).results.scores  # type: ignore[union-attr]
    return {k: m.value for k, m in scores[-1].metrics.items()}


@pytest.mark.slow  # a real inspect score run
def test_without_a_baseline_one_warning_and_nan(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "EVALADDON_BASELINE"}
    out, log = _score(tmp_path, {**env, "EVALADDON_BASELINE": ""})
    text = out.stdout + out.stderr
    assert out.returncode == 0, text[-2000:]
    assert "Traceback" not in text and "TypeError" not in text
    assert "EVALADDON_BASELINE" in " ".join(text.split())
    got = _appended(log)
    assert got["delta"] != got["delta"]  # NaN


@pytest.mark.slow  # a real inspect score run
def test_the_baseline_from_the_environment_gives_compares_numbers(tmp_path: Path) -> None:
    out, log = _score(tmp_path, {"EVALADDON_BASELINE": str(SAMPLE / "baseline.eval")})
    assert out.returncode == 0, (out.stdout + out.stderr)[-2000:]
    got = _appended(log)
    assert got["n"] == 60
    assert got["delta"] == pytest.approx(0.594444 - 0.511111, abs=1e-5)
    assert got["p_value"] == pytest.approx(0.046, abs=5e-4)
