"""Write ``tests/stats/mean_frozen.json``: ``estimate_mean``'s results on the battery of
``tests/mean_battery.py``, every float as ``float.hex``, as computed by the code BEFORE the
sufficient-statistics refactor (generated at commit d8ccdb9, the refactor's parent:
``git checkout d8ccdb9 -- evaladdon && PYTHONPATH=$PWD python tests/make_mean_frozen.py``).

``tests/stats/test_mean_frozen.py`` asserts that today's ``estimate_mean`` still gives these bits.
Do not regenerate it to make that test pass: a difference means the refactor changed a result.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import mean_battery  # noqa: E402


def main() -> None:
    out = [{"kind": c["kind"], "digest": mean_battery.input_digest(c), "result": mean_battery.encode(mean_battery.run(c))}
           for c in mean_battery.cases()]
    path = Path(__file__).resolve().parent / "stats" / "mean_frozen.json"
    path.write_text(json.dumps({"generated_from": "d8ccdb9", "cases": out}, separators=(",", ":")) + "\n")
    print(f"{len(out)} cases -> {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
