"""lm-evaluation-harness outputs of every generation -> canonical rows.

Generations (all found in published outputs):

- 0.4.3+ ``samples_<task>_<timestamp>.jsonl``: JSON lines with ``doc_hash``/``prompt_hash``/
  ``target_hash``, from 0.4.7 ``filter`` and ``metrics`` fields; one line per (doc, filter);
- 0.4.0-0.4.2 samples written as one JSON array inside a ``.jsonl`` file, with no ``filter``
  field: a doc appears once per filter, in the order of the filters in the results;
- 0.3 ``<task>_write_out_info.json`` arrays whose values are all strings (``"True"``);
- samples embedded in a results JSON (``simple_evaluate``'s return value saved whole);
- results files (``results_<timestamp>.json``, 0.3 ``acc``/``acc_stderr`` keys, ``"N/A"``
  stderrs, ``NaN``/``Infinity`` literals): used to name the run and the filters; alone they
  hold no per-item scores and add no rows (a note says so).

Rows per (doc_id, filter, metric), the metric named as in the results (``acc,none``).
Per-sample values that are lists (the inputs of corpus-level metrics such as f1 or bleu)
are kept with the reason ``corpus-level metric`` instead of a number.  ``doc_hash`` is kept
as ``item_hash``.  ``--cluster`` reads a doc field (dotted paths allowed).  Repeats: a
``scores_per_repeat`` mapping (metric -> list of per-repeat scores) becomes epochs;
otherwise one epoch, and a note says when the task ran with ``repeats > 1`` because the
harness's default filter keeps only the first repeat.

The reader never executes code found in a log (configs carry source code as strings).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

try:  # a dependency; without it (a broken install) samples are parsed fully, only slower
    import simdjson
except ImportError:  # pragma: no cover
    simdjson = None  # type: ignore[assignment]

from evaladdon.adapters.inspect_log import dotted
from evaladdon.adapters.scores import coerce_scores, raw_strings
from evaladdon.errors import InputError
from evaladdon.table import finalize

CORPUS_LEVEL = "corpus-level metric (per-item inputs, not a score)"
NOT_METRICS = {
    "doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics", "doc_hash",
    "prompt_hash", "target_hash", "task", "task_name", "scores_per_repeat", "truth", "index", "__evaladdon_cluster__",
}
_TS = re.compile(r"_(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)$")
_WRITE_OUT = re.compile(r"^(prompt|logit)_\d+$")


# ---------------------------------------------------------------- sniffing


def looks_like_samples_jsonl(head: bytes) -> bool:
    """lm-eval samples: a JSON array, or JSON lines, of objects with ``doc_id`` and ``doc``/``resps``."""
    text = head.decode("utf-8", errors="replace").lstrip()
    if text.startswith("["):
        return '"doc_id"' in text[:2000]
    first = text.split("\n", 1)[0]
    return first.startswith("{") and '"doc_id"' in first[:300] and any(
        key in first for key in ('"doc"', '"resps"', '"arguments"', '"filtered_resps"'))


def looks_like_results_json(head: bytes) -> bool:
    text = head.decode("utf-8", errors="replace").lstrip()
    return text.startswith("{") and re.match(r'^\{\s*"results"\s*:', text) is not None


def looks_like_write_out(path: Path, head: bytes) -> bool:
    return path.name.endswith("_write_out_info.json") and head.lstrip()[:1] == b"["


# ---------------------------------------------------------------- results files


def _load_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", str(path)) from None
    try:
        return json.loads(text)  # NaN/Infinity literals parse to floats; nothing is executed
    except json.JSONDecodeError as err:
        raise InputError(
            f"not valid JSON at line {err.lineno}, column {err.colno} ({err.msg}); the file may be truncated", str(path)
        ) from None


@lru_cache(maxsize=64)
def _results_cached(path: str, mtime: float) -> dict[str, Any]:
    data = _load_json(Path(path))
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        raise InputError("not an lm-eval results file (no 'results' object)", path)
    return data


def read_results(path: Path) -> dict[str, Any]:
    return _results_cached(str(path), path.stat().st_mtime)


def model_name(results: dict[str, Any] | None, fallback: str) -> str:
    if results:
        if isinstance(results.get("model_name"), str) and results["model_name"]:
            return str(results["model_name"])
        config = results.get("config") or {}
        args = config.get("model_args")
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
    if not results:
        return 1
    cfg = (results.get("configs") or {}).get(task) or {}
    try:
        return int(cfg.get("repeats", 1) or 1)
    except (TypeError, ValueError):
        return 1


def _sanitize(s: str) -> str:
    return re.sub(r"[^0-9A-Za-z]+", "", s).lower()


def pair_results(samples_path: Path) -> tuple[Path | None, str | None]:
    """The results file of a samples file, and its task name (when the pairing is certain).

    0.4.3+: ``samples_<task>_<ts>.jsonl`` with ``results_<ts>.json`` in the same folder.
    0.4.0-0.4.2: ``<model_args>_<task>.jsonl`` with the one results JSON in the folder
    that lists ``<task>`` (several: the one whose model_args match the prefix).
    """
    stem = samples_path.stem
    folder = samples_path.parent
    m = _TS.search(stem)
    if stem.startswith("samples_") and m:
        task = stem[len("samples_"): m.start()]
        cand = folder / f"results_{m.group(1)}.json"
        return (cand if cand.exists() else None), task
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


# ---------------------------------------------------------------- samples


def _slim(obj: Any, cluster: str | None) -> dict[str, Any]:
    """The few fields a row needs, as plain Python, from a parsed sample (dict or lazy object).

    With simdjson the heavy fields (doc text, arguments, responses) are never materialised.
    """
    keys = list(obj.keys())
    slim: dict[str, Any] = {"doc_id": obj["doc_id"]}
    for k in ("filter", "doc_hash"):
        if k in keys:
            slim[k] = obj[k]
    names = obj["metrics"] if "metrics" in keys else None
    names = [str(x) for x in names] if names is not None and not isinstance(names, (str, int, float)) else None
    if names is None:
        names = [k for k in keys if k not in NOT_METRICS and not _WRITE_OUT.match(k)]
    slim["metrics"] = names
    for name in names:
        v = obj[name] if name in keys else None
        slim[name] = v if v is None or isinstance(v, (str, int, float, bool)) else []  # list/dict: corpus-level
    if "scores_per_repeat" in keys:
        spr = obj["scores_per_repeat"]
        slim["scores_per_repeat"] = spr.as_dict() if hasattr(spr, "as_dict") else spr
    if cluster is not None:
        cur: Any = obj["doc"] if "doc" in keys else None
        for part in cluster.split("."):
            try:
                cur = cur[part] if cur is not None and part in cur.keys() else None
            except (AttributeError, TypeError):
                cur = None
        slim[CLUSTER_KEY] = cur if cur is None or isinstance(cur, (str, int, float, bool)) else []
    return slim


CLUSTER_KEY = "__evaladdon_cluster__"


def _read_samples_file(path: Path, cluster: str | None = None) -> list[dict[str, Any]]:
    """Slim sample records of a samples file (JSON lines, or one JSON array).

    simdjson parses lazily (only the fields needed are built: ~10x faster than a full
    parse on real samples, whose doc and prompt text dominate); a line it refuses (for
    example a ``NaN`` literal, which Python's json writes) is parsed again with ``json``.
    """
    raw = path.read_bytes()
    where = str(path)
    parser = simdjson.Parser() if simdjson is not None else None
    out: list[dict[str, Any]] = []

    def one(chunk: bytes, lineno: int | None) -> None:
        obj: Any = None
        if parser is not None:
            try:
                obj = parser.parse(chunk)
            except (ValueError, RuntimeError):
                obj = None
        if obj is None:
            try:
                obj = json.loads(chunk)
            except (json.JSONDecodeError, UnicodeDecodeError) as err:
                msg = err.msg if isinstance(err, json.JSONDecodeError) else "not UTF-8"
                place = f"line {lineno}: " if lineno else ""
                raise InputError(f"{place}not valid JSON ({msg}); the file may be truncated", where) from None
        items = [obj] if lineno is not None else None
        if items is None:
            if not isinstance(obj, list) and not hasattr(obj, "as_list"):
                raise InputError("expected a JSON array of samples", where)
            items = obj  # type: ignore[assignment]
        for i, rec in enumerate(items, start=1):
            if not (isinstance(rec, dict) or hasattr(rec, "keys")):
                raise InputError(f"sample {lineno or i} is not an object", where)
            if "doc_id" not in rec.keys():
                raise InputError(f"sample {lineno or i} has no doc_id", where)
            out.append(_slim(rec, cluster))
            del rec
        del obj, items

    stripped = raw.lstrip()
    if stripped[:1] == b"[":
        one(stripped, None)
        return out
    start, n, lineno = 0, len(raw), 0
    while start < n:  # one parse per line; rows are built afterwards, vectorised
        end = raw.find(b"\n", start)
        end = n if end < 0 else end
        lineno += 1
        if raw[start:end].strip():
            one(raw[start:end], lineno)
        start = end + 1
    return out


def rows_from_records(
    records: list[dict[str, Any]],
    *,
    task: str,
    run: str,
    model: str,
    source: str,
    filters: list[str],
    cluster: str | None,
    metric_names: list[str] | None = None,
) -> tuple[pd.DataFrame, list[str]]:
    """Canonical rows for one task's sample records (see module docstring)."""
    notes: list[str] = []
    items: list[str] = []
    epochs: list[int] = []
    metrics: list[str] = []
    raws: list[Any] = []
    kinds: list[str | None] = []
    hashes: list[Any] = []
    clusters: list[str | None] = []
    seen: dict[Any, int] = {}
    extra_filters = False
    for r in records:  # one pass over samples; values are converted vectorised below
        doc_id = r["doc_id"]
        if "filter" in r:
            filt = str(r["filter"])
        else:
            k = seen.get(doc_id, 0)
            seen[doc_id] = k + 1
            if k < len(filters):
                filt = filters[k]
            elif k == 0:
                filt = "none"
            else:
                filt, extra_filters = f"filter{k}", True
        names: list[Any] = r["metrics"] if isinstance(r.get("metrics"), list) else (
            metric_names or [k for k in r if k not in NOT_METRICS and not _WRITE_OUT.match(k)])
        cluster_value = None
        if cluster is not None:
            cluster_value = r[CLUSTER_KEY] if CLUSTER_KEY in r else dotted(r.get("doc") or {}, cluster)
            if cluster_value is None or isinstance(cluster_value, (dict, list)):
                raise InputError(f"doc {doc_id!r} has no scalar doc field {cluster!r} to cluster on", source)
            cluster_value = str(cluster_value)
        per_repeat = r.get("scores_per_repeat") if isinstance(r.get("scores_per_repeat"), dict) else None
        for name in names:
            metric = f"{name},{filt}" if filt else str(name)
            values = per_repeat.get(name) if per_repeat and isinstance(per_repeat.get(name), list) else None
            series = values if values is not None else [r.get(name)]
            for e, v in enumerate(series, start=1):
                items.append(str(doc_id))
                epochs.append(e)
                metrics.append(metric)
                kinds.append(CORPUS_LEVEL if isinstance(v, (list, dict)) else None)
                raws.append(None if isinstance(v, (list, dict)) else v)
                hashes.append(r.get("doc_hash"))
                clusters.append(cluster_value)
    if extra_filters:
        notes.append(f"{source}: docs repeat more often than the results list filters; extra copies named filterN")
    out = pd.DataFrame({"item": items, "epoch": epochs, "metric": metrics})
    raw_series = pd.Series(raws, dtype=object)
    values, errors = coerce_scores(raw_series)
    corpus = np.array([k is not None for k in kinds], dtype=bool)
    errors = errors.where(~corpus, CORPUS_LEVEL)
    values = np.where(corpus, np.nan, values)
    out["value"] = values
    out["raw"] = raw_strings(raw_series).where(~corpus, "<list>").to_numpy()
    out["error"] = errors.to_numpy()
    out["item_hash"] = hashes
    out["cluster"] = clusters
    out["run"], out["task"], out["model"], out["source"], out["harness"] = run, task, model, source, "lm_eval"
    return out, notes


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
        head, _, tail = stem.rpartition("=")
        m = re.search(r"(?<!_)_(?!_)", tail)
        if m:
            return tail[m.end():], tail[: m.start()].replace("__", "/")
    return stem, None


def _run_id(model: str, samples_path: Path, results_path: Path | None) -> str:
    m = _TS.search(samples_path.stem) or (_TS.search(results_path.stem) if results_path else None)
    return f"{model}@{m.group(1)}" if m else model


def read_samples(path: str | Path, cluster: str | None = None) -> pd.DataFrame:
    """A samples file (JSON lines, or a JSON array in a .jsonl) of one task."""
    p = Path(path)
    records = _read_samples_file(p, cluster)
    results_path, task = pair_results(p)
    results = read_results(results_path) if results_path else None
    guessed_task, guessed_model = split_legacy_stem(p.stem)
    task = task or guessed_task
    model = model_name(results, guessed_model or p.parent.name)
    notes: list[str] = []
    if results is None:
        notes.append(f"{p}: no results file pairs with these samples; model named after the folder ({model})")
    df, more = rows_from_records(records, task=task, run=_run_id(model, p, results_path), model=model,
                                 source=str(p), filters=filters_of(results, task), cluster=cluster)
    notes += more
    if repeats_of(results, task) > 1 and not any("scores_per_repeat" in r for r in records[:1]):
        notes.append(f"{p}: task {task!r} ran with repeats={repeats_of(results, task)} but the harness logged "
                     "only the first repeat's score per doc; epochs are not available")
    out = finalize(df)
    out.attrs["notes"] = notes
    return out


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


def read_results_file(path: str | Path, cluster: str | None = None) -> pd.DataFrame:
    """A results JSON: rows from embedded ``samples`` if any; otherwise none, with a note."""
    p = Path(path)
    results = read_results(p)
    model = model_name(results, p.parent.name)
    embedded = results.get("samples")
    frames: list[pd.DataFrame] = []
    notes: list[str] = []
    if isinstance(embedded, dict) and embedded:
        run = _run_id(model, p, p)
        for task, records in embedded.items():
            if not isinstance(records, list):
                continue
            df, more = rows_from_records(records, task=str(task), run=run, model=model, source=str(p),
                                         filters=filters_of(results, str(task)), cluster=cluster)
            frames.append(df)
            notes += more
    if not frames:
        out = finalize(pd.DataFrame({c: [] for c in ("item", "epoch", "metric", "value", "raw", "error", "item_hash",
                                                     "cluster", "run", "task", "model", "source", "harness")}))
        notes.append(f"{p}: results only, no per-item samples (run lm_eval with --log_samples); it adds no rows")
    else:
        out = finalize(pd.concat(frames, ignore_index=True))
    out.attrs["notes"] = notes
    return out
