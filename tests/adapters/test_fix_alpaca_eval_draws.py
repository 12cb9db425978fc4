"""Issue 25.5: AlpacaEval annotations.

- a preference of 0 is a draw (AlpacaEval's ``metrics/helpers.py``: "the preference is encoded
  as 0 or 1.5 for draw", ``replace({0: 1.5})`` before the win rate), not a value out of range;
- a file whose first record is longer than the first 4 KB (long instructions and outputs come
  before the generators) is recognised: its first record is parsed whole (bounded, after the
  depth guard).

AlpacaEval's win rate is reproduced here from its documented rule (``describe_head2head``:
0 -> 1.5, values outside [1, 2] dropped, ``mean(preference - 1) * 100``); the files are built to
its ``annotations.json`` format (a JSON list of records)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from evaladdon.adapters import sniff
from evaladdon.adapters.preferences import FIRST_RECORD_BYTES, looks_like_preferences, read_preference_file


PREFS = [2.0, 1.0, 0, 1.5, 2.0, 0, 1.0, 1.7, 2.0, 0.0, 1.0, 2.0]


def annotations(path: Path, prefs: list, long_text: int = 0) -> Path:
    recs = [{"dataset": ["helpful_base", "oasst", "koala"][i % 3], "instruction": f"instruction {i} " + "x" * long_text,
             "output_1": "baseline answer " + "y" * long_text, "generator_1": "gpt4_1106_preview",
             "output_2": "model answer", "generator_2": "my_model", "annotator": "weighted_alpaca_eval_gpt4_turbo",
             "preference": p} for i, p in enumerate(prefs)]
    path.write_text(json.dumps(recs, indent=2))
    return path


def alpaca_eval_win_rate(prefs: list) -> float:
    """AlpacaEval's ``get_winrate`` rule, on the preferences as logged."""
    p = np.asarray([1.5 if v == 0 else v for v in prefs], dtype=float)
    p = p[(p >= 1) & (p <= 2)]
    return float(np.mean(p - 1) * 100)


def our_win_rate(path: Path, model: str = "my_model") -> float:
    b = read_preference_file(path).battles
    # outcome is for model_a (generator_1, the baseline): the model's share is 1 - outcome
    assert (b["model_b"] == model).all()
    return float((1 - b["outcome"]).mean() * 100)


def test_zero_is_a_draw_as_alpaca_eval_counts_it(tmp_path: Path) -> None:
    f = annotations(tmp_path / "annotations.json", PREFS)
    p = read_preference_file(f)
    assert p.n_dropped == 0 and len(p.battles) == len(PREFS)
    assert our_win_rate(f) == pytest.approx(alpaca_eval_win_rate(PREFS), abs=1e-12)
    assert int(p.battles["tie"].sum()) == 4  # three 0s and one 1.5
    assert any("3 preference(s) of 0 counted as draws" in n for n in p.notes)
    # what is still out of range is left out and counted, as AlpacaEval drops it
    g = annotations(tmp_path / "b.json", PREFS + [2.5, -1, None])
    q = read_preference_file(g)
    assert q.dropped == {"preference outside [1, 2]": 2, "no preference (null or not a number)": 1}
    assert our_win_rate(g) == pytest.approx(alpaca_eval_win_rate(PREFS), abs=1e-12)


def test_rank_counts_zero_as_draw(tmp_path: Path, cli) -> None:
    f = annotations(tmp_path / "annotations.json", PREFS)
    code, out, err = cli("rank", f, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc.get("n_dropped", 0) == 0 and not doc.get("dropped")


def test_first_record_longer_than_4kb_is_recognised(tmp_path: Path) -> None:
    f = annotations(tmp_path / "annotations.json", PREFS, long_text=6000)
    assert f.read_bytes()[:4096].count(b'"generator_2"') == 0  # the keys are past the first 4 KB
    assert looks_like_preferences(f) == "alpaca_eval"
    reader, what = sniff(f)
    assert what.startswith("pairwise preferences")
    assert our_win_rate(f) == pytest.approx(alpaca_eval_win_rate(PREFS), abs=1e-12)
    # JSON lines too (an Arena battle whose conversation comes first)
    battle = {"conversation_a": "z" * 5000, "question_id": "q1", "model_a": "a", "model_b": "b", "winner": "tie"}
    g = tmp_path / "battles.jsonl"
    g.write_text("\n".join(json.dumps(battle) for _ in range(3)) + "\n")
    assert looks_like_preferences(g) == "arena"


def test_first_record_sniff_is_bounded_and_guarded(tmp_path: Path) -> None:
    # too deep: the guard refuses before the parser, the file is not sniffed as preferences
    deep = tmp_path / "deep.json"
    deep.write_text('[{"output_1": ' + "[" * 5000 + "]" * 5000 + ', "generator_1": "a", "generator_2": "b", '
                    '"preference": 1}]')
    assert looks_like_preferences(deep) is None
    # a first record larger than the bound is not parsed
    huge = tmp_path / "huge.json"
    huge.write_text('[{"output_1": "' + "y" * (FIRST_RECORD_BYTES + 10) + '", "generator_1": "a", '
                    '"generator_2": "b", "preference": 1}]')
    assert looks_like_preferences(huge) is None
