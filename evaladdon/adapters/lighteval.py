"""lighteval (huggingface/lighteval) outputs -> canonical rows.

lighteval writes, for a run of model ``M`` started at ``DATE`` (``EvaluationTracker.save``)::

    OUT/results/M/results_DATE.json                 aggregated values (``results``: task -> metric -> value,
                                                    ``<metric>_stderr``), ``config_general.model_name``
    OUT/details/M/DATE/details_TASK_DATE.parquet     one row per sample of TASK (``--save-details``)

``TASK`` is ``suite|task|fewshot`` (before 0.11: ``leaderboard|arc:challenge|25``) or ``task|fewshot``.
The details' columns are the fields of ``DetailsLogger.Detail`` (sorted), in three generations:

- up to 0.7 (2024): every field as the ``str()`` of its value; ``metrics`` is the text of a Python
  dict (``"{'acc': 1.0}"``), parsed here as a literal (``ast.literal_eval``: values only, never code);
  ``example`` the query, and in the Open LLM Leaderboard's details a ``hashes`` column;
- 0.8-0.9 (2025): the same fields with their types: ``metrics`` a struct, ``example`` a string;
- 0.10 on: ``doc`` (the Doc: ``query``, ``id``, ``gold_index``, ...), ``model_response`` and
  ``metric`` (a struct: metric name -> value).

Rows: item = the doc's ``id`` when every sample has a distinct one, else the content hash of the
query (``item_hash`` in both cases, so runs of different models pair on the same samples; a
query asked twice gets ``#2``, ``#3``); metric = lighteval's metric name; epoch = 1 (lighteval's
``num_samples`` metrics such as ``pass@k`` are already per-sample values); one run per
``(model, DATE)``, so a model's tasks of one evaluation form one run (as lm-eval runs do).

Corpus-level metrics (``CorpusLevelMetric``: ``mcc``, ``f1``, ``mf1``, ``loglikelihood_f1``,
``bleu``, ``chrf``, ``chrf++``, ``ter``, the perplexities, ``bits_per_byte``) log per-sample
*inputs* of a corpus aggregation (``{golds, preds}`` or ``{logprobs, weights}``).  Those rows keep
the error :data:`~evaladdon.table.usable.CORPUS_LEVEL` and the input as a JSON ``[gold, pred]``
(or ``[logprob, weight]``) pair in ``raw``, the shape :mod:`evaladdon.analysis.corpus` recomputes
(with :func:`harness_context` naming the aggregation lighteval uses and the value it reported);
those it cannot recompute (lighteval's max-over-classes and multi-class F1) are shown with the
harness value in a note.

Every value of the results file is checked against the per-item rows: a note says, per task,
whether the mean of the rows reproduces each sample-level metric lighteval reports (its
aggregation of a sample-level metric is ``np.mean``), and gives the harness value of the rest.
A results file read alone gives harness-reported values (``attrs["reported"]``) for the tasks
whose details are not beside it; lighteval's ``all`` and ``<suite>:_average`` entries are
averages over tasks, not tasks, and are counted in a note.
"""

from __future__ import annotations

import ast
import json
import math
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from evaladdon.adapters.common.jsondoc import load_json, stable_hash, type_name
from evaladdon.adapters.common.scores import coerce_scores, raw_strings
from evaladdon.errors import InputError
from evaladdon.table import finalize
from evaladdon.table.direction import ATTR
from evaladdon.table.usable import CORPUS_LEVEL

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
else:
    from evaladdon._util.lazy import lazy_module

    pd = lazy_module("pandas")

__all__ = ["AGGREGATIONS", "harness_context", "looks_like_details", "looks_like_results", "read_details",
           "read_results"]

