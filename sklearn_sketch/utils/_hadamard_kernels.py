"""Compiled loops of the Walsh-Hadamard transform and the structured products built on it.

Every kernel works one row at a time in buffers of the row's length, which
stay in the core's cache, and writes only its result. The transform of a
row is the one of :mod:`sklearn_sketch.utils._hadamard` (which validates,
plans and calls these loops): below length 64, ``log2(d)`` butterfly levels;
from 64 on, the Kronecker factorization ``H_d = H_f1 (x) H_f2 (x) ...``
with one pass per factor, in which each output is the sum of its ``f``
signed inputs taken in order, starting from zero (the order of the BLAS
products that computed it before, so the bits are those). The factor
``H_f`` is the leading ``f x f`` block of the Sylvester matrix ``H``
passed in (``H[i, k] = (-1)^popcount(i & k)``).

The inner loops run over a contiguous index with the factor's sum unrolled
inside (its length is a constant in each specialized call), so that the
compiler keeps the sums in vector registers.
"""

import numpy as np

from ._numba import kernel


@kernel(inline="always")
def _mode_pass(x, y, prefix, f, suffix, H):
    """``y[p, i, s] = sum_k H[i, k] x[p, k, s]`` over the row seen as (prefix, f, suffix)."""
    X = x.reshape((prefix, f, suffix))
    Y = y.reshape((prefix, f, suffix))
    zero = x.dtype.type(0)
    for p in range(prefix):
        for i in range(f):
            for s in range(suffix):
                total = zero
                for k in range(f):
                    total += H[i, k] * X[p, k, s]
                Y[p, i, s] = total


@kernel(inline="always")
def _last_pass(x, y, prefix, f, H):
    """``y[p, i] = sum_k x[p, k] H[k, i]``: the last factor, contiguous in the row."""
    zero = x.dtype.type(0)
    for p in range(prefix):
        start = p * f
        for i in range(f):
            total = zero
            for k in range(f):
                total += H[k, i] * x[start + k]
            y[start + i] = total


@kernel
def _factor_pass(x, y, prefix, f, suffix, H):
    """One Kronecker factor, with its length a constant for the common factors."""
    if suffix == 1:
        if f == 32:
            _last_pass(x, y, prefix, 32, H)
        elif f == 16:
            _last_pass(x, y, prefix, 16, H)
        elif f == 8:
            _last_pass(x, y, prefix, 8, H)
        else:
            _last_pass(x, y, prefix, f, H)
    elif f == 32:
        _mode_pass(x, y, prefix, 32, suffix, H)
    elif f == 16 and suffix == 16:
        _mode_pass(x, y, prefix, 16, 16, H)
    elif f == 16:
        _mode_pass(x, y, prefix, 16, suffix, H)
    elif f == 8:
        _mode_pass(x, y, prefix, 8, suffix, H)
    elif f == 4:
        _mode_pass(x, y, prefix, 4, suffix, H)
    elif f == 2:
        _mode_pass(x, y, prefix, 2, suffix, H)
    else:
        _mode_pass(x, y, prefix, f, suffix, H)


@kernel
def _butterfly_level(x, y, half):
    """``y = (a + b, a - b)`` for every pair of halves of length ``half``."""
    for start in range(0, x.size, 2 * half):
        for t in range(start, start + half):
            a, b = x[t], x[t + half]
            y[t] = a + b
            y[t + half] = a - b


@kernel
def _fwht_row(x, work, plan, H):
    """Transform ``x`` (overwritten) with ``work`` as scratch: True where the
    result is in ``work``. An empty ``plan`` means butterflies."""
    d = x.size
    source, target = x, work
    in_work = False
    if plan.size == 0:
        half = 1
        while half < d:
            _butterfly_level(source, target, half)
            source, target = target, source
            in_work = not in_work
            half *= 2
        return in_work
    prefix = 1
    for j in range(plan.size):
        f = plan[j]
        _factor_pass(source, target, prefix, f, d // (prefix * f), H)
        source, target = target, source
        in_work = not in_work
        prefix *= f
    return in_work


@kernel
def fwht_rows(rows, plan, H):
    """The transform of every row of ``rows`` (n, d), in place."""
    work = np.empty(rows.shape[1], dtype=rows.dtype)
    for r in range(rows.shape[0]):
        if _fwht_row(rows[r], work, plan, H):
            rows[r] = work


@kernel
def _signed_padded(row, signs, buffer):
    """``buffer = signs * row`` zero-padded: the padding gets ``signs * 0``
    (signed zeros, as a product of the padded row gives)."""
    n_columns = row.size
    zero = buffer.dtype.type(0)
    for j in range(n_columns):
        buffer[j] = row[j] * signs[j]
    for j in range(n_columns, buffer.size):
        buffer[j] = signs[j] * zero


@kernel
def sorf_rows(X, signs, scales, plan, H, out):
    """``S H D1 H D2 H D3 x`` of every row and block into ``out`` (n, n_blocks * width).

    ``signs`` (3, n_blocks, width) holds ``D1, D2, D3``; ``scales``
    (n_blocks, width) the row scales. The products follow the order
    ``D3``, transform, ``D2``, transform, ``D1``, transform, ``S``.
    """
    n_blocks, width = scales.shape
    a = np.empty(width, dtype=out.dtype)
    b = np.empty(width, dtype=out.dtype)
    for r in range(X.shape[0]):
        for block in range(n_blocks):
            _signed_padded(X[r], signs[2, block], a)
            for diagonal in (signs[1, block], signs[0, block], scales[block]):
                if _fwht_row(a, b, plan, H):
                    a, b = b, a
                for j in range(width):
                    a[j] *= diagonal[j]
            out[r, block * width : (block + 1) * width] = a


@kernel
def fastfood_rows(X, signs, permutations, gaussian, scales, plan, H, out):
    """``S H G Pi H B x`` of every row and block into ``out`` (n, n_blocks * width).

    ``Pi`` gathers: ``(Pi v)[j] = v[permutations[block, j]]``.
    """
    n_blocks, width = scales.shape
    a = np.empty(width, dtype=out.dtype)
    b = np.empty(width, dtype=out.dtype)
    for r in range(X.shape[0]):
        for block in range(n_blocks):
            _signed_padded(X[r], signs[block], a)
            if _fwht_row(a, b, plan, H):
                a, b = b, a
            order = permutations[block]
            for j in range(width):
                b[j] = a[order[j]] * gaussian[block, j]
            result = a if _fwht_row(b, a, plan, H) else b
            for j in range(width):
                out[r, block * width + j] = result[j] * scales[block, j]


@kernel
def srht_rows(U, signs, coordinates, plan, H, out, first, scale):
    """One degree of TensorSRHT: ``out[r, c]`` is set to (``first``) or
    multiplied by coordinate ``coordinates[c]`` of the transformed blocks
    ``H (signs[block] * U[r])``, then multiplied by ``scale`` unless it is 1.
    """
    n_blocks, d = signs.shape
    blocks = np.empty(n_blocks * d, dtype=out.dtype)
    work = np.empty(d, dtype=out.dtype)
    for r in range(U.shape[0]):
        for block in range(n_blocks):
            a = blocks[block * d : (block + 1) * d]
            for j in range(d):
                a[j] = U[r, j] * signs[block, j]
            if _fwht_row(a, work, plan, H):
                a[:] = work
        for c in range(coordinates.size):
            value = blocks[coordinates[c]]
            out[r, c] = value if first else out[r, c] * value
        if scale != 1:
            for c in range(coordinates.size):
                out[r, c] *= scale
