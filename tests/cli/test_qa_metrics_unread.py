"""QA: ``metrics`` refuses options it would not read (``--errors bounds``; ``--beta`` beside the
decision options) in one line, and a note keeps its own prefix (no ``warning: note:``)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

Cli = Callable[..., tuple[int, str, str]]


def _table(tmp_path: Path) -> Path:
    rng = np.random.default_rng(1)
    label = rng.integers(0, 2, 200)
    score = np.clip(rng.normal(0.35 + 0.3 * label, 0.2), 0.001, 0.999)
    pred = (score > 0.5).astype(int)
    df = pd.DataFrame({"model": "m", "task": "t", "id": [f"i{i}" for i in range(200)], "value": (pred == label) * 1,
                       "score": score, "label": label, "prediction": pred,
                       "split": np.where(np.arange(200) % 2 == 0, "validation", "test")})
    path = tmp_path / "cls.csv"
    df.to_csv(path, index=False)
    return path


def _one_line(got: tuple[int, str, str], *words: str) -> None:
    code, out, err = got
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert all(w in err for w in words), err


def test_metrics_refuses_what_it_does_not_read(tmp_path: Path, cli: Cli) -> None:
    path = _table(tmp_path)
    _one_line(cli("metrics", path, "--errors", "bounds"), "--errors bounds")
    _one_line(cli("metrics", path, "--beta", "2", "--threshold", "tpr@fpr=0.05", "--validation", "split=validation"),
              "--beta")
    _one_line(cli("metrics", path, "--beta", "2", "--prevalence", "0.1"), "--beta")


def test_metrics_notes_keep_their_prefix(tmp_path: Path, cli: Cli) -> None:
    code, out, err = cli("metrics", _table(tmp_path), "--errors", "fail")
    assert code == 0
    text = out + err
    assert "note: errored samples: --errors fail" in text and "warning: note:" not in text
