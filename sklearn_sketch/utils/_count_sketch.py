"""The Count Sketch (Charikar, Chen & Farach-Colton 2002) of the rows of a CSR matrix.

Several estimators first reduce wide input by a Count Sketch whose cost
follows the nonzeros: each feature ``i`` goes to a bucket ``h(i)`` with a
sign ``s(i)``, so that ``E <C x, C y> = <x, y>``. The hashes are
polynomial hashes over ``2**61 - 1`` (``utils._hashing``).
"""

import numpy as np
import scipy.sparse as sp

from ._compat import csr_todense
from ._hashing import (
    BUCKET_HASH_INDEPENDENCE,
    SIGN_HASH_INDEPENDENCE,
    draw_polynomial_hashes,
    hash_to_buckets,
    hash_to_signs,
    polynomial_hash,
)
from ._sparse import dense_to_csr, gather


def draw_hash_down(random_state, n_sketches):
    """Independent Count Sketch hashes, one row per hashed-down SRHT input.

    Returns
    -------
    hashes : ndarray of shape (n_sketches, 6), dtype uint64
        Pairwise independent bucket hash (first two coefficients) and 4-wise
        independent sign hash (last four) of each sketch.
    """
    buckets = draw_polynomial_hashes(random_state, n_sketches, BUCKET_HASH_INDEPENDENCE)
    signs = draw_polynomial_hashes(random_state, n_sketches, SIGN_HASH_INDEPENDENCE)
    return np.hstack([buckets, signs])


def hash_down_keys(hashes, keys, width, dtype):
    """Bucket (intp) and sign (``dtype``) of integer keys under one hash-down row."""
    split = BUCKET_HASH_INDEPENDENCE
    buckets = hash_to_buckets(polynomial_hash(hashes[:split], keys), width)
    signs = hash_to_signs(polynomial_hash(hashes[split:], keys), dtype)
    return buckets, signs


def count_sketch_rows(X, buckets, signs, features, out):
    """Count Sketch of every row of a CSR ``X``, written into ``out``.

    Entry ``k`` of row ``r`` adds ``X.data[k] * signs[features[k]]`` to
    ``out[r, buckets[features[k]]]``: O(nnz) work, each row on its own (the
    CSR-to-dense conversion sums a row's entries in storage order), so a
    row's result is the same bits in any chunk.

    Parameters
    ----------
    X : csr_matrix of shape (n_rows, n_features)
    buckets, signs : ndarray of shape (n_keys,)
        Bucket and (scaled) sign of each hashed feature.
    features : ndarray of shape (nnz,)
        The position in ``buckets`` and ``signs`` of each stored entry's
        feature.
    out : ndarray of shape (n_rows, n_buckets)

    Returns
    -------
    out : ndarray of shape (n_rows, n_buckets)
    """
    n_rows, n_buckets = out.shape
    features = np.asarray(features).astype(np.intp, copy=False)
    index_dtype = X.indptr.dtype if n_buckets <= np.iinfo(X.indptr.dtype).max else np.int64
    values = X.data * gather(signs, features)
    targets = gather(buckets, features).astype(index_dtype, copy=False)
    out.fill(0)
    # The CSR matrix (values, targets) summed into ``out`` row by row: the
    # routine of ``toarray``, without building a matrix object per chunk.
    csr_todense(
        n_rows, n_buckets, X.indptr.astype(index_dtype, copy=False), targets,
        values.astype(out.dtype, copy=False), out,
    )
    return out


def hash_down(X, hashes, width, gamma, coef0, dtype):
    """Count Sketch of the augmented rows ``x' = [sqrt(gamma) x, sqrt(coef0)]``.

    Key ``i < n_features`` is feature ``i`` and key ``n_features`` the
    constant (absent when ``coef0 = 0``). Only the keys present in ``X``
    are hashed: O(nnz log nnz) work, whatever ``n_features`` is. For
    independent hashes ``C``, ``E <C x', C y'> = <x', y'>`` and
    ``Var <C x', C y'> = (1 / width) sum_{i != j} (x'_i^2 y'_j^2 +
    x'_i y'_i x'_j y'_j)`` (Charikar et al. 2002; Pham & Pagh 2013).

    Parameters
    ----------
    X : {ndarray, csr_matrix} of shape (n_rows, n_features)
    hashes : ndarray of shape (6,), dtype uint64
        One row of :func:`draw_hash_down`.
    width : int
        Number of buckets.
    gamma, coef0 : float
    dtype : numpy dtype

    Returns
    -------
    U : ndarray of shape (n_rows, width)
    """
    dtype = np.dtype(dtype)
    if not sp.issparse(X):
        X = dense_to_csr(X)
    keys, features = np.unique(X.indices, return_inverse=True)
    buckets, signs = hash_down_keys(hashes, keys, width, dtype)
    if gamma != 1.0:
        signs *= dtype.type(np.sqrt(gamma))
    U = np.empty((X.shape[0], width), dtype=dtype)
    count_sketch_rows(X, buckets, signs, features.reshape(-1), U)
    if coef0 > 0:
        bucket, sign = hash_down_keys(hashes, np.array([X.shape[1]]), width, dtype)
        U[:, bucket[0]] += sign[0] * dtype.type(np.sqrt(coef0))
    return U
