"""Import paths users may have used keep working after the layout moved (issue 24, item 6), and
an old path is the moved module itself, so setting an attribute there reaches the code that runs."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from conftest import REPO

SAMPLE = REPO / "sample_logs"


def test_old_module_paths_are_the_moved_modules() -> None:
    import evaladdon.analysis.compare_table as compare_table
    import evaladdon.analysis.summarize as summarize
    import evaladdon.comparison as comparison
    import evaladdon.summary as summary

    assert summary is summarize and comparison is compare_table
    from evaladdon.comparison import compare_table as ct
    from evaladdon.summary import summarize_table as st

    assert ct is compare_table.compare_table and st is summarize.summarize_table


def test_public_names_from_before_the_move() -> None:
    from evaladdon.adapters import Loaded, read_runs
    from evaladdon.stats import estimate_mean
    from evaladdon.table import finalize, run_labels, validate

    loaded = read_runs([SAMPLE / "table" / "checkpoints.csv"])
    assert isinstance(loaded, Loaded)
    validate(loaded.table)
    assert sorted(run_labels(loaded.table).values()) == ["ckpt-1000", "ckpt-2000"]
    assert callable(finalize) and estimate_mean(np.array([0.0, 1.0, 1.0, 1.0])).mean == 0.75


@pytest.mark.parametrize("face", ["evaladdon.inspect_ai", "evaladdon.lm_eval"])
def test_harness_faces_import(face: str) -> None:
    harness = {"evaladdon.inspect_ai": "inspect_ai", "evaladdon.lm_eval": "lm_eval"}[face]
    pytest.importorskip(harness, reason=f"{harness} is an optional extra, not installed here")
    assert importlib.import_module(face).__all__


def test_a_patch_on_an_old_path_reaches_the_moved_code(monkeypatch: pytest.MonkeyPatch) -> None:
    import evaladdon.summary as summary

    calls = []
    real = summary.summarize_groups

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr("evaladdon.summary.summarize_groups", spy)
    from evaladdon.adapters import read_runs

    table = read_runs([SAMPLE / "table" / "checkpoints.csv"]).table
    out = importlib.import_module("evaladdon.analysis.summarize").summarize_table(table)
    assert calls and len(out) == 2
