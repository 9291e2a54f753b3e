"""The Count Sketch (Charikar, Chen & Farach-Colton 2002) of dense or CSR rows.

Several estimators first reduce wide input by a Count Sketch whose cost
follows the nonzeros: each feature ``i`` goes to a bucket ``h(i)`` with a
sign ``s(i)``, so that ``E <C x, C y> = <x, y>``. The hashes are
polynomial hashes over ``2**61 - 1`` (``utils._hashing``). The scatter of
the stored entries into the buckets, of several sketches at once, is
compiled (``_count_sketch_kernels``, imported when first used); its buckets
and signs come from tables of every key (:func:`count_sketch_rows`) or from
the hashes evaluated per stored entry (:func:`count_sketch_hashed`, O(nnz)
whatever the number of features).
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
from ._validation import kernel_array


def draw_count_sketch_hashes(random_state, n_sketches):
    """The bucket and sign hashes of ``n_sketches`` independent Count Sketches.

    The bucket hashes of every sketch are drawn first, then the sign hashes.

    Returns
    -------
    bucket_hashes : ndarray of shape (n_sketches, 2), dtype uint64
        Pairwise independent bucket hash of each sketch.
    sign_hashes : ndarray of shape (n_sketches, 4), dtype uint64
        4-wise independent sign hash of each sketch.
    """
    buckets = draw_polynomial_hashes(random_state, n_sketches, BUCKET_HASH_INDEPENDENCE)
    signs = draw_polynomial_hashes(random_state, n_sketches, SIGN_HASH_INDEPENDENCE)
    return buckets, signs


def draw_hash_down(random_state, n_sketches):
    """:func:`draw_count_sketch_hashes` as one array: a row per hashed-down input.

    Returns
    -------
    hashes : ndarray of shape (n_sketches, 6), dtype uint64
        Bucket hash (first two coefficients) and sign hash (last four) of
        each sketch.
    """
    return np.hstack(draw_count_sketch_hashes(random_state, n_sketches))


def count_sketch_tables(bucket_hashes, sign_hashes, keys, width, dtype, scale=1.0):
    """Bucket (intp) and sign (``dtype``, times ``scale``) of integer keys, per sketch.

    Parameters
    ----------
    bucket_hashes, sign_hashes : ndarray of shape (S, k), dtype uint64
        Coefficients of :func:`draw_count_sketch_hashes`.
    keys : ndarray of non-negative integers, shape (n_keys,)
    width : int
        Number of buckets.
    dtype : numpy dtype
    scale : float, default=1.0

    Returns
    -------
    buckets : ndarray of shape (S, n_keys), dtype intp
    signs : ndarray of shape (S, n_keys), dtype ``dtype``
    """
    buckets = np.empty((len(bucket_hashes), keys.size), dtype=np.intp)
    signs = np.empty((len(sign_hashes), keys.size), dtype=dtype)
    for s in range(len(bucket_hashes)):
        buckets[s] = hash_to_buckets(polynomial_hash(bucket_hashes[s], keys), width)
        signs[s] = hash_to_signs(polynomial_hash(sign_hashes[s], keys), dtype) * scale
    return buckets, signs


def hash_down_keys(hashes, keys, width, dtype):
    """Bucket (intp) and sign (``dtype``) of integer keys under one hash-down row."""
    split = BUCKET_HASH_INDEPENDENCE
    buckets, signs = count_sketch_tables(hashes[None, :split], hashes[None, split:], keys,
                                         width, dtype)
    return buckets[0], signs[0]


def count_sketch_rows(X, buckets, signs, out, constants=None):
    """Count Sketches of the rows of ``X`` under ``S`` tables, written into ``out``.

    For each sketch ``s`` and row ``i``, every stored entry ``(i, j, v)`` of
    ``X`` (the nonzeros of a dense ``X``), in stored order, adds
    ``v * signs[s, j]`` (rounded to ``out``'s dtype) to
    ``out[s, i, buckets[s, j]]``; then ``constants`` add their value. O(nnz)
    work, each row on its own, so a row's result is the same bits in any
    chunk, and the same as the CSR-to-dense conversion of the products.

    Parameters
    ----------
    X : {ndarray, csr_matrix} of shape (n_rows, n_keys)
    buckets : ndarray of shape (S, n_keys), values in ``[0, width)``
    signs : ndarray of shape (S, n_keys)
        The (scaled) sign of each key, of ``out``'s dtype.
    out : ndarray of shape (S, n_rows, width)
    constants : tuple of two ndarrays of shape (S,), default=None
        A bucket (intp; below 0 for none) and a value per sketch, added
        to every row after its entries.

    Returns
    -------
    out : ndarray of shape (S, n_rows, width)
    """
    from ._count_sketch_kernels import _scatter_csr_tables, _scatter_dense_tables

    buckets = np.ascontiguousarray(buckets, dtype=np.intp)
    signs = np.ascontiguousarray(signs, dtype=out.dtype)
    constant_buckets, constant_values = _constants(constants, out)
    if sp.issparse(X):
        _scatter_csr_tables(
            X.indptr, X.indices, X.data, buckets, signs, constant_buckets, constant_values, out
        )
    else:
        _scatter_dense_tables(
            kernel_array(X), buckets, signs, constant_buckets, constant_values, out
        )
    return out


def count_sketch_hashed(X, bucket_hashes, sign_hashes, scales, out, shifts=None,
                        constants=None):
    """Count Sketches of the rows of ``X`` under ``S`` hashes evaluated per entry.

    As :func:`count_sketch_rows` with the tables ``buckets[s, j] =
    (hash_to_buckets(h_s(j), width) + shifts[s]) mod width`` and
    ``signs[s, j] = hash_to_signs(g_s(j)) * scales[s]``, ``h_s`` and ``g_s``
    the polynomial hashes ``bucket_hashes[s]`` and ``sign_hashes[s]``; the
    hashes are computed for each stored entry of a sparse ``X`` (for each
    column of a dense one) instead of for every key: O(nnz) work and memory,
    whatever ``n_keys`` is.

    Parameters
    ----------
    X : {ndarray, csr_matrix} of shape (n_rows, n_keys)
    bucket_hashes, sign_hashes : ndarray of shape (S, k), dtype uint64
        Coefficients from :func:`~._hashing.draw_polynomial_hashes`.
    scales : ndarray of shape (S,)
        Of ``out``'s dtype.
    out : ndarray of shape (S, n_rows, width)
    shifts : ndarray of shape (S,), default=None
        Cyclic shifts of the buckets (none by default).
    constants : tuple of two ndarrays of shape (S,), default=None
        As in :func:`count_sketch_rows`.

    Returns
    -------
    out : ndarray of shape (S, n_rows, width)
    """
    from ._count_sketch_kernels import _scatter_csr_tables, _scatter_dense_tables

    scales = np.ascontiguousarray(scales, dtype=out.dtype).reshape(out.shape[0])
    shifts = np.zeros(out.shape[0], dtype=np.uint64) if shifts is None else (
        np.ascontiguousarray(shifts, dtype=np.uint64)
    )
    hashes = (bucket_hashes, sign_hashes, scales, shifts, out.shape[2])
    if sp.issparse(X):
        # Tables of the stored entries, read by position in X.indices.
        buckets, signs = _key_tables(X.indices, *hashes)
        positions = np.arange(X.indices.size, dtype=np.intp)
        _scatter_csr_tables(X.indptr, positions, X.data, buckets, signs,
                            *_constants(constants, out), out)
    else:
        buckets, signs = _key_tables(np.arange(X.shape[1]), *hashes)
        _scatter_dense_tables(kernel_array(X), buckets, signs,
                              *_constants(constants, out), out)
    return out


def _key_tables(keys, bucket_hashes, sign_hashes, scales, shifts, width):
    """Buckets (intp, shifted) and signed scales of each key under each of the ``S`` hashes."""
    buckets, signs = count_sketch_tables(bucket_hashes, sign_hashes, keys, width, scales.dtype)
    signs *= scales[:, None]
    if shifts.any():
        buckets += shifts.astype(np.intp)[:, None]
        buckets %= width
    return buckets, signs


def _constants(constants, out):
    """The constants' buckets (intp, -1 for none) and values (``out``'s dtype)."""
    if constants is None:
        return np.full(out.shape[0], -1, dtype=np.intp), np.zeros(out.shape[0], dtype=out.dtype)
    buckets, values = constants
    return (
        np.ascontiguousarray(buckets, dtype=np.intp).reshape(out.shape[0]),
        np.ascontiguousarray(values, dtype=out.dtype).reshape(out.shape[0]),
    )


def hash_down(X, hashes, width, gamma, coef0, dtype):
    """Count Sketch of the augmented rows ``x' = [sqrt(gamma) x, sqrt(coef0)]``.

    Key ``i < n_features`` is feature ``i`` and key ``n_features`` the
    constant (absent when ``coef0 = 0``). The hashes are evaluated for each
    stored entry: O(nnz) work, whatever ``n_features`` is. For
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
    constants = None
    if coef0 > 0:
        bucket, sign = hash_down_keys(hashes, np.array([X.shape[1]]), width, dtype)
        constants = (bucket, sign * dtype.type(np.sqrt(coef0)))
    U = np.empty((1, X.shape[0], width), dtype=dtype)
    split = BUCKET_HASH_INDEPENDENCE
    scale = np.array([np.sqrt(gamma)], dtype=dtype)
    count_sketch_hashed(X, hashes[None, :split], hashes[None, split:], scale, U,
                        constants=constants)
    return U[0]
