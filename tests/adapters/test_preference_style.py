"""Style features of the two answers read from preference files (rank --control)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

from evaladdon.adapters.preferences import read_preferences


def _fastchat_counts(text: str) -> tuple[int, int, int]:
    """FastChat's add_markdown_info.count_markdown_elements (after removing code blocks), per string."""
    text = re.sub(r"```([^`]*)```", "", text)
    headers = sum(len(re.findall(rf"^#{{{k}}}\s", text, re.MULTILINE)) for k in range(1, 7))
    lists = len(re.findall(r"^\s*\d+\.\s", text, re.MULTILINE)) + len(re.findall(r"^\s*[-*+]\s", text, re.MULTILINE))
    bold = len(re.findall(r"\*\*[^*\n]+\*\*", text)) + len(re.findall(r"__[^_\n]+__", text))
    return headers, lists, bold


TEXTS = ["# Title\n\n## Sub\n- a\n- b\n* c\n1. one\n2. two\n**bold** and __also__\n```\n# not a header\n- no\n```\n",
         "plain answer", "### h3\n+ item\n  3. nested\n**x** **y**", "", "#no space\n-no\n**open"]


def test_alpaca_eval_text_features_match_fastchat(tmp_path: Path) -> None:
    recs = []
    for i, (t1, t2) in enumerate(zip(TEXTS, TEXTS[::-1], strict=True)):
        recs.append({"instruction": f"q{i}", "dataset": "d", "generator_1": "base", "generator_2": "m",
                     "output_1": t1, "output_2": t2, "preference": 1.0 + (i % 3) / 2})
    recs.append({"instruction": "q9", "dataset": "d", "generator_1": "base", "generator_2": "m", "output_1": None,
                 "output_2": "x", "preference": 2.0})
    f = tmp_path / "annotations.json"
    f.write_text(json.dumps(recs))
    bt = read_preferences([f], style=True).battles
    for i, (t1, t2) in enumerate(zip(TEXTS, TEXTS[::-1], strict=True)):
        row = bt.iloc[i]
        assert row["length_a"] == len(t1) and row["length_b"] == len(t2)
        assert (row["header_a"], row["list_a"], row["bold_a"]) == _fastchat_counts(t1)
        assert (row["header_b"], row["list_b"], row["bold_b"]) == _fastchat_counts(t2)
        assert row["length_unit"] == "characters"
    assert np.isnan(bt.iloc[-1]["length_a"])  # an answer not logged as text: no features
    assert "length_a" not in read_preferences([f]).battles  # only on request


def test_arena_conv_metadata(tmp_path: Path) -> None:
    meta = {"sum_assistant_a_tokens": 120, "sum_assistant_b_tokens": 40,
            "header_count_a": {"h1": 1, "h2": 2}, "header_count_b": {"h1": 0},
            "list_count_a": {"ordered": 3, "unordered": 1}, "list_count_b": {"ordered": 0, "unordered": 0},
            "bold_count_a": {"**": 2, "__": 0}, "bold_count_b": 5}
    recs = [{"question_id": "q1", "model_a": "x", "model_b": "y", "winner": "model_a", "conv_metadata": meta},
            {"question_id": "q2", "model_a": "y", "model_b": "x", "winner": "tie"}]
    f = tmp_path / "battles.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in recs))
    bt = read_preferences([f], style=True).battles
    first = bt.iloc[0]
    assert (first["length_a"], first["length_b"], first["header_a"], first["header_b"]) == (120, 40, 3, 0)
    assert (first["list_a"], first["list_b"], first["bold_a"], first["bold_b"]) == (4, 0, 2, 5)
    assert first["length_unit"] == "tokens"
    assert bt.iloc[1][["length_a", "bold_b"]].isna().all()


def test_mtbench_answers_from_the_judge_prompt(real_logs: Path) -> None:
    f = real_logs / "mtbench_gpt4_pair" / "fastchat-mtbench" / "gpt-4_pair.jsonl"
    bt = read_preferences([f], style=True).battles
    recs = [json.loads(line) for line in f.read_text().splitlines()]
    rec = next(r for r in recs if r["g1_winner"] != "error" and r["g2_winner"] != "error")
    prompt = rec["g1_user_prompt"]
    ans_a = prompt.split("[The Start of Assistant A's Answer]\n", 1)[1].split("\n[The End of Assistant A's Answer]")[0]
    assert bt.iloc[0]["length_a"] == len(ans_a)
    assert bt["length_a"].notna().all() and (bt["length_unit"] == "characters").all()


def test_malformed_style_fields_are_not_logged(tmp_path: Path) -> None:
    """Answers or metadata of the wrong type give no features (NaN), never an error."""
    recs = [{"question_id": "q1", "model_a": "x", "model_b": "y", "winner": "model_a", "conv_metadata": "oops"},
            {"question_id": "q2", "model_a": "x", "model_b": "y", "winner": "model_b",
             "conv_metadata": {"sum_assistant_a_tokens": "12", "sum_assistant_b_tokens": [1],
                               "header_count_a": {"h1": "a"}, "header_count_b": None}}]
    f = tmp_path / "battles.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in recs))
    bt = read_preferences([f], style=True).battles
    assert bt[["length_a", "length_b", "header_a", "header_b"]].isna().all().all()
    alp = [{"instruction": "i", "generator_1": "b", "generator_2": "m", "output_1": ["list"], "output_2": {"a": 1},
            "preference": 2.0},
           {"instruction": "j", "generator_1": "b", "generator_2": "m", "output_1": "ok", "output_2": "fine",
            "preference": 1.0}]
    g = tmp_path / "annotations.json"
    g.write_text(json.dumps(alp))
    bt = read_preferences([g], style=True).battles
    assert bt["length_a"].isna().iloc[0] and bt["length_a"].iloc[1] == 2 and bt["length_b"].iloc[1] == 4