_DATE = r"\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?"
DETAILS_NAME = re.compile(rf"^details_(?P<task>.+)_(?P<date>{_DATE})$")
RESULTS_NAME = re.compile(rf"^results_(?P<date>{_DATE})$")
AGGREGATIONS: dict[str, str] = {
    "mcc": "matthews_corrcoef", "bleu": "bleu", "chrf": "chrf", "chrf++": "chrf++", "ter": "ter",
    "word_perplexity": "weighted_perplexity", "byte_perplexity": "weighted_perplexity",
    "bits_per_byte": "bits_per_byte",
}
"""lighteval's corpus-level metrics that :mod:`evaladdon.analysis.corpus` recomputes, with the
aggregation (lighteval ``metrics.py``: ``MatthewsCorrCoef``, ``CorpusLevelTranslationMetric``,
``CorpusLevelPerplexityMetric("weighted_perplexity"|"bits_per_byte")``).  Not here: ``f1``,
``mf1``, ``loglikelihood_f1`` (``CorpusLevelF1Score``: the max over classes or a mean of one-vs-rest
F1s, not the binary F1 of ``analysis.corpus``) and ``perplexity`` (an unweighted mean of sums)."""
_CORPUS_KEYS = ({"golds", "preds"}, {"logprobs", "weights"})
_AVERAGE = ":_average"


# ---------------------------------------------------------------- sniffing


def looks_like_details(path: Path) -> bool:
    """A ``details_<task>_<date>.parquet`` file whose columns are lighteval's (``metric``/``metrics``)."""
    if path.suffix.lower() != ".parquet" or DETAILS_NAME.match(path.stem) is None:
        return False
    try:
        import pyarrow.parquet as pq

        names = set(pq.read_schema(path).names)
    except Exception:  # not a parquet file: the table reader says what is wrong with it
        return False
    return bool(names & {"metric", "metrics"}) and bool(names & {"doc", "example"})


def looks_like_results(head: bytes) -> bool:
    """A lighteval ``results_<date>.json``: an object opening with ``config_general`` that names
    ``lighteval_sha`` (its ``GeneralConfigLogger``'s first field)."""
    return re.match(rb'^\{\s*"config_general"\s*:', head) is not None and b'"lighteval_sha"' in head


# ---------------------------------------------------------------- paths and names


def _layout(path: Path, pattern: re.Pattern[str]) -> tuple[str, Path | None, str | None]:
    """(date, the output folder OUT, the model path below ``details``/``results``) of a file."""
    m = pattern.match(path.stem)
    date = m.group("date") if m else path.stem
    top = "details" if pattern is DETAILS_NAME else "results"
    start = path.parent.parent if top == "details" else path.parent
    parts = start.parts
    if top in parts:
        i = len(parts) - 1 - parts[::-1].index(top)
        return date, Path(*parts[:i]) if i else Path("."), "/".join(parts[i + 1:]) or None
    return date, None, None


def results_path_of(details: Path) -> Path | None:
    """The results file of a details file's run (``OUT/results/M/results_DATE.json``), if present."""
    date, out, model = _layout(details, DETAILS_NAME)
    if out is None or model is None:
        return None
    p = out / "results" / model / f"results_{date}.json"
    return p if p.is_file() else None


def _read_results_doc(path: Path) -> dict[str, Any]:
    doc = load_json(path)
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), dict):
        raise InputError(f"expected a lighteval results object with 'results', found {type_name(doc)}", str(path))
    return doc


def _model_of(doc: dict[str, Any] | None, fallback: str | None, where: Path) -> str:
    cfg = (doc or {}).get("config_general")
    name = cfg.get("model_name") if isinstance(cfg, dict) else None
    if isinstance(name, str) and name:
        return name
    if fallback:
        return fallback
    return where.parent.name


# ---------------------------------------------------------------- details


def _metrics_frame(table: Any, where: str) -> tuple[Any, int]:
    """The per-sample metric values, one column per metric (object or numeric), and how many
    samples' metrics text could not be parsed (generation of 2024: ``str(dict)``)."""
    import pyarrow as pa

    name = "metric" if "metric" in table.column_names else "metrics"
    col = table.column(name).combine_chunks()
    if pa.types.is_struct(col.type):
        fields = [col.type.field(i).name for i in range(col.type.num_fields)]
        flat = pa.Table.from_arrays(col.flatten(), names=fields)
        return flat.to_pandas(), 0
    if not (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)):
        raise InputError(f"lighteval column {name!r} is {col.type}, expected a struct or a text", where)
    text = pd.Series(col.to_pandas(), dtype=object)
    uniq = pd.unique(text.dropna())
    # our own parse: the text is Python's repr of a dict of literals (2024 lighteval wrote str(dict));
    # ast.literal_eval evaluates literals only, never code; one call per DISTINCT text
    parsed = {u: _literal_dict(u) for u in uniq}
    records = [parsed.get(t) if isinstance(t, str) else None for t in text.to_numpy()]
    unparsed = sum(1 for r in records if r is None)
    return pd.DataFrame.from_records([r or {} for r in records], index=range(len(records))), unparsed


