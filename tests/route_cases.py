"""The inputs of the route-equality suite (``test_route_equality.py``), one copy each: crafted
Inspect logs (edge cases, codes past int8, journal and incomplete ``.eval`` logs, items in two
clusters, tiny clustered logs), synthetic long tables and the stores made of them.

:class:`Inputs` builds each named input once, when a case first asks for it; the unit tests of
the route modules import the builders they share (``edge_json``, ``tiny_log``, ...)."""

from __future__ import annotations

import copy
import json
import zipfile
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from evaladdon.adapters.common.guard import read_member

from conftest import REPO
from built_logs import inspect_base as _base, inspect_edge_samples as _edge_samples, write_inspect_json as _write, synthetic

SAMPLE = REPO / "sample_logs"
INSPECT = SAMPLE / "inspect"


# -- crafted Inspect logs -----------------------------------------------------------------------

def edge_log() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The edge samples (duplicates, unscored, errors, limits, dict scores) with a cluster field
    ``grp`` (constant within an item) and a second epoch of the first 40, with values the
    converter has to read; the header says the run stopped on an error."""
    header, samples = _edge_samples()
    for s in samples:  # a cluster per id (constant within an item)
        s["metadata"] = {**(s.get("metadata") or {}), "grp": f"g{sum(map(ord, str(s['id']))) % 5}"}
    more = []
    for i, s in enumerate(samples[:40]):  # a second epoch, with values the converter has to read
        s = copy.deepcopy(s)
        s["epoch"] = 2
        if s.get("scores"):
            name = next(iter(s["scores"]))
            s["scores"][name]["value"] = ["nan", " 0.5 ", "inf", "YES", "1e999", None, "", "x", True, 7][i % 10]
        more.append(s)
    return {**header, "status": "error"}, samples + more


def edge_json(directory: Path) -> Path:
    """:func:`edge_log` written to ``directory/edge.json``."""
    header, samples = edge_log()
    return _write(directory / "edge.json", header, samples)


def odd_json(path: Path) -> Path:
    """The base samples with a non-ASCII score string (the table route's arrow kernels decide)."""
    header, samples = _base()
    odd = copy.deepcopy(samples)
    odd[0]["scores"][next(iter(odd[0]["scores"]))]["value"] = "\u00a01"
    return _write(path, header, odd)


def coded_samples(ids: range, epochs: int, tag: str) -> list[dict[str, Any]]:
    """Samples whose codes overflow int8: >127 score names (and dict keys), >127 distinct limit
    reasons, >127 clusters; errors, unscored samples, non-numeric values, re-run records of
    the same (id, epoch) (the last wins, at the place of the first), several epochs."""
    out: list[dict[str, Any]] = []
    for e in range(1, epochs + 1):
        for i in ids:
            s: dict[str, Any] = {"id": f"{tag}{i}", "epoch": e, "input": f"q{i}", "target": str(i % 2),
                                 "metadata": {"grp": f"c{i % 300}", "n": i}}
            s["scores"] = {"acc": {"value": "C" if (i * 7 + e) % 10 < 6 else "I"},
                           f"m{i % 140}": {"value": {"k": (i % 5) / 4, f"x{i % 3}": i % 2}}}
            if i % 9 == 4:
                s["scores"]["acc"]["value"] = ["nan", "oops", "1e999", None, " 0.5 "][i % 5]
            if i % 23 == 5:
                s["error"] = {"message": f"boom {i}"}
            if i % 19 == 7:
                s["limit"], s["scores"] = {"type": f"lim{i}"}, None
            if i % 31 == 3:
                s["scores"] = None
            out.append(s)
    for i in list(ids)[::37]:  # re-run records: the last one wins
        again = copy.deepcopy(out[i - ids.start])
        again["scores"] = {"acc": {"value": "I"}, "late": {"value": 0.25}}
        out.append(again)
    return out


def rewrite(src: Path, dest: Path, fn: Callable[[str, bytes], bytes | None]) -> Path:
    """``src`` (a zip) copied to ``dest`` member by member through ``fn`` (None: left out)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = fn(info.filename, read_member(zin, info, str(src)))
            if data is not None:
                zout.writestr(info.filename, data)
    return dest


def _summaries(src: Path) -> list[dict[str, Any]]:
    with zipfile.ZipFile(src) as zf:
        return json.loads(read_member(zf, zf.getinfo("summaries.json"), "x"))


def journal_eval(dest: Path, src: Path = INSPECT / "baseline.eval") -> Path:
    """An unfinished run: no header or summaries, journal summaries, some samples unsummarised."""
    summaries = _summaries(src)

    def journal(name: str, data: bytes) -> bytes | None:
        if name in ("summaries.json", "header.json") or name.startswith("_journal/summaries/"):
            return None
        return data

    rewrite(src, dest, journal)
    with zipfile.ZipFile(dest, "a") as zf:
        zf.writestr("_journal/summaries/1.json", json.dumps(summaries[:60]))
        zf.writestr("_journal/summaries/2.json", json.dumps(summaries[60:100]))
    return dest


def short_eval(dest: Path, src: Path = INSPECT / "baseline.eval") -> Path:
    """The first 150 samples of ``src`` only (an incomplete log)."""
    summaries = _summaries(src)
    keep = {f"samples/{s['id']}_epoch_{s['epoch']}.json" for s in summaries[:150]}

    def short(name: str, data: bytes) -> bytes | None:
        if name == "summaries.json":
            return json.dumps(summaries[:150]).encode()
        if name.startswith("samples/"):
            return data if name in keep else None
        return data

    return rewrite(src, dest, short)


def two_cluster_log(path: Path, k: int) -> tuple[Path, dict[str, Any], list[Any], list[Any]]:
    """Two epochs of the base samples in ``k`` clusters (field ``c``), every other item's
    second epoch in another cluster than its first: (the log, the base header and samples,
    the log's samples)."""
    header, samples = _base()
    two = []
    for i, s in enumerate(samples):
        s = copy.deepcopy(s)
        s["metadata"] = {"c": f"c{i % k}"}
        two.append(s)
        s2 = copy.deepcopy(s)
        s2["epoch"] = 2
        s2["metadata"] = {"c": f"c{(i + (i % 2)) % k}"}
        two.append(s2)
    return _write(path, header, two), header, samples, two


def _clean(two: list[Any]) -> list[Any]:
    return [{**copy.deepcopy(s), "metadata": {"c": f"c{sum(map(ord, str(s['id']))) % 7}"}} for s in two]


def dup_json(path: Path) -> Path:
    """Replaced records in another cluster: no item in two clusters once the last record wins."""
    _, header, _, two = two_cluster_log(path.with_name("two7.json"), 7)
    clean = _clean(two)
    again = copy.deepcopy(clean[:20:2]) + clean
    for s in again[:10]:
        s["metadata"] = {"c": "elsewhere"}
    return _write(path, header, again)


def clean_json(path: Path) -> Path:
    """Two epochs, a cluster per item."""
    _, header, _, two = two_cluster_log(path.with_name("two7.json"), 7)
    return _write(path, header, _clean(two))


def incomplete_json(path: Path) -> Path:
    """Incomplete (cancelled, 30 of 10,000 samples), with errors, limits and a sample without
    scores; a score name only on the dropped record."""
    header, samples = _base()
    head = {**header, "status": "cancelled", "results": {**(header.get("results") or {}), "total_samples": 10**4}}
    few = [copy.deepcopy(s) for s in samples[:30]]
    few[3]["error"] = {"message": "x"}
    few[4]["scores"] = None
    few[5]["limit"], few[5]["scores"] = {"type": "message"}, None
    few.append({**copy.deepcopy(few[6]), "scores": {"late": {"value": 1}}})
    few.insert(7, {**copy.deepcopy(few[8]), "scores": {"gone": {"value": 0.5}}})
    return _write(path, head, few)


def tiny_log(path: Path, n: int, uuid_ids: bool = False) -> Path:
    """A ``.json`` log of ``n`` tiny samples (4 epochs of n/4 items, a cluster per 50 items;
    ids ``q<i>`` or UUID-like), written a sample at a time."""
    header, _ = _base()
    header = {k: v for k, v in header.items() if k != "samples"}
    with path.open("w") as fh:
        fh.write(json.dumps(header)[:-1] + ', "samples": [')
        for i in range(n):
            item, epoch = i % (n // 4), i // (n // 4) + 1
            value = "CI"[(item * 7 + epoch * 3) % 5 == 0]
            sid = f"{item:08x}-4a1b-4c2d-8e3f-{item * 2654435761 % 2**48:012x}" if uuid_ids else f"q{item}"
            fh.write(("," if i else "") + json.dumps({"id": sid, "epoch": epoch, "metadata": {"passage": f"p{item // 50}"},
                                                       "scores": {"match": {"value": value}}}))
        fh.write("]}")
    return path


def _folded_log(path: Path, first: int, labels: int) -> Path:
    """:func:`tiny_log` of 400 samples with the passage labels ``p<first>``..``p4`` folded modulo
    ``labels`` (as test_lean_spill folded them: 100 items, so only ``p0`` and ``p1`` exist before
    folding)."""
    log = tiny_log(path, 400)
    text = log.read_text()
    for i in range(first, 200 // 50 + 1):
        text = text.replace(f'"passage": "p{i}"', f'"passage": "p{i % labels}"')
    log.write_text(text)
    return log


def few_clusters_log(path: Path, labels: int) -> Path:
    """:func:`_folded_log` from ``p1``, modulo ``labels``."""
    return _folded_log(path, 1, labels)


def few_two_log(path: Path) -> Path:
    """:func:`few_clusters_log` (3) with ``p2`` folded onto ``p0`` (test_lean_spill's ``two.json``)."""
    text = few_clusters_log(path.with_name("three.json"), 3).read_text()
    path.write_text(text.replace('"passage": "p2"', '"passage": "p0"'))
    return path


def lopsided_log(path: Path) -> Path:
    """:func:`_folded_log` with labels ``p2``..``p4`` folded onto ``p0``/``p1``."""
    return _folded_log(path, 2, 2)


# -- long tables and stores -------------------------------------------------------------------

def compare_log(path: Path, model: str, seed: int, task: str = "t", n_items: int = 50, binary: bool = True,
                epochs: int = 1, clusters: bool = True, start: int = 0) -> None:
    """A long table for ``compare --store`` (store_arrays): rows left out (``oops``, ``inf``)."""
    rng = np.random.default_rng(seed)
    item = np.repeat(np.arange(start, start + n_items), epochs)
    p = rng.uniform(0.2, 0.9, n_items)[item - start]
    value = (rng.uniform(size=item.size) < p).astype(float) if binary else np.round(rng.normal(p, 0.3), 6)
    raw = value.astype(object)
    raw[::11] = "oops"  # rows left out, counted by reason
    raw[5::23] = "inf"
    df = pd.DataFrame({"model": model, "task": task, "id": [f"q{i}" for i in item],
                       "epoch": np.tile(np.arange(epochs), n_items), "score": raw})
    if clusters:
        df["passage"] = [f"p{i // 4}" for i in item]
    df.to_csv(path, index=False)


def grouped_log(path: Path, model: str, seed: int, task: str = "t", n_items: int = 40, binary: bool = True) -> None:
    """A long table of two epochs for ``compare --store --baseline`` (store_groups)."""
    rng = np.random.default_rng(seed)
    item = np.repeat(np.arange(n_items), 2)
    p = rng.uniform(0.2, 0.9, n_items)[item]
    value = (rng.uniform(size=item.size) < p).astype(float) if binary else np.round(rng.normal(p, 0.3), 6)
    raw = value.astype(object)
    raw[::13] = "oops"  # rows left out, counted by reason
    pd.DataFrame({"model": model, "task": task, "id": [f"q{i}" for i in item], "epoch": np.tile([0, 1], n_items),
                  "score": raw, "passage": [f"p{i // 4}" for i in item]}).to_csv(path, index=False)


def routes_store(root: Path) -> Path:
    """The sample logs and five synthetic long tables of two epochs (the first route suite's store)."""
    from evaladdon.routes.ingest import ingest

    (root / "logs").mkdir()
    for i in range(5):
        synthetic(root / "logs" / f"m{i}.csv", f"model-{i}", i, n_items=20 + i, epochs=2, binary=i % 2 == 0)
    store = root / "store"
    ingest([root / "logs", SAMPLE / "inspect", SAMPLE / "lm_eval", SAMPLE / "table"], store, workers=1)
    return store


def arrays_store(root: Path) -> Path:
    """Sample logs and synthetic one-epoch (and some several-epoch) logs; two with cluster ids
    stored at ingest (``passage``)."""
    from evaladdon.routes.ingest import ingest

    logs = root / "logs"
    logs.mkdir()
    for i in range(4):
        compare_log(logs / f"m{i}.csv", f"model-{i}", i, n_items=50 + 3 * i, start=i)
    compare_log(logs / "real.csv", "model-r", 11, binary=False)
    compare_log(logs / "other.csv", "model-x", 9, task="u")
    compare_log(logs / "epochs.csv", "model-e", 12, epochs=3)
    compare_log(logs / "epochs_real.csv", "model-f", 13, epochs=4, binary=False)
    store = root / "store"
    assert ingest([logs, SAMPLE], store, workers=1).stored >= 7
    clustered = root / "clustered"  # cluster ids stored at ingest (passage), epochs on one side
    clustered.mkdir()
    compare_log(clustered / "c0.csv", "model-c0", 21)
    compare_log(clustered / "c1.csv", "model-c1", 22, epochs=2, binary=False)
    assert ingest([clustered], store, cluster="passage", workers=1).stored == 2
    return store


def groups_store(root: Path) -> Path:
    """Six runs of one task, one of another task, one of values outside [0, 1]."""
    from evaladdon.routes.ingest import ingest

    logs = root / "logs"
    logs.mkdir()
    for i in range(6):
        grouped_log(logs / f"m{i}.csv", f"model-{i}", i, n_items=40 + i)
    grouped_log(logs / "other.csv", "model-x", 9, task="u")  # shares no (task, metric) with the baseline
    grouped_log(logs / "real.csv", "model-r", 11, binary=False)  # values outside [0, 1]: not bounded
    store = root / "store"
    assert ingest([logs], store, workers=1).stored == 8
    return store


def summaries_store(root: Path) -> Path:
    """Five synthetic long tables of two epochs (``summarize --store`` a group at a time)."""
    from evaladdon.routes.ingest import ingest

    logs = root / "logs"
    logs.mkdir()
    for i in range(5):
        synthetic(logs / f"m{i}.csv", f"model-{i}", i, n_items=30 + i, epochs=2)
    store = root / "store"
    assert ingest([logs], store, workers=1).stored == 5
    return store


def copy_dir(root: Path) -> Path:
    """A directory of a copy of baseline.eval (the same run id twice with the original), a text
    file and a ``logs.json`` that is no log."""
    root.mkdir()
    (root / "baseline.eval").write_bytes((INSPECT / "baseline.eval").read_bytes())
    (root / "notes.txt").write_text("not a log")
    (root / "logs.json").write_text("{}")
    return root


def coded_both(root: Path) -> Path:
    """One run over two logs of disjoint ids (``NAME=DIR``): the logs' codes merged per group."""
    header, _ = _base()
    root.mkdir()
    _write(root / "a.json", header, coded_samples(range(0, 300), 1, "s"))
    _write(root / "b.json", header, coded_samples(range(300, 700), 1, "s")[::-1])
    return root


def errored_log(path: Path, eval_id: str, seed: int, p_error: float, p_correct: float, n_items: int = 60,
                epochs: int = 1) -> Path:
    """An Inspect log of ``n_items`` samples (``epochs`` each) of which about ``p_error`` errored
    (``error`` set, no scores: Inspect's default, ``fail_on_error`` tolerating them), some hit a
    limit, the others scored C/I with probability ``p_correct``; ids shared across logs."""
    header, _ = _base()
    header = copy.deepcopy(header)
    header["eval"]["eval_id"] = header["eval"]["run_id"] = eval_id
    header.pop("results", None)
    rng = np.random.default_rng(seed)
    samples: list[dict[str, Any]] = []
    for e in range(1, epochs + 1):
        for i in range(n_items):
            s: dict[str, Any] = {"id": f"q{i:03d}", "epoch": e, "input": f"question {i}", "target": "A"}
            u = rng.uniform()
            if u < p_error:
                s["error"], s["scores"] = {"message": "RateLimitError", "traceback": ""}, None
            elif u < p_error + 0.02:
                s["limit"], s["scores"] = {"type": "token"}, None
            else:
                s["scores"] = {"match": {"value": "C" if rng.uniform() < p_correct else "I"}}
            samples.append(s)
    return _write(path, header, samples)


def errored_logs(root: Path) -> Path:
    """Two runs of one task with errored samples (the candidate errors more), and a third of epochs."""
    errored_log(root / "base.json", "errbase", 1, 0.03, 0.6)
    errored_log(root / "cand.json", "errcand", 2, 0.25, 0.7)
    errored_log(root / "epochs.json", "errepochs", 3, 0.1, 0.6, epochs=3)
    return root


def errored_store(root: Path) -> Path:
    """:func:`errored_logs` ingested into a store."""
    from evaladdon.routes.ingest import ingest

    logs = errored_logs(root / "logs") if (root / "logs").mkdir() is None else root
    store = root / "store"
    assert ingest([logs], store, workers=1).stored == 3
    return store


def lower_lm(root: Path) -> Path:
    """The sample lm-eval runs with every metric declared lower-is-better by their results files
    (``higher_is_better`` false, in the results dict and the task configs' ``metric_list``)."""
    import shutil

    folder = root / "lm"
    shutil.copytree(SAMPLE / "lm_eval", folder)
    for f in folder.glob("*/results_*.json"):
        doc = json.loads(f.read_text())
        doc["higher_is_better"] = {t: {m: False for m in ms} for t, ms in doc["higher_is_better"].items()}
        for cfg in doc["configs"].values():
            for entry in cfg.get("metric_list") or []:
                entry["higher_is_better"] = False
        f.write_text(json.dumps(doc))
    return folder


def lower_store(root: Path) -> Path:
    """:func:`lower_lm`'s runs of one task (each run one stored log: the grouped route serves it) and
    the sample long tables ingested into a store (the declarations in its manifest)."""
    from evaladdon.routes.ingest import ingest

    folder = lower_lm(root)
    for f in folder.glob("*/samples_evaladdon_repeats_example_*"):
        f.unlink()
    store = root / "store"
    assert ingest([folder, SAMPLE / "table"], store, workers=1).stored >= 3
    return store


def twin_logs(root: Path) -> Path:
    """Runs of the base samples under non-ASCII ids: ``a``, ``b`` with other values and the
    inputs of some items changed (content hashes that differ: ``--strict``), ``c`` as ``a``
    with other values; ``long``, ``long2`` with ids past 64 bytes (the lean reader keeps digests
    of them), ``nul``, ``nul2`` with ids that end in NUL."""
    header, samples = _base()
    out = {}
    for name in ("a", "b", "c", "long", "long2", "nul", "nul2"):
        eval_id = f"twin{name.upper()}"
        head = copy.deepcopy(header)
        head["eval"]["eval_id"] = head["eval"]["run_id"] = eval_id
        rows = []
        for i, s in enumerate(samples):
            s = copy.deepcopy(s)
            s["id"] = f"é{s['id']}-ü" if i % 3 else f"{s['id']}"
            if name == "b" and i % 7 == 2:
                s["input"] = s["input"] + " (reworded)"
            if name in ("b", "c", "long2", "nul2") and i % (4 if name == "b" else 5) == 1:
                s["scores"]["match"]["value"] = "C" if s["scores"]["match"]["value"] == "I" else "I"
            if name.startswith("long"):
                s["id"] = f"{s['id']}-" + "x" * 70
            elif name.startswith("nul"):
                s["id"] = f"{s['id']}\x00"
            rows.append(s)
        out[name] = _write(root / f"{name}.json", head, rows)
    return root


def _in(name: str, fn: Callable[[Path], Path]) -> Callable[[Path], Path]:
    """A builder of one input in its own directory ``root/name``."""
    def build(root: Path) -> Path:
        (root / name).mkdir()
        return fn(root / name)
    return build


BUILDERS: dict[str, Callable[[Path], Path]] = {
    "edge": _in("edge", edge_json),
    "edge2": _in("edge2", edge_json),
    "odd": _in("odd", lambda d: odd_json(d / "odd.json")),
    "copy": lambda root: copy_dir(root / "copy"),
    "missing": lambda root: root / "absent.eval",
    "journal": _in("journal", lambda d: journal_eval(d / "journal.eval")),
    "short": _in("short", lambda d: short_eval(d / "short.eval")),
    "coded": _in("coded", lambda d: _write(d / "coded.json", _base()[0], coded_samples(range(600), 2, "s"))),
    "coded_both": lambda root: coded_both(root / "both"),
    "two7": _in("two7", lambda d: two_cluster_log(d / "two.json", 7)[0]),
    "two3": _in("two3", lambda d: two_cluster_log(d / "two.json", 3)[0]),
    "dup": _in("dup", lambda d: dup_json(d / "dup.json")),
    "clean": _in("clean", lambda d: clean_json(d / "clean.json")),
    "inc": _in("inc", lambda d: incomplete_json(d / "inc.json")),
    "lopsided": _in("lopsided", lambda d: lopsided_log(d / "few.json")),
    "few": _in("few", lambda d: few_clusters_log(d / "few.json", 3)),
    "few_two": _in("few_two", lambda d: few_two_log(d / "two.json")),
    "store": _in("store", routes_store),
    "arrays": _in("arrays", arrays_store),
    "groups": _in("groups", groups_store),
    "summaries": _in("summaries", summaries_store),
    "errlogs": _in("errlogs", errored_logs),
    "errstore": _in("errstore", errored_store),
    "lmlow": _in("lmlow", lower_lm),
    "lmstore": _in("lmstore", lower_store),
    "twins": _in("twins", twin_logs),
}


class Inputs:
    """The named inputs under ``root``, each built on first use."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.built: dict[str, Path] = {}

    def __getitem__(self, name: str) -> Path:
        if name not in self.built:
            self.built[name] = BUILDERS[name](self.root)
        return self.built[name]


def dask_path_logs(root: Path, n_logs: int = 6) -> Path:
    """``n_logs`` CSV logs of 20,000-40,000 rows (0/1 and continuous, 1 to 2 epochs) and one broken
    Inspect log that both engines skip with a note: the PATH inputs of the Dask route tests."""
    for k in range(n_logs):
        synthetic(root / f"m{k}.csv", f"m{k}", k, n_items=20_000, epochs=1 + k % 2, binary=k % 2 == 0)
    (root / "broken.json").write_text("{\"samples\": [")
    return root


def observe_route(cli: Callable[..., Any], *args: Any) -> tuple[Any, Any]:
    """``cli(*args)`` and the planner's :class:`~evaladdon.routes.results.Outcome` (the route that answered)."""
    from evaladdon.analysis.options import RoutePolicy

    seen: list[Any] = []
    got = cli(*args, routes=RoutePolicy(observe=seen.append))
    return got, seen[0]
