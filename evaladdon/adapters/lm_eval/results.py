"""lm-eval results files: their shape checked, paired with samples files, and the values they hold.

Results files (``results_<timestamp>.json``, 0.3 ``acc``/``acc_stderr`` keys, ``"N/A"``
stderrs, ``NaN``/``Infinity`` literals) name the run and the filters, and say whether the
samples are complete (``n-samples``).  Wrong-shaped results (``results``/``configs``/``config``/
``group_subtasks``/``n-samples`` of the wrong type, a non-finite or absurd
``repeats``/``n-samples``) are refused in one line.  A results file read alone (no samples) gives
the harness's own values (:func:`reported_values`).  The reader never executes code found in a
log (configs carry source code as strings).
"""

from __future__ import annotations

import ast
import math
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

try:
    import orjson
except ImportError:  # pragma: no cover
    orjson = None  # type: ignore[assignment]

from evaladdon.adapters.common.guard import MAX_DEPTH
from evaladdon.adapters.common.jsonlines import check_depth, slow_loads
from evaladdon.errors import InputError

MAX_REPEATS = 1_000_000
MAX_DOCS = 10**10
_TS = re.compile(r"_(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)$")


def looks_like_results_json(head: bytes) -> bool:
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff").lstrip()
    return text.startswith("{") and re.match(r'^\{\s*"results"\s*:', text) is not None



def _load_json(path: Path) -> Any:
    """A whole JSON file (results, write-out): depth-checked, NaN/Infinity literals allowed."""
    raw = path.read_bytes()
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", str(path)) from None
    # scanned so nothing downstream recurses deep; a text with fewer brackets than the limit
    # cannot nest deeper than it (two C-level counts instead of the scan: most of a small
    # results file's cost)
    if raw.count(b"[") + raw.count(b"{") > MAX_DEPTH:
        check_depth(raw, str(path))
    if orjson is not None:
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    return slow_loads(raw, str(path))


def _count(value: Any, what: str, where: str, low: int = 0, high: int = MAX_DOCS) -> int:
    """A logged count (int, integral float or numeric string) within [low, high], else one line."""
    v = value
    if isinstance(v, str):
        try:
            v = float(v.strip())
        except ValueError:
            raise InputError(f"{what} is {value!r}, not a number", where) from None
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise InputError(f"{what} is a {type(value).__name__}, expected a number", where)
    if not math.isfinite(v) or v != int(v) or not low <= v <= high:
        raise InputError(f"{what} is {value!r}; expected a whole number from {low} to {high:g}", where)
    return int(v)


def check_results_shape(data: Any, where: str) -> dict[str, Any]:
    """Refuse results whose known keys have the wrong type (one line each); return ``data``."""
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        raise InputError("not an lm-eval results file (no 'results' object)", where)
    for task, entry in data["results"].items():
        if not isinstance(entry, dict):
            raise InputError(f"results.{task} is a {type(entry).__name__}, expected an object", where)
    for key in ("configs", "config", "group_subtasks", "n-samples", "groups"):
        if key in data and data[key] is not None and not isinstance(data[key], dict):
            raise InputError(f"'{key}' is a {type(data[key]).__name__}, expected an object", where)
    for task, cfg in (data.get("configs") or {}).items():
        if not isinstance(cfg, dict):
            raise InputError(f"configs.{task} is a {type(cfg).__name__}, expected an object", where)
        if cfg.get("repeats") is not None:
            _count(cfg["repeats"], f"configs.{task}.repeats", where, 1, MAX_REPEATS)
    for group, subs in (data.get("group_subtasks") or {}).items():
        if not isinstance(subs, list) or not all(isinstance(s, str) for s in subs):
            raise InputError(f"group_subtasks.{group} is not a list of task names", where)
    for task, ns in (data.get("n-samples") or {}).items():
        if not isinstance(ns, dict):
            raise InputError(f"n-samples.{task} is a {type(ns).__name__}, expected an object", where)
        for k in ("effective", "original"):
            if ns.get(k) is not None:
                _count(ns[k], f"n-samples.{task}.{k}", where)
    return data


@lru_cache(maxsize=64)
def _results_cached(path: str, mtime: float, size: int) -> dict[str, Any]:
    return check_results_shape(_load_json(Path(path)), path)


def read_results(path: Path) -> dict[str, Any]:
    st = path.stat()
    return _results_cached(str(path), st.st_mtime, st.st_size)


def model_name(results: dict[str, Any] | None, fallback: str) -> str:
    if results:
        if isinstance(results.get("model_name"), str) and results["model_name"]:
            return str(results["model_name"])
        config = results.get("config") or {}
        args = config.get("model_args")
        if isinstance(args, dict) and isinstance(args.get("pretrained"), str):
            return str(args["pretrained"])
        if isinstance(args, str):
            m = re.search(r"(?:pretrained|model|engine)=([^,]+)", args)
            if m:
                return m.group(1)
        if isinstance(config.get("model"), str) and config.get("model"):
            return str(config["model"]) + (f"({args})" if isinstance(args, str) and args else "")
    return fallback


