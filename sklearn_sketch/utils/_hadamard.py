"""The fast Walsh-Hadamard transform.

:func:`fwht` multiplies rows by the Sylvester-ordered +-1 Hadamard matrix
without forming it. The SRHT polynomial sketches and the structured random
Fourier features (SORF, Fastfood) share it: this module validates, and the
compiled loops of ``_hadamard_kernels`` transform (the structured products of
SORF, Fastfood and TensorSRHT too), in the butterfly order described there.
:func:`hadamard_array` is the same transform on arrays of any array API
namespace, for the maps' ``transform_array``: matrix products with small
Hadamard matrices, the Kronecker factors of the whole one.
"""

import functools

import numpy as np


def hadamard_length(n):
    """The smallest power of two >= ``n`` (1 for ``n <= 1``): a Hadamard length."""
    return 1 << max(int(n) - 1, 0).bit_length()


def fwht(U):
    """Unnormalized fast Walsh-Hadamard transform along the last axis.

    Returns ``U @ H`` (applied to the last axis) with ``H`` the
    Sylvester-ordered +-1 Hadamard matrix of size ``d = U.shape[-1]``, a
    power of two, by a compiled loop: ``log2(d)`` butterfly levels
    ``(a + b, a - b)``, ``half = 1, 2, ..., d / 2`` in that order
    (``U.size * log2(d)`` additions). Each row's result depends on that row
    alone, bit for bit.

    Parameters
    ----------
    U : ndarray, real, last axis a power of two
        Transformed in place, and returned, when it is a C-contiguous,
        writable float32 or float64 array; otherwise a transformed copy
        is returned (float64 for other dtypes).

    Returns
    -------
    U_transformed : ndarray of the shape of ``U``

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.linalg import hadamard
    >>> U = np.arange(8.0).reshape(1, 8)
    >>> bool(np.allclose(fwht(U.copy()), U @ hadamard(8)))
    True
    """
    from ._hadamard_kernels import fwht_rows

    d = U.shape[-1]
    if d & (d - 1):
        raise ValueError(f"fwht needs a power-of-two length, got {d}.")
    dtype = U.dtype if U.dtype in (np.float32, np.float64) else np.float64
    # The kernel writes the rows of a C-ordered array (an elementwise product
    # of gathered columns is F-ordered): a copy only where U is not one.
    rows = U if U.flags.c_contiguous and U.flags.writeable else None
    if rows is None or U.dtype != dtype:
        rows = np.ascontiguousarray(U, dtype=dtype).copy()
    flat = rows.reshape(-1, d)
    fwht_rows(flat)
    return rows


def hadamard_array(U, xp):
    """Unnormalized Walsh-Hadamard transform along the last axis of ``U``, for any namespace.

    The Sylvester-ordered Hadamard matrix of length ``d = 2**k`` is the
    Kronecker product of smaller ones, ``H_d = H_f1 (x) H_f2 (x) ...``, each of
    at most 64 (``k`` split evenly): the last axis, seen as ``(f1, f2, ...)``,
    is multiplied by each factor along its own axis, one matrix product per
    factor (``xp.matmul`` on a reshaped view, no copy). Two or three passes
    over ``U`` for the lengths the maps use, where the butterflies of
    :func:`fwht` make ``log2(d)``; the same transform, summed in another
    order (equal to :func:`fwht` within rounding).

    Parameters
    ----------
    U : array of shape (..., d), d a power of two, real floating
    xp : array namespace of ``U``

    Returns
    -------
    U_transformed : array of the shape and dtype of ``U``
    """
    shape = tuple(U.shape)
    d = shape[-1]
    before = 1
    for f in _kronecker_factors(d):
        H = xp.asarray(_sylvester(f), dtype=U.dtype, device=U.device)
        after = d // (before * f)
        if after > 1:  # H along the middle axis of (..., before, f, after)
            U = xp.matmul(H, xp.reshape(U, (*shape[:-1], before, f, after)))
        else:  # the last axis (H is symmetric)
            U = xp.matmul(xp.reshape(U, (*shape[:-1], before, f)), H)
        before *= f
    return xp.reshape(U, shape)


# The largest Kronecker factor of hadamard_array: 64 products a value, fewer
# passes over the array than smaller factors would need.
_MAX_FACTOR_BITS = 6


def _kronecker_factors(d):
    """Powers of two of at most ``2**_MAX_FACTOR_BITS``, as even as can be, whose product is ``d``."""
    k = d.bit_length() - 1
    n_factors = -(-k // _MAX_FACTOR_BITS)
    return [1 << (k // n_factors + (i < k % n_factors)) for i in range(n_factors)]


@functools.lru_cache(maxsize=None)
def _sylvester(f):
    """The Sylvester-ordered +-1 Hadamard matrix of length ``f`` (float64; kept, never written)."""
    H = np.ones((1, 1))
    while H.shape[0] < f:
        H = np.block([[H, H], [H, -H]])
    return H
