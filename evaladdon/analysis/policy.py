"""A gate policy for many benchmarks (``evaladdon gate POLICY.yaml RUNS...``): the file read and
checked into frozen records, every mistake one line naming the file and the key.

The format (YAML, read with ``yaml.safe_load`` -- never a YAML tag that builds an object -- or the
same keys in JSON)::

    level: 0.95              # confidence level of every interval (default 0.95)
    power: 0.8               # power for INSUFFICIENT-EVIDENCE (default 0.8)
    adjust: holm             # multiplicity over the benchmarks judged: holm, bonferroni, bh, none
    cluster: passage_id      # optional: the field to cluster items on (as compare --cluster)
    inconclusive: pass       # pass | fail: does a critical INCONCLUSIVE / INSUFFICIENT-EVIDENCE fail?
    missing: error           # error (exit 2) | fail (exit 1): a critical benchmark not in the runs
    max_supporting_no_go: 0  # supporting benchmarks allowed to be NO-GO before the gate fails
    benchmarks:
      - task: gsm8k          # the task (a glob: mmlu_*)
        metric: exact_match  # optional glob (default: every metric of the task)
        name: GSM8K          # optional label
        tier: critical       # critical | supporting | advisory
        max_drop: 2pt        # largest drop that does not matter: 2pt, 0.02, or the metric's units
        max_relative_drop: 5%   # optional: a share of the baseline's score (the smaller drop wins)
        mode: non-inferiority   # non-inferiority (default) | equivalence (TOST within +/- the drop)
        test: auto           # the paired test, as compare --test (auto, mcnemar, t, permutation ...)
        lower_is_better: false  # optional: where the logs declare nothing (perplexity, error rates);
                                # the declared direction wins and a contradiction is refused

``max_drop`` follows the one rule of effect sizes (:mod:`evaladdon.cli.units`, resolved by
:meth:`~evaladdon.analysis.options.Effect.resolve` on each comparison's scale).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaladdon.analysis.options import Effect
from evaladdon.errors import EvalAddonError
from evaladdon.stats import ADJUST_METHODS, PAIRED_TESTS

__all__ = ["MODES", "TIERS", "Benchmark", "Policy", "load_policy", "parse_policy"]

TIERS = ("critical", "supporting", "advisory")
MODES = ("non-inferiority", "equivalence")
_TOP = {"level", "power", "adjust", "cluster", "inconclusive", "missing", "max_supporting_no_go", "benchmarks",
        "version", "description"}
_KEYS = {"task", "metric", "name", "tier", "max_drop", "max_relative_drop", "mode", "test", "lower_is_better"}
_EFFECT = re.compile(r"^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*(pt|pts|pp|points?|%)?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Benchmark:
    """One line of the policy: which (task, metric) (globs), its tier, its allowed drop (an
    :class:`Effect`, and/or a share of the baseline's score), the decision mode and the test."""

    task: str
    metric: str | None
    name: str
    tier: str
    max_drop: Effect | None
    max_relative_drop: float | None
    mode: str = "non-inferiority"
    test: str = "auto"
    key: str = "benchmarks[0]"
    """Where it is in the file (``benchmarks[2]``), for errors that name the key."""
    lower_is_better: bool | None = None
    """Whether a lower score is better, where the logs declare nothing (None: the built-in names;
    :mod:`evaladdon.table.direction`)."""


@dataclass(frozen=True)
class Policy:
    """A checked policy (see module doc); ``source`` the file it came from."""

    source: str
    benchmarks: tuple[Benchmark, ...]
    level: float = 0.95
    power: float = 0.8
    adjust: str = "holm"
    cluster: str | None = None
    inconclusive: str = "pass"
    missing: str = "error"
    max_supporting_no_go: int = 0

    @property
    def tests(self) -> tuple[str, ...]:
        """The distinct paired tests the benchmarks ask for, in policy order."""
        return tuple(dict.fromkeys(b.test for b in self.benchmarks))


class _Where:
    """Builds the one-line error naming the file and the key."""

    def __init__(self, source: str) -> None:
        self.source = source

    def error(self, key: str, what: str) -> EvalAddonError:
        return EvalAddonError(f"{key}: {what}", where=self.source)


def load_policy(path: str | Path) -> Policy:
    """The policy in ``path`` (``.json`` read as JSON, anything else as YAML), checked."""
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise EvalAddonError(f"cannot read the policy: {getattr(exc, 'strerror', None) or exc}", where=source) from None
    if source.lower().endswith(".json"):
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise EvalAddonError(f"not valid JSON: {exc}", where=source) from None
    else:
        import yaml  # PyYAML, imported only by the gate

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
            raise EvalAddonError(f"not valid YAML{where}: {getattr(exc, 'problem', None) or exc}", where=source) from None
    return parse_policy(data, source)


def parse_policy(data: Any, source: str = "policy") -> Policy:
    """``data`` (the parsed file) checked into a :class:`Policy`; one line per mistake."""
    w = _Where(source)
    if not isinstance(data, dict):
        raise EvalAddonError(f"the policy must be a mapping with a 'benchmarks' list, "
                             f"got {type(data).__name__}", where=source)
    unknown = sorted(str(k) for k in data if k not in _TOP)
    if unknown:
        raise w.error(unknown[0], f"unknown key (known: {', '.join(sorted(_TOP))})")
    items = data.get("benchmarks")
    if not isinstance(items, list) or not items:
        raise w.error("benchmarks", "a non-empty list of benchmarks is required")
    benchmarks = tuple(_benchmark(b, f"benchmarks[{k}]", w) for k, b in enumerate(items))
    _refuse_twice(benchmarks, w)
    level = _fraction(data.get("level", 0.95), "level", w)
    power = _fraction(data.get("power", 0.8), "power", w)
    return Policy(
        source=source, benchmarks=benchmarks, level=level, power=power,
        adjust=_choice(data.get("adjust", "holm"), "adjust", ADJUST_METHODS, w),
        cluster=_text(data["cluster"], "cluster", w) if data.get("cluster") is not None else None,
        inconclusive=_choice(data.get("inconclusive", "pass"), "inconclusive", ("pass", "fail"), w),
        missing=_choice(data.get("missing", "error"), "missing", ("error", "fail"), w),
        max_supporting_no_go=_count(data.get("max_supporting_no_go", 0), "max_supporting_no_go", w),
    )


def _benchmark(b: Any, key: str, w: _Where) -> Benchmark:
    if not isinstance(b, dict):
        raise w.error(key, f"each benchmark is a mapping (task, tier, max_drop ...), got {type(b).__name__}")
    unknown = sorted(str(k) for k in b if k not in _KEYS)
    if unknown:
        raise w.error(f"{key}.{unknown[0]}", f"unknown key (known: {', '.join(sorted(_KEYS))})")
    if "task" not in b:
        raise w.error(f"{key}.task", "required (the task's name or a glob)")
    task = _text(b["task"], f"{key}.task", w)
    metric = _text(b["metric"], f"{key}.metric", w) if b.get("metric") is not None else None
    if "tier" not in b:
        raise w.error(f"{key}.tier", f"required: one of {', '.join(TIERS)}")
    tier = _choice(b["tier"], f"{key}.tier", TIERS, w)
    mode = _choice(b.get("mode", "non-inferiority"), f"{key}.mode", MODES, w)
    drop = _effect(b["max_drop"], f"{key}.max_drop", w) if b.get("max_drop") is not None else None
    rel = _relative(b["max_relative_drop"], f"{key}.max_relative_drop", w) if b.get("max_relative_drop") is not None else None
    if drop is None and rel is None:
        raise w.error(f"{key}.max_drop", "required (or max_relative_drop): the largest drop that does not matter")
    if mode == "equivalence" and drop is not None and drop.value == 0:
        raise w.error(f"{key}.max_drop", "an equivalence margin must be > 0")
    name = _text(b["name"], f"{key}.name", w) if b.get("name") is not None else task + (f"/{metric}" if metric else "")
    lower = b.get("lower_is_better")
    if lower is not None and not isinstance(lower, bool):
        raise w.error(f"{key}.lower_is_better", f"true or false, got {lower!r}")
    return Benchmark(task=task, metric=metric, name=name, tier=tier, max_drop=drop, max_relative_drop=rel, mode=mode,
                     test=_choice(b.get("test", "auto"), f"{key}.test", PAIRED_TESTS, w), key=key,
                     lower_is_better=lower)


def _refuse_twice(benchmarks: tuple[Benchmark, ...], w: _Where) -> None:
    """A benchmark listed twice (the same task and metric, or the same name) is refused: its two
    lines would be judged twice, in one family, with verdicts that cannot be told apart."""
    seen: dict[tuple[str, str | None], str] = {}
    names: dict[str, str] = {}
    for b in benchmarks:
        first = seen.setdefault((b.task, b.metric), b.key)
        if first != b.key:
            what = f"task {b.task!r}" + (f", metric {b.metric!r}" if b.metric is not None else "")
            raise w.error(b.key, f"{what} is listed twice (also {first}): keep one line per benchmark")
        first = names.setdefault(b.name, b.key)
        if first != b.key:
            raise w.error(f"{b.key}.name", f"{b.name!r} names two benchmarks (also {first}): give each its own name")


def _text(value: Any, key: str, w: _Where) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)) or str(value).strip() == "":
        raise w.error(key, f"a non-empty name is required, got {value!r}")
    return str(value)


