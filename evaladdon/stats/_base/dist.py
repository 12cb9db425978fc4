"""Distribution functions of the stats core, on :mod:`scipy.special` alone.

``import scipy.stats`` takes 0.9-1.5 s (it builds every distribution and parses their
docstrings); ``scipy.special`` a fraction of that.  The stats core needs only a handful of
distribution functions, so it takes them from here.  Each one calls the special function
scipy.stats itself calls and applies the same rules at the edges of the support and for
invalid parameters as ``scipy.stats.rv_continuous`` / ``rv_discrete`` (0/1 outside the
support, ``nan`` for bad parameters or a ``nan`` argument), so the numbers are the same:

- normal: ``ndtr`` (cdf, and sf = ``ndtr(-x)``), ``ndtri`` (ppf, isf = ``-ndtri(q)``),
  pdf ``exp(-x^2/2)/sqrt(2 pi)``;
- Student t: ``stdtr(df, x)`` (cdf, sf = ``stdtr(df, -x)``), ``stdtrit(df, q)`` (ppf);
- chi-square: ``chdtrc(df, x)`` (sf), ``chdtr`` (cdf);
- binomial cdf/sf/pmf/ppf and the beta quantile: the Boost ufuncs scipy.stats uses
  (``scipy.special._ufuncs._binom_*``, ``_beta_ppf``); on a scipy without them, scipy.stats
  itself (imported then, on first use).

Arrays in (anything :func:`numpy.asarray` takes, broadcast together), numpy out: a 0-d
result is returned as a numpy scalar, as scipy.stats does.
Oracle in the tests (``tests/stats/test_dist.py``): ``scipy.stats`` on grids that include the
extreme tails, the edges of the support and invalid parameters, to 1e-12.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt


def _sc() -> Any:
    """``scipy.special``, imported on first use rather than with this module: importing it costs
    ~0.25 s of CPU (its array-API layer loads numpy.testing, numpy.f2py, numpy.random), and
    commands that import the stats core but compute no distribution function (``--help``, a
    refused command) need none of it.  (The stats floor imports nothing of the package, so not
    ``evaladdon._util.lazy``.)"""
    from scipy import special

    return special

__all__ = [
    "ArrayLike", "beta_ppf", "binom_cdf", "binom_pmf", "binom_ppf", "binom_sf", "chi2_cdf", "chi2_sf", "norm_cdf",
    "norm_isf", "norm_pdf", "norm_ppf", "norm_sf", "t_cdf", "t_isf", "t_ppf", "t_sf",
]

ArrayLike = npt.ArrayLike
_SQRT_2PI = np.sqrt(2 * np.pi)  # as scipy.stats' _norm_pdf_C


def _boost(name: str) -> Any:
    """One of the Boost-based ufuncs scipy.stats.binom / beta call (scipy >= 1.12), or None on
    an older scipy (then scipy.stats itself is used)."""
    from scipy.special import _ufuncs

    return getattr(_ufuncs, name, None)


def _scipy_stats() -> Any:
    from scipy import stats

    return stats


def _f(x: ArrayLike) -> np.ndarray:
    return np.asarray(x, dtype=float)


def _ret(out: np.ndarray) -> Any:
    return out[()] if out.ndim == 0 else out


# --- normal -----------------------------------------------------------------------------

def norm_cdf(x: ArrayLike) -> Any:
    """``Phi(x)`` (= ``scipy.stats.norm.cdf``)."""
    return _sc().ndtr(_f(x))


def norm_sf(x: ArrayLike) -> Any:
    """``1 - Phi(x)`` without cancellation (= ``scipy.stats.norm.sf``)."""
    return _sc().ndtr(-_f(x))


def norm_ppf(q: ArrayLike) -> Any:
    """``Phi^{-1}(q)``: -inf at 0, inf at 1, nan outside [0, 1] (= ``scipy.stats.norm.ppf``)."""
    return _sc().ndtri(_f(q))


def norm_isf(q: ArrayLike) -> Any:
    """``Phi^{-1}(1 - q)`` (= ``scipy.stats.norm.isf``)."""
    return -_sc().ndtri(_f(q))


def norm_pdf(x: ArrayLike) -> Any:
    """``exp(-x^2/2) / sqrt(2 pi)`` (= ``scipy.stats.norm.pdf``)."""
    x = _f(x)
    return np.exp(-x**2 / 2.0) / _SQRT_2PI


# --- Student t ----------------------------------------------------------------------------

def t_cdf(x: ArrayLike, df: ArrayLike) -> Any:
    """Student t cdf with ``df > 0`` degrees of freedom (= ``scipy.stats.t.cdf``)."""
    x, df = np.broadcast_arrays(_f(x), _f(df))
    ok = df > 0
    out = np.where(x >= np.inf, 1.0, 0.0)
    inner = ok & (x > -np.inf) & (x < np.inf)
    out[inner] = _sc().stdtr(df[inner], x[inner])
    out[~ok | np.isnan(x)] = np.nan
    return _ret(out)


def t_sf(x: ArrayLike, df: ArrayLike) -> Any:
    """Student t survival function ``P(T > x)`` (= ``scipy.stats.t.sf``)."""
    x, df = np.broadcast_arrays(_f(x), _f(df))
    ok = df > 0
    out = np.where(x <= -np.inf, 1.0, 0.0)
    inner = ok & (x > -np.inf) & (x < np.inf)
    out[inner] = _sc().stdtr(df[inner], -x[inner])
    out[~ok | np.isnan(x)] = np.nan
    return _ret(out)


def t_ppf(q: ArrayLike, df: ArrayLike) -> Any:
    """Student t quantile (= ``scipy.stats.t.ppf``): -inf at 0, inf at 1."""
    q, df = np.broadcast_arrays(_f(q), _f(df))
    ok = df > 0
    out = np.full(q.shape, np.nan)
    out[ok & (q == 0)] = -np.inf
    out[ok & (q == 1)] = np.inf
    inner = ok & (q > 0) & (q < 1)
    out[inner] = _sc().stdtrit(df[inner], q[inner])
    return _ret(out)


def t_isf(q: ArrayLike, df: ArrayLike) -> Any:
    """Student t upper quantile ``-stdtrit(df, q)`` (= ``scipy.stats.t.isf``)."""
    q, df = np.broadcast_arrays(_f(q), _f(df))
    ok = df > 0
    out = np.full(q.shape, np.nan)
    out[ok & (q == 1)] = -np.inf
    out[ok & (q == 0)] = np.inf
    inner = ok & (q > 0) & (q < 1)
    out[inner] = -_sc().stdtrit(df[inner], q[inner])
    return _ret(out)


# --- chi-square ---------------------------------------------------------------------------

def chi2_sf(x: ArrayLike, df: ArrayLike) -> Any:
    """Chi-square survival function (= ``scipy.stats.chi2.sf``): 1 at ``x <= 0``."""
    x, df = np.broadcast_arrays(_f(x), _f(df))
    ok = df > 0
    out = np.where(ok & (x <= 0), 1.0, 0.0)
    inner = ok & (x > 0) & (x < np.inf)
    out[inner] = _sc().chdtrc(df[inner], x[inner])
    out[~ok | np.isnan(x)] = np.nan
    return _ret(out)


def chi2_cdf(x: ArrayLike, df: ArrayLike) -> Any:
    """Chi-square cdf (= ``scipy.stats.chi2.cdf``): 0 at ``x <= 0``, 1 at ``inf``."""
    x, df = np.broadcast_arrays(_f(x), _f(df))
    ok = df > 0
    out = np.where(ok & (x >= np.inf), 1.0, 0.0)
    inner = ok & (x > 0) & (x < np.inf)
    out[inner] = _sc().chdtr(df[inner], x[inner])
    out[~ok | np.isnan(x)] = np.nan
    return _ret(out)


# --- binomial -----------------------------------------------------------------------------

def _binom_args(k: ArrayLike, n: ArrayLike, p: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    k, n, p = np.broadcast_arrays(_f(k), _f(n), _f(p))
    ok = (n >= 0) & (n == np.round(n)) & (p >= 0) & (p <= 1)
    return k, n, p, ok


def binom_cdf(k: ArrayLike, n: ArrayLike, p: ArrayLike) -> Any:
    """``P(K <= k)`` for ``K ~ Binom(n, p)`` (= ``scipy.stats.binom.cdf``; ``k`` is floored)."""
    _binom_cdf = _boost("_binom_cdf")
    if _binom_cdf is None:  # pragma: no cover
        return _scipy_stats().binom.cdf(k, n, p)
    k, n, p, ok = _binom_args(k, n, p)
    inner = ok & (k >= 0) & (k < n) & np.isfinite(k)
    out = np.where(k >= n, 1.0, 0.0)
    out[inner] = np.clip(_binom_cdf(np.floor(k[inner]), n[inner], p[inner]), 0, 1)
    out[~ok | np.isnan(k)] = np.nan
    return _ret(out)


def binom_sf(k: ArrayLike, n: ArrayLike, p: ArrayLike) -> Any:
    """``P(K > k)`` for ``K ~ Binom(n, p)`` (= ``scipy.stats.binom.sf``)."""
    _binom_sf = _boost("_binom_sf")
    if _binom_sf is None:  # pragma: no cover
        return _scipy_stats().binom.sf(k, n, p)
    k, n, p, ok = _binom_args(k, n, p)
    inner = ok & (k >= 0) & (k < n) & np.isfinite(k)
    out = np.where(ok & (k < 0), 1.0, 0.0)
    out[inner] = np.clip(_binom_sf(np.floor(k[inner]), n[inner], p[inner]), 0, 1)
    out[~ok | np.isnan(k)] = np.nan
    return _ret(out)


def binom_pmf(k: ArrayLike, n: ArrayLike, p: ArrayLike) -> Any:
    """``P(K = k)`` for ``K ~ Binom(n, p)``, 0 at non-integer ``k`` (= ``scipy.stats.binom.pmf``)."""
    _binom_pmf = _boost("_binom_pmf")
    if _binom_pmf is None:  # pragma: no cover
        return _scipy_stats().binom.pmf(k, n, p)
    k, n, p, ok = _binom_args(k, n, p)
    inner = ok & (k >= 0) & (k <= n) & (np.floor(k) == k)
    out = np.zeros(k.shape)
    out[inner] = np.clip(_binom_pmf(k[inner], n[inner], p[inner]), 0, 1)
    out[~ok | np.isnan(k)] = np.nan
    return _ret(out)


def binom_ppf(q: ArrayLike, n: ArrayLike, p: ArrayLike) -> Any:
    """Smallest ``k`` with ``cdf(k) >= q``; -1 at ``q = 0``, ``n`` at 1 (= ``scipy.stats.binom.ppf``)."""
    _binom_ppf = _boost("_binom_ppf")
    if _binom_ppf is None:  # pragma: no cover
        return _scipy_stats().binom.ppf(q, n, p)
    q, n, p, ok = _binom_args(q, n, p)
    out = np.full(q.shape, np.nan)
    out[ok & (q == 0)] = -1.0
    hit = ok & (q == 1)
    out[hit] = n[hit]
    inner = ok & (q > 0) & (q < 1)
    out[inner] = _binom_ppf(q[inner], n[inner], p[inner])
    return _ret(out)


# --- beta ---------------------------------------------------------------------------------

def beta_ppf(q: ArrayLike, a: ArrayLike, b: ArrayLike) -> Any:
    """Quantile of ``Beta(a, b)``, ``a, b > 0`` (= ``scipy.stats.beta.ppf``; Clopper-Pearson, Jeffreys)."""
    _beta_ppf = _boost("_beta_ppf")
    if _beta_ppf is None:  # pragma: no cover
        return _scipy_stats().beta.ppf(q, a, b)
    q, a, b = np.broadcast_arrays(_f(q), _f(a), _f(b))
    ok = (a > 0) & (b > 0)
    out = np.full(q.shape, np.nan)
    out[ok & (q == 0)] = 0.0
    out[ok & (q == 1)] = 1.0
    inner = ok & (q > 0) & (q < 1)
    out[inner] = _beta_ppf(q[inner], a[inner], b[inner])
    return _ret(out)
