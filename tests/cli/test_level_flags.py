"""``--level`` is read by one type (:func:`evaladdon.cli.options.level_type`) in every command that
takes it: the same accepted forms and the same one-line refusal at the flag, exit 2."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

Cli = Callable[..., tuple[int, str, str]]

REFUSAL = "evaladdon: error: argument --level: --level must be a confidence level strictly between 0 and 1 (0.95 = 95 %), got {!r}\n"

COMMANDS = {
    "summarize": ["summarize", "{path}"],
    "ci": ["ci", "3", "10"],
    "judge": ["judge", "{path}", "--labels", "{path}"],
    "lm-eval-stderr": ["lm-eval-stderr", "{path}"],
}


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("level", ["95", "1", "0", "-0.5", "nan", "inf", "abc", ""])
def test_a_bad_level_is_refused_alike(tmp_path: Path, cli: Cli, command: str, level: str) -> None:
    path = tmp_path / "none.csv"
    code, out, err = cli(*[a.format(path=path) for a in COMMANDS[command]], "--level", level)
    assert (code, out, err) == (2, "", REFUSAL.format(level))


@pytest.mark.parametrize("level", ["0.9", ".9", "9e-1"])
def test_ci_accepts_the_same_forms(cli: Cli, level: str) -> None:
    code, out, _ = cli("ci", "3", "10", "--level", level, "--json")
    assert code == 0 and '"level": 0.9' in out
