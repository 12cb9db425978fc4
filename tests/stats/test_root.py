"""evaladdon.stats._root.brentq: a port of scipy's C brentq (oracle: scipy.optimize.brentq,
bit-identical roots and the same non-convergence)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq as scipy_brentq

from evaladdon.stats._root import brentq


def _functions(rng: np.random.Generator):  # type: ignore[no-untyped-def]
    for _ in range(600):
        k, c = int(rng.integers(0, 5)), rng.normal(size=4)
        if k == 0:
            f = lambda x, c=c: x**3 * c[0] + c[1] * x - c[2]  # noqa: E731
        elif k == 1:
            f = lambda x, c=c: math.tanh(5 * (x - c[0])) + 0.3 * c[1]  # noqa: E731
        elif k == 2:
            f = lambda x, c=c: math.exp(x) - 2 - abs(c[0])  # noqa: E731
        elif k == 3:
            f = lambda x, c=c: (x - c[0]) ** 5  # noqa: E731
        else:
            f = lambda x, c=c: math.atan(x - c[0]) + 1e-3 * math.sin(50 * x)  # noqa: E731
        yield f, -3.0 - abs(c[3]), 3.0 + abs(c[2])


def test_brentq_is_bit_identical_to_scipy() -> None:
    checked = 0
    for f, a, b in _functions(np.random.default_rng(0)):
        if f(a) * f(b) >= 0:
            continue
        for xtol in (2e-12, 1e-10, 1e-3):
            try:
                want: float | None = scipy_brentq(f, a, b, xtol=xtol)
            except RuntimeError:
                want = None
            if want is None:
                with pytest.raises(ValueError, match="did not converge"):
                    brentq(f, a, b, xtol=xtol)
            else:
                assert brentq(f, a, b, xtol=xtol) == want
            checked += 1
    assert checked > 1000


def test_brentq_edges() -> None:
    assert brentq(lambda x: x, 0.0, 1.0) == 0.0
    assert brentq(lambda x: x - 1, 0.0, 1.0) == 1.0
    with pytest.raises(ValueError, match="different signs"):
        brentq(lambda x: x * x + 1, -1.0, 1.0)


def test_mde_and_tango_use_the_same_roots_as_scipy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The exact-McNemar MDE and the Tango interval are unchanged to the last bit when the
    root comes from scipy instead."""
    from evaladdon.stats import _root
    from evaladdon.stats.paired_binary import tango
    from evaladdon.stats.power import plan

    ours = [plan(n=n, discordance=psi, test="mcnemar-exact").mde for n, psi in ((60, 0.3), (200, 0.1), (500, 0.05))]
    ints = [tango(*c) for c in ((10, 3, 9, 20), (0, 0, 5, 5), (40, 12, 2, 46))]
    monkeypatch.setattr(_root, "brentq", scipy_brentq)
    assert ours == [plan(n=n, discordance=psi, test="mcnemar-exact").mde for n, psi in ((60, 0.3), (200, 0.1), (500, 0.05))]
    assert [(i.low, i.high) for i in ints] == [(i.low, i.high) for i in (tango(*c) for c in ((10, 3, 9, 20), (0, 0, 5, 5), (40, 12, 2, 46)))]
