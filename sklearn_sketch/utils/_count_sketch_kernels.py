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
