"""Print pip constraints that pin every runtime dependency of evaladdon to its declared lower bound.

Used by ``.ci/run``'s plain-clone pass so the lower bounds in ``pyproject.toml`` are tested,
not just written: the core ``dependencies`` and the extras a user installs (``inspect``,
``lm-eval``, ``plot``, ``parquet``, ``store``, ``dask``) each become ``name==bound``. The
``test`` extra's own tools (pytest, hypothesis and the oracles statsmodels, scikit-learn,
choix) are the instruments, not what users install: they resolve as usual around the pins.

Usage: ``python .ci/lowest.py [pyproject.toml] > constraints.txt``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: pip vendors tomli
    from pip._vendor import tomli as tomllib  # type: ignore[no-redef]

USER_EXTRAS = ("inspect", "lm-eval", "plot", "parquet", "store", "dask")
LOWER = re.compile(r"^\s*([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?\s*>=\s*([0-9][^,;\s]*)")


def pins(pyproject: Path) -> dict[str, str]:
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    reqs = list(project["dependencies"])
    for extra in USER_EXTRAS:
        reqs += project.get("optional-dependencies", {}).get(extra, [])
    out: dict[str, str] = {}
    for req in reqs:
        m = LOWER.match(req)
        if m:
            name = m.group(1).lower().replace("_", "-")
            if out.get(name, m.group(2)) != m.group(2):
                sys.exit(f"{pyproject}: two lower bounds for {name}: {out[name]} and {m.group(2)}")
            out[name] = m.group(2)
    return out


if __name__ == "__main__":
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "pyproject.toml"
    for name, version in sorted(pins(path).items()):
        print(f"{name}=={version}")
