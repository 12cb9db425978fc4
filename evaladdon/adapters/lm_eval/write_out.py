"""lm-eval 0.3 write-outs (``<task>_write_out_info.json``), and the task and model in a legacy samples name."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from evaladdon.adapters.lm_eval.frame import rows_from_records
from evaladdon.adapters.lm_eval.results import _load_json
from evaladdon.errors import InputError
from evaladdon.table import finalize

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


def looks_like_write_out(path: Path, head: bytes) -> bool:
    return path.name.endswith("_write_out_info.json") and head.lstrip()[:1] == b"["


def split_legacy_stem(stem: str) -> tuple[str, str | None]:
    """Task and model from a 0.4.0-0.4.2 samples name ``<model_args>_<task>`` (best effort).

    ``_mathqa`` -> (``mathqa``, None); ``pretrained=EleutherAI__pythia-2.8b_trivia_qa`` ->
    (``trivia_qa``, ``EleutherAI/pythia-2.8b``): the task starts at the first single ``_``
    after the last ``=`` (``__`` stands for ``/`` in sanitised model names).
    """
    if stem.startswith("samples_"):
        return stem[len("samples_"):], None
    if stem.startswith("_"):
        return stem[1:], None
    if "=" in stem:
        _, _, tail = stem.rpartition("=")
        m = re.search(r"(?<!_)_(?!_)", tail)
        if m:
            return tail[m.end():], tail[: m.start()].replace("__", "/")
    return stem, None


def read_write_out(path: str | Path, cluster: str | None = None) -> pd.DataFrame:
    """A 0.3 ``<task>_write_out_info.json`` array (all values are strings)."""
    p = Path(path)
    data = _load_json(p)
    if not isinstance(data, list) or not all(isinstance(r, dict) and "doc_id" in r for r in data):
        raise InputError("expected a JSON array of objects with doc_id (lm-eval 0.3 write_out_info)", str(p))
    task = p.name[: -len("_write_out_info.json")]
    model = p.parent.name
    if cluster is not None:
        raise InputError("0.3 write_out_info files carry no doc fields to cluster on", str(p))
    df, notes = rows_from_records(data, task=task, run=model, model=model, source=str(p), filters=[""],
                                  cluster=None)
    out = finalize(df)
    out.attrs["notes"] = notes + [f"{p}: lm-eval 0.3 write-out: model named after the folder ({model})"]
    return out
