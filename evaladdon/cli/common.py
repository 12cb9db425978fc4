"""What the reading commands (summarize, compare, judge, report) share on the command line:
``--wide``/``--verbose``/``--allow-skipped``, reading the inputs, and the output envelope of
:mod:`evaladdon.report.envelope` with the command's flags.  A wrong ``--metric`` or
``--cluster`` lists what exists with the closest match."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from evaladdon.table.checks import check_metric, check_metric_name, closest, cluster_fields  # noqa: F401 - old place
from evaladdon.report.envelope import other_notes, skip_lines, skipped_records, summarise  # noqa: F401 - old place

if TYPE_CHECKING:  # pragma: no cover
    from evaladdon.report.envelope import OutputOptions
    from evaladdon.table.loaded import Loaded


def add_reporting(p: argparse.ArgumentParser, gate: bool = False) -> None:
    """``--wide``, ``--verbose`` (and ``--allow-skipped`` for commands with a gate)."""
    p.add_argument("--wide", action="store_true", help="show every column and full names, however wide")
    p.add_argument("--verbose", action="store_true", help="list every skipped input and comparison on stderr")
    if gate:
        p.add_argument("--allow-skipped", action="store_true",
                       help="let the gate pass even when an input or comparison was skipped (default: exit 2)")


def load(args: argparse.Namespace) -> "Loaded":
    """The canonical table of the command's inputs through :func:`evaladdon.routes.plan.load_table`
    (a wrong ``--cluster`` answered with the fields that exist, a ``--metric`` no row has refused)."""
    from evaladdon.cli.options import input_options
    from evaladdon.routes.plan import load_table

    return load_table(input_options(args))


def output_options(args: argparse.Namespace) -> OutputOptions:
    """:class:`~evaladdon.report.envelope.OutputOptions` from the flags."""
    from evaladdon.report.envelope import OutputOptions

    return OutputOptions(json=getattr(args, "json", False), markdown=getattr(args, "markdown", False),
                         quiet=getattr(args, "quiet", False), wide=getattr(args, "wide", False),
                         verbose=getattr(args, "verbose", False))


def emit(args: argparse.Namespace, results: list[Any], loaded: Loaded, notes: Iterable[str] = (),
         comparisons_skipped: Sequence[Any] = ()) -> None:
    """:func:`evaladdon.report.envelope.emit` with the command's output flags."""
    from evaladdon.report.envelope import emit as emit_envelope

    emit_envelope(output_options(args), results, loaded, notes, comparisons_skipped)


def gate_refuses_skips(args: argparse.Namespace, loaded: Loaded, comparisons_skipped: Sequence[Any] = ()) -> int:
    """:func:`evaladdon.report.envelope.gate_refuses_skips` with the command's gate flags."""
    from evaladdon.analysis.options import GateOptions
    from evaladdon.report.envelope import gate_refuses_skips as refuses

    gate = GateOptions(fail_on_regression=getattr(args, "fail_on_regression", False),
                       allow_skipped=getattr(args, "allow_skipped", False))
    return refuses(gate, loaded, comparisons_skipped)
