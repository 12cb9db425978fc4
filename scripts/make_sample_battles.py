"""Regenerate ``sample_logs/preferences/battles.jsonl``: seeded Arena-style pairwise battles.

Four models with known Bradley–Terry strengths (Elo 1100, 1050, 1000, 900) meet on 80
prompts; each prompt is judged for several random pairs, and about 15 % of battles are ties,
in the record format of Chatbot Arena / Arena-Hard (``question_id, model_a, model_b,
winner``).  No harness writes this kind of file, so it is simulated; the real battle logs the
tests read are in ``../shared/real_logs``.  Used by the ``evaladdon rank`` recipes.

    python scripts/make_sample_battles.py
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent.parent / "sample_logs" / "preferences" / "battles.jsonl"
MODELS = {"ckpt-a": 1100.0, "ckpt-b": 1050.0, "ckpt-c": 1000.0, "baseline": 900.0}


def main(seed: int = 20261130, n_prompts: int = 80, per_prompt: int = 6) -> None:
    rng = np.random.default_rng(seed)
    names = list(MODELS)
    elo = np.array([MODELS[m] for m in names])
    lines = []
    for q in range(n_prompts):
        prompt_shift = rng.normal(0.0, 40.0, len(names))  # prompts favour some models: clustered data
        for _ in range(per_prompt):
            i, j = rng.choice(len(names), 2, replace=False)
            p_i = 1.0 / (1.0 + 10 ** (((elo[j] + prompt_shift[j]) - (elo[i] + prompt_shift[i])) / 400.0))
            u = rng.random()
            winner = "tie" if u < 0.15 else ("model_a" if rng.random() < p_i else "model_b")
            lines.append(json.dumps({"question_id": f"q{q:03d}", "model_a": names[i], "model_b": names[j],
                                     "winner": winner}))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(lines)} battles to {OUT}")


if __name__ == "__main__":
    main()
