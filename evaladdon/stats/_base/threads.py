"""BLAS threads around small matrix products: one, when ``threadpoolctl`` is installed."""

from __future__ import annotations

import contextlib
from typing import Any, ContextManager

__all__ = ["one_blas_thread"]

_CONTROLLER: Any = None


def one_blas_thread() -> ContextManager[Any]:
    """Limit BLAS to one thread around the replicate products when ``threadpoolctl`` is there.

    The products are small (``b x C`` by ``C x m``); BLAS threads only add synchronisation,
    and on shared cores they make them 10-50x slower.  Without threadpoolctl nothing changes.
    """
    global _CONTROLLER
    if _CONTROLLER is None:
        try:
            from threadpoolctl import ThreadpoolController

            _CONTROLLER = ThreadpoolController()
        except ImportError:  # optional: only speed depends on it
            _CONTROLLER = False
    if _CONTROLLER is False:
        return contextlib.nullcontext()
    return _CONTROLLER.limit(limits=1, user_api="blas")  # type: ignore[no-any-return]
