"""Which model graded an Inspect log's model-graded scorers (``model_graded_qa``, ``model_graded_fact``).

Inspect's own rule (``inspect_ai/scorer/_model.py``, ``model_graded_qa``): an explicit ``model``
option grades (a list of models: one grader each, majority vote); else the model bound to the
scorer's ``model_role`` (default ``"grader"``) in the eval's ``model_roles``; else -- no role bound,
or ``model_role=None`` -- the model under test.  The header keeps each scorer's options
(``eval.scorers[i].options``) and the roles (``eval.model_roles``: a ``ModelConfig`` or a list).
The scores are keyed by Inspect's unique scorer names (``unique_scorer_name``: the unqualified
registry name, ``name1``, ``name2`` ... when repeated), which are the table's ``metric`` (``name/key``
for dict scores).  Several graders are kept as their names joined by ``", "``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MODEL_GRADED", "judges_of"]

MODEL_GRADED = ("model_graded_qa", "model_graded_fact")
"""Inspect's model-graded scorers (unqualified registry names)."""


def _names(value: Any) -> list[str]:
    """Model names of a ``model`` option or a role binding: a name, a ``ModelConfig`` dict, or a list."""
    if isinstance(value, list):
        return [n for v in value for n in _names(v)]
    if isinstance(value, dict):
        value = value.get("model")
    return [value] if isinstance(value, str) and value else []


def _grader(options: dict[str, Any], roles: dict[str, Any], model: str) -> str:
    explicit = _names(options.get("model"))
    if explicit:
        return ", ".join(explicit)
    role = options.get("model_role", "grader")
    if isinstance(role, dict):  # a serialised ModelRole
        role = role.get("name")
    bound = _names(roles.get(role)) if isinstance(role, str) else []
    return ", ".join(bound) if bound else model


def judges_of(header: dict[str, Any]) -> dict[str, str]:
    """Score name -> the grader's model name, for the model-graded scorers of a log header."""
    spec = header.get("eval") if isinstance(header, dict) else None
    if not isinstance(spec, dict) or not isinstance(spec.get("scorers"), list):
        return {}
    roles = spec.get("model_roles") if isinstance(spec.get("model_roles"), dict) else {}
    model = str(spec.get("model"))
    used: list[str] = []
    out: dict[str, str] = {}
    for scorer in spec["scorers"]:
        if not isinstance(scorer, dict) or not isinstance(scorer.get("name"), str):
            continue
        base = scorer["name"].rsplit("/", 1)[-1]
        name, count = base, 1
        while name in used:  # inspect_ai.scorer._scorer.unique_scorer_name
            name, count = f"{base}{count}", count + 1
        used.append(name)
        if base in MODEL_GRADED:
            options = scorer.get("options")
            out[name] = _grader(options if isinstance(options, dict) else {}, roles or {}, model)
    return out