def filters_of(results: dict[str, Any] | None, task: str) -> list[str]:
    """Filter names of a task in the order the results list them (``metric,filter`` keys)."""
    if not results:
        return []
    entry = results.get("results", {}).get(task, {})
    out: list[str] = []
    for key in entry:
        if "," in key and "_stderr" not in key.split(",")[0]:
            f = key.split(",", 1)[1]
            if f not in out:
                out.append(f)
    return out


def repeats_of(results: dict[str, Any] | None, task: str) -> int:
    """``configs.<task>.repeats`` (checked by :func:`check_results_shape`), 1 when absent."""
    if not results:
        return 1
    cfg = (results.get("configs") or {}).get(task) or {}
    if cfg.get("repeats") is None:
        return 1
    return _count(cfg["repeats"], f"configs.{task}.repeats", "results", 1, MAX_REPEATS)


def declared_docs(results: dict[str, Any] | None, task: str) -> int | None:
    """How many docs the harness says it evaluated (``n-samples.<task>.effective``)."""
    if not results:
        return None
    ns = (results.get("n-samples") or {}).get(task)
    if isinstance(ns, dict) and ns.get("effective") is not None:
        return _count(ns["effective"], f"n-samples.{task}.effective", "results")
    return None


def target_delimiter(results: dict[str, Any] | None, task: str) -> str:
    cfg = ((results or {}).get("configs") or {}).get(task) or {}
    d = cfg.get("target_delimiter", " ")
    return d if isinstance(d, str) else " "


def declared_directions(results: dict[str, Any] | None, tasks: Any = None) -> dict[str, dict[str, bool]]:
    """Whether a lower score is better, as the results file declares it: ``{task: {metric: bool}}``
    from its ``higher_is_better`` dict per task, and for the metrics it does not name, each task
    config's ``metric_list[].higher_is_better`` (only booleans; nothing guessed).  ``tasks``: the
    tasks to read (default: every task either names).  Metric names are lm-eval's, without the
    ``,filter`` (:func:`evaladdon.table.direction.declared_of` matches every filter of them)."""
    r = results or {}
    hib: dict[str, Any] = r["higher_is_better"] if isinstance(r.get("higher_is_better"), dict) else {}
    configs: dict[str, Any] = r["configs"] if isinstance(r.get("configs"), dict) else {}
    names = list(dict.fromkeys([*hib, *configs])) if tasks is None else list(tasks)
    out: dict[str, dict[str, bool]] = {}
    for task in names:
        mine: dict[str, bool] = {}
        for metric, higher in (hib.get(task) or {}).items() if isinstance(hib.get(task), dict) else ():
            if isinstance(higher, bool):
                mine[str(metric)] = not higher
        ml = _metric_list(configs.get(task))
        for entry in ml:
            if isinstance(entry, dict) and isinstance(entry.get("metric"), str) \
                    and isinstance(entry.get("higher_is_better"), bool):
                mine.setdefault(entry["metric"], not entry["higher_is_better"])
        if mine:
            out[str(task)] = mine
    return out


def _metric_list(cfg: Any) -> list[Any]:
    """A task config's ``metric_list``: a list, or (newer logs) its Python repr read with
    :func:`ast.literal_eval` (literals only: nothing is executed); ``[]`` when neither."""
    ml = cfg.get("metric_list") if isinstance(cfg, dict) else None
    if isinstance(ml, str) and len(ml) < 200_000:
        try:
            check_depth(ml.encode(), "metric_list")
            ml = ast.literal_eval(ml)
        except (ValueError, SyntaxError, MemoryError, RecursionError, InputError):
            ml = None
    return ml if isinstance(ml, list) else []


def metric_aggregations(results: dict[str, Any] | None, task: str) -> dict[str, str]:
    """Metric name -> aggregation as the config names it: a registry name (``f1``, ``bleu``)
    or ``code:<function name>`` for an aggregation written as code in the task (never run).

    ``metric_list`` is a list, or (newer logs) its Python repr, read with
    :func:`ast.literal_eval` (literals only: nothing is executed).
    """
    ml = _metric_list(((results or {}).get("configs") or {}).get(task) or {})
    out: dict[str, str] = {}
    if ml:
        for entry in ml:
            if not isinstance(entry, dict) or not isinstance(entry.get("metric"), str):
                continue
            agg = entry.get("aggregation")
            if isinstance(agg, str):
                m = re.match(r"\s*def\s+(\w+)", agg)
                out[entry["metric"]] = f"code:{m.group(1)}" if m else (
                    "code:?" if ("\n" in agg or "<function" in agg) else agg)
    return out


def _sanitize(s: str) -> str:
    return re.sub(r"[^0-9A-Za-z]+", "", s).lower()


