"""Plain reference Count Sketch: Python loops over rows and stored entries.

The oracle of the compiled kernels (``sklearn_sketch.utils._count_sketch_kernels``),
written to be obviously correct rather than fast: Python integers for the
polynomial hash over ``2**61 - 1``, NumPy scalars of the output's dtype for
every product and sum, entries of a row in stored order (the nonzeros of a
dense row in column order).
"""

import numpy as np
import scipy.sparse as sp

PRIME = 2**61 - 1


def polynomial_hash_reference(coefficients, key):
    """``h(key) = sum_i a_i key**i mod P`` (coefficients in Horner order), exactly."""
    value = 0
    for coefficient in coefficients:
        value = (value * int(key) + int(coefficient)) % PRIME
    return value


def stored_entries(X, i):
    """``(column, value)`` of row ``i``'s stored entries, in stored order."""
    if sp.issparse(X):
        start, stop = X.indptr[i], X.indptr[i + 1]
        return list(zip(X.indices[start:stop], X.data[start:stop]))
    return [(j, X[i, j]) for j in range(X.shape[1]) if X[i, j] != 0]


def count_sketch_reference(X, bucket_of, sign_of, n_sketches, width, dtype, constants=None):
    """Count Sketches ``out[s, i]`` of the rows of ``X``.

    ``bucket_of(s, j)`` and ``sign_of(s, j)`` give key ``j``'s bucket and
    (scaled) sign under sketch ``s``; each product is rounded to ``dtype``
    and added to its bucket in ``dtype``; ``constants = (buckets, values)``
    are added last.
    """
    dtype = np.dtype(dtype)
    out = np.zeros((n_sketches, X.shape[0], width), dtype=dtype)
    for s in range(n_sketches):
        for i in range(X.shape[0]):
            for j, v in stored_entries(X, i):
                product = dtype.type(v * sign_of(s, j))
                b = bucket_of(s, j)
                out[s, i, b] = dtype.type(out[s, i, b] + product)
            if constants is not None and constants[0][s] >= 0:
                b = constants[0][s]
                out[s, i, b] = dtype.type(out[s, i, b] + dtype.type(constants[1][s]))
    return out


def hashed_functions(bucket_hashes, sign_hashes, scales, shifts, width):
    """``bucket_of`` and ``sign_of`` of polynomial hashes evaluated per key."""

    def bucket_of(s, j):
        return (polynomial_hash_reference(bucket_hashes[s], j) % width + int(shifts[s])) % width

    def sign_of(s, j):
        odd = polynomial_hash_reference(sign_hashes[s], j) & 1
        return -scales[s] if odd else scales[s]

    return bucket_of, sign_of
