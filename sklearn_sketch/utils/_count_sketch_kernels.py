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

The bucket and sign of a key come from tables: ``buckets[s, key]`` and
``signs[s, key]``. A key is a feature (tables of every feature) or, for
input wider than its stored entries, the entry's position in the chunk's
``indices`` (tables of the entries, hashed by ``utils._hash_kernels``, the
one compiled home of the polynomial hash): O(nnz) either way.
"""

import numpy as np

from ._numba import kernel


@kernel
def _scatter_csr_tables(indptr, indices, data, buckets, signs, constant_buckets,
                        constant_values, out):
    """Count Sketches of CSR rows; key ``j`` goes to ``buckets[s, j]`` with ``signs[s, j]``."""
    # Each product is rounded to the output's dtype before the sum, as the
    # conversion of a CSR matrix of the products does (a no-op when the
    # dtypes agree).
    cast = out.dtype.type
    for s in range(out.shape[0]):
        bucket, sign = buckets[s], signs[s]
        for i in range(out.shape[1]):
            row = out[s, i]
            row[:] = 0
            for k in range(indptr[i], indptr[i + 1]):
                j = indices[k]
                row[bucket[j]] += cast(data[k] * sign[j])
            if constant_buckets[s] >= 0:
                row[constant_buckets[s]] += constant_values[s]


@kernel
def _scatter_dense_tables(X, buckets, signs, constant_buckets, constant_values, out):
    """:func:`_scatter_csr_tables` of the nonzeros of dense rows, in column order."""
    cast = out.dtype.type
    for s in range(out.shape[0]):
        bucket, sign = buckets[s], signs[s]
        for i in range(out.shape[1]):
            row = out[s, i]
            row[:] = 0
            x = X[i]
            for j in range(x.size):
                v = x[j]
                if v != 0:  # the entries of the row's CSR form (NaN included)
                    row[bucket[j]] += cast(v * sign[j])
            if constant_buckets[s] >= 0:
                row[constant_buckets[s]] += constant_values[s]
