"""Every CLI error path: exit code 2 and one line naming the problem (and the file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaladdon.cli.main import main

from conftest import REPO, run_cli

SAMPLE = REPO / "sample_logs" / "table" / "checkpoints.csv"
INSPECT = REPO / "sample_logs" / "inspect"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code, _, err = run_cli(capsys, *args)
    return code, err


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    out = {}
    (tmp_path / "one.csv").write_text("model,id,score\nm,a,1\nm,b,0\n")
    out["one"] = tmp_path / "one.csv"
    (tmp_path / "other.csv").write_text("model,id,score\nn,x,1\nn,y,0\n")
    out["other"] = tmp_path / "other.csv"
    (tmp_path / "same.csv").write_text("model,id,score\nn,a,0\nn,b,1\n")  # one.csv's items: a margin is read per comparison
    out["same"] = tmp_path / "same.csv"
    (tmp_path / "othertask.csv").write_text("model,task,id,score\nk,t2,a,1\nk,t2,b,0\n")
    out["othertask"] = tmp_path / "othertask.csv"
    (tmp_path / "epochs.csv").write_text("model,id,score,epoch\nm,a,1,1\nm,a,0,2\nm,b,1,1\nm,b,1,2\n")
    out["epochs"] = tmp_path / "epochs.csv"
    (tmp_path / "cont.csv").write_text("model,id,score\nm,a,0.5\nm,b,0.2\n")
    out["cont"] = tmp_path / "cont.csv"
    (tmp_path / "labels.csv").write_text("id,human\na,1\nb,0\n")
    out["labels"] = tmp_path / "labels.csv"
    (tmp_path / "nolabels.csv").write_text("id,other\na,1\n")
    out["nolabels"] = tmp_path / "nolabels.csv"
    (tmp_path / "empty.csv").write_text("id,score\n")
    out["empty"] = tmp_path / "empty.csv"
    (tmp_path / "bad.eval").write_bytes(b"PK\x03\x04 not really a zip")
    out["bad_eval"] = tmp_path / "bad.eval"
    (tmp_path / "results_2026-01-01T00-00-00.json").write_text(json.dumps({"results": {"t": {"acc,none": 1.0}}}))
    out["results"] = tmp_path / "results_2026-01-01T00-00-00.json"
    (tmp_path / "dupe.csv").write_text("id,score\na,1\na,0\n")
    out["dupe"] = tmp_path / "dupe.csv"
    return out


CASES = [
    (["summarize", "{missing}"], "no such file or directory"),
    (["summarize", "{empty}"], "the table has no rows"),
    (["summarize", "{bad_eval}"], "bad.eval: cannot read as an Inspect log"),
    (["summarize", "{dupe}"], "must be unique"),
    (["compare", "{results}"], "no per-item rows to analyse"),  # summarize shows them as harness-reported
    (["summarize", "{one}", "--method", "wilson", "--cluster", "model"], "0/1 scores with one epoch"),
    (["summarize", "{one}", "--level", "0"], "confidence level"),
    (["compare", "{one}"], "found 1 runs"),
    (["compare", "{one}", "{other}"], "nothing could be compared: n vs m on default/score: no items in common"),
    (["compare", "{one}", "{othertask}"], "share no (task, metric) (tasks default vs t2)"),
    (["compare", "{one}", "{other}", "--baseline", "zzz"], "--baseline 'zzz' names no run (runs: m, n)"),
    (["compare", "{cont}", "{one}", "--test", "mcnemar"], "needs 0/1 scores with one epoch"),
    (["compare", "{one}", "{other}", "--margin=-1pt", "--fail-on-regression"], "give it >= 0"),
    (["compare", "{one}", "{same}", "--margin", "2", "--fail-on-regression"], "did you mean 2pt?"),
    (["report", "{one}", "-o", "{tmp}/r.pdf"], "the report is HTML"),
    (["report", "{one}", "{other}", "--baseline", "zzz", "-o", "{tmp}/r.html"], "--baseline 'zzz' names no run"),
    (["report", "{one}", "-o", "{one}"], "the report is HTML"),
    (["judge", "--labels", "{nolabels}", "{one}"], "need an item column and a human label column"),
    (["judge", "--labels", "{labels}", "{epochs}"], "needs one verdict per item"),
    (["judge", "--labels", "{labels}", "{cont}"], "judge verdicts must be 0/1"),
    (["judge", "--labels", "{labels}", "{other}"], "only 0 labelled item(s)"),
    (["export", "{one}", "-o", "{tmp}/x.txt"], "unsupported output type"),
    (["lm-eval-stderr", "{results}"], "no samples_<task>_<timestamp>.jsonl"),
    (["lm-eval-stderr", "{tmp}/nothing"], "no such file or directory"),
    (["report", "{missing}", "-o", "{tmp}/r.html"], "no such file or directory"),
    (["ci", "5", "3"], "successes must be between 0 and n=3"),
    (["ci", "1", "3", "--method", "exact"], "invalid choice"),
    (["power", "--n", "1", "--sd", "0.5"], "n must be at least 2"),
    (["power", "--delta", "0.1", "--p-a", "0.5"], "give both --p-a and --p-b"),
    (["power", "--delta", "0.1", "--paired", "--p-a", "0.5", "--p-b", "0.6"], "for paired 0/1 use --discordance"),
    (["power", "--pilot", "{one}", "--sd", "0.3", "--delta", "0.1"], "do not also give"),
    (["summarize"], "the following arguments are required"),
]


@pytest.mark.parametrize("args,message", CASES)
def test_error_path(files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                    message: str) -> None:
    fmt = {k: str(v) for k, v in files.items()} | {"missing": str(tmp_path / "missing.csv"), "tmp": str(tmp_path)}
    code, err = run(capsys, *[a.format(**fmt) for a in args])
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("evaladdon: error:") and message in lines[0], err
    assert "Traceback" not in err


def test_debug_shows_traceback(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="no such file"):
        main(["--debug", "summarize", str(tmp_path / "missing.csv")])


def test_no_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "summarize" in capsys.readouterr().err
