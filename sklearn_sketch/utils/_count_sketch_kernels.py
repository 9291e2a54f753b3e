"""Compiled loops of the Count Sketch: the scatter of stored entries into buckets.

Private kernels of ``utils._count_sketch``, which validates the arrays and
chooses the kernel (this module imports numba, so it is imported inside
the functions that call it). Every kernel writes, for ``S`` sketches at
once, ``out[s, i, :]``, the Count Sketch of row ``i`` under sketch ``s``:
the row is zeroed, then each stored entry ``(i, j, v)`` of the row, in
stored order, adds ``sign_s(j) * v`` (rounded to the output's dtype) to
bucket ``h_s(j)``, then the optional constant of the sketch is added. That
is the order of NumPy's and SciPy's CSR-to-dense conversion, so the sums
are the same bits as there.

The bucket and sign of a key come either from tables (``_tables`` kernels,
one entry per key) or from the polynomial hashes over ``2**61 - 1`` of
``utils._hashing``, evaluated per entry (``_hashed`` kernels): that costs
O(nnz) whatever the number of features, with no sort of the chunk's
indices. The hash arithmetic below is that of ``_hashing.polynomial_hash``
(the same values: both reduce fully modulo the prime), in uint64 with
uint64 constants only.
"""

import numpy as np

from ._numba import kernel

_P = np.uint64((1 << 61) - 1)
_LOW31 = np.uint64((1 << 31) - 1)
_LOW30 = np.uint64((1 << 30) - 1)
_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U30 = np.uint64(30)
_U31 = np.uint64(31)
_U61 = np.uint64(61)


@kernel
def _fold(x):
    """Partly reduce ``x < 2**64`` modulo P: congruent and ``<= P``."""
    x = (x & _P) + (x >> _U61)
    return (x & _P) + (x >> _U61)


@kernel
def _mulmod(a, b):
    """``a * b`` modulo P, partly reduced, for ``a, b <= 2**61`` (31/30-bit halves)."""
    a_hi, a_lo = a >> _U31, a & _LOW31
    b_hi, b_lo = b >> _U31, b & _LOW31
    middle = a_hi * b_lo + a_lo * b_hi
    total = ((a_hi * b_hi) << _U1) + a_lo * b_lo
    total += middle >> _U30
    total += (middle & _LOW30) << _U31
    return _fold(total)


@kernel
def _mulmod_small(a, b):
    """``a * b`` modulo P, partly reduced, for ``a <= 2**61`` and ``b < 2**31``."""
    high = (a >> _U31) * b
    total = (a & _LOW31) * b
    total += high >> _U30
    total += (high & _LOW30) << _U31
    return _fold(total)


@kernel
def _polynomial_hash(coefficients, key):
    """The polynomial hash (Horner order coefficients) of one uint64 key, in ``[0, P)``."""
    value = coefficients[0]
    small = key <= _LOW31
    for c in range(1, coefficients.shape[0]):
        value = _mulmod_small(value, key) if small else _mulmod(value, key)
        value = _fold(value + coefficients[c])
    return _U0 if value == _P else value


@kernel
def _entry_hashes(key, bucket_hashes, sign_hashes, scales, shifts, width, s):
    """Bucket and signed scale of ``key`` under hashed sketch ``s``."""
    bucket = _polynomial_hash(bucket_hashes[s], key) % width
    bucket = (bucket + shifts[s]) % width
    odd = _polynomial_hash(sign_hashes[s], key) & _U1
    sign = -scales[s] if odd else scales[s]
    return np.intp(bucket), sign


@kernel
def _start_row(out, i):
    """Zero row ``i`` of every sketch."""
    for s in range(out.shape[0]):
        out[s, i, :] = 0


@kernel
def _finish_row(out, i, constant_buckets, constant_values):
    """Add each sketch's constant (a bucket below 0: none) after the row's entries."""
    for s in range(out.shape[0]):
        if constant_buckets[s] >= 0:
            out[s, i, constant_buckets[s]] += constant_values[s]


