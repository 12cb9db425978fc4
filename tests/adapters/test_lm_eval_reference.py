"""The lm-eval reader's canonical tables, notes and refusals stay exactly as they were (issue 15).

Every lm-eval output in ../shared/real_logs and sample_logs/ (each file alone, with and without a
``--cluster`` doc field, and each folder through ``read_runs``), plus a crafted file holding the
odd cases (values of every type, corpus-level inputs, string log-likelihoods, text and list
targets, repeats, legacy arrays without ``filter``, docs missing from the log), is read and
reduced to its *content*: each column's name and kind; text and integer columns exactly (a
sha256 of the values in order, ``None`` marked); float columns by count, NaN and infinity
counts and three sums (plain, squared, position-weighted, so an order change shows), compared
to 1e-9 relative; the notes, reported values and error message verbatim (floats to 1e-9).
``lm_eval_reference.json`` holds that content as the reader gave it before the issue-15 speed
work; a speed-up that changes one value, note or message fails here.

Why floats are not compared to the bit: numpy's ``exp`` (the softmax behind ``confidence``)
takes other SIMD kernels on other CPUs (AVX-512 vs AVX2), which differ in the last bit; the
first reference was a hash of a repr and failed on a machine with AVX-512 (issue 23).

Regenerate (only for an intended change, and say so in the commit):
``PYTHONPATH=$PWD python tests/adapters/test_lm_eval_reference.py --write``.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd
import pytest

HERE = Path(__file__).resolve().parent
REFERENCE = HERE / "lm_eval_reference.json"
sys.path.insert(0, str(HERE.parent))  # tests/: the shared helpers (closeness)
from closeness import mismatches  # noqa: E402
from conftest import REAL_LOGS, REPO  # noqa: E402

from evaladdon.adapters import read_runs, sniff  # noqa: E402
from evaladdon.errors import EvalAddonError  # noqa: E402
from evaladdon.table import finalize, validate  # noqa: E402


def _kind(s: pd.Series) -> str:
    if s.dtype == np.float64:
        return "float"
    if s.dtype == np.int64:
        return "int"
    return "str"  # object or pandas string dtype: the values decide (str or None)


def _values(s: pd.Series) -> list[Any]:
    if _kind(s) == "str":
        return [None if v is None or v is pd.NA or (isinstance(v, float) and v != v) else v for v in s.tolist()]
    return s.tolist()


def _floats(values: list[float]) -> dict[str, float | int]:
    a = np.asarray(values, dtype=np.float64)
    finite = a[np.isfinite(a)]
    pos = np.flatnonzero(np.isfinite(a)) + 1.0
    return {"n": int(a.size), "nan": int(np.isnan(a).sum()), "posinf": int((a == np.inf).sum()),
            "neginf": int((a == -np.inf).sum()), "sum": math.fsum(finite.tolist()),
            "sumsq": math.fsum((finite * finite).tolist()),
            "weighted": math.fsum((finite * pos / max(a.size, 1)).tolist())}


def _exact(values: list[Any]) -> str:
    h = hashlib.sha256()
    for v in values:
        h.update(b"\x00none\x01" if v is None else repr(v).encode() + b"\x01")
    return h.hexdigest()[:24]


def content(df: pd.DataFrame) -> dict[str, Any]:
    """What a table says (columns, kinds, values, attrs), free of reprs of pandas objects."""
    cols: dict[str, Any] = {}
    for col in df.columns:
        kind, values = _kind(df[col]), _values(df[col])
        cols[col] = {"kind": kind, **(_floats(values) if kind == "float" else {"exact": _exact(values)})}
    attrs = {key: df.attrs.get(key) for key in ("notes", "reported", "incomplete")}
    return {"columns": cols, "order": list(df.columns), "attrs": json.loads(json.dumps(attrs, default=str))}


def same(got: Any, want: Any) -> bool:
    """Equal content: floats to 1e-9 (of the larger magnitude, at least 1), all else exactly."""
    return not mismatches(got, want, rel=1e-9, atol=1e-9)


def _outcome(read: Callable[[], pd.DataFrame]) -> dict[str, Any]:
    try:
        df = read()
    except EvalAddonError as exc:
        return {"error": str(exc)}
    # the readers build their tables conforming (no finalize pass): finalize must change nothing
    again = finalize(df)
    pd.testing.assert_frame_equal(again, df, check_exact=True)
    assert list(again.dtypes.astype(str)) == list(df.dtypes.astype(str))
    validate(df)
    return content(df)


def write_edge_cases(folder: Path) -> None:
    """One 0.4.7-style run and one legacy array run with every odd case the reader handles."""
    folder.mkdir(parents=True, exist_ok=True)
    ts = "2026-02-03T04-05-06.000007"
    lines = []
    values: list[Any] = [1, 0.0, True, None, "0.5", "True", "x", float("nan"), float("inf"), ["a", "b"], {"k": 1}, ""]
    for i, v in enumerate(values):
        n = 2 + i % 3
        fr: list[Any] = [[-(k + i) / 3.0, k == 0] for k in range(n)]
        if i % 4 == 1:
            fr = [[str(-(k + 1.5 * i) / 7), "False"] for k in range(n)]
        choices = [f"choice {k}" * (k + 1) for k in range(n)]
        target: Any = [i % n, 0] if i == 5 else (choices[i % n] if i % 3 == 0 else i % n)
        if i == 7:
            target = "1"
        rec = {"doc_id": i, "doc": {"grp": {"id": i // 3}, "p": f"p{i % 4}"}, "target": target,
               "arguments": {f"gen_args_{k}": {"arg_0": "ctx", "arg_1": " " + c} for k, c in enumerate(choices)},
               "resps": [[x] for x in fr], "filtered_resps": fr, "filter": "none",
               "metrics": ["acc", "acc_norm", "f1"], "doc_hash": f"h{i}", "prompt_hash": "p", "target_hash": "t",
               "acc": v, "acc_norm": 1.0 - (i % 2), "f1": [str(i), "x"]}
        if i == 4:
            rec["scores_per_repeat"] = {"acc": [1, 0, "1"], "acc_norm": [0.5, None]}
        lines.append(json.dumps(rec))  # NaN/Infinity literals: orjson refuses, json takes them
        if i % 5 == 0:
            lines.append(json.dumps({**rec, "filter": "strict", "acc": 0}))
    (folder / f"samples_edge_{ts}.jsonl").write_text("\n".join(lines) + "\n\n")
    (folder / f"results_{ts}.json").write_text(json.dumps({
        "results": {"edge": {"alias": "edge", "acc,none": 0.5, "acc_stderr,none": "N/A", "f1,none": 0.1},
                    "legacy": {"acc,none": 0.5, "acc,strict": 0.25}},
        "configs": {"edge": {"task": "edge", "repeats": 3, "target_delimiter": " ",
                             "metric_list": [{"metric": "f1", "aggregation": "f1"}]}},
        "n-samples": {"edge": {"original": 20, "effective": 20}},
        "config": {"model": "hf", "model_args": "pretrained=org/edge"}, "model_name": "org/edge"}))
    legacy = []
    for i in range(6):
        for f in range(2 if i != 3 else 3):  # doc 3 repeats once more than the filters listed
            legacy.append({"doc_id": f"d{i}", "doc": {"p": i % 2}, "target": "b",
                           "arguments": [["ctx", " a"], ["ctx", " b"]], "resps": [],
                           "filtered_resps": [[-1.0 - f, False], [-0.5 * i, True]], "acc": (i + f) % 2,
                           "exact_match": "1.0"})
    (folder / "pretrained=org__edge_legacy.jsonl").write_text(json.dumps(legacy))


def _first_doc(f: Path) -> dict[str, Any]:
    text = f.read_text()
    first = json.loads(text)[0] if text.lstrip().startswith("[") else json.loads(text.split("\n", 1)[0])
    return first.get("doc") if isinstance(first, dict) and isinstance(first.get("doc"), dict) else {}


def cases(real_logs: Path | None) -> dict[str, Callable[[], pd.DataFrame]]:
    """Readings of the logs copied under the current directory (relative paths, so the
    digests do not depend on where the checkout is)."""
    import shutil

    write_edge_cases(Path("edge"))
    shutil.copytree(REPO / "sample_logs" / "lm_eval", "sample_logs")
    roots = [Path("sample_logs"), Path("edge")]
    if real_logs is not None:
        for src in sorted(p for pat in ("lmeh_*", "pythia_*") for p in real_logs.glob(pat)):
            shutil.copytree(src, Path("real") / src.name)
            roots.append(Path("real") / src.name)
    out: dict[str, Callable[[], pd.DataFrame]] = {}
    for root in roots:
        for f in sorted(f for f in root.rglob("*") if f.is_file()):
            reader, what = sniff(f)
            if reader is None:
                continue
            name = f.as_posix()
            out[name] = lambda f=f, reader=reader: reader(f, None)
            if what == "lm-eval samples":
                keys = [k for k, v in sorted(_first_doc(f).items()) if isinstance(v, (str, int))][:2]
                extra = ["p", "grp.id", "passage_id", "nope.x"] if root.name == "edge" else ["nope.x"]
                for cluster in keys + extra:
                    out[f"{name} --cluster {cluster}"] = lambda f=f, r=reader, c=cluster: r(f, c)

        def folder(root: Path = root) -> pd.DataFrame:
            loaded = read_runs([root], results_only=True)
            t = loaded.table.copy()
            t.attrs = {"notes": loaded.notes, "reported": loaded.reported, "incomplete": loaded.incomplete}
            return t

        out[f"{root.as_posix()}/ (read_runs)"] = folder
    return out


def outcomes(real_logs: Path | None) -> dict[str, dict[str, Any]]:
    return {name: _outcome(read) for name, read in cases(real_logs).items()}


def test_tables_notes_and_messages_equal_the_saved_reference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every case; without the real-log corpus, the sample and crafted ones (the rest need it)."""
    monkeypatch.chdir(tmp_path)
    want = json.loads(REFERENCE.read_text())
    real = REAL_LOGS if REAL_LOGS.is_dir() else None
    got = outcomes(real)
    assert set(got) == {k for k in want if real is not None or not k.startswith("real/")}
    diff = {k: mismatches(got[k], want[k], rel=1e-9, atol=1e-9)[:3] for k in got if not same(got[k], want[k])}
    assert not diff, diff


def test_the_content_check_sees_a_changed_value_and_an_order_change() -> None:
    df = pd.DataFrame({"item": ["a", "b", "c"], "value": [0.25, 0.5, 1.0]})
    base = content(df)
    assert same(content(df.assign(value=[0.25, 0.5, 1.0 + 1e-15])), base)  # the last bit: equal
    assert not same(content(df.assign(value=[0.25, 0.5, 0.75])), base)
    assert not same(content(df.assign(value=[0.5, 0.25, 1.0])), base)  # same sums, other order
    assert not same(content(df.assign(item=["a", "c", "b"])), base)
    assert not same(content(df.assign(value=[0.25, np.nan, 1.0])), base)


if __name__ == "__main__" and "--write" in sys.argv:
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        REFERENCE.write_text(json.dumps(outcomes(REAL_LOGS), indent=1, sort_keys=True) + "\n")
    print(f"wrote {REFERENCE}")
