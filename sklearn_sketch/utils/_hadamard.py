"""The fast Walsh-Hadamard transform.

:func:`fwht` multiplies rows by the Sylvester-ordered +-1 Hadamard matrix
without forming it. The SRHT polynomial sketches and the structured random
Fourier features (SORF, Fastfood) share it.
"""

import functools

import numpy as np

# The Walsh-Hadamard transform is applied as a Kronecker product,
# H_d = H_f1 (x) H_f2 (x) ... with Sylvester factors of at most 32: each
# factor is one batched matrix product over the row viewed as an
# (f1, f2, ...) tensor. BLAS does the 2 * sum(f) flops per element much
# faster than log2(d) elementwise numpy butterfly passes, which are
# memory-bound and slow when the butterfly stride is small. Larger factors
# are slower (fewer but worse-shaped products). The default plan balances
# factors of at most 32; ``factor_log2`` chooses factors of 16 after a
# smaller leading one instead (fewer flops; other bits), which the
# structured RBF features use.
#
# Bitwise chunk invariance survives BLAS here because
# * the batch axis of every product is the row axis (or rows times a prefix
#   of the row's own tensor), so a row's result comes from products of that
#   row's values alone, with the same shapes whatever its chunk is: numpy's
#   matmul calls BLAS once per batch item, never across them;
# * the factor entries are +-1, so every product term is exact and each
#   output value is a plain sum of +-inputs, which BLAS kernels accumulate
#   along the inner dimension; the tests check rows bit for bit across
#   chunkings, duplicated rows and n_jobs.
_MAX_HADAMARD_FACTOR_LOG2 = 5
# Below this length the few butterfly levels are cheaper than the products.
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


def _fwht_butterflies(rows, work):
    """log2(d) butterfly levels between ping-pong buffers (elementwise only)."""
    n, d = rows.shape
    source, target = rows, work
    half = 1
    while half < d:
        pairs = source.reshape(n, d // (2 * half), 2, half)
        result = target.reshape(n, d // (2 * half), 2, half)
        np.add(pairs[:, :, 0], pairs[:, :, 1], out=result[:, :, 0])
        np.subtract(pairs[:, :, 0], pairs[:, :, 1], out=result[:, :, 1])
        source, target = target, source
        half *= 2
    return source


def _fwht_kronecker(rows, work, factor_log2):
    """One batched product per Kronecker factor, batched over rows (see above)."""
    n, d = rows.shape
    sizes = _hadamard_factor_sizes(d, factor_log2)
    source, target = rows, work
    prefix = 1
    for f in sizes[:-1]:
        # Mode product with the factor of this tensor axis: H_f @ (f, suffix)
        # for every (row, prefix index).
        suffix = d // (prefix * f)
        np.matmul(
            _hadamard_factor(f, rows.dtype),
            source.reshape(n * prefix, f, suffix),
            out=target.reshape(n * prefix, f, suffix),
        )
        source, target = target, source
        prefix *= f
    # The last axis is contiguous: (prefix, f) @ H_f for every row.
    f = sizes[-1]
    np.matmul(
        source.reshape(n, prefix, f),
        _hadamard_factor(f, rows.dtype),
        out=target.reshape(n, prefix, f),
    )
    return target


def fwht(U, work=None, factor_log2=None):
    """Unnormalized fast Walsh-Hadamard transform along the last axis.

    Returns ``U @ H`` (applied to the last axis) with ``H`` the
    Sylvester-ordered +-1 Hadamard matrix of size ``d = U.shape[-1]``, a
    power of two. The cost is ``O(U.size * sum(f))`` for ``H = H_f1 (x)
    H_f2 (x) ...`` with factors of at most 32 (``sum(f) = 64`` for
    ``d = 1024``), done by batched BLAS products, with no Python loop over
    rows or columns; below ``d = 64`` by ``log2(d)`` elementwise butterfly
    levels. ``U`` may be overwritten and the result may share
    its memory. Each row's result depends on that row alone, bit for bit
    (the products are batched over rows and their +-1 terms are exact).

    Parameters
    ----------
    U : ndarray, real, last axis a power of two

    work : ndarray of the shape and dtype of ``U``, default=None
        Scratch space, for callers that transform many times: then ``U``
        and ``work`` must be C-contiguous, the passes alternate between
        them, and the result (returned) is the one the last pass wrote,
        ``U`` or ``work``. ``None`` allocates it.

    factor_log2 : int, default=None
        The Kronecker plan for ``d >= 64``: ``None``, the fewest balanced
        factors of at most 32; ``b``, factors of ``2**b`` after a smaller
        leading one (fewer flops). Each plan gives its own bits, the same
        for a row whatever its batch.

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
    d = U.shape[-1]
    if d & (d - 1):
        raise ValueError(f"fwht needs a power-of-two length, got {d}.")
    # The products write through reshaped views of C-ordered buffers, so the
    # rows must be C-ordered: an elementwise product of a gathered (F-ordered)
    # array is not, and a reshape of it would be a copy that drops the
    # writes. A copy is made only in that case.
    if work is not None:
        if not (U.flags.c_contiguous and work.flags.c_contiguous):
            raise ValueError("fwht with a work buffer needs C-contiguous arrays.")
        rows, work = U.reshape(-1, d), work.reshape(-1, d)
    else:
        rows = np.ascontiguousarray(U).reshape(-1, d)
        work = np.empty(rows.shape, dtype=rows.dtype)
    if d < _MIN_KRONECKER_LENGTH:
        result = _fwht_butterflies(rows, work)
    else:
        result = _fwht_kronecker(rows, work, factor_log2)
    return result.reshape(U.shape)