def _literal_dict(text: str) -> dict[str, Any] | None:
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _queries(table: Any) -> tuple[np.ndarray, np.ndarray | None]:
    """Each sample's query text and, for 0.10 on, its doc ``id`` (None when not logged)."""
    if "doc" in table.column_names:
        doc = table.column("doc").combine_chunks()
        names = {doc.type.field(i).name for i in range(doc.type.num_fields)}
        query = doc.field("query").to_numpy(zero_copy_only=False) if "query" in names else None
        ids = doc.field("id").to_numpy(zero_copy_only=False) if "id" in names else None
        if query is None:
            query = np.array([None] * len(doc), dtype=object)
        return np.asarray(query, dtype=object), None if ids is None else np.asarray(ids, dtype=object)
    return np.asarray(table.column("example").to_numpy(zero_copy_only=False), dtype=object), None


def _items(query: np.ndarray, ids: np.ndarray | None, where: str, notes: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Item ids (the doc id when all are given and distinct, else the query hash, ``#k`` for
    repeats) and the query hashes."""
    hashes = np.array([stable_hash(q) for q in query], dtype=object)  # one hash per sample (as lighteval's own)
    if ids is not None:
        id_s = pd.Series(ids, dtype=object)
        if bool(id_s.notna().all()) and bool((id_s.astype(str) != "").all()) and not id_s.astype(str).duplicated().any():
            return id_s.astype(str).to_numpy(dtype=object), hashes
        notes.append(f"{where}: lighteval doc ids are missing or repeated; samples are identified by their query")
    h = pd.Series(hashes)
    k = h.groupby(h, sort=False).cumcount().to_numpy() + 1
    items = np.where(k > 1, h.to_numpy() + "#" + k.astype(str), h.to_numpy())
    if (k > 1).any():
        notes.append(f"{where}: {int((k > 1).sum())} lighteval sample(s) repeat a query asked before; "
                     "numbered #2, #3, ... in order")
    return items.astype(object), hashes


def _corpus_pair(v: Any) -> list[Any] | None:
    """A corpus input ``{golds, preds}`` / ``{logprobs, weights}`` as the ``[gold, pred]`` /
    ``[logprob, weight]`` pair :mod:`evaladdon.analysis.corpus` reads (first gold, first
    prediction, as lighteval's BLEU and MCC use them); None for anything else."""
    if not isinstance(v, dict) or set(v) not in _CORPUS_KEYS:
        return None
    a, b = (v["golds"], v["preds"]) if "golds" in v else (v["logprobs"], v["weights"])
    a = a[0] if isinstance(a, (list, tuple, np.ndarray)) and len(a) == 1 else a
    b = b[0] if isinstance(b, (list, tuple, np.ndarray)) and len(b) >= 1 else b
    return [_plain(a), _plain(b)]


def _plain(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        return [_plain(x) for x in v.tolist()]
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def _metric_rows(metrics: Any, items: np.ndarray, hashes: np.ndarray) -> pd.DataFrame:
    """Long rows (metric, item, value, raw, error, item_hash): numeric values through the shared
    converter; corpus inputs kept as JSON pairs with the corpus-level reason."""
    frames = []
    for name in metrics.columns:
        col = metrics[name]
        values, errors = coerce_scores(col)
        raw = raw_strings(col)
        if col.dtype == object:
            pairs = [_corpus_pair(v) for v in col.to_numpy()]  # one look per corpus input (dicts)
            is_pair = np.array([p is not None for p in pairs], dtype=bool)
            if is_pair.any():
                errors = errors.astype(object).where(~is_pair, CORPUS_LEVEL)
                raw = raw.where(~is_pair, pd.Series([json.dumps(p) if p is not None else "" for p in pairs],
                                                    index=raw.index))
                values = np.where(is_pair, np.nan, values)
        frames.append(pd.DataFrame({"metric": str(name), "item": items, "value": values, "raw": raw.to_numpy(),
                                    "error": errors.to_numpy(), "item_hash": hashes}))
    if not frames:
        return pd.DataFrame({c: [] for c in ("metric", "item", "value", "raw", "error", "item_hash")})
    return pd.concat(frames, ignore_index=True)


def read_details(path: str | Path, cluster: str | None = None) -> pd.DataFrame:
    """Read one lighteval ``details_<task>_<date>.parquet`` into canonical rows (module docstring)."""
    import pyarrow.parquet as pq

    p = Path(path)
    where = str(p)
    if cluster is not None:
        raise InputError(f"lighteval details have no field {cluster!r} to cluster on", where)
    try:
        table = pq.read_table(p)
    except Exception as exc:  # pyarrow's own message, on one line
        raise InputError(f"cannot read the parquet file ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})",
                         where) from None
    m = DETAILS_NAME.match(p.stem)
    task = m.group("task") if m else p.stem
    date, _, model_dir = _layout(p, DETAILS_NAME)
    notes: list[str] = []
    results_p = results_path_of(p)
    results = _read_results_doc(results_p) if results_p is not None else None
    model = _model_of(results, model_dir, p.parent)
    metrics, unparsed = _metrics_frame(table, where)
    if unparsed:
        notes.append(f"{where}: {unparsed} lighteval sample(s) whose metrics text is not a dict of literals: "
                     "not parsed, their rows carry no value")
    query, ids = _queries(table)
    items, hashes = _items(query, ids, where, notes)
    long = _metric_rows(metrics, items, hashes)
    if long.empty:
        raise InputError("lighteval details hold no metric values", where)
    out = finalize(pd.DataFrame({
        "run": f"{model}@{date}", "source": where, "harness": "lighteval", "task": task, "model": model,
        "metric": long["metric"].to_numpy(), "item": long["item"].to_numpy(), "epoch": 1,
        "value": long["value"].to_numpy(dtype=float), "raw": long["raw"].to_numpy(), "cluster": None,
        "item_hash": long["item_hash"].to_numpy(), "error": long["error"].to_numpy(),
    }))
    if results is not None and results_p is not None:
        notes += _check_reported(out, (results.get("results") or {}).get(task), task, results_p)
    else:
        notes.append(f"{where}: no lighteval results_{date}.json found beside the details; values not checked")
    out.attrs["notes"] = notes
    declared = declared_directions(results, [task])
    if declared:
        out.attrs[ATTR] = declared
    return out


def _check_reported(out: pd.DataFrame, reported: Any, task: str, results_p: Path) -> list[str]:
    """Whether the per-item rows reproduce each value lighteval reports for ``task``."""
    if not isinstance(reported, dict):
        return [f"{results_p}: lighteval reports no values for task {task!r}"]
    ok, notes = [], []
    for metric, value in reported.items():
        if str(metric).endswith("_stderr") or not isinstance(value, (int, float)) or isinstance(value, bool):
            continue
        rows = out[out["metric"] == metric]
        corpus = bool(len(rows)) and bool((rows["error"] == CORPUS_LEVEL).all())
        if rows.empty or corpus:
            how = ("recomputed from the per-item inputs by the corpus-level estimate" if corpus and metric in AGGREGATIONS
                   else "the harness value (a corpus-level aggregation not recomputed)" if corpus
                   else "the harness value (no per-item rows for it)")
            notes.append(f"{results_p}: lighteval reports {metric} = {value!r} for {task}: {how}")
            continue
        vals = rows["value"].to_numpy(dtype=float)
        mean = float(np.mean(vals)) if len(vals) else math.nan  # lighteval's own aggregation: np.mean
        if math.isclose(mean, float(value), rel_tol=1e-9, abs_tol=1e-12):
            ok.append(str(metric))
        else:
            notes.append(f"{results_p}: lighteval reports {metric} = {value!r} for {task}; the mean of its "
                         f"{len(vals)} per-item rows is {mean!r} (DOES NOT reproduce it)")
    if ok:
        notes.insert(0, f"{results_p}: the per-item rows of {task} reproduce lighteval's reported "
                        f"{', '.join(ok)}")
    return notes


# ---------------------------------------------------------------- results


def harness_context(source: str, task: str) -> dict[str, Any]:
    """For :mod:`evaladdon.analysis.corpus`: the aggregations lighteval uses for its corpus-level
    metrics (:data:`AGGREGATIONS`) and the values its results file reports for ``task``."""
    p = Path(source)
    results_p = results_path_of(p) if p.suffix.lower() == ".parquet" else p
    reported: dict[str, Any] = {}
    if results_p is not None:
        try:
            reported = dict((_read_results_doc(results_p)["results"].get(task) or {}))
        except InputError:
            reported = {}
    return {"aggregations": dict(AGGREGATIONS), "reported": reported,
            "results_path": str(results_p) if results_p else None}


def declared_directions(doc: dict[str, Any] | None, tasks: Any) -> dict[str, dict[str, bool]]:
    """Whether a lower score is better for ``tasks``, as the results file's ``config_tasks``
    declares it: each task config's ``metrics`` (older: ``metric``) list of lighteval ``Metric``
    records, ``metric_name`` with ``higher_is_better`` (a bool; for a metric grouping, a list of
    names with a dict of bools).  A task is found under its name, or without its trailing
    ``|<few-shot>``; only booleans count (:mod:`evaladdon.table.direction`)."""
    configs = (doc or {}).get("config_tasks")
    if not isinstance(configs, dict):
        return {}
    out: dict[str, dict[str, bool]] = {}
    for task in tasks:
        cfg = configs.get(task) or configs.get(str(task).rsplit("|", 1)[0])
        if not isinstance(cfg, dict):
            continue
        mine: dict[str, bool] = {}
        listed = cfg.get("metrics", cfg.get("metric"))
        for m in listed if isinstance(listed, list) else []:
            if not isinstance(m, dict):
                continue
            names, higher = m.get("metric_name"), m.get("higher_is_better")
            if isinstance(names, str) and isinstance(higher, bool):
                mine[names] = not higher
            elif isinstance(names, list) and isinstance(higher, dict):
                mine.update({str(n): not higher[n] for n in names if isinstance(higher.get(n), bool)})
        if mine:
            out[str(task)] = mine
    return out


def _has_details(out: Path | None, model: str, date: str, task: str) -> bool:
    return out is not None and (out / "details" / model / date / f"details_{task}_{date}.parquet").is_file()


def read_results(path: str | Path, cluster: str | None = None) -> pd.DataFrame:
    """A lighteval ``results_<date>.json``: no rows; the harness-reported values of the tasks
    whose details are not beside it in ``attrs["reported"]`` (as lm-eval results-only files)."""
    from evaladdon.table import empty_table

    p = Path(path)
    doc = _read_results_doc(p)
    date, out_dir, model_dir = _layout(p, RESULTS_NAME)
    model = _model_of(doc, model_dir, p)
    run = f"{model}@{date}"
    reported: list[dict[str, Any]] = []
    averages, with_details = 0, 0
    for task, values in doc["results"].items():
        if task == "all" or _AVERAGE in str(task):
            averages += 1
            continue
        if _has_details(out_dir, model_dir or model, date, str(task)):
            with_details += 1
            continue
        if not isinstance(values, dict):
            continue
        for metric, value in values.items():
            if str(metric).endswith("_stderr") or isinstance(value, bool) or not isinstance(value, (int, float)):
                continue
            se = values.get(f"{metric}_stderr")
            reported.append({"run": run, "source": str(p), "task": str(task), "model": model, "metric": str(metric),
                             "value": float(value), "stderr": se if isinstance(se, (int, float)) else None, "n": None})
    notes = [f"{p}: lighteval results: {len(reported)} harness-reported value(s), unclustered and unpaired"
             + (f"; {with_details} task(s) read from their details instead" if with_details else "")
             if reported or not with_details else
             f"{p}: lighteval results: all {with_details} task(s) read from their details (values checked there)"]
    if averages:
        notes.append(f"{p}: {averages} lighteval average(s) over tasks ('all', '<suite>:_average') not read as tasks")
    table = empty_table()
    table.attrs["notes"] = notes
    table.attrs["reported"] = reported
    declared = declared_directions(doc, [str(t) for t in doc["results"]])
    if declared:
        table.attrs[ATTR] = declared
    return table
