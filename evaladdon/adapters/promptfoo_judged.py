"""promptfoo's model-graded assertions as rows for ``judge bias`` (read only when asked:
:class:`~evaladdon.adapters.tuning.ReadOptions` ``judged``).

A result row's ``gradingResult.componentResults`` holds one GradingResult per assertion
(``{pass, score, reason, assertion: {type, value, provider, metric}}``; promptfoo's
``src/types`` and ``src/assertions``).  For each model-graded one (``llm-rubric``,
``model-graded-closedqa``, ``factuality`` ... :data:`MODEL_GRADED`) a row of the metric named by its
type (``llm-rubric#2`` for a second one in the same test): the judge's verdict as the value (its
``score``, else ``pass`` as 0/1), the answer judged (``response.output``) as ``prediction`` and the
grader as ``judge`` -- the assertion's ``provider``, else the test's ``options.provider``, else
the config's ``defaultTest.options.provider``; missing when none is logged (promptfoo's default
grader depends on the API keys set when it ran).
"""

from __future__ import annotations

import json
from typing import Any, Callable

import numpy as np
import pandas as pd

__all__ = ["MODEL_GRADED", "judged_part"]

MODEL_GRADED = frozenset((
    "llm-rubric", "model-graded-closedqa", "factuality", "model-graded-factuality", "g-eval", "answer-relevance",
    "context-faithfulness", "context-recall", "context-relevance", "search-rubric"))
"""promptfoo's model-graded assertion types (``site/docs/configuration/expected-outputs/model-graded``)."""


def _provider_name(p: Any) -> str | None:
    if isinstance(p, str) and p:
        return p
    if isinstance(p, dict):
        for key in ("id", "label"):
            if isinstance(p.get(key), str) and p[key]:
                return str(p[key])
    return None


def _options_provider(holder: Any) -> str | None:
    opts = holder.get("options") if isinstance(holder, dict) else None
    return _provider_name(opts.get("provider")) if isinstance(opts, dict) else None


def _output(row: dict[str, Any]) -> str | None:
    resp = row.get("response")
    out = resp.get("output") if isinstance(resp, dict) else None
    if out is None:
        return None
    return out if isinstance(out, str) else json.dumps(out, ensure_ascii=False, default=str)


def _verdict(comp: dict[str, Any]) -> Any:
    score = comp.get("score")
    if isinstance(score, (int, float)) and not isinstance(score, bool) and np.isfinite(score):
        return float(score)
    return comp.get("pass")


def _entries(i: int, row: Any, default: str | None) -> list[tuple[int, str, Any, str | None, str | None]]:
    """(row, metric, verdict, judge, answer) of one result row's model-graded assertions."""
    grading = row.get("gradingResult") if isinstance(row, dict) else None
    comps = grading.get("componentResults") if isinstance(grading, dict) else None
    if not isinstance(comps, list):
        return []
    out: list[tuple[int, str, Any, str | None, str | None]] = []
    seen: dict[str, int] = {}
    test_judge = _options_provider(row.get("testCase"))
    for comp in comps:
        assertion = comp.get("assertion") if isinstance(comp, dict) else None
        kind = assertion.get("type") if isinstance(assertion, dict) else None
        if not isinstance(assertion, dict) or kind not in MODEL_GRADED:
            continue
        seen[kind] = seen.get(kind, 0) + 1
        name = kind if seen[kind] == 1 else f"{kind}#{seen[kind]}"
        judge = _provider_name(assertion.get("provider")) or test_judge or default
        out.append((i, name, _verdict(comp), judge, _output(row)))
    return out


def judged_part(results: list[Any], config: Any, base: pd.DataFrame,
                metric_rows: Callable[[pd.DataFrame, Any, pd.Series], pd.DataFrame]) -> list[pd.DataFrame]:
    """The rows of the model-graded assertions (``[]`` when there are none), built as the reader
    builds its named scores' rows (``metric_rows`` on the result rows' ``base``)."""
    default = _options_provider(config.get("defaultTest")) if isinstance(config, dict) else None
    found = [e for i, row in enumerate(results) for e in _entries(i, row, default)]
    if not found:
        return []
    idx = np.fromiter((e[0] for e in found), dtype=np.int64, count=len(found))
    part = metric_rows(base.iloc[idx].reset_index(drop=True), pd.Series([e[1] for e in found], dtype=object),
                       pd.Series([e[2] for e in found], dtype=object))
    part["prediction"] = pd.Series([e[4] for e in found], dtype=object)
    part["judge"] = pd.Series([e[3] for e in found], dtype=object)
    return [part]
