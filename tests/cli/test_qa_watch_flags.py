"""QA: ``watch`` / ``--sequential`` flag values refused at the flag in one line (exit 2): a NaN or
infinite ``--interval`` (time.sleep's error was put under the log's name), ``--max-polls`` below 1,
``--margin`` without ``--baseline`` (ignored before), ``--level`` outside (0, 1) (was "alpha must be
in (0, 1), got -0.5")."""

from __future__ import annotations

from typing import Callable

import pytest

from conftest import REPO

S = REPO / "sample_logs" / "inspect"
Cli = Callable[..., tuple[int, str, str]]


@pytest.mark.parametrize("args, word", [
    (["watch", S / "candidate.eval", "--interval", "nan", "--max-polls", "2"], "--interval"),
    (["watch", S / "candidate.eval", "--interval", "inf"], "--interval"),
    (["watch", S / "candidate.eval", "--max-polls", "0"], "--max-polls"),
    (["watch", S / "candidate.eval", "--margin", "2pt", "--once"], "--margin needs --baseline"),
    (["watch", S / "candidate.eval", "--level", "1.5", "--once"], "--level"),
    (["compare", S / "baseline.eval", S / "candidate.eval", "--sequential", "--level", "1.5"], "--level"),
    (["summarize", S / "baseline.eval", "--level", "nan"], "--level"),
])
def test_refused_at_the_flag(cli: Cli, args: list[object], word: str) -> None:
    code, out, err = cli(*args)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert word in err and "alpha" not in err and str(S) not in err


def test_watch_with_baseline_takes_a_margin(cli: Cli) -> None:
    code, out, err = cli("watch", S / "candidate.eval", "--baseline", S / "baseline.eval", "--margin", "2pt",
                         "--once", "--level", "0.9")
    assert code in (0, 1), err
    assert "anytime-valid 90% intervals" in out
