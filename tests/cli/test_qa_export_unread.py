"""QA: ``export`` refuses ``--flips`` / ``--baseline`` where it would ignore them (one line, exit 2)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from conftest import REPO

S = REPO / "sample_logs" / "inspect"
Cli = Callable[..., tuple[int, str, str]]


def test_export_refuses_unread_flips_options(tmp_path: Path, cli: Cli) -> None:
    a, b = S / "baseline.eval", S / "candidate.eval"
    for extra, word in ((["--flips", "--format", "every-eval-ever"], "every-eval-ever"),
                        (["--baseline", "baseline", "--format", "every-eval-ever"], "every-eval-ever"),
                        (["--baseline", "baseline"], "--baseline")):
        out_dir = tmp_path / f"out{len(extra)}{word[:3]}"
        code, out, err = cli("export", a, b, "-o", out_dir if "--format" in extra else out_dir.with_suffix(".csv"),
                             *extra)
        assert code == 2 and len(err.strip().splitlines()) == 1 and word in err, err
        assert not out_dir.exists() and not out_dir.with_suffix(".csv").exists()
    code, _, err = cli("export", a, b, "-o", tmp_path / "f.csv", "--flips", "--baseline", "baseline")
    assert code == 0 and "flips" in err
