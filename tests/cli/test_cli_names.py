"""Issue 11: margin units, skipped inputs in every mode, run names, compare what can be
compared, tables that fit the terminal, errors that show the way, start-up."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evaladdon.cli.main import main

from conftest import REPO, run_cli

SAMPLE = REPO / "sample_logs" / "table" / "checkpoints.csv"
INSPECT = REPO / "sample_logs" / "inspect"
LM_EVAL = REPO / "sample_logs" / "lm_eval"


run = run_cli


def regression_runs(tmp_path: Path) -> tuple[Path, Path]:
    """A baseline and a candidate 16.7 points worse on the same 120 items."""
    rng = np.random.default_rng(7)
    n = 120
    a = (rng.random(n) < 0.7).astype(int)
    b = a.copy()
    flip = rng.choice(np.flatnonzero(a == 1), 20, replace=False)
    b[flip] = 0
    ids = [f"q{i}" for i in range(n)]
    pa, pb = tmp_path / "old.csv", tmp_path / "new.csv"
    pd.DataFrame({"id": ids, "score": a, "model": "ckpt1"}).to_csv(pa, index=False)
    pd.DataFrame({"id": ids, "score": b, "model": "ckpt2"}).to_csv(pb, index=False)
    return pa, pb


# ----------------------------------------------------------------- 11.1 units of --margin


def test_bare_margin_on_a_proportion_is_refused_with_a_hint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pa, pb = regression_runs(tmp_path)
    code, _, err = run(capsys, "compare", pa, pb, "--fail-on-regression", "--margin", "2")
    assert code == 2 and "did you mean 2pt?" in err and err.count("\n") == 1


@pytest.mark.parametrize("margin,expected", [("2pt", 1), ("2pp", 1), ("2%", 1), ("0.02", 1), ("20pt", 0)])
def test_margin_in_points_gates_and_is_printed_in_both_forms(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             margin: str, expected: int) -> None:
    pa, pb = regression_runs(tmp_path)
    code, out, _ = run(capsys, "compare", pa, pb, "--fail-on-regression", "--margin", margin, "--wide")
    assert code == expected
    m = 20.0 if margin == "20pt" else 2.0
    assert f"{m:.1f} points ({m / 100:g})" in out  # the verdict line states the margin both ways


# ----------------------------------------------------------------- 11.2 skipped inputs


def folder_with_truncated_candidate(tmp_path: Path) -> Path:
    d = tmp_path / "runs"
    d.mkdir()
    shutil.copy(INSPECT / "baseline.eval", d / "baseline.eval")
    data = (INSPECT / "candidate.eval").read_bytes()
    (d / "candidate.eval").write_bytes(data[: len(data) // 3])
    return d


def test_truncated_candidate_fails_the_gate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = folder_with_truncated_candidate(tmp_path)
    code, out, err = run(capsys, "compare", d, "--baseline", "baseline", "--json", "--fail-on-regression")
    assert code == 2 and "candidate.eval" in err and err.count("\n") == 1


def test_skipped_input_is_listed_in_json_and_fails_the_gate(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    pa, pb = regression_runs(tmp_path)
    data = (INSPECT / "candidate.eval").read_bytes()
    (tmp_path / "broken.eval").write_bytes(data[: len(data) // 3])
    code, out, err = run(capsys, "compare", tmp_path, "--baseline", "ckpt1", "--json", "--fail-on-regression",
                         "--margin", "50pt")
    doc = json.loads(out)
    assert set(doc) == {"results", "skipped", "notes"} and len(doc["results"]) == 1
    assert any(s.get("path", "").endswith("broken.eval") and s["reason"] for s in doc["skipped"])
    assert code == 2 and "--allow-skipped" in err and err.count("\n") == 1
    code, out, _ = run(capsys, "compare", tmp_path, "--baseline", "ckpt1", "--json", "--fail-on-regression",
                       "--margin", "50pt", "--allow-skipped")
    assert code == 0 and json.loads(out)["skipped"]


def test_skipped_inputs_are_shown_in_text_and_markdown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = folder_with_truncated_candidate(tmp_path)
    code, out, err = run(capsys, "summarize", d)
    assert code == 0 and "candidate.eval" in err and "candidate.eval" not in out
    code, out, _ = run(capsys, "summarize", d, "--markdown")
    table, _, notes = out.partition("\n\n")
    assert code == 0 and "candidate.eval" in notes and "candidate.eval" not in table
    assert any(line.startswith("- skipped ") for line in notes.splitlines())


def test_judge_reports_skipped_inputs_in_every_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = tmp_path / "j"
    d.mkdir()
    shutil.copy(INSPECT / "judge.eval", d / "judge.eval")
    (d / "broken.eval").write_bytes((INSPECT / "judge.eval").read_bytes()[:500])
    labels = REPO / "sample_logs" / "labels" / "judge_labels.csv"
    code, out, _ = run(capsys, "judge", "--labels", labels, d, "--json")
    assert code == 0 and any(s["path"].endswith("broken.eval") for s in json.loads(out)["skipped"])
    code, out, err = run(capsys, "judge", "--labels", labels, d)
    assert code == 0 and "broken.eval" in err


# ----------------------------------------------------------------- 11.3 run names


def test_default_labels_are_short_and_name_eq_path_names_runs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "summarize", LM_EVAL, "--json")
    labels = {r["label"] for r in json.loads(out)["results"]}
    assert code == 0 and labels == {"dummy-seed1", "dummy-seed2"}
    code, out, _ = run(capsys, "compare", f"old={INSPECT / 'baseline.eval'}", f"new={INSPECT / 'candidate.eval'}",
                       "--json")
    (r,) = json.loads(out)["results"]
    assert (r["label_a"], r["label_b"]) == ("old", "new") == (r["run_a"], r["run_b"])


@pytest.mark.parametrize("name", ["baseline", "baseline.eval", str(INSPECT / "baseline.eval"), "dpBGWg",
                                  "dpBGWgVNyPnEokPingokk2"])
def test_baseline_accepts_label_file_stem_path_and_id_prefix(capsys: pytest.CaptureFixture[str], name: str) -> None:
    code, out, err = run(capsys, "compare", INSPECT / "baseline.eval", INSPECT / "candidate.eval", "--baseline", name,
                         "--json")
    assert code == 0, err
    (r,) = json.loads(out)["results"]
    assert r["label_a"] == "baseline"


def test_baseline_by_model_and_wrong_name_lists_names(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "compare", SAMPLE, "--baseline", "ckpt-2000", "--json")
    assert code == 0 and json.loads(out)["results"][0]["label_a"] == "ckpt-2000"
    code, _, err = run(capsys, "compare", SAMPLE, "--baseline", "ckpt-3000")
    assert code == 2 and "did you mean" in err and "ckpt-1000" in err and "ckpt-2000" in err


def test_report_validates_baseline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "report", SAMPLE, "--baseline", "nope", "-o", tmp_path / "r.html")
    assert code == 2 and "names no run" in err and not (tmp_path / "r.html").exists()


# ----------------------------------------------------------------- 11.4 compare what can be compared


def test_lm_eval_sample_runs_compare_and_list_what_cannot(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "compare", LM_EVAL / "dummy-seed1", LM_EVAL / "dummy-seed2", "--json")
    doc = json.loads(out)
    assert code == 0 and {r["metric"] for r in doc["results"]} == {"acc,none", "exact_match,none"}
    reasons = {s["metric"]: s["reason"] for s in doc["skipped"]}
    assert "acc_clustered,none" in reasons and "no scored items" in reasons["acc_clustered,none"]


def test_a_run_sharing_no_task_is_listed_and_the_others_compared(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    pa, pb = regression_runs(tmp_path)
    other = tmp_path / "other.csv"
    other.write_text("model,task,id,score\nk,t2,a,1\nk,t2,b,0\n")
    code, out, err = run(capsys, "compare", pa, pb, other, "--baseline", "ckpt1", "--json")
    doc = json.loads(out)
    assert code == 0 and len(doc["results"]) == 1
    assert [s["label_b"] for s in doc["skipped"]] == ["k"] and "share no" in doc["skipped"][0]["reason"]
    code, _, err = run(capsys, "compare", pa, pb, other, "--baseline", "ckpt1", "--fail-on-regression",
                       "--margin", "50pt")
    # issue 25.12: a run of another task hides nothing from the gate: listed, left out, exit 0
    assert code == 0 and "share no (task, metric)" in err and "(left out" in err
    code, _, _ = run(capsys, "report", pa, pb, other, "--baseline", "ckpt1", "-o", tmp_path / "r.html")
    page = (tmp_path / "r.html").read_text()
    assert code == 0 and "Left out" in page and "share no" in page


# ----------------------------------------------------------------- 11.5 tables fit the terminal


@pytest.mark.parametrize("args", [
    ["summarize", str(LM_EVAL)],
    ["compare", str(LM_EVAL / "dummy-seed1"), str(LM_EVAL / "dummy-seed2")],
    ["compare", str(SAMPLE), "--fail-on-regression", "--margin", "1pt"],
])
def test_no_line_wider_than_80_columns(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                       args: list[str]) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run(capsys, *args)
    assert code in (0, 1) and out.strip()
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "warning" not in out and "note:" not in out  # warnings go to stderr
    monkeypatch.setenv("COLUMNS", "60")
    code, out, _ = run(capsys, *args)
    header = next(line for line in out.splitlines() if "task/metric" in line)
    assert len(header) <= 60
    code, wide, _ = run(capsys, *args, "--wide")
    assert max(len(line) for line in wide.splitlines()) > 60 and "se" in wide


def test_markdown_notes_are_a_list_after_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "summarize", LM_EVAL, "--markdown")
    rows = [line for line in out.splitlines() if line.startswith("|")]
    bullets = [line for line in out.splitlines() if line.startswith("- ")]
    assert code == 0 and rows and bullets
    assert all("warning" not in r and "skipped" not in r for r in rows)


# ----------------------------------------------------------------- 11.6 errors that show the way


def test_many_refusals_are_one_line_with_details_under_verbose(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    rows = [{"model": f"m{k}", "task": f"t{k}", "id": f"i{i}", "score": i % 2} for k in range(10) for i in range(3)]
    p = tmp_path / "many.csv"
    pd.DataFrame(rows).to_csv(p, index=False)
    code, _, err = run(capsys, "compare", p, "--all-pairs")
    assert code == 2 and err.count("\n") == 1 and len(err) < 400 and "44 more" in err
    code, out, err = run(capsys, "summarize", tmp_path, "--verbose")
    assert code == 0


def test_every_flag_has_help() -> None:
    from evaladdon.cli.main import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    mine = ("summarize", "compare", "judge", "ci", "report", "lm-eval-stderr")
    for name in mine:
        for action in sub.choices[name]._actions:
            if action.dest != "help":
                assert action.help, f"{name} {action.option_strings or action.dest} has no help"


# ----------------------------------------------------------------- 11.9 start-up


def test_ci_and_help_import_no_heavy_module() -> None:
    for cmd in (["--help"], ["ci", "3", "10"]):
        proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "evaladdon.cli.main", *cmd],
                              capture_output=True, text=True, cwd=REPO)
        imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()}
        assert proc.returncode == 0
        assert not imported & {"pandas", "scipy.stats", "rich", "inspect_ai", "lm_eval", "matplotlib"}, cmd


def test_eval_set_bookkeeping_is_ignored_not_skipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    regression_runs(tmp_path)
    (tmp_path / "eval-set.json").write_text('{"eval_set_id": "x", "tasks": []}')
    code, out, _ = run(capsys, "compare", tmp_path, "--baseline", "ckpt1", "--json", "--fail-on-regression",
                       "--margin", "50pt")
    doc = json.loads(out)
    assert code == 0 and doc["skipped"] == [] and any("eval-set.json" in n for n in doc["notes"])


def test_same_file_name_in_two_folders_gives_two_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """out/model_a/results.csv vs out/model_b/results.csv: the runs are told apart by the
    shortest distinguishing path (from files and from a store alike), never a key clash."""
    for name, values in (("model_a", "1,0,1,1"), ("model_b", "0,0,1,1")):
        (tmp_path / name).mkdir()
        rows = "\n".join(f"{i},{v}" for i, v in enumerate(values.split(",")))
        (tmp_path / name / "results.csv").write_text("item,value\n" + rows + "\n")
    a, b = str(tmp_path / "model_a" / "results.csv"), str(tmp_path / "model_b" / "results.csv")
    assert main(["compare", a, b, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["results"][0]
    assert (got["run_a"], got["run_b"]) == ("model_a/results.csv/results", "model_b/results.csv/results")
    assert (got["label_a"], got["label_b"]) == ("results:default:model_a/results.csv",
                                                "results:default:model_b/results.csv")
    assert got["delta"] == pytest.approx(-0.25)
    assert main(["summarize", a, b]) == 0
    text = capsys.readouterr().out
    assert "model_a/results.csv" in text and "model_b/results.csv" in text
    store = tmp_path / "store"
    assert main(["ingest", a, b, "--store", str(store)]) == 0
    capsys.readouterr()
    assert main(["summarize", "--store", str(store)]) == 0
    stored = capsys.readouterr().out
    assert "model_a/results.csv" in stored and "model_b/results.csv" in stored


def test_closed_pipe_is_quiet(tmp_path: Path) -> None:
    """`evaladdon summarize ... | head -1`: no error line when the reader closes the pipe."""
    code = ("import sys; from evaladdon.cli.main import main; "
            "sys.exit(main(['summarize', 'sample_logs/inspect', '--wide']))")
    proc = subprocess.run(f"{sys.executable} -c \"{code}\" | head -c 10", shell=True, cwd=REPO,
                          capture_output=True, text=True)
    said = [line for line in proc.stderr.splitlines() if not line.startswith("note: ")]  # (notes: the --errors policy)
    assert proc.stdout and not any("error" in line for line in said) and "Traceback" not in proc.stderr


def test_demo_works_where_pyarrow_cannot_be_imported() -> None:
    """pandas without pyarrow keeps str columns in Python objects: Inspect and lm-eval logs are
    still read and summarized (pyarrow is a dependency, but a broken install must not crash)."""
    code = ("import sys; sys.modules['pyarrow'] = None\n"
            "from evaladdon.cli.main import main\n"
            "sys.exit(main(['summarize', 'sample_logs/inspect', 'sample_logs/lm_eval', '--cluster', 'passage.id'])"
            " or main(['compare', 'sample_logs/inspect/baseline.eval', 'sample_logs/inspect/candidate.eval']))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "reading/match" in proc.stdout and "+8.3 points" in proc.stdout
