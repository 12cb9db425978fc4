"""Issue 26 (low): promptfoo CSV scores ``(nan)``/``(inf)`` are counted, not lost; a promptfoo
``success`` that is not a boolean is bad input (one line, exit 2); preference files with a
UTF-8 byte-order mark are recognised.  Files are built to the tools' documented formats
(SEED_SYSTEMS.md: promptfoo CSV cells ``[PASS] (1.00) <output>``; Arena battles; AlpacaEval
annotations), the promptfoo JSON from a real file."""

from __future__ import annotations

import codecs
import csv
import json
from pathlib import Path

import pytest

from evaladdon.adapters import sniff
from evaladdon.adapters.preferences import looks_like_preferences, read_preference_file
from evaladdon.adapters.promptfoo import read_promptfoo
from evaladdon.errors import InputError

NONFINITE = "non-finite value (NaN or Infinity)"


def pf_csv(path: Path) -> Path:
    # two arms: one with finite scores, one whose every score is not finite
    rows = [["q", "[openai:gpt-4o] Answer {{q}}", "[openai:gpt-4o-mini] Answer {{q}}"],
            ["a", "[PASS] (1.00) yes", "[PASS] (nan) yes"],
            ["b", "[FAIL] (0.00) Expected yes\n---\nno", "[FAIL] (nan) Expected yes\n---\nno"],
            ["c", "[PASS] (0.75) yes", "[PASS] (Infinity) yes"],
            ["d", "[PASS] (1.00) yes", "[FAIL] (-inf) Expected yes\n---\nno"]]
    with path.open("w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    return path


def test_promptfoo_csv_nonfinite_scores_counted(tmp_path: Path, cli) -> None:
    f = pf_csv(tmp_path / "output.csv")
    t = read_promptfoo(f)
    mini = t[(t["run"] == "openai:gpt-4o-mini") & (t["metric"] == "score")]
    assert len(mini) == 4  # the score rows of the arm exist
    assert mini["raw"].tolist() == ["nan", "nan", "Infinity", "-inf"]  # as logged
    assert (mini["error"] == NONFINITE).all()
    code, out, err = cli("summarize", f, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert any("'openai:gpt-4o-mini'" in n and "metric 'score'" in n and f"{{'{NONFINITE}': 4}}" in n
               for n in doc["notes"])


def test_promptfoo_success_not_boolean_is_bad_input(real_logs: Path, tmp_path: Path, cli) -> None:
    src = real_logs / "promptfoo_tds_project/tds-project-1/promptfoo_results.json"
    data = json.loads(src.read_text())
    data["results"]["results"][3]["success"] = "yes"
    f = tmp_path / "promptfoo_results.json"
    f.write_text(json.dumps(data))
    with pytest.raises(InputError, match=r"result 3: 'success' is a string \('yes'\), expected true or false"):
        read_promptfoo(f)
    code, out, err = cli("summarize", f)
    assert code == 2 and len(err.strip().splitlines()) == 1 and str(f) in err
    data["results"]["results"][3]["success"] = None
    f.write_text(json.dumps(data))
    with pytest.raises(InputError, match="'success' is null"):
        read_promptfoo(f)


def test_preference_files_with_bom(tmp_path: Path, cli) -> None:
    battles = [{"question_id": f"q{i}", "model_a": "a", "model_b": "b", "winner": w}
               for i, w in enumerate(["model_a", "model_b", "tie", "model_a"])]
    arena = tmp_path / "battles.jsonl"
    arena.write_bytes(codecs.BOM_UTF8 + "\n".join(json.dumps(b) for b in battles).encode() + b"\n")
    alpaca = tmp_path / "annotations.json"
    alpaca.write_bytes(codecs.BOM_UTF8 + json.dumps([
        {"dataset": "oasst", "instruction": f"i{k}", "output_1": "x", "generator_1": "base", "output_2": "y",
         "generator_2": "m", "annotator": "gpt4", "preference": p} for k, p in enumerate([1, 2, 2, 1.5])]).encode())
    for f, kind, n in ((arena, "arena", 4), (alpaca, "alpaca_eval", 4)):
        assert looks_like_preferences(f) == kind
        assert sniff(f)[1].startswith("pairwise preferences")
        assert len(read_preference_file(f).battles) == n
        code, out, err = cli("rank", f, "--json", "--n-boot", "0")
        assert code == 0, err
        assert json.loads(out)["n_battles"] == n
