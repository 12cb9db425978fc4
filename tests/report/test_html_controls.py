"""The HTML report cleans control and invisible characters from every log-derived string (run
names, task, metric, notes) before ``html.escape``, as the text and markdown reports do
(:func:`evaladdon.report.escape.html_text`)."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")  # \t \n: page layout
HOSTILE = "<b>x</b>\x1b[31m\u202eevil\x07"


def _runs(folder: Path) -> list[Path]:
    folder.mkdir()
    out = []
    for j, model in enumerate(["base" + HOSTILE, "cand" + HOSTILE]):
        path = folder / f"r{j}.csv"
        with path.open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["model", "task", "metric", "item", "value"])
            w.writerows([model, "t" + HOSTILE, "m" + HOSTILE, i, int((i * 7 + j * 3) % 5 < 3)] for i in range(30))
        out.append(path)
    return out


def test_html_text_cleans_then_escapes() -> None:
    from evaladdon.report.escape import html_text

    assert html_text("a\x1b[2J<b>\u202e\n\"'") == "a\\x1b[2J&lt;b&gt;\\u202e\\n&quot;&#x27;"


def test_report_page_has_no_raw_controls(tmp_path: Path, cli) -> None:
    a, b = _runs(tmp_path / "runs")
    out = tmp_path / "r.html"
    code, _, err = cli("report", a, b, "-o", out, "--quiet")
    assert code == 0, err
    page = out.read_text()
    assert RAW.search(page) is None, RAW.search(page)
    assert "<b>x</b>" not in page
    assert "\\x1b[31m" in page and "\\u202e" in page  # shown, escaped, in the verdict line too
    verdict = next(x for x in page.splitlines() if x.startswith("<p class='verdict'>"))
    assert "\\x1b" in verdict and "\x1b" not in verdict
