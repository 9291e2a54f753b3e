"""The fast Walsh-Hadamard transform.

:func:`fwht` multiplies rows by the Sylvester-ordered +-1 Hadamard matrix
without forming it. The SRHT polynomial sketches and the structured random
Fourier features (SORF, Fastfood) share it: this module validates and plans,
and the compiled loops of ``_hadamard_kernels`` transform (the structured
products of SORF, Fastfood and TensorSRHT too, one row at a time).
"""

import functools

import numpy as np

# From length 64 on, the transform is applied as a Kronecker product,
# H_d = H_f1 (x) H_f2 (x) ... with Sylvester factors of at most 32, one pass
# per factor in which every output is the sum of its f signed inputs, taken
# in order from zero. These sums were BLAS products once, and are kept, in
# that order, so that every output keeps its bits; the rounding of a sum
# depends on its order, so that a butterfly network, with fewer additions,
# would give other last bits. The default plan balances factors of at most
# 32; ``factor_log2`` chooses factors of 16 after a smaller leading one
# instead (fewer additions; other bits), which the structured RBF features
# use. Each row is transformed alone, so its bits never depend on its batch.
_MAX_HADAMARD_FACTOR_LOG2 = 5
# Below this length the few butterfly levels are the transform.
_MIN_KRONECKER_LENGTH = 64


def hadamard_length(n):
    """The smallest power of two >= ``n`` (1 for ``n <= 1``): a Hadamard length."""
    return 1 << max(int(n) - 1, 0).bit_length()


@functools.lru_cache(maxsize=None)
def _hadamard_factor(size, dtype):
    """The Sylvester +-1 Hadamard matrix of a power-of-two ``size`` (read-only)."""
    H = np.ones((1, 1), dtype=dtype)
    while H.shape[0] < size:
        H = np.block([[H, H], [H, -H]])
    H.setflags(write=False)
    return H


def _hadamard_factor_sizes(d, factor_log2=None):
    """The Kronecker factors of ``H_d``, leading tensor axis first.

    ``None``: ``log2(d)`` split into the fewest balanced parts of at most 5
    bits (32 x 32 for ``d = 1024``). An int ``b``: parts of ``b`` bits after
    one smaller leading part (4 x 16 x 16 for ``d = 1024`` and ``b = 4``):
    fewer flops, the cheap leading products (short factor, long contiguous
    suffix) first. The two plans sum in different orders, so their results
    differ in the last bits.
    """
    k = d.bit_length() - 1
    if factor_log2 is not None:
        bits = [factor_log2] * (k // factor_log2)
        return [1 << b for b in ([k % factor_log2] if k % factor_log2 else []) + bits]
    n_factors = -(-k // _MAX_HADAMARD_FACTOR_LOG2)
    bits = [k // n_factors + (i < k % n_factors) for i in range(n_factors)]
    return [1 << b for b in bits]


def hadamard_plan(d, factor_log2=None):
    """The factor sizes of the transform of length ``d`` (a power of two), as
    the kernels take them: empty below length 64 (butterflies)."""
    if d < _MIN_KRONECKER_LENGTH:
        return np.zeros(0, dtype=np.intp)
    if factor_log2 is not None and not 1 <= factor_log2 <= _MAX_HADAMARD_FACTOR_LOG2:
        raise ValueError(f"factor_log2 must be in [1, {_MAX_HADAMARD_FACTOR_LOG2}], "
                         f"got {factor_log2}.")
    return np.array(_hadamard_factor_sizes(d, factor_log2), dtype=np.intp)


def hadamard_factor(dtype):
    """The 32 x 32 Sylvester matrix in ``dtype``: its leading blocks are every factor."""
    return _hadamard_factor(1 << _MAX_HADAMARD_FACTOR_LOG2, np.dtype(dtype))


def fwht(U, factor_log2=None):
    """Unnormalized fast Walsh-Hadamard transform along the last axis.

    Returns ``U @ H`` (applied to the last axis) with ``H`` the
    Sylvester-ordered +-1 Hadamard matrix of size ``d = U.shape[-1]``, a
    power of two, computed one row at a time by a compiled loop: below
    ``d = 64`` by ``log2(d)`` butterfly levels, from 64 on by one pass per
    Kronecker factor ``H_f`` of ``H = H_f1 (x) H_f2 (x) ...`` (factors of at
    most 32, ``O(U.size * sum(f))`` additions). Each row's result depends on
    that row alone, bit for bit.

    Parameters
    ----------
    U : ndarray, real, last axis a power of two
        Transformed in place, and returned, when it is a C-contiguous,
        writable float32 or float64 array; otherwise a transformed copy
        is returned (float64 for other dtypes).

    factor_log2 : int, default=None
        The Kronecker plan for ``d >= 64``: ``None``, the fewest balanced
        factors of at most 32; ``b``, factors of ``2**b`` after a smaller
        leading one (fewer additions). Each plan gives its own bits, the
        same for a row whatever its batch.

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
    fwht_rows(flat, hadamard_plan(d, factor_log2), hadamard_factor(dtype))
    return rows
