"""Human-readable output: tables that fit the terminal, JSON, markdown.

Tables are plain text, one line per row, as wide as the terminal (``COLUMNS`` or the
terminal's width; 100 when output is not a terminal).  When a table is too wide, columns the
caller marks as low priority are dropped first (in the caller's stated order), then label
cells are shortened in the middle (``dummy-s…43.21``); ``wide=True`` shows everything.
Written here rather than with rich: rich folds or wraps cells onto several lines when a
table is too wide and cannot drop columns by priority, and importing it costs ~100 ms of
start-up for ``ci`` and ``--help``.

Every cell is passed through :func:`evaladdon.report.escape.clean` (terminal) or
:func:`~evaladdon.report.escape.markdown_cell` (markdown): strings from logs never reach the
terminal or a PR comment raw.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from evaladdon.report.escape import clean, markdown_cell
from evaladdon.report.units import number

DEFAULT_WIDTH = 100
MIN_LABEL = 8  # a label column is never shortened below this many characters
ELLIPSIS = "…"


def terminal_width(stream: Any = None) -> int:
    """``COLUMNS`` when set, else the terminal's width, else :data:`DEFAULT_WIDTH`."""
    env = os.environ.get("COLUMNS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    out = stream if stream is not None else sys.stdout
    try:
        if out.isatty():
            return os.get_terminal_size(out.fileno()).columns
    except (AttributeError, OSError, ValueError):
        pass
    return DEFAULT_WIDTH


def fmt(value: Any, digits: int = 4) -> str:
    """A cell: :func:`evaladdon.report.units.number` (scientific notation for huge values)."""
    return number(value, digits)


def shorten(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, cut in the middle (ends tell runs apart)."""
    if len(text) <= width:
        return text
    if width <= 1:
        return text[:width]
    head = (width - 1 + 1) // 2
    tail = width - 1 - head
    return text[:head] + ELLIPSIS + (text[-tail:] if tail else "")


def cut_labels(labels: Sequence[str], widths: Sequence[int]) -> list[str]:
    """Labels that name runs, each in at most its width, cut so they still tell runs apart: first
    the prefix they all share is cut from the start (``…-20250514:HjeS8B``), then, if still too
    long, the middle (:func:`shorten`), so a label never loses the end that distinguishes it.
    A leading mark such as ``[reported] `` or ``[incomplete] `` is kept whole."""
    marks = [m.group(0) if (m := _MARK.match(x)) else "" for x in labels]
    names = [x[len(m):] for x, m in zip(labels, marks, strict=True)]
    distinct = list(dict.fromkeys(names))
    prefix = os.path.commonprefix(distinct) if len(distinct) > 1 else ""
    out = []
    for mark, text, width in zip(marks, names, widths, strict=True):
        room = max(width - len(mark), 2)
        k = min(len(prefix), len(text) - room + 1) if len(text) > room else 0
        out.append(shorten(mark + shorten(ELLIPSIS + text[k:] if k > 1 else text, room), width))
    return out


_MARK = re.compile(r"^\[[a-z ]+\] ")


TASK_MIN = 16
"""Label columns after the run names (task/metric) are shortened first, down to this width."""


@dataclass
class TextTable:
    """A table rendered by :meth:`render` to a width; ``str()`` renders at the terminal's width.

    ``drop`` lists column names in the order they are dropped when the table does not fit
    (the first is dropped first); label columns (the first ``n_left``) are then shortened:
    those after the first ``names`` (run names) first, down to :data:`TASK_MIN`, then the widest;
    run names by :func:`cut_labels`.  ``title`` may be a function of the width (a title that
    cuts its labels, never its separators).
    """

    title: str | Callable[[int], str] | None
    columns: list[str]
    rows: list[list[str]]
    n_left: int = 1
    drop: tuple[str, ...] = ()
    wide: bool = False
    dropped: list[str] = field(default_factory=list)
    names: int = 1

    def _widths(self, keep: list[int]) -> list[int]:
        return [max([len(self.columns[i])] + [len(r[i]) for r in self.rows]) for i in keep]

    def render(self, width: int | None = None) -> str:
        width = terminal_width() if width is None else width
        keep = list(range(len(self.columns)))
        widths = self._widths(keep)
        self.dropped = []
        if not self.wide:
            for name in self.drop:
                if sum(widths) + 2 * (len(keep) - 1) <= width:
                    break
                if name in self.columns and self.columns.index(name) in keep and len(keep) > self.n_left + 1:
                    keep.remove(self.columns.index(name))
                    self.dropped.append(name)
                    widths = self._widths(keep)
            self._shorten_labels(keep, widths, sum(widths) + 2 * (len(keep) - 1) - width)
        lines = []
        if self.title:
            title = self.title(width) if callable(self.title) else self.title
            lines.append(shorten(title, width) if not self.wide else title)
        rows = self.rows if self.wide else self._cut_names(keep, widths)

        def line(cells: Sequence[str]) -> str:
            out = []
            for j, i in enumerate(keep):
                cell = shorten(cells[i], widths[j]) if not self.wide else cells[i]
                out.append(cell.ljust(widths[j]) if i < self.n_left else cell.rjust(widths[j]))
            return "  ".join(out).rstrip()

        lines.append(line(self.columns))
        lines.append("  ".join("-" * w for w in widths))
        lines.extend(line(r) for r in rows)
        if self.dropped:
            lines.append(shorten(f"(--wide shows {', '.join(self.dropped)})", width))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()

    def _shorten_labels(self, keep: list[int], widths: list[int], excess: int) -> None:
        """Narrow the label columns by ``excess`` characters (``widths`` in place): the columns
        after the run names first, down to :data:`TASK_MIN`; then the widest, down to MIN_LABEL."""
        labels = [j for j, i in enumerate(keep) if i < self.n_left]
        for j in [j for j in labels if keep[j] >= self.names]:
            cut = max(0, min(excess, widths[j] - TASK_MIN))
            widths[j] -= cut
            excess -= cut
        while excess > 0 and labels:  # then the widest label column
            j = max(labels, key=lambda k: widths[k])
            if widths[j] <= MIN_LABEL:
                break
            cut = min(excess, widths[j] - MIN_LABEL)
            widths[j] -= cut
            excess -= cut

    def _cut_names(self, keep: list[int], widths: list[int]) -> list[list[str]]:
        """The rows with each run-name column cut by :func:`cut_labels` (shared prefix first)."""
        rows = [list(r) for r in self.rows]
        for j, i in enumerate(keep):
            if i < min(self.names, self.n_left) and any(len(r[i]) > widths[j] for r in rows):
                for r, cell in zip(rows, cut_labels([r[i] for r in rows], [widths[j]] * len(rows)), strict=True):
                    r[i] = cell
        return rows


class Console:
    """The small part of ``rich.console.Console`` the commands use: ``print`` and ``file``."""

    def __init__(self, file: Any, width: int | None = None) -> None:
        self.file = file
        self.width = terminal_width(file) if width is None else width

    def print(self, obj: Any = "") -> None:
        text = obj.render(self.width) if isinstance(obj, TextTable) else clean_lines(str(obj))
        self.file.write(text + "\n")


def clean_lines(text: str) -> str:
    """Each line of ``text`` cleaned of control characters (newlines kept as line breaks)."""
    return "\n".join(clean(line) for line in text.split("\n"))


def console(stream: Any = None) -> Console:
    return Console(stream if stream is not None else sys.stdout)


def table(
    title: str | Callable[[int], str] | None,
    columns: Sequence[str],
    rows: Iterable[Sequence[Any]],
    n_left: int = 1,
    drop: Sequence[str] = (),
    wide: bool = False,
    names: int = 1,
) -> TextTable:
    """A plain-text table; the first ``n_left`` columns are labels (left-aligned), the first
    ``names`` of them run names, the rest numbers.  ``title``: text, or a function of the width.

    Every cell is formatted with :func:`fmt` and cleaned of control characters.
    """
    cells = [[clean(fmt(v)) for v in r] for r in rows]
    shown: str | Callable[[int], str] | None
    if callable(title):
        fit = title
        shown = lambda w: clean(fit(w))  # noqa: E731 - cleaned at the width asked
    else:
        shown = None if title is None else clean(title)
    return TextTable(shown, [clean(c) for c in columns], cells, n_left, tuple(drop), wide, names=names)


def write_json(obj: Any, stream: Any = None) -> None:
    from evaladdon.stats._base.result import json_safe

    out = stream if stream is not None else sys.stdout
    out.write(json.dumps(json_safe(obj), indent=2, allow_nan=False) + "\n")


def markdown_table(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A GitHub-flavoured markdown table (for PR comments); every cell escaped."""
    head = "| " + " | ".join(markdown_cell(c) for c in columns) + " |"
    sep = "|" + "|".join("---" if i == 0 else "---:" for i in range(len(columns))) + "|"
    body = ["| " + " | ".join(markdown_cell(fmt(v)) for v in r) + " |" for r in rows]
    return "\n".join([head, sep, *body]) + "\n"


def markdown_list(lines: Iterable[str]) -> str:
    """Notes after a markdown table: a bulleted list, each item escaped (never table rows)."""
    items = [f"- {markdown_cell(x)}" for x in lines]
    return ("\n" + "\n".join(items) + "\n") if items else ""


def fill(line: str, con: Console, wide: bool = False) -> str:
    """A long sentence wrapped to the console's width (indented continuation lines), as the
    verdict lines are; unwrapped with ``--wide``."""
    import textwrap

    if wide:
        return line
    return textwrap.fill(line, width=max(con.width, 20), subsequent_indent="  ", break_on_hyphens=False)


def warn(lines: Iterable[str], stream: Any = None) -> None:
    """Warnings and notes for people: on stderr (never mixed into a table on stdout), cleaned."""
    out = stream if stream is not None else sys.stderr
    for line in lines:
        out.write(clean(line) + "\n")
