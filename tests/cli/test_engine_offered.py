"""``--engine``/``--scheduler`` are offered by the commands that run on a Dask cluster and by no
other (``metrics``, ``rank``, ``rescore`` read every row and refused ``--engine dask`` after
offering it in their help)."""

from __future__ import annotations

import argparse

from evaladdon.analysis.options import DASK_COMMANDS
from evaladdon.cli.main import build_parser


def _commands() -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in build_parser(None)._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_engine_only_where_it_runs() -> None:
    offered = {name for name, p in _commands().items()
               if any("--engine" in a.option_strings for a in p._actions)}
    assert offered == set(DASK_COMMANDS)
    for name, p in _commands().items():
        has = {s for a in p._actions for s in a.option_strings}
        assert ("--scheduler" in has) == ("--engine" in has), name
