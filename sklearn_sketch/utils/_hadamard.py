"""The fast Walsh-Hadamard transform.

:func:`fwht` multiplies rows by the Sylvester-ordered +-1 Hadamard matrix
without forming it. The SRHT polynomial sketches and the structured random
Fourier features (SORF, Fastfood) share it: this module validates, and the
compiled loops of ``_hadamard_kernels`` transform (the structured products of
SORF, Fastfood and TensorSRHT too), in the butterfly order described there.
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
