"""The Count Sketch (Charikar, Chen & Farach-Colton 2002) of the rows of a CSR matrix.

Several estimators first reduce wide input by a Count Sketch whose cost
follows the nonzeros: each feature ``i`` goes to a bucket ``h(i)`` with a
sign ``s(i)``, so that ``E <C x, C y> = <x, y>``. The hashes are
polynomial hashes over ``2**61 - 1`` (``utils._hashing``).
"""

import numpy as np
import scipy.sparse as sp

from ._hashing import (
    BUCKET_HASH_INDEPENDENCE,
    SIGN_HASH_INDEPENDENCE,
    draw_polynomial_hashes,
    hash_to_buckets,
    hash_to_signs,
    polynomial_hash,
)
from ._sparse import gather


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
    index_dtype = np.int32 if n_buckets < 2**31 else np.int64
    scattered = sp.csr_matrix(
        (X.data * gather(signs, features), gather(buckets, features).astype(index_dtype),
         X.indptr),
        shape=(n_rows, n_buckets),
    )
    out[...] = 0
    return scattered.toarray(out=out)
