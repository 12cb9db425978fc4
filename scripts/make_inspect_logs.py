"""Regenerate ``sample_logs/inspect/``: real Inspect runs, offline, with evaladdon's plug-ins.

Runs ``inspect_ai.eval`` on a small reading task with ``mockllm/model`` whose
``custom_outputs`` is a callable that answers from the prompt (so each item has its own
difficulty, shared by both checkpoints) and sets ``usage`` (the bare mock counts tokens
with a tokenizer it would download).  Produces:

- ``baseline.eval`` and ``candidate.eval``: the same 60 items in 12 passages (cluster field
  ``passage.id`` in sample metadata), 3 epochs, ``match()`` with Inspect's metrics and
  evaladdon's ``clustered_se``, ``epoch_variance``, ``mde``; the candidate also reports
  ``paired_delta`` against the baseline log;
- ``judge.eval``: a model-graded scorer (``model_graded_qa`` with a mock grader) on one
  epoch, with human labels on a subsample in metadata and ``judge_corrected``; the same
  labels as a table in ``../labels/judge_labels.csv`` for ``evaladdon judge``.

    python scripts/make_inspect_logs.py [OUT_DIR]
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
N_PASSAGES, PER_PASSAGE, EPOCHS = 12, 5, 3


def _u(*key: Any) -> float:
    """A deterministic uniform draw in [0, 1) from a key (order-independent randomness)."""
    h = hashlib.sha256(repr(key).encode()).digest()
    return int.from_bytes(h[:8], "big") / 2**64


def item_ids() -> list[tuple[str, str]]:
    return [(f"q{p:02d}{k}", f"p{p:02d}") for p in range(N_PASSAGES) for k in range(PER_PASSAGE)]


def item_skill(item: str, passage: str) -> float:
    """Shared difficulty: a passage effect and an item effect (both checkpoints see them)."""
    return 2.0 * (_u("passage", passage) - 0.5) + 5.0 * (_u("item", item) - 0.5)


def mock_model(shift: float, name: str) -> Any:
    import math

    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    calls: dict[str, int] = {}

    def answer(messages: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        prompt = messages[-1].text
        item = prompt.split("[")[1].split("]")[0]
        target = prompt.split("answer is ")[1].split(".")[0]
        passage = "p" + item[1:3]
        k = calls.get(item, 0)
        calls[item] = k + 1
        p = 1 / (1 + math.exp(-(item_skill(item, passage) + shift)))
        text = target if _u(name, item, k) < p else "unsure"
        out = ModelOutput.from_content(model="mockllm/model", content=text)
        out.usage = ModelUsage(input_tokens=20, output_tokens=2, total_tokens=22)
        return out

    return get_model("mockllm/model", custom_outputs=answer)


def dataset() -> list[Any]:
    from inspect_ai.dataset import Sample

    return [
        Sample(
            id=item,
            input=f"[{item}] Read passage {passage}. The answer is {int(_u('target', item) * 90) + 10}. Answer:",
            target=str(int(_u("target", item) * 90) + 10),
            metadata={"passage": {"id": passage}, "length": int(40 + 100 * _u("len", item))},
        )
        for item, passage in item_ids()
    ]


def run(out_dir: Path) -> dict[str, Path]:
    from inspect_ai import Task, eval
    from inspect_ai.scorer import accuracy, match, stderr

    from evaladdon.inspect_ai import clustered_se, epoch_variance, mde, paired_delta

    out_dir.mkdir(parents=True, exist_ok=True)
    produced: dict[str, Path] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for variant, shift in (("baseline", 0.2), ("candidate", 0.7)):
            metrics: list[Any] = [accuracy(), stderr(), clustered_se("passage.id"), epoch_variance(), mde()]
            if variant == "candidate":
                metrics.append(paired_delta(os.path.relpath(produced["baseline"])))
            task = Task(dataset=dataset(), scorer=match(), metrics=metrics, epochs=EPOCHS, name="reading")
            (log,) = eval(task, model=mock_model(shift, variant), log_dir=f"{tmp}/{variant}", display="none",
                          max_samples=4)
            if log.status != "success":
                raise RuntimeError(f"{variant} run ended with status {log.status}: {log.error}")
            dest = out_dir / f"{variant}.eval"
            shutil.copyfile(log.location, dest)
            produced[variant] = dest
        produced["judge"] = _judge_run(out_dir, tmp)
    # the labels live beside the logs' folder, not in it, so summarizing the folder reads logs only
    labels_dir = out_dir.parent / "labels"
    labels_dir.mkdir(exist_ok=True)
    produced["labels"] = write_labels(produced["judge"], labels_dir / "judge_labels.csv")
    return produced


def write_labels(judge_log: Path, dest: Path) -> Path:
    """The human labels stored in the judge run's metadata, as a table for ``evaladdon judge``."""
    from inspect_ai.log import read_eval_log_sample_summaries

    rows = ["id,human"] + [f"{s.id},{s.metadata['human_label']}" for s in read_eval_log_sample_summaries(str(judge_log))
                           if "human_label" in (s.metadata or {})]
    dest.write_text("\n".join(rows) + "\n")
    return dest


def _judge_run(out_dir: Path, tmp: str) -> Path:
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import accuracy, model_graded_qa, stderr

    from evaladdon.inspect_ai import judge_corrected

    samples = []
    for item, passage in item_ids():
        truth = _u("truth", item) < 0.6
        meta: dict[str, Any] = {"passage": {"id": passage}}
        if _u("labelled", item) < 0.5:  # human labels on about half the items
            meta["human_label"] = int(truth)
        samples.append(Sample(id=item, input=f"[{item}] Explain passage {passage}.", target="a good explanation",
                              metadata={**meta, "truth": int(truth)}))

    def respond(messages: list[Any], *_: Any) -> ModelOutput:
        out = ModelOutput.from_content(model="mockllm/model", content="An explanation.")
        out.usage = ModelUsage(input_tokens=10, output_tokens=3, total_tokens=13)
        return out

    def grade(messages: list[Any], *_: Any) -> ModelOutput:
        text = " ".join(m.text for m in messages)
        item = re.search(r"\[(q\d+)\]", text).group(1)  # type: ignore[union-attr]
        truth = _u("truth", item) < 0.6
        # an imperfect judge: sensitivity 0.9, specificity 0.75
        says_correct = _u("judge", item) < (0.9 if truth else 0.25)
        out = ModelOutput.from_content(model="mockllm/model", content=f"GRADE: {'C' if says_correct else 'I'}")
        out.usage = ModelUsage(input_tokens=30, output_tokens=3, total_tokens=33)
        return out

    task = Task(
        dataset=samples,
        scorer=model_graded_qa(model=get_model("mockllm/model", custom_outputs=grade)),
        metrics=[accuracy(), stderr(), judge_corrected(human_field="human_label")],
        name="explain",
    )
    (log,) = eval(task, model=get_model("mockllm/model", custom_outputs=respond), log_dir=f"{tmp}/judge",
                  display="none", max_samples=4)
    if log.status != "success":
        raise RuntimeError(f"judge run ended with status {log.status}: {log.error}")
    dest = out_dir / "judge.eval"
    shutil.copyfile(log.location, dest)
    return dest


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "sample_logs" / "inspect"
    for name, path in run(target).items():
        print(f"wrote {name}: {path}")
