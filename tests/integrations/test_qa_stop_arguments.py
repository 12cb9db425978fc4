"""QA: ``sequential_stop`` refuses, when built, arguments that would make its sequence meaningless
(accepted before and only failing or misleading mid-run), naming the argument."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("inspect_ai", reason="inspect_ai is not installed")

from evaladdon.integrations.inspect_stopping import sequential_stop  # noqa: E402


@pytest.mark.parametrize("kw, name", [
    ({"width": 0.1, "alpha": 2}, "alpha"), ({"width": 0.1, "alpha": 0}, "alpha"), ({"width": -1}, "width"),
    ({"width": float("nan")}, "width"), ({"width": 0}, "width"), ({"budget": 0}, "budget"),
    ({"budget": 2.5}, "budget"), ({"width": 0.1, "lo": 1, "hi": 0}, "lo/hi"),
    ({"width": 0.1, "hi": float("inf")}, "hi"), ({"baseline": "x.eval", "margin": -0.1}, "margin"),
    ({"baseline": "x.eval", "band": -0.1}, "band"),
])
def test_bad_arguments_refused_by_name(kw: dict[str, Any], name: str) -> None:
    with pytest.raises(ValueError, match=rf"sequential_stop: {name} = "):
        sequential_stop(**kw)


def test_good_arguments_accepted() -> None:
    for kw in ({"width": 0.1}, {"budget": np.int64(100)}, {"baseline": "x.eval", "margin": 0.02, "band": 0.01},
               {"width": np.float64(0.05), "alpha": 0.1, "lo": -1, "hi": 1}):
        assert sequential_stop(**kw) is not None
