"""The HTML report: self-contained, opened in headless Chromium, its plots render."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("inspect_ai")

from evaladdon.cli.main import main  # noqa: E402

from conftest import REPO  # noqa: E402

SAMPLE = REPO / "sample_logs" / "inspect"
CHROME_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium() -> str:
    """The machine's Chromium; the test skips where there is none (tests never install anything:
    ``.ci/run`` installs it for CI)."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return str(shutil.which(name))
    pytest.skip("no Chromium browser on this machine (the report is checked in one where there is)")


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report") / "report.html"
    code = main(["report", str(SAMPLE / "baseline.eval"), str(SAMPLE / "candidate.eval"), "--cluster",
                 "passage.id", "-o", str(out), "--quiet"])
    assert code == 0
    return out


def test_report_is_self_contained(report: Path) -> None:
    page = report.read_text()
    assert len(re.findall(r'src="data:image/png;base64,', page)) == 3  # epochs, forest, power curve
    assert not re.search(r'(src|href)="(https?:)?//', page)  # no network references
    assert "this set can detect" in page and "Paired comparisons" in page


def test_plots_render_in_headless_chromium(report: Path, tmp_path: Path) -> None:
    browser = chromium()
    probe = tmp_path / "probe.html"
    script = ("<script>window.addEventListener('load',()=>{const i=[...document.images];"
              "document.body.setAttribute('data-images',i.length+':'+i.filter(x=>x.complete&&x.naturalWidth>100)"
              ".length);});</script>")
    probe.write_text(report.read_text().replace("</body>", script + "</body>"))
    proc = subprocess.run([browser, *CHROME_FLAGS, f"--user-data-dir={tmp_path / 'profile'}",
                           "--virtual-time-budget=5000", "--dump-dom", probe.as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert 'data-images="3:3"' in proc.stdout, proc.stderr[-800:]
    shot = tmp_path / "shot.png"
    subprocess.run([browser, *CHROME_FLAGS, f"--user-data-dir={tmp_path / 'profile2'}", "--window-size=1200,2000",
                    f"--screenshot={shot}", report.as_uri()], capture_output=True, timeout=120)
    assert shot.exists() and shot.stat().st_size > 20_000


def test_report_without_matplotlib_says_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    import builtins

    real_import = builtins.__import__

    def no_matplotlib(name: str, *args: object, **kwargs: object) -> object:
        if name.startswith("matplotlib"):
            raise ImportError("no matplotlib")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    code = main(["report", str(SAMPLE / "baseline.eval"), str(SAMPLE / "candidate.eval"), "-o",
                 str(tmp_path / "r.html")])
    err = capsys.readouterr().err
    assert code == 2 and "pip install 'evaladdon[plot]'" in err and err.count("\n") == 1
