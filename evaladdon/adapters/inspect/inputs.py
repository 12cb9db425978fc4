"""The first line of some samples' inputs in an Inspect log (``compare --flips`` shows it beside
each item that flipped), and their answers in full (:func:`full_answers`: the table keeps the
summary form Inspect writes, whitespace collapsed, which ``export --flips`` must not show).

The canonical table holds no input text (only its content hash), so the few items a flip report
shows are looked up again here: in an ``.eval`` zip the members ``samples/{id}_epoch_{n}.json`` of
those ids (each within the size and ratio bounds of
:func:`~evaladdon.adapters.common.guard.read_member`), in a JSON log its ``samples`` list.  The text
is data only: it is never executed, and the report escapes it.  Anything unreadable gives no line
(the flip is shown without it), never an error: the comparison itself was read already.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any, Iterable

__all__ = ["FIRST_LINE_CHARS", "first_line", "full_answers", "input_lines"]

FIRST_LINE_CHARS = 200
"""Longest first line kept (longer ones end in an ellipsis)."""


def _text(content: Any) -> str | None:
    """The text of a message's content: a string, or the first text part of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                return str(part["text"])
    return None


def first_line(sample_input: Any) -> str | None:
    """The first non-blank line of an Inspect sample's ``input``: a string, or a list of chat
    messages (the first user message's text; else the first message with text)."""
    text: str | None = None
    if isinstance(sample_input, str):
        text = sample_input
    elif isinstance(sample_input, list):
        msgs = [m for m in sample_input if isinstance(m, dict)]
        users = [m for m in msgs if m.get("role") == "user"]
        for m in users + msgs:
            text = _text(m.get("content"))
            if text:
                break
    if not text:
        return None
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    if not line:
        return None
    return line if len(line) <= FIRST_LINE_CHARS else line[: FIRST_LINE_CHARS - 1] + "…"


def input_lines(source: str, items: Iterable[str]) -> dict[str, str]:
    """``{item: first line of its input}`` for those of ``items`` that the Inspect log ``source``
    holds with an input; ``{}`` for any other file or one that cannot be read."""
    wanted = {str(i) for i in items}
    path = Path(source)
    if not wanted or not path.is_file():
        return {}
    out: dict[str, str] = {}
    try:
        for sample in _samples(path, wanted):
            item = str(sample.get("id"))
            line = first_line(sample.get("input")) if item not in out else None
            if line is not None:
                out[item] = line
    except Exception:  # noqa: BLE001 - the line is a courtesy: an unreadable log shows the flip without it
        return {}
    return out


def _samples(path: Path, wanted: set[str]) -> Iterable[dict[str, Any]]:
    """The samples of ``wanted`` ids in an Inspect log (``.eval`` zip members, read only for those
    ids, or a JSON log's list), every epoch's; nothing for another kind of file."""
    if zipfile.is_zipfile(path):
        import orjson

        from evaladdon.adapters.common.guard import read_member
        from evaladdon.adapters.inspect.native import _member_key

        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():
                name = info.filename
                key = _member_key(name) if name.startswith("samples/") and name.endswith(".json") else None
                if key is not None and key[0] in wanted:
                    sample = orjson.loads(read_member(zf, info, str(path)))
                    if isinstance(sample, dict):
                        yield sample
    elif path.suffix.lower() == ".json":
        from evaladdon.adapters.common.jsondoc import load_json

        doc = load_json(path)
        samples = doc.get("samples") if isinstance(doc, dict) else None
        yield from (s for s in (samples if isinstance(samples, list) else [])
                    if isinstance(s, dict) and str(s.get("id")) in wanted)


def _answer(sample: dict[str, Any], metric: str) -> str | None:
    """The answer of ``metric``'s scorer (``scorer`` or ``scorer/key`` of a dict-valued score)."""
    scores = sample.get("scores")
    if not isinstance(scores, dict):
        return None
    for name in (metric, metric.rpartition("/")[0]):
        score = scores.get(name) if name else None
        if isinstance(score, dict) and isinstance(score.get("answer"), str):
            return str(score["answer"])
    return None


def full_answers(source: str, metric: str, shown: dict[str, str]) -> dict[str, str]:
    """``{item: answer in full}`` for the items of ``shown`` (``{item: answer as the table holds it}``)
    whose ``metric`` answer in the Inspect log ``source`` is, in Inspect's summary form
    (:func:`~evaladdon.adapters.inspect.records.thin_text`), the one shown: the first epoch that
    matches, so the answer is the same epoch's as the table's.  ``{}`` for any other file or one
    that cannot be read (the thinned answer stays)."""
    from evaladdon.adapters.inspect.records import thin_text

    path = Path(source)
    if not shown or not path.is_file():
        return {}
    out: dict[str, str] = {}
    try:
        for sample in _samples(path, set(shown)):
            item = str(sample.get("id"))
            answer = _answer(sample, metric)
            if item not in out and answer is not None and thin_text(answer) == shown[item]:
                out[item] = answer
    except Exception:  # noqa: BLE001 - a courtesy, as input_lines: an unreadable log keeps the table's answer
        return {}
    return out
