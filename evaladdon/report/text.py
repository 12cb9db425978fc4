"""Human-readable tables of results (rich), at most 100 columns wide."""

from __future__ import annotations

import json
import math
import sys
from typing import Any, Iterable, Sequence

from rich import box
from rich.console import Console
from rich.table import Table

from evaladdon.stats._result import json_safe

WIDTH = 100


def console(stream: Any = None) -> Console:
    out = stream if stream is not None else sys.stdout
    return Console(file=out, width=WIDTH, soft_wrap=True, highlight=False, emoji=False, markup=False)


def fmt(value: Any, digits: int = 4) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return f"{value:.{digits}f}"
    return str(value)


def table(
    title: str | None, columns: Sequence[str], rows: Iterable[Sequence[Any]], n_left: int = 1
) -> Table:
    """A rich table; the first ``n_left`` columns are labels (left-aligned), the rest numbers.

    Number columns never wrap; label columns get at least the room of their longest value
    up to 16 characters, so the whole fits in :data:`WIDTH` columns.
    """
    rows = [[fmt(v) for v in r] for r in rows]
    t = Table(title=title, box=box.SIMPLE_HEAD, padding=(0, 1, 0, 0), pad_edge=False, title_justify="left")
    for i, c in enumerate(columns):
        if i < n_left:
            longest = max([len(c)] + [len(r[i]) for r in rows])
            t.add_column(c, justify="left", overflow="fold", min_width=min(longest, 16))
        else:
            t.add_column(c, justify="right", no_wrap=True)
    for r in rows:
        t.add_row(*r)
    return t


def write_json(obj: Any, stream: Any = None) -> None:
    out = stream if stream is not None else sys.stdout
    out.write(json.dumps(json_safe(obj), indent=2, allow_nan=False) + "\n")


def markdown_table(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A GitHub-flavoured markdown table (for PR comments)."""
    head = "| " + " | ".join(columns) + " |"
    sep = "|" + "|".join("---" if i == 0 else "---:" for i in range(len(columns))) + "|"
    body = ["| " + " | ".join(fmt(v).replace("|", "\\|") for v in r) + " |" for r in rows]
    return "\n".join([head, sep, *body]) + "\n"


def signed_points(value: float, digits: int = 1) -> str:
    """A difference of proportions in percentage points, with its sign: ``+1.2``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "nan"
    return f"{100 * value:+.{digits}f}"
