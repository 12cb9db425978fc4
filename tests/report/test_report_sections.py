"""``report --flaky [N]`` and ``report --by FIELD`` (issue 27 item 2): the HTML report's flaky-item
and subgroup sections hold the numbers ``summarize --flaky`` / ``summarize --by`` / ``compare --by``
give (themselves checked against their oracles in their own tests), counted again from the log
where that is simple, and every name from a log is escaped."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any, Callable

import pytest

from route_cases import errored_log

Cli = Callable[..., tuple[int, str, str]]
HOSTILE = "<script>alert(1)</script>\x1b[31m"


def _rewrite(path: Path, edit: Callable[[dict[str, Any]], None]) -> Path:
    doc = json.loads(path.read_text())
    for s in doc["samples"]:
        edit(s)
    path.write_text(json.dumps(doc))
    return path


@pytest.fixture(scope="module")
def epochs_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three epochs of 30 items; item q000 renamed to a hostile id and made unstable (C, I, C)."""
    path = errored_log(tmp_path_factory.mktemp("flaky") / "ep.json", "flakyrun", 5, 0.05, 0.6, n_items=30, epochs=3)

    def edit(s: dict[str, Any]) -> None:
        if s["id"] == "q000":
            s["id"], s["error"], s["limit"] = HOSTILE, None, None
            s["scores"] = {"match": {"value": "I" if s["epoch"] == 2 else "C"}}
    return _rewrite(path, edit)


def _cells(page: str, heading: str) -> list[list[str]]:
    """The rows of the first table after ``heading`` (cells unescaped)."""
    part = page[page.index(heading):]
    body = part[part.index("<tbody>"):part.index("</tbody>")]
    return [[html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", row)] for row in re.findall(r"<tr>(.*?)</tr>", body)]


def test_report_flaky_holds_summarize_flaky_numbers(cli: Cli, epochs_log: Path, tmp_path: Path) -> None:
    rc, out, err = cli("summarize", epochs_log, "--flaky", "--json")
    assert rc == 0, err
    (rec,) = json.loads(out)["results"]
    f = rec["flaky"]
    # counted again from the log: an item is unstable when its scored epochs disagree
    by_item: dict[str, set[str]] = {}
    for s in json.loads(epochs_log.read_text())["samples"]:
        if s.get("scores"):
            by_item.setdefault(s["id"], set()).add(s["scores"]["match"]["value"])
    assert f["n_unstable"] == sum(len(v) == 2 for v in by_item.values()) > 3
    page_path = tmp_path / "f.html"
    rc, _, err = cli("report", epochs_log, "-o", page_path, "--flaky", "3")
    assert rc == 0, err
    page = page_path.read_text()
    (row,) = _cells(page, "Flaky items over repeats")
    assert row[2:6] == [str(f["n_items_repeated"]), str(f["n_unstable"]), f"{f['share_unstable']:.1%}",
                        f"{f['mean_flip_rate']:.3f}"]
    assert row[7].startswith(f"{f['pass@3']['estimate']:.3f}") and row[8].startswith(f"{f['pass^3']['estimate']:.3f}")
    items = _cells(page, ": unstable items")
    assert [r[0] for r in items] == [u["item"] for u in f["unstable"][:3]]
    assert f"... {f['n_unstable'] - 3} more unstable item(s)" in page
    rc, _, _ = cli("report", epochs_log, "-o", page_path, "--flaky", "0")
    assert len(_cells(page_path.read_text(), ": unstable items")) == f["n_unstable"]
    rc, _, err = cli("report", epochs_log, "-o", page_path, "--flaky", "-1")
    assert rc == 2 and "--flaky -1" in err


def test_report_flaky_escapes_item_ids(cli: Cli, epochs_log: Path, tmp_path: Path) -> None:
    page_path = tmp_path / "f.html"
    rc, _, err = cli("report", epochs_log, "-o", page_path, "--flaky", "0")
    assert rc == 0, err
    page = page_path.read_text()
    assert "<script>" not in page and "\x1b" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert any(r[0].startswith("<script>alert(1)</script>") for r in _cells(page, ": unstable items"))


@pytest.fixture(scope="module")
def subject_logs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two runs of 90 items in three subjects, one of them named with markup and a control character."""
    root = tmp_path_factory.mktemp("by")
    names = ["algebra", "geometry", HOSTILE]

    def edit(s: dict[str, Any]) -> None:
        s["metadata"] = {"subject": names[int(s["id"][1:]) % 3]}
    return (_rewrite(errored_log(root / "a.json", "byA", 7, 0.0, 0.5, n_items=90), edit),
            _rewrite(errored_log(root / "b.json", "byB", 8, 0.0, 0.7, n_items=90), edit))


def test_report_by_holds_the_subgroup_numbers_escaped(cli: Cli, subject_logs: tuple[Path, Path],
                                                      tmp_path: Path) -> None:
    page_path = tmp_path / "by.html"
    rc, _, err = cli("report", *subject_logs, "-o", page_path, "--by", "subject", "--min-size", "40")
    assert rc == 0, err
    page = page_path.read_text()
    assert "<script>" not in page and "\x1b" not in page and "&lt;script&gt;" in page
    rc, out, _ = cli("summarize", *subject_logs, "--by", "subject", "--json")
    subs = [r for r in json.loads(out)["results"] if r.get("record") == "subgroup"]
    rows = _cells(page, "Scores by subject")
    assert len(rows) == len(subs) + 2  # each run's (all) row and its three subgroups
    for s in subs:
        (row,) = [r for r in rows if r[0] == s["label"] and r[2].startswith(s["subgroup"][:8])]
        assert row[3] == str(s["n_items"]) and 25 <= s["n_items"] <= 30 and row[4] == f"{s['mean']:.3f}" and row[6] == "small (n < 40)"
    rc, out, _ = cli("compare", *subject_logs, "--by", "subject", "--json")
    recs = json.loads(out)["results"]
    csubs = [r for r in recs if r.get("record") == "subgroup"]
    crows = _cells(page, "Paired comparisons by subject")
    assert len(crows) == len(csubs) + 1
    for s in csubs:
        (row,) = [r for r in crows if r[3].startswith(s["subgroup"][:8])]
        assert row[7] == f"{100 * s['delta']:+.1f}" and row[10] == f"{s['p_adjusted']:.2g}"
    (inter,) = [r for r in recs if r.get("record") == "interaction"]
    assert f"p = {inter['p_value']:.3g}" in page and "does the effect differ across subject?" in page
    assert "does the mean differ across subject?" in page
