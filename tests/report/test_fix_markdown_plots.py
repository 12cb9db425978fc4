"""Issue 26 (low): markdown output left ``$...$`` (GitHub math), ``@mentions`` and bare URLs
active; ``rank --html`` died on ``$...$`` in a task name (the ``report`` fix did not reach its
plot titles).  One markdown escaper (report/escape.py) and one plot-text rule (report/plots.py:
math text off, controls escaped) for every command."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import pandas as pd
import pytest

from evaladdon.report import plots
from evaladdon.report.escape import markdown_cell

from conftest import run_cli

HOSTILE_TASK = r"t $\undefined{x}$ $^$ @octocat https://evil.example/x www.evil.example"


@pytest.mark.parametrize(("text", "expected"), [
    ("$x$ costs $5", "&#36;x&#36; costs &#36;5"),
    ("@octocat, @org/team", "@&#8203;octocat, @&#8203;org/team"),
    ("pass@1", "pass@1"),  # no mention: the @ follows a letter
    ("see https://evil.example/x", "see https&#58;//evil.example/x"),
    ("WWW.evil.example", "WWW&#46;evil.example"),
    ("a|b <i>", r"a\|b \<i\>"),
])
def test_markdown_cell_keeps_github_extensions_inert(text: str, expected: str) -> None:
    assert markdown_cell(text) == expected


def table(tmp_path: Path) -> Path:
    rows = [{"item": f"q{i}", "value": int((i * 7 % 10) / 10 < p), "model": m, "task": HOSTILE_TASK}
            for m, p in (("m1", 0.3), ("m2", 0.6), ("m3", 0.8)) for i in range(30)]
    path = tmp_path / "t.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_markdown_output_has_no_math_mention_or_link(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = table(tmp_path)
    for command in (["summarize", path, "--markdown"], ["compare", path, "--markdown", "--all-pairs"], ["rank", path, "--markdown"]):
        code, out, err = run_cli(capsys, *command)
        assert code == 0, err
        assert "octocat" in out and "$" not in out and "@octocat" not in out, out
        assert "://" not in out and "www.evil" not in out


@pytest.mark.parametrize("command", [["rank", "--html"], ["report", "-o"]])
def test_html_plots_take_dollars_literally(tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "page.html"
    code, _, err = run_cli(capsys, command[0], table(tmp_path), command[1], out)
    assert code == 0, err
    assert out.read_text().count("data:image/png;base64,") >= 1


def test_every_plot_shows_names_as_they_are() -> None:
    name = "$\\undefined{x}$ \x1b[2J $"
    before = matplotlib.rcParams["text.parse_math"]
    pngs = [
        plots.forest_plot([name], [0.1], [0.0], [0.2], title=name),
        plots.power_curve_plot([(name, [0.0, 0.1], [0.05, 0.5])]),
        plots.epoch_variance_plot([name], [0.1], [0.2]),
        plots.rating_plot([name, "b"], [1000.0, 1010.0], [990.0, 1000.0], [1010.0, 1020.0], title=name, xlabel=name),
        plots.win_rate_heatmap([name, "b"], [[float("nan"), 0.6], [0.4, float("nan")]], title=name),
        plots.reliability_diagram([(name, [0.2, 0.8], [0.3, 0.7], [5, 5])], title=name),
    ]
    assert all(p.startswith(b"\x89PNG") for p in pngs)
    assert matplotlib.rcParams["text.parse_math"] == before  # the switch is the plots' own, not the process's
    assert plots._label(name) == "$\\undefined{x}$ \\x1b[2J $"