@kernel
def _scatter_csr_tables(indptr, indices, data, buckets, signs, constant_buckets,
                        constant_values, out):
    """Count Sketches of CSR rows; key ``j`` goes to ``buckets[s, j]`` with ``signs[s, j]``."""
    # A one-value array of the output's dtype rounds each product to it
    # before the sum, as the conversion of a CSR matrix of the products does.
    product = np.empty(1, dtype=out.dtype)
    for i in range(out.shape[1]):
        _start_row(out, i)
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            for s in range(out.shape[0]):
                product[0] = data[k] * signs[s, j]
                out[s, i, buckets[s, j]] += product[0]
        _finish_row(out, i, constant_buckets, constant_values)


@kernel
def _scatter_dense_tables(X, buckets, signs, constant_buckets, constant_values, out):
    """:func:`_scatter_csr_tables` of the nonzeros of dense rows, in column order."""
    product = np.empty(1, dtype=out.dtype)
    for i in range(out.shape[1]):
        _start_row(out, i)
        for j in range(X.shape[1]):
            v = X[i, j]
            if v != 0:  # the entries of the row's CSR form (NaN included)
                for s in range(out.shape[0]):
                    product[0] = v * signs[s, j]
                    out[s, i, buckets[s, j]] += product[0]
        _finish_row(out, i, constant_buckets, constant_values)


@kernel
def _scatter_csr_hashed(indptr, indices, data, bucket_hashes, sign_hashes, scales, shifts,
                        constant_buckets, constant_values, out):
    """Count Sketches of CSR rows; key ``j`` goes to bucket ``(h_s(j) + shifts[s]) mod width``
    with sign ``+-scales[s]``, both hashed per entry."""
    width = np.uint64(out.shape[2])
    product = np.empty(1, dtype=out.dtype)
    for i in range(out.shape[1]):
        _start_row(out, i)
        for k in range(indptr[i], indptr[i + 1]):
            key = np.uint64(indices[k])
            for s in range(out.shape[0]):
                bucket, sign = _entry_hashes(
                    key, bucket_hashes, sign_hashes, scales, shifts, width, s
                )
                product[0] = data[k] * sign
                out[s, i, bucket] += product[0]
        _finish_row(out, i, constant_buckets, constant_values)


@kernel
def _scatter_dense_hashed(X, bucket_hashes, sign_hashes, scales, shifts, constant_buckets,
                          constant_values, out):
    """:func:`_scatter_csr_hashed` of the nonzeros of dense rows, in column order."""
    width = np.uint64(out.shape[2])
    product = np.empty(1, dtype=out.dtype)
    for i in range(out.shape[1]):
        _start_row(out, i)
        for j in range(X.shape[1]):
            v = X[i, j]
            if v != 0:
                for s in range(out.shape[0]):
                    bucket, sign = _entry_hashes(
                        np.uint64(j), bucket_hashes, sign_hashes, scales, shifts, width, s
                    )
                    product[0] = v * sign
                    out[s, i, bucket] += product[0]
        _finish_row(out, i, constant_buckets, constant_values)


@kernel
def _hashed_unit_entries(coefficients, columns, stride, real_values, imag_values, out):
    """Entries ``out[c, k] = real_values[code]``, ``out[c, m + k] = imag_values[code]``
    of a projection whose entry (row ``k``, column ``columns[c]``) is the unit
    complex number of the two low bits ``code`` of the hash of key
    ``k * stride + columns[c]``."""
    m = out.shape[1] // 2
    three = np.uint64(3)
    for c in range(columns.shape[0]):
        column = np.uint64(columns[c])
        for k in range(m):
            key = np.uint64(k) * np.uint64(stride) + column
            code = _polynomial_hash(coefficients, key) & three
            out[c, k] = real_values[code]
            out[c, m + k] = imag_values[code]
