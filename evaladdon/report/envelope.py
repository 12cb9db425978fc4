"""What every reading command prints around its results (summarize, compare, judge, report).

- JSON output is one object ``{"results": [...], "skipped": [...], "notes": [...]}``:
  ``skipped`` holds every input file not read (``{"path", "reason"}``) and every comparison
  not made (``{"run_a", "run_b", "label_a", "label_b", "task", "metric", "reason"}``);
  ``notes`` every other warning (incomplete logs, runs without scored rows, fall-backs).
- Text output: the table on stdout; warnings and notes on stderr (``--quiet`` hides them but
  the lines counting what was left out: rows by reason, error rates, the ``--errors`` policy
  (:func:`evaladdon.report.errors.must_stay`), and never the one-line error of a gate that
  cannot vouch for skipped inputs).  Notes about
  the project's own files and payloads (:func:`is_bookkeeping`: evaladdon outputs and eval-set
  bookkeeping files beside the logs, evaladdon's lm-eval plug-in payload metrics) are counted in
  one line; ``--verbose`` lists them (JSON always holds them).
- Markdown output: the table, then the warnings and notes as a list (never table rows).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Sequence

if TYPE_CHECKING:  # pragma: no cover
    from evaladdon.analysis.options import GateOptions
    from evaladdon.table.loaded import Loaded

__all__ = ["OutputOptions", "emit", "is_bookkeeping", "shown_notes", "gate_refuses_skips", "other_notes", "skip_lines", "skipped_records", "summarise"]


@dataclass(frozen=True)
class OutputOptions:
    """How results are shown: ``json`` or ``markdown`` (else a terminal table), ``quiet`` (no
    warnings or notes), ``wide`` (every column), ``verbose`` (every skipped input listed)."""

    json: bool = False
    markdown: bool = False
    quiet: bool = False
    wide: bool = False
    verbose: bool = False


def skipped_records(loaded: "Loaded", comparisons: Sequence[Any] = ()) -> list[dict[str, Any]]:
    """The JSON ``skipped`` list: files not read, then comparisons not made."""
    out: list[dict[str, Any]] = [dict(s) for s in loaded.skipped]
    out += [s.to_dict() for s in comparisons]
    return out


def other_notes(loaded: "Loaded", notes: Iterable[str]) -> list[str]:
    """Notes that are not a skipped file (those are listed under ``skipped``)."""
    skipped = {f"skipped {s['path']}: {s['reason']}" for s in loaded.skipped}
    return [n for n in notes if n not in skipped and not (n.startswith("skipped ") and n[8:] in skipped)]


def is_bookkeeping(note: str) -> bool:
    """A note about the project's own files or payloads, not about the user's runs: an evaladdon
    output or eval-set bookkeeping file ignored in a folder, or a group (or a comparison) whose
    every row left out is an evaladdon plug-in payload (:data:`evaladdon.table.usable.PLUGIN_PAYLOAD`):
    the note ends ``(left out: {'<payload>': N})`` or ``(N <payload>)``, with no other reason."""
    import re

    from evaladdon.table.usable import PLUGIN_PAYLOAD

    only_payload = (r"\((?:left out: \{" + re.escape(repr(PLUGIN_PAYLOAD)) + r": \d+\}|\d+ "
                    + re.escape(PLUGIN_PAYLOAD) + r")\)(?: \(left out; hides nothing from the gate\))?$")
    return note.startswith("ignored ") or re.search(only_payload, note) is not None


def shown_notes(skips: list[str], rest: list[str], verbose: bool) -> list[str]:
    """The skip lines (the first few, :func:`summarise`) and the other notes a terminal or markdown
    shows: without the bookkeeping ones (one line counts them), or all with ``verbose``."""
    if verbose:
        return skips + rest
    ours = sum(map(is_bookkeeping, skips + rest))
    kept = summarise([s for s in skips if not is_bookkeeping(s)], verbose) + [n for n in rest if not is_bookkeeping(n)]
    return kept + ([f"note: {ours} note(s) about evaladdon's own files and plug-in payloads (--verbose lists them)"]
                   if ours else [])


def skip_lines(loaded: "Loaded", comparisons: Sequence[Any] = ()) -> list[str]:
    return [f"skipped {s['path']}: {s['reason']}" for s in loaded.skipped] + [c.line() for c in comparisons]


def emit(
    out: OutputOptions,
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
    if out.json:
        write_json({"results": results, "skipped": skipped_records(loaded, comparisons_skipped), "notes": rest})
        return
    lines = shown_notes(skips, rest, out.verbose)
    if out.markdown:
        sys.stdout.write(markdown_list(lines))
    else:  # --quiet keeps the lines that count what was left out (evaladdon.report.errors.must_stay)
        from evaladdon.report.errors import must_stay

        warn(f"warning: {x}" if not x.startswith(("note:", "warning:")) else x for x in lines
             if not out.quiet or must_stay(x))


def summarise(lines: list[str], verbose: bool, limit: int = 3) -> list[str]:
    """Skip lines: all with ``--verbose``, else the first few and one line counting the rest."""
    if verbose or len(lines) <= limit:
        return lines
    return lines[:limit] + [f"... and {len(lines) - limit} more skipped (--verbose lists them)"]


def gate_refuses_skips(gate: GateOptions, loaded: "Loaded", comparisons_skipped: Sequence[Any] = ()) -> int:
    """Exit 2 with one line when a gate would vouch for inputs it did not read (unless allowed)."""
    comparisons_skipped = [c for c in comparisons_skipped if getattr(c, "blocking", True)]
    n_files, n_comp = len(loaded.skipped), len(comparisons_skipped)
    if not gate.fail_on_regression or gate.allow_skipped or not (n_files or n_comp):
        return 0
    from evaladdon.report.escape import clean

    first = skip_lines(loaded, comparisons_skipped)[0]
    what = " and ".join(x for x in (f"{n_files} input(s) not read" if n_files else "",
                                    f"{n_comp} comparison(s) not made" if n_comp else "") if x)
    sys.stderr.write(clean(f"evaladdon: error: the gate cannot pass with {what} (first: {first}); "
                           "fix them or pass --allow-skipped") + "\n")
    return 2
