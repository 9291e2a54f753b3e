"""The decorator of every compiled kernel of the package.

Only kernel modules (``_kernels.py``, ``_<concern>_kernels.py``) import this
module, and the estimators import those inside the functions that call them,
so that ``import sklearn_sketch`` neither imports numba nor compiles anything.

:func:`kernel` is ``numba.njit(nogil=True, cache=True)``: the compiled
machine code is written to numba's cache (``__pycache__`` beside the module,
else the user's cache folder, or ``$NUMBA_CACHE_DIR`` where set) and reused
by later processes. Two cases where numba itself would fail or surprise:

* No writable cache folder at all (a read-only install and no writable home
  folder): numba raises ``RuntimeError: cannot cache function ...: no locator
  available`` when the module is imported (numba issues 4908, 7248). Here
  the kernels compile without a cache instead, in every process, with one
  warning that says how to give them one.
* ``SKLEARN_SKETCH_KERNEL_CACHE=0`` in the environment turns the cache off
  (every process compiles what it uses).

No ``parallel=True`` (the package's chunk engine runs kernels in its own
threads, see ``utils._chunking``) and no ``fastmath`` (it changes results).

It is also the one home of the other numba and llvmlite names the kernel
modules use: ``intrinsic`` (with ``ir``, ``types`` and ``cgutils``) for the
few operations written as LLVM vector code (``utils._hadamard_kernels``).
"""

import os
import warnings

import numba
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

__all__ = ["CACHE_VARIABLE", "cgutils", "intrinsic", "ir", "kernel", "types"]

CACHE_VARIABLE = "SKLEARN_SKETCH_KERNEL_CACHE"
_warned = False


def _cache_wanted():
    return os.environ.get(CACHE_VARIABLE, "1").strip().lower() not in {"0", "false", "no", "off"}


def _warn_uncached(error):
    global _warned
    if not _warned:
        _warned = True
        warnings.warn(
            f"sklearn-sketch compiles its kernels without a cache, in every process: "
            f"numba found no writable cache folder ({error}). Set NUMBA_CACHE_DIR to a "
            "writable folder to compile them once.",
            RuntimeWarning,
            stacklevel=3,
        )


def kernel(function=None, *, inline="never"):
    """``numba.njit(nogil=True, cache=True)``, uncached where no cache can be written.

    Parameters
    ----------
    function : callable
        The plain Python loop to compile (lazily, at its first call).
    inline : {"never", "always"}, default="never"
        numba's ``inline`` option: ``"always"`` inlines a small helper into
        the kernels of its module that call it, at numba's IR level.

    Returns
    -------
    dispatcher : numba dispatcher
        Or, called without ``function``, the decorator.
    """
    if function is None:
        return lambda function: kernel(function, inline=inline)
    if _cache_wanted():
        try:
            return numba.njit(nogil=True, cache=True, inline=inline)(function)
        except RuntimeError as error:
            if "no locator available" not in str(error):
                raise
            _warn_uncached(error)
    return numba.njit(nogil=True, inline=inline)(function)
