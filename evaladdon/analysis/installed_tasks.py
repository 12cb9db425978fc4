"""An lm-eval task's own aggregation function, taken from the installed harness's task registry.

A results file shows an aggregation written as code only as its source text (the reader keeps
its name: ``code:span_f1_agg``); that text is never executed.  When the installed lm-eval knows a
task of the same name whose ``metric_list`` entry for the metric names a function of the same name
in a module inside the installed package's ``tasks/`` folder, that function *is* the harness's own
aggregation, and :mod:`evaladdon.analysis.corpus` calls it (once per bootstrap replicate).

lm-eval's ``TaskManager`` indexes every task YAML of the install (about 10 s, once per process:
:func:`functools.lru_cache`); it is built only when a code aggregation is met.
"""

from __future__ import annotations

import functools
import importlib.util
import sys
from pathlib import Path
from typing import Any, Callable

__all__ = ["installed_aggregation"]


@functools.lru_cache(maxsize=1)
def _task_index() -> tuple[dict[str, Any], Path] | None:
    """lm-eval's task index (name -> entry) and its tasks folder; None without a usable lm-eval."""
    try:
        import lm_eval.tasks as tasks
        from lm_eval.tasks import TaskManager

        return dict(TaskManager().task_index), Path(tasks.__file__).resolve().parent
    except Exception:  # not installed, or an install whose registry does not load: nothing to take
        return None


def _config_of(entry: Any) -> dict[str, Any] | None:
    """The merged YAML config of an index entry (lm-eval >= 0.4.10 keeps it as ``cfg``)."""
    cfg = entry.get("cfg") if isinstance(entry, dict) else getattr(entry, "cfg", None)
    return cfg if isinstance(cfg, dict) else None


def _aggregation_path(cfg: dict[str, Any], metric: str) -> str | None:
    """``/…/tasks/x/utils.fn`` as the index writes a ``!function`` aggregation of ``metric``."""
    for entry in cfg.get("metric_list") or ():
        if isinstance(entry, dict) and entry.get("metric") == metric:
            agg = entry.get("aggregation")
            return agg if isinstance(agg, str) else None
    return None


def _load(module_file: Path, function: str) -> Callable[[list[Any]], float] | None:
    """The function ``function`` of an installed task module (its code is the harness's, not a log's)."""
    name = "evaladdon_lm_eval_task_" + "_".join(module_file.with_suffix("").parts[-4:])
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, module_file)
        if spec is None or spec.loader is None:
            return None
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except Exception:  # a task module that needs a package this install lacks
            return None
        sys.modules[name] = module
    fn = getattr(module, function, None)
    return fn if callable(fn) else None


def installed_aggregation(task: str, metric: str, function: str) -> tuple[Callable[[list[Any]], float], str] | None:
    """The installed harness's aggregation ``function`` of ``metric`` on ``task``, and where it lives.

    None unless the installed lm-eval has ``task``, its config names an aggregation of ``metric``
    called ``function``, and that function's module lies inside the installed ``lm_eval/tasks``.
    """
    found = _task_index()
    if found is None or task not in found[0]:
        return None
    index, tasks_dir = found
    cfg = _config_of(index[task])
    path = _aggregation_path(cfg, metric) if cfg is not None else None
    if path is None:
        return None
    module, _, name = path.rpartition(".")
    module_file = Path(module).with_suffix(".py").resolve()
    if name != function or not module_file.is_relative_to(tasks_dir) or not module_file.is_file():
        return None
    fn = _load(module_file, name)
    if fn is None:
        return None
    return fn, str(module_file.relative_to(tasks_dir.parent.parent))
