"""The fast Walsh-Hadamard transform.

:func:`fwht` multiplies rows by the Sylvester-ordered +-1 Hadamard matrix
without forming it. The SRHT polynomial sketches and the structured random
Fourier features (SORF, Fastfood) share it: this module validates, and the
compiled loops of ``_hadamard_kernels`` transform (the structured products of
SORF, Fastfood and TensorSRHT too), in the butterfly order described there.
:func:`hadamard_array` is the same transform on arrays of any array API
namespace, for the maps' ``transform_array``.
"""

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

    The butterflies of :func:`~sklearn_sketch.utils._hadamard.fwht` in its
    order (``half = 1, 2, ..., d / 2``), written with reshapes: two levels
    at a time, as the compiled loop computes them, the last axis seen as
    ``(d / (4 half), 4, half)`` and its quartets ``a, b, c, e`` replaced by
    the stacked ``(a+b)+(c+e), (a-b)+(c-e), (a+b)-(c+e), (a-b)-(c-e)``; a
    last single level, for an odd ``log2(d)``, as ``(d / (2 half), 2,
    half)`` and ``a + b, a - b``. The same additions in the same order as
    the compiled loop (the same bits where the namespace rounds as IEEE
    arithmetic does), on whole arrays of the namespace ``xp``: about
    ``log2(d) / 2`` passes over ``U``.

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
    half = 1
    while 4 * half <= d:
        quartets = xp.reshape(U, (*shape[:-1], d // (4 * half), 4, half))
        a, b, c, e = (quartets[..., i, :] for i in range(4))
        ab, a_b, ce, c_e = a + b, a - b, c + e, c - e
        U = xp.reshape(xp.stack([ab + ce, a_b + c_e, ab - ce, a_b - c_e], axis=-2), shape)
        half *= 4
    if half < d:
        pairs = xp.reshape(U, (*shape[:-1], 2, half))
        a, b = pairs[..., 0, :], pairs[..., 1, :]
        U = xp.reshape(xp.stack([a + b, a - b], axis=-2), shape)
    return U
