"""evaladdon.stats._dist against scipy.stats, to 1e-12, on grids with extreme tails and edges.

The module exists so the stats core need not import scipy.stats (slow to import); every
function must give scipy.stats' numbers, including 0/1 outside the support and nan for
invalid parameters or arguments.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from scipy import stats as sps

from evaladdon.stats import _dist

INF, NAN = np.inf, np.nan
X = np.array([-INF, -1e300, -40.0, -38.5, -12.0, -8.3, -3.0, -1.96, -1e-8, -0.0, 0.0, 1e-300, 1e-8, 0.5, 1.0,
              1.96, 2.5, 7.0, 8.3, 12.0, 38.5, 40.0, 1e300, INF, NAN])
Q = np.array([-0.1, 0.0, 1e-300, 1e-100, 1e-20, 1e-12, 1e-6, 0.001, 0.025, 0.05, 0.3, 0.5, 0.7, 0.95, 0.975,
              0.999, 1 - 1e-6, 1 - 1e-12, 1 - 2**-53, 1.0, 1.1, NAN])
DF = np.array([-1.0, 0.0, 0.3, 1.0, 2.0, 2.5, 5.0, 29.0, 30.0, 1000.0, 19999.0, 1e7, INF, NAN])


def same(ours: object, ref: object) -> None:
    o, r = np.asarray(ours, dtype=float), np.asarray(ref, dtype=float)
    assert o.shape == r.shape
    np.testing.assert_array_equal(np.isnan(o), np.isnan(r))
    np.testing.assert_allclose(o, r, rtol=1e-12, atol=0, equal_nan=True)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # overflow in x**2 at 1e300, as in scipy.stats
def test_normal() -> None:
    same(_dist.norm_cdf(X), sps.norm.cdf(X))
    same(_dist.norm_sf(X), sps.norm.sf(X))
    same(_dist.norm_pdf(X), sps.norm.pdf(X))
    same(_dist.norm_ppf(Q), sps.norm.ppf(Q))
    same(_dist.norm_isf(Q), sps.norm.isf(Q))
    for v in (-3.2, 0.0, 0.975, 1.0):  # scalars in, numpy scalars out, as scipy.stats
        assert type(_dist.norm_cdf(v)) is type(sps.norm.cdf(v))
        assert float(_dist.norm_ppf(min(abs(v), 1.0))) == float(sps.norm.ppf(min(abs(v), 1.0)))


def test_student_t() -> None:
    x, df = np.meshgrid(X, DF)
    same(_dist.t_cdf(x, df), sps.t.cdf(x, df))
    same(_dist.t_sf(x, df), sps.t.sf(x, df))
    q, dq = np.meshgrid(Q, DF)
    same(_dist.t_ppf(q, dq), sps.t.ppf(q, dq))
    same(_dist.t_isf(q, dq), sps.t.isf(q, dq))
    assert float(_dist.t_sf(2.0, 7)) == float(sps.t.sf(2.0, 7))
    assert np.ndim(_dist.t_ppf(0.975, 3)) == 0


def test_chi2() -> None:
    x, df = np.meshgrid(np.concatenate([X, [1e-5, 3.84, 100.0, 1e4]]), DF)
    same(_dist.chi2_sf(x, df), sps.chi2.sf(x, df))
    same(_dist.chi2_cdf(x, df), sps.chi2.cdf(x, df))


N = np.array([-1.0, 0.0, 1.0, 2.0, 5.5, 7.0, 30.0, 101.0, 2000.0, 40000.0, 1e6, NAN])
P = np.array([-0.1, 0.0, 1e-12, 0.01, 0.3, 0.5, 0.77, 0.999, 1.0, 1.2, NAN])
K = np.array([-INF, -5.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0, 3.7, 6.0, 7.0, 15.0, 29.0, 30.0, 50.0, 1000.0,
              1999.0, 20000.0, 39990.0, 500000.0, 1e6, INF, NAN])


@pytest.mark.parametrize("fn", ["cdf", "sf", "pmf"])
def test_binomial(fn: str) -> None:
    k, n, p = np.meshgrid(K, N, P, indexing="ij")
    same(getattr(_dist, f"binom_{fn}")(k, n, p), getattr(sps.binom, fn)(k, n, p))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # Boost cannot bracket at p = 1e-12, as in scipy.stats
def test_binomial_ppf_and_mcnemar_shapes() -> None:
    q, n, p = np.meshgrid(Q, N, P, indexing="ij")
    same(_dist.binom_ppf(q, n, p), sps.binom.ppf(q, n, p))
    # the shapes power.py uses: a column of n against a row of m
    m = np.arange(0, 301, dtype=float)
    ns = np.array([[250.0], [300.0]])
    same(_dist.binom_pmf(m[None, :], ns, 0.37), sps.binom.pmf(m[None, :], ns, 0.37))
    same(_dist.binom_ppf(0.025, m, 0.5), sps.binom.ppf(0.025, m, 0.5))
    assert float(_dist.binom_cdf(4111, 8262, 0.5)) == float(sps.binom.cdf(4111, 8262, 0.5))


def test_beta_ppf_clopper_pearson_grid() -> None:
    q = np.array([-0.5, 0.0, 1e-300, 1e-15, 0.005, 0.025, 0.5, 0.975, 0.995, 1 - 1e-15, 1.0, 2.0, NAN])
    ab = np.array([-1.0, 0.0, 1e-3, 0.5, 1.0, 1.5, 7.0, 99.5, 1000.0, 1e6, NAN])
    qq, aa, bb = np.meshgrid(q, ab, ab, indexing="ij")
    same(_dist.beta_ppf(qq, aa, bb), sps.beta.ppf(qq, aa, bb))


def test_compare_and_summarize_do_not_import_scipy_stats() -> None:
    """The modules on the summarize/compare paths load without scipy.stats (import time)."""
    code = ("import sys, evaladdon.analysis.compare_table, evaladdon.analysis.summarize, evaladdon.stats.power, evaladdon.analysis.metrics; "
            "from evaladdon.stats import *; print(sorted(m for m in sys.modules "
            "if m in ('scipy.stats', 'scipy.optimize', 'scipy.sparse', 'pandas')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "scipy.stats" not in out and "scipy.optimize" not in out and "scipy.sparse" not in out, out


def test_scipy_special_imported_on_first_use() -> None:
    """Importing the stats core loads no scipy.special (~0.3 s of CPU); the first distribution
    function loads it, and gives the same numbers as scipy.special / scipy.stats."""
    code = ("import sys\n"
            "import evaladdon.analysis.summarize, evaladdon.analysis.results, evaladdon.stats.power\n"
            "from evaladdon.stats import *\n"
            "from evaladdon.stats._base import dist\n"
            "before = 'scipy.special' in sys.modules\n"
            "x = float(dist.t_ppf(0.975, 9.0)), float(dist.binom_cdf(3, 10, 0.4))\n"
            "print(before, 'scipy.special' in sys.modules, repr(x[0]), repr(x[1]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[:2] == ["False", "True"], out
    from scipy import special

    assert float(out[2]) == special.stdtrit(9.0, 0.975) == sps.t.ppf(0.975, 9.0)
    assert float(out[3]) == pytest.approx(sps.binom.cdf(3, 10, 0.4), rel=1e-12)