def pair_results(samples_path: Path) -> tuple[Path | None, str | None]:
    """The results file of a samples file, and its task name (when the pairing is certain).

    0.4.3+: ``samples_<task>_<ts>.jsonl`` with ``results_<ts>.json`` in the same folder, or,
    when ``--output_path`` named a file (``NAME.json``), with ``NAME_<ts>.json`` beside it
    (lm-eval's ``EvaluationTracker``: ``path.with_name(f"{path.stem}_{date_id}.json")``, the
    samples in ``path.parent``).
    0.4.0-0.4.2: ``<model_args>_<task>.jsonl`` with the one results JSON in the folder
    that lists ``<task>`` (several: the one whose model_args match the prefix).
    """
    stem = samples_path.stem
    folder = samples_path.parent
    m = _TS.search(stem)
    if stem.startswith("samples_") and m:
        task = stem[len("samples_"): m.start()]
        cand = folder / f"results_{m.group(1)}.json"
        return (cand if cand.exists() else _named_results(folder, m.group(1), task)), task
    candidates: list[tuple[Path, str]] = []
    for f in sorted(folder.glob("*.json")):
        try:
            with f.open("rb") as fh:
                if not looks_like_results_json(fh.read(512)):
                    continue
            res = read_results(f)
        except (InputError, OSError):
            continue
        for task in res["results"]:
            if stem == task or stem.endswith("_" + task):
                candidates.append((f, task))
    if not candidates:
        return None, None
    longest = max(len(t) for _, t in candidates)
    candidates = [(f, t) for f, t in candidates if len(t) == longest]
    prefix = _sanitize(stem[: -len(candidates[0][1])])
    matching = []
    for f, t in candidates:
        args = (read_results(f).get("config") or {}).get("model_args")
        # the file name starts with the sanitised model_args: a results file of another
        # model that happens to list the same task must not be paired
        if not isinstance(args, str) or _sanitize(args) == prefix:
            matching.append((f, t))
    if len(matching) == 1:
        return matching[0]
    return None, candidates[0][1]


def _named_results(folder: Path, ts: str, task: str) -> Path | None:
    """The results file ``NAME_<ts>.json`` of ``--output_path NAME.json`` that shares the
    samples' timestamp (the one listing ``task`` when there are several; None when unsure)."""
    found = []
    for f in sorted(folder.glob(f"*_{ts}.json")):
        if f.name.startswith("samples_"):
            continue
        try:
            with f.open("rb") as fh:
                if looks_like_results_json(fh.read(512)):
                    found.append((f, task in read_results(f)["results"]))
        except (InputError, OSError):
            continue
    listing = [f for f, lists in found if lists]
    if len(listing) == 1 or (len(found) == 1 and not listing):
        return (listing or [found[0][0]])[0]
    return None


def _float_or_none(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        if isinstance(v, str):
            try:
                return float(v)
            except ValueError:
                return None
        return None
    return float(v)


def reported_values(results: dict[str, Any], *, run: str, source: str, model: str) -> list[dict[str, Any]]:
    """The harness's own value/stderr per (task, metric) of a results file (see module docstring)."""
    out: list[dict[str, Any]] = []
    n_samples = results.get("n-samples") or {}
    for task, entry in results["results"].items():
        ns = n_samples.get(task) if isinstance(n_samples, dict) else None
        n = ns.get("effective") if isinstance(ns, dict) else None
        if n is None and isinstance(entry.get("sample_len"), int) and not isinstance(entry.get("sample_len"), bool):
            n = entry["sample_len"]
        for key, value in entry.items():
            name, sep, filt = key.partition(",")
            if name.endswith("_stderr") or key in ("alias", "name", "sample_len", "sample_count", "samples"):
                continue
            v = _float_or_none(value)
            if v is None or isinstance(value, str):
                continue  # "N/A" values, aliases and other strings are not results
            se = _float_or_none(entry.get(f"{name}_stderr{sep}{filt}"))
            out.append({"run": run, "source": source, "task": str(task), "model": model, "metric": key,
                        "value": v, "stderr": se, "n": int(n) if n is not None else None})
    return out



def harness_context(source: str, task: str) -> dict[str, Any]:
    """For a samples (or results) file: the paired results' aggregations and values of ``task``.

    Returns ``{"aggregations": {metric: aggregation}, "reported": {"metric,filter": value},
    "results_path": str | None}`` (empty when no results file pairs); for
    :mod:`evaladdon.analysis.corpus`.
    """
    p = Path(source)
    results_path: Path | None
    try:
        with p.open("rb") as fh:
            is_results = looks_like_results_json(fh.read(512))
    except OSError:
        return {"aggregations": {}, "reported": {}, "results_path": None}
    results_path = p if is_results else pair_results(p)[0]
    results = read_results(results_path) if results_path else None
    return {"aggregations": metric_aggregations(results, task),
            "reported": dict(((results or {}).get("results") or {}).get(task) or {}),
            "results_path": str(results_path) if results_path else None}
