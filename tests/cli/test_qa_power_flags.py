"""QA: ``power`` bad or unread flags give one line naming the flag (exit 2): ``--delta 0`` (was an
internal error), the simulation's ``--sequence/--reps/--horizon/--seed`` without ``--sequential``,
and a negative ``--seed`` (numpy's message named no flag)."""

from __future__ import annotations

from typing import Callable

import pytest

Cli = Callable[..., tuple[int, str, str]]
DESIGN = ["--paired", "--discordance", "0.2"]


@pytest.mark.parametrize("extra, word", [
    (["--delta", "0"], "--delta 0"),
    (["--delta", "0", "--sequential"], "--delta 0"),
    (["--delta", "0", "--n", "100"], "--delta 0"),
    (["--delta", "5pt", "--reps", "5"], "--reps"),
    (["--delta", "5pt", "--horizon", "50"], "--horizon"),
    (["--delta", "5pt", "--sequence", "bernstein"], "--sequence"),
    (["--delta", "5pt", "--sequential", "--seed", "-1", "--reps", "5"], "--seed"),
])
def test_power_refuses_in_one_line(cli: Cli, extra: list[str], word: str) -> None:
    code, out, err = cli("power", *DESIGN, *extra)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert word in err and "internal error" not in err


def test_power_sequential_still_takes_its_options(cli: Cli) -> None:
    code, out, err = cli("power", *DESIGN, "--delta", "5pt", "--sequential", "--reps", "5", "--horizon", "300",
                         "--seed", "3", "--sequence", "bernstein")
    assert code == 0, err
    assert "sequential plan" in out and "5 simulated runs of up to 300 items" in out