def _choice(value: Any, key: str, choices: tuple[str, ...], w: _Where) -> str:
    if not isinstance(value, str) or value.strip().lower() not in choices:
        raise w.error(key, f"{value!r} is not one of {', '.join(choices)}")
    return value.strip().lower()


def _number(value: Any, key: str, w: _Where) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise w.error(key, f"a finite number is required, got {value!r}")
    return float(value)


def _fraction(value: Any, key: str, w: _Where) -> float:
    v = _number(value, key, w)
    if not 0 < v < 1:
        raise w.error(key, f"must lie strictly between 0 and 1, got {v:g}")
    return v


def _count(value: Any, key: str, w: _Where) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise w.error(key, f"a whole number >= 0 is required, got {value!r}")
    return int(value)


def _effect(value: Any, key: str, w: _Where) -> Effect:
    """``2pt`` / ``2%`` / ``2pp`` (points), ``0.02`` (a fraction, or the metric's own units); >= 0."""
    text = str(value) if isinstance(value, (int, float, str)) and not isinstance(value, bool) else ""
    m = _EFFECT.match(text)
    if not m:
        raise w.error(key, f"{value!r} is not an effect size (e.g. 2pt, 2pp, 2%, or 0.02)")
    v = float(m.group(1))
    if not math.isfinite(v) or v < 0:
        raise w.error(key, f"{value!r}: a drop that does not matter is a finite number >= 0")
    return Effect(text=text.strip(), value=v, points=m.group(2) is not None)


def _relative(value: Any, key: str, w: _Where) -> float:
    """A share of the baseline's score: ``5%`` or ``0.05``, in (0, 1)."""
    text = str(value).strip() if isinstance(value, (int, float, str)) and not isinstance(value, bool) else ""
    percent = text.endswith("%")
    try:
        v = float(text[:-1] if percent else text) / (100.0 if percent else 1.0)
    except ValueError:
        raise w.error(key, f"{value!r} is not a share of the baseline's score (e.g. 5% or 0.05)") from None
    if not 0 < v < 1:
        raise w.error(key, f"{value!r}: a share of the baseline's score lies strictly between 0 and 1 (5% or 0.05)")
    return v
