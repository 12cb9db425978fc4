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
    return Console(file=out, width=WIDTH, soft_wrap=False, highlight=False, emoji=False)


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
    """A rich table; the first ``n_left`` columns are labels (left-aligned), the rest numbers."""
    t = Table(title=title, box=box.SIMPLE_HEAD, show_lines=False, pad_edge=False, title_justify="left")
    for i, c in enumerate(columns):
        t.add_column(c, justify="right" if i >= n_left else "left", overflow="fold", no_wrap=i >= n_left)
    for r in rows:
        t.add_row(*[fmt(v) for v in r])
    return t


def write_json(obj: Any, stream: Any = None) -> None:
    out = stream if stream is not None else sys.stdout
    out.write(json.dumps(json_safe(obj), indent=2, allow_nan=False) + "\n")
