"""What the reading commands (summarize, compare, judge, report) share in their output.

- JSON output is one object ``{"results": [...], "skipped": [...], "notes": [...]}``:
  ``skipped`` holds every input file not read (``{"path", "reason"}``) and every comparison
  not made (``{"run_a", "run_b", "label_a", "label_b", "task", "metric", "reason"}``);
  ``notes`` every other warning (incomplete logs, runs without scored rows, fall-backs).
- Text output: the table on stdout; warnings and notes on stderr (``--quiet`` hides them,
  but never the one-line error of a gate that cannot vouch for skipped inputs).
- Markdown output: the table, then the warnings and notes as a list (never table rows).
- A wrong ``--metric`` or ``--cluster`` lists what exists with the closest match.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from evaladdon.table.checks import check_metric, check_metric_name, closest, cluster_fields  # noqa: F401 - old place

if TYPE_CHECKING:  # pragma: no cover
    from evaladdon.table.loaded import Loaded


def add_reporting(p: argparse.ArgumentParser, gate: bool = False) -> None:
    """``--wide``, ``--verbose`` (and ``--allow-skipped`` for commands with a gate)."""
    p.add_argument("--wide", action="store_true", help="show every column and full names, however wide")
    p.add_argument("--verbose", action="store_true", help="list every skipped input and comparison on stderr")
    if gate:
        p.add_argument("--allow-skipped", action="store_true",
                       help="let the gate pass even when an input or comparison was skipped (default: exit 2)")


def load(args: argparse.Namespace) -> "Loaded":
    """:func:`evaladdon.routes.table.load` of the command's inputs (a wrong ``--cluster``
    answered with the fields that exist, a ``--metric`` no row has refused)."""
    from evaladdon.cli.options import input_options
    from evaladdon.routes.table import load as load_inputs

    return load_inputs(input_options(args))


def skipped_records(loaded: "Loaded", comparisons: Sequence[Any] = ()) -> list[dict[str, Any]]:
    """The JSON ``skipped`` list: files not read, then comparisons not made."""
    out: list[dict[str, Any]] = [dict(s) for s in loaded.skipped]
    out += [s.to_dict() for s in comparisons]
    return out


def other_notes(loaded: "Loaded", notes: Iterable[str]) -> list[str]:
    """Notes that are not a skipped file (those are listed under ``skipped``)."""
    skipped = {f"skipped {s['path']}: {s['reason']}" for s in loaded.skipped}
    return [n for n in notes if n not in skipped and not (n.startswith("skipped ") and n[8:] in skipped)]


def skip_lines(loaded: "Loaded", comparisons: Sequence[Any] = ()) -> list[str]:
    return [f"skipped {s['path']}: {s['reason']}" for s in loaded.skipped] + [c.line() for c in comparisons]


def emit(
    args: argparse.Namespace,
    results: list[Any],
    loaded: "Loaded",
    notes: Iterable[str] = (),
    comparisons_skipped: Sequence[Any] = (),
) -> None:
    """JSON envelope, or the warnings of text (stderr) / markdown (a list on stdout) output.

    Text and markdown tables are printed by the command before calling this.
    """
    from evaladdon.report.text import markdown_list, warn, write_json

    rest = other_notes(loaded, notes)
    skips = skip_lines(loaded, comparisons_skipped)
    if getattr(args, "json", False):
        write_json({"results": results, "skipped": skipped_records(loaded, comparisons_skipped), "notes": rest})
        return
    lines = summarise(skips, getattr(args, "verbose", False)) + rest
    if getattr(args, "markdown", False):
        sys.stdout.write(markdown_list(lines))
    elif not getattr(args, "quiet", False):
        warn(f"warning: {x}" if not x.startswith(("note:", "warning:")) else x for x in lines)


def summarise(lines: list[str], verbose: bool, limit: int = 3) -> list[str]:
    """Skip lines: all with ``--verbose``, else the first few and one line counting the rest."""
    if verbose or len(lines) <= limit:
        return lines
    return lines[:limit] + [f"... and {len(lines) - limit} more skipped (--verbose lists them)"]


def gate_refuses_skips(args: argparse.Namespace, loaded: "Loaded", comparisons_skipped: Sequence[Any] = ()) -> int:
    """Exit 2 with one line when a gate would vouch for inputs it did not read (unless allowed)."""
    comparisons_skipped = [c for c in comparisons_skipped if getattr(c, "blocking", True)]
    n_files, n_comp = len(loaded.skipped), len(comparisons_skipped)
    if not getattr(args, "fail_on_regression", False) or getattr(args, "allow_skipped", False) or not (n_files or n_comp):
        return 0
    from evaladdon.report.escape import clean

    first = skip_lines(loaded, comparisons_skipped)[0]
    what = " and ".join(x for x in (f"{n_files} input(s) not read" if n_files else "",
                                    f"{n_comp} comparison(s) not made" if n_comp else "") if x)
    sys.stderr.write(clean(f"evaladdon: error: the gate cannot pass with {what} (first: {first}); "
                           "fix them or pass --allow-skipped") + "\n")
    return 2
