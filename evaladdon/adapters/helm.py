"""HELM run directories (``benchmark_output/runs/<suite>/<run_name>/``) -> canonical rows.

A run is a DIRECTORY: ``per_instance_stats.json`` (the per-item scores) and ``run_spec.json``
(model and scenario); ``scenario_state.json``, when present, gives each instance's input
text hash as ``item_hash`` (and the model when the run spec names none).

- item = ``instance_id``; epoch = ``train_trial_index + 1``;
- task = the run name without its ``model=``/``model_deployment=`` arguments (the scenario
  and its subject/method args stay, so runs of different models on one scenario pair up);
  instances with a ``perturbation`` become their own task variant, ``<task>[<perturbation>]``;
- metric = the stat name, one row per stat that has a per-instance value (``count > 0``);
  stats with ``count: 0`` carry no mean and are counted in a note;
- ``meta.split`` (and ``meta.sub_split`` when logged) from the stat name, ``meta.count`` the
  stat's count (so run-level ``stats.json`` values, which pool sums over counts, can be
  reproduced);
- entries repeated with the same key ``(instance_id, train_trial_index, perturbation)`` (MedHELM
  2025 writes one per metric class) are merged: their stats lists are united, and a stat logged
  twice for one key is merged as HELM merges stats (sums and counts added).

``stats.json`` (run-level aggregates, including ``robustness``/``fairness`` "worst" entries)
holds no per-item scores and is not read.

What is shown, as HELM shows it:

- one split: ``test`` by default, the split HELM's leaderboard reports (``main_split`` in its
  schemas); another with ``split=`` (``--split``).  Pooling splits mixed MMLU's one ``valid``
  instance into the test mean (0.100 where HELM says 0.111).  A run with no ``test`` stat but
  one other split reads that split; the stats of the other splits are left out and counted in
  a note that names the split read;
- the metrics the run spec names (``metric_specs[].args.names``, HELM's main metrics) first;
  HELM's bookkeeping stats (its schemas' infrastructure and efficiency metrics: token counts,
  ``finish_reason_*``, ``inference_runtime``, ...) are left out unless ``all_metrics=True``
  (``--all-metrics``), counted in a note.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
from typing import TYPE_CHECKING as _TYPE_CHECKING

if _TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
else:
    from evaladdon._util.lazy import lazy_module

    pd = lazy_module("pandas")  # imported on first use (the lean summarize of Inspect logs needs none)

from evaladdon.adapters.common.jsondoc import load_json, stable_hash, type_name
from evaladdon.adapters.common.scores import coerce_scores, raw_strings
from evaladdon.errors import InputError
from evaladdon.table import distinct_tuples, finalize
from evaladdon.table.direction import ATTR

PER_INSTANCE = "per_instance_stats.json"
RUN_SPEC = "run_spec.json"
SCENARIO_STATE = "scenario_state.json"
RUN_STATS = "stats.json"
# files HELM writes next to per_instance_stats.json; read through the run, never alone
RUN_FILES = frozenset({
    PER_INSTANCE, RUN_SPEC, SCENARIO_STATE, RUN_STATS, "scenario.json", "instances.json",
    "display_predictions.json", "display_requests.json", "costs.json", "run_info.json",
})
_PERT_FLAGS = ("name", "robustness", "fairness", "computed_on")
_MODEL_ARG = re.compile(r"^(model|model_deployment)=")
CLUSTER_FIELDS = ("split", "sub_split")
MAX_STATE_BYTES = 256 * 2**20
DEFAULT_SPLIT = "test"
"""The split HELM's leaderboard reports (``main_split`` of its schemas' run groups)."""
BOOKKEEPING = frozenset({
    # HELM schema_classic.yaml, "Infrastructure metrics"
    "num_perplexity_tokens", "num_bytes", "num_references", "num_train_trials", "estimated_num_tokens_cost",
    "num_prompt_tokens", "num_prompt_characters", "num_completion_tokens", "num_output_tokens",
    "max_num_output_tokens", "num_requests", "num_instances", "num_train_instances", "prompt_truncated",
    "finish_reason_length", "finish_reason_stop", "finish_reason_endoftext", "finish_reason_unknown",
    "num_completions", "predicted_index",
    # its "efficiency" metrics
    "inference_runtime", "inference_denoised_runtime", "inference_idealized_runtime", "batch_size",
    "training_co2_cost", "training_energy_cost",
})
"""HELM's bookkeeping stats: not scores of the model's answers; shown with ``all_metrics``."""
RUN_PART = "part of a HELM run (read through the run directory)"


# ---------------------------------------------------------------- sniffing


def is_run_dir(path: Path) -> bool:
    """A directory holding a HELM ``per_instance_stats.json``."""
    return path.is_dir() and (path / PER_INSTANCE).is_file()


def looks_like_per_instance_stats(head: bytes) -> bool:
    """A JSON array of objects with ``instance_id`` and ``stats``."""
    text = head.decode("utf-8", errors="replace").lstrip()
    return text.startswith("[") and re.match(r'^\[\s*\{\s*"(instance_id|train_trial_index|stats|perturbation)"', text) \
        is not None and '"instance_id"' in text and '"stats"' in text


def looks_like_run_stats(head: bytes) -> bool:
    """HELM ``stats.json``: a JSON array of Stat objects (``{"name": {"name": ..., "split": ...}, "count": ...}``)."""
    text = head.decode("utf-8", errors="replace").lstrip()
    return re.match(r'^\[\s*\{\s*"name"\s*:\s*\{\s*"name"\s*:', text) is not None and '"count"' in text


def is_run_part(path: Path) -> bool:
    """A file of a HELM run directory other than its per-instance stats (read through the run)."""
    return path.name in RUN_FILES and path.name != PER_INSTANCE and (path.parent / PER_INSTANCE).is_file()


def refuse_run_stats(path: Path, cluster: str | None = None) -> pd.DataFrame:
    """Reader for a lone ``stats.json``: it holds run-level aggregates, no per-item scores."""
    raise InputError(
        "HELM stats.json holds run-level aggregates only (no per-instance scores); pass the run directory "
        f"with its {PER_INSTANCE}", str(path))


# ---------------------------------------------------------------- names


def _perturbation_label(pert: Any) -> str | None:
    if not pert:
        return None
    if not isinstance(pert, dict):
        return str(pert)
    name = str(pert.get("name", "perturbation"))
    args = ",".join(f"{k}={pert[k]}" for k in sorted(pert) if k not in _PERT_FLAGS)
    worst = ",worst" if pert.get("computed_on") == "worst" else ""
    return f"{name}:{args}{worst}" if args else f"{name}{worst}"


def task_name(run_name: str, spec: dict[str, Any]) -> str:
    """The run name without model arguments: ``bbq:subject=all,method=multiple_choice_joint``."""
    if ":" in run_name:
        scenario, args = run_name.split(":", 1)
        kept = [a for a in args.split(",") if a and not _MODEL_ARG.match(a)]
        return f"{scenario}:{','.join(kept)}" if kept else scenario
    scen = spec.get("scenario_spec") if isinstance(spec.get("scenario_spec"), dict) else {}
    cls = str(scen.get("class_name") or run_name).rsplit(".", 1)[-1]
    args = scen.get("args") if isinstance(scen.get("args"), dict) else {}
    kept = [f"{k}={v}" for k, v in sorted(args.items())]
    return f"{cls}:{','.join(kept)}" if kept else cls


def _model_from(spec: dict[str, Any]) -> str | None:
    adapter = spec.get("adapter_spec")
    if isinstance(adapter, dict):
        for key in ("model", "model_deployment"):
            if isinstance(adapter.get(key), str) and adapter[key]:
                return str(adapter[key])
    return None


def model_name(run_dir: Path, run_name: str, spec: dict[str, Any]) -> tuple[str, str | None]:
    """The model and, when it was not in the run spec, a note saying where it came from."""
    model = _model_from(spec)
    if model:
        return model, None
    state_path = run_dir / SCENARIO_STATE
    if state_path.is_file():
        state = load_json(state_path)
        if isinstance(state, dict) and (model := _model_from(state)):
            return model, f"{run_dir}: HELM model taken from {SCENARIO_STATE}"
    m = re.search(r"(?:^|[:,])model=([^,]+)", run_name)
    if m:
        return m.group(1), f"{run_dir}: HELM model taken from the run name"
    return run_name, f"{run_dir}: HELM run names no model; the run name stands for it"


# ---------------------------------------------------------------- reading


def input_hashes(run_dir: Path) -> dict[tuple[str, str | None], str]:
    """``(instance id, perturbation label)`` -> hash of the instance's input text, from
    ``scenario_state.json`` when the run has one (so runs of different models are checked to
    hold the same instances); empty when it is absent or too large to read whole."""
    state_path = run_dir / SCENARIO_STATE
    if not state_path.is_file() or state_path.stat().st_size > MAX_STATE_BYTES:
        return {}
    state = load_json(state_path)
    states = state.get("request_states") if isinstance(state, dict) else None
    out: dict[tuple[str, str | None], str] = {}
    for rs in states if isinstance(states, list) else []:
        inst = rs.get("instance") if isinstance(rs, dict) else None
        if not isinstance(inst, dict) or inst.get("id") is None:
            continue
        text = inst.get("input", {}).get("text") if isinstance(inst.get("input"), dict) else None
        if text is not None:
            out[(str(inst["id"]), _perturbation_label(inst.get("perturbation")))] = stable_hash(text)
    return out


def _entries(path: Path) -> list[dict[str, Any]]:
    data = load_json(path)
    if not isinstance(data, list):
        raise InputError(f"expected a JSON array of per-instance stats, found {type_name(data)}", str(path))
    for i, e in enumerate(data):
        if not isinstance(e, dict):
            raise InputError(f"entry {i}: expected an object, found {type_name(e)}", str(path))
        if "instance_id" not in e or e["instance_id"] is None or isinstance(e["instance_id"], (dict, list)):
            raise InputError(f"entry {i}: no usable instance_id", str(path))
        if not isinstance(e.get("stats"), list):
            raise InputError(f"entry {i} (instance {e['instance_id']}): 'stats' is {type_name(e.get('stats'))}, "
                             "expected an array", str(path))
        tti = e.get("train_trial_index", 0)
        if isinstance(tti, bool) or not isinstance(tti, int) or tti < 0:
            raise InputError(f"entry {i} (instance {e['instance_id']}): train_trial_index {tti!r} is not a whole "
                             "number >= 0", str(path))
    return data


def read_helm_run(path: str | Path, cluster: str | None = None, *, split: str | None = None,
                  all_metrics: bool = False) -> pd.DataFrame:
    """Read one HELM run (its directory, or its ``per_instance_stats.json``) into canonical rows:
    the ``split`` (None: ``test``, HELM's leaderboard split), its bookkeeping stats only with
    ``all_metrics`` (see the module's docstring)."""
    p = Path(path)
    run_dir = p if p.is_dir() else p.parent
    pis = run_dir / PER_INSTANCE if p.is_dir() else p
    if not pis.is_file():
        raise InputError(f"no {PER_INSTANCE} in this HELM run directory", str(run_dir))
    where = str(pis)
    if cluster is not None and cluster not in CLUSTER_FIELDS:
        raise InputError(f"HELM runs have no field {cluster!r} to cluster on (available: {', '.join(CLUSTER_FIELDS)})",
                         where)
    entries = _entries(pis)
    notes: list[str] = []
    spec = _run_spec(run_dir, notes)
    run_name = str(spec.get("name") or run_dir.name)
    model, model_note = model_name(run_dir, run_name, spec)
    if model_note:
        notes.append(model_note)
    base_task = task_name(run_name, spec)
    # the run is the model within its suite (runs/<suite>/<run>): one model's runs of several
    # scenarios form one run over several tasks, as in HELM's leaderboard tables
    suite = run_dir.parent.name if run_dir.parent.parent.name == "runs" else ""
    run_id = f"{suite}/{model}" if suite else model

    raw = _stats_frame(_collect_stats(entries, where, notes), base_task)
    raw = _choose_metrics(_choose_split(raw, split, where, notes), _named_metrics(spec), all_metrics, where, notes)
    raw, values, errors, raw_text = _merge_repeats(raw, where, notes)
    _note_repeated_entries(entries, where, notes)
    out = pd.DataFrame({
        "run": run_id,
        "source": str(run_dir),
        "harness": "helm",
        "task": raw["task"].to_numpy(),
        "model": model,
        "metric": raw["metric"].to_numpy(),
        "item": raw["item"].to_numpy(),
        "epoch": raw["epoch"].to_numpy(),
        "value": values,
        "raw": raw_text.to_numpy(),
        "cluster": None,
        "item_hash": _item_hashes(run_dir, raw),
        "error": errors.to_numpy(),
        "meta.split": raw["meta.split"].to_numpy(),
        "meta.count": pd.to_numeric(raw["count"]).to_numpy(dtype=float),
        "meta.run_name": run_name,
    })
    if raw["meta.sub_split"].notna().any():
        out["meta.sub_split"] = raw["meta.sub_split"].to_numpy()
    if cluster is not None:
        col = out.get(f"meta.{cluster}")
        if col is None or col.isna().any():
            raise InputError(f"some HELM stats have no {cluster!r} to cluster on", where)
        out["cluster"] = col.astype(str)
    out = finalize(out)
    out.attrs["notes"] = notes
    declared = schema_directions(run_dir.parent, out)
    if declared:
        out.attrs[ATTR] = declared
    return out


SCHEMA_MAX_BYTES = 8 << 20
"""A suite's ``schema*.json`` larger than this is not read for metric directions."""


def schema_directions(suite_dir: Path, table: pd.DataFrame) -> dict[str, dict[str, bool]]:
    """Whether a lower score is better for the metrics of ``table``, as the suite's schema declares
    it (``helm-summarize`` writes ``schema*.json`` beside the runs: ``metrics[].lower_is_better``);
    ``{}`` when there is none.  Only the metric names the table holds, for each of its tasks."""
    import json

    lower: dict[str, bool] = {}
    try:
        found = sorted(suite_dir.glob("schema*.json"))
    except OSError:
        return {}
    for f in found:
        try:
            if f.stat().st_size > SCHEMA_MAX_BYTES:
                continue
            doc = json.loads(f.read_bytes())
        except (OSError, ValueError):
            continue
        for m in (doc.get("metrics") if isinstance(doc, dict) else None) or []:
            if isinstance(m, dict) and isinstance(m.get("name"), str) and isinstance(m.get("lower_is_better"), bool):
                lower.setdefault(m["name"], m["lower_is_better"])
    if not lower:
        return {}
    out: dict[str, dict[str, bool]] = {}
    for task, metric in distinct_tuples(table, ("task", "metric")):
        if str(metric) in lower:
            out.setdefault(str(task), {})[str(metric)] = lower[str(metric)]
    return out


def _run_spec(run_dir: Path, notes: list[str]) -> dict[str, Any]:
    """The run's ``run_spec.json`` (``{}`` when absent, with a note)."""
    spec_path = run_dir / RUN_SPEC
    spec = load_json(spec_path) if spec_path.is_file() else {}
    if not isinstance(spec, dict):
        raise InputError(f"expected a JSON object, found {type_name(spec)}", str(spec_path))
    if not spec_path.is_file():
        notes.append(f"{run_dir}: HELM run without {RUN_SPEC}; run and task named after the folder")
    return spec


_STAT_COLUMNS = ("item", "epoch", "pert", "metric", "meta.split", "meta.sub_split", "count", "sum", "mean")


def _collect_stats(entries: list[dict[str, Any]], where: str, notes: list[str]) -> dict[str, list[Any]]:
    """One pass over the stats: per-record extraction into columns (stats with a value, ``count > 0``)."""
    cols: dict[str, list[Any]] = {name: [] for name in _STAT_COLUMNS}
    n_zero = 0
    empty_entries = 0
    for i, e in enumerate(entries):
        before = len(cols["item"])
        n_zero += _entry_stats(cols, e, i, where)
        if len(cols["item"]) == before:
            empty_entries += 1
    if empty_entries:
        notes.append(f"{where}: {empty_entries} HELM per-instance entr(ies) with no stat that has a value left out")
    if n_zero:
        notes.append(f"{where}: {n_zero} HELM stat(s) with count 0 (no per-instance value) left out")
    if not cols["item"]:
        raise InputError("HELM per-instance stats hold no stat with a value (count > 0)", where)
    return cols


def _entry_stats(cols: dict[str, list[Any]], e: dict[str, Any], i: int, where: str) -> int:
    """One entry's stats appended to the columns; returns how many were left out for count 0."""
    item = str(e["instance_id"])
    epoch = int(e.get("train_trial_index", 0)) + 1
    entry_pert = _perturbation_label(e.get("perturbation"))
    n_zero = 0
    for j, st in enumerate(e["stats"]):
        name = st.get("name") if isinstance(st, dict) else None
        if not isinstance(name, dict) or not isinstance(name.get("name"), str):
            raise InputError(f"entry {i} (instance {item}), stat {j}: no stat name", where)
        count = st.get("count")
        if isinstance(count, bool) or not isinstance(count, (int, float)):
            raise InputError(f"entry {i} (instance {item}), stat {name['name']!r}: count is {type_name(count)}",
                             where)
        if count <= 0:
            n_zero += 1
            continue
        cols["item"].append(item)
        cols["epoch"].append(epoch)
        cols["pert"].append(entry_pert or _perturbation_label(name.get("perturbation")))
        cols["metric"].append(name["name"])
        cols["meta.split"].append(name.get("split"))
        cols["meta.sub_split"].append(name.get("sub_split"))
        cols["count"].append(count)
        cols["sum"].append(st.get("sum"))
        cols["mean"].append(st.get("mean"))
    return n_zero


def _stats_frame(cols: dict[str, list[Any]], base_task: str) -> pd.DataFrame:
    """The collected stats as a frame, with the task (``<task>[<perturbation>]`` for a perturbed instance)."""
    raw = pd.DataFrame({**cols, "epoch": np.asarray(cols["epoch"], dtype=np.int64)})
    raw["task"] = base_task
    has_pert = raw["pert"].notna()
    if has_pert.any():
        raw.loc[has_pert, "task"] = base_task + "[" + raw.loc[has_pert, "pert"].astype(str) + "]"
    return raw


def _choose_split(raw: pd.DataFrame, split: str | None, where: str, notes: list[str]) -> pd.DataFrame:
    """The stats of one split (None: ``test``, or the run's only split when it has no ``test``),
    with a note naming it and counting the stats of the other splits left out."""
    splits = raw["meta.split"]
    present = list(dict.fromkeys(splits.dropna().astype(str)))
    if not present:  # no stat names a split: nothing to choose between
        return raw
    want = split or DEFAULT_SPLIT
    why = " (the split HELM's leaderboard reports)" if split is None else ""
    if split is None and want not in present and len(present) == 1:
        want, why = present[0], f" (the run's only split; it has no {DEFAULT_SPLIT!r})"
    if want not in present:
        raise InputError(f"HELM run has no stats of split {want!r} (its splits: {', '.join(present)}); "
                         "choose one with --split", where)
    keep = (splits.isna() | (splits == want)).to_numpy()
    text = f"{where}: HELM split {want!r} read{why}"
    left = raw[~keep]
    if len(left):
        per = left.groupby("meta.split", sort=False)["item"].agg(["size", "nunique"])
        text += "; left out: " + ", ".join(
            f"{int(r['size'])} stat(s) of {int(r['nunique'])} instance(s) of split {name!r} (--split {name} reads them)"
            for name, r in per.iterrows())
    notes.append(f"note: {text}")  # which split was read is said, as a note (a choice, not a problem)
    return raw[keep].reset_index(drop=True)


def _named_metrics(spec: dict[str, Any]) -> list[str]:
    """The metrics the run spec names (``metric_specs[].args.names``): HELM's main metrics, in order."""
    specs = spec.get("metric_specs")
    names: list[str] = []
    for ms in specs if isinstance(specs, list) else []:
        args = ms.get("args") if isinstance(ms, dict) else None
        listed = args.get("names") if isinstance(args, dict) else None
        names += [n for n in listed if isinstance(n, str)] if isinstance(listed, list) else []
    return list(dict.fromkeys(names))


def _choose_metrics(raw: pd.DataFrame, named: list[str], all_metrics: bool, where: str,
                    notes: list[str]) -> pd.DataFrame:
    """The run spec's named metrics first; HELM's bookkeeping stats left out (counted in a note)
    unless ``all_metrics`` or nothing else is left."""
    metric = raw["metric"]
    hidden = metric.isin(BOOKKEEPING).to_numpy()
    if not all_metrics and hidden.any():
        names = list(dict.fromkeys(metric[hidden]))
        if hidden.all():
            notes.append(f"{where}: HELM run holds only bookkeeping stats ({', '.join(names)}); all shown")
        else:
            notes.append(f"note: {where}: {len(names)} HELM bookkeeping stat(s) not shown ({int(hidden.sum())} row(s): "
                         f"{', '.join(names)}); --all-metrics shows them")
            raw = raw[~hidden]
    rank = raw["metric"].map({m: i for i, m in enumerate(named)}).fillna(len(named)).to_numpy()
    return raw.iloc[np.argsort(rank, kind="stable")].reset_index(drop=True)


def _merge_repeats(raw: pd.DataFrame, where: str, notes: list[str]) -> tuple[pd.DataFrame, Any, pd.Series, pd.Series]:
    """Values, errors and raw texts of the stats; a stat logged again for the same key is merged."""
    key = ["task", "metric", "item", "epoch"]
    dup = raw.duplicated(key, keep=False)
    values, errors = coerce_scores(raw["mean"])
    raw_text = raw_strings(raw["mean"])
    if not dup.any():
        return raw, values, errors, raw_text
    # the same stat logged again for the same key (MedHELM: one entry per metric class):
    # merged as HELM's Stat.merge does, sums and counts added, mean = sum / count
    sum_v, sum_err = coerce_scores(raw["sum"])
    bad = dup.to_numpy() & (sum_err.notna().to_numpy())
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise InputError(f"instance {raw['item'].iat[k]}, stat {raw['metric'].iat[k]!r} is logged more than once "
                         f"for one key and has no usable sum to merge ({sum_err.iat[k]})", where)
    raw["sum_v"] = sum_v
    raw["count_v"] = raw["count"].astype(float)
    first = ~raw.duplicated(key, keep="first")
    agg = raw[dup].groupby(key, sort=False)[["sum_v", "count_v"]].sum()
    agg.columns = ["sum_v_t", "count_v_t"]
    merged = raw[dup & first].join(agg, on=key)
    pooled = (merged["sum_v_t"] / merged["count_v_t"]).to_numpy()
    notes.append(f"{where}: {int(dup.sum()) - int((dup & first).sum())} HELM stat(s) logged again for the same "
                 "(instance, trial, perturbation) merged (sums and counts added)")
    keep = (first | ~dup).to_numpy()
    values = values.copy()
    errors = errors.copy()
    raw_text = raw_text.copy()
    pos = np.flatnonzero((dup & first).to_numpy())
    values[pos] = pooled
    errors.iloc[pos] = None
    raw_text.iloc[pos] = pd.Series(pooled, dtype=float).astype(str).to_numpy()
    raw["count"] = raw["count"].where(~(dup & first), merged["count_v_t"].reindex(raw.index))
    return raw[keep], values[keep], errors[keep], raw_text[keep]


def _note_repeated_entries(entries: list[dict[str, Any]], where: str, notes: list[str]) -> None:
    """A note on entries repeating an (instance, trial, perturbation) key (their stats were united)."""
    n_entries = len(entries)
    n_keys = len({(str(e["instance_id"]), e.get("train_trial_index", 0), _perturbation_label(e.get("perturbation")))
                  for e in entries})
    if n_keys < n_entries:
        notes.append(f"{where}: {n_entries - n_keys} HELM entr(ies) repeating an (instance, trial, perturbation) key "
                     "merged with the first (stats lists united)")


def _item_hashes(run_dir: Path, raw: pd.DataFrame) -> Any:
    """Each row's input hash from ``scenario_state.json`` (None throughout when it is absent)."""
    hashes = input_hashes(run_dir)
    if not hashes:
        return None
    keys = pd.MultiIndex.from_arrays([raw["item"], raw["pert"]])
    lookup = pd.Series(list(hashes.values()), index=pd.MultiIndex.from_tuples(list(hashes.keys())), dtype=object)
    item_hash = lookup.reindex(keys).to_numpy(dtype=object)
    return np.where(pd.isna(item_hash), None, item_hash)
