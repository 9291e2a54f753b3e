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


# Array API namespaces (torch, CuPy, array_api_strict) under scikit-learn's
# dispatch. The standard has no scatter-add: a Count Sketch there is a sum of
# gathers, one per "layer" of each bucket's keys (the first key of every
# bucket, then the second, ...), as many as the fullest bucket holds: the mean
# load n_keys / width plus a few times its square root (a few layers when the
# load is small), O(width) gathered values a layer.
# Torch offers the scatter-add itself (``index_add_``), one pass over the
# input instead of a pass over the output per layer.


def has_scatter_add(xp):
    """Whether the namespace ``xp`` is torch's, whose tensors offer ``index_add_``."""
    return xp.__name__.endswith("array_api_compat.torch")


def count_sketch_array_tables(buckets, signs, width, scatter):
    """The host tables :func:`count_sketch_array` reads, for ``S`` Count Sketches.

    Parameters
    ----------
    buckets : ndarray of shape (S, n_keys), values in ``[0, width)``
    signs : ndarray of shape (S, n_keys)
        The (scaled) sign of each key.
    width : int
        Number of buckets.
    scatter : bool
        Tables for the namespace's scatter-add (:func:`has_scatter_add`):
        ``buckets`` (int64) and ``signs`` as they are.

    Returns
    -------
    indices : ndarray of shape (S, n_layers, width), dtype int64
        Key ``indices[s, l, b]`` is the ``l``-th key (in key order) of
        bucket ``b`` of sketch ``s``; ``n_keys`` (a zero column) where that
        bucket has fewer keys.
    layer_signs : ndarray of shape (S, n_layers, width)
        Its sign, 0 where there is no key.
    """
    if scatter:
        return buckets.astype(np.int64), signs
    n_sketches, n_keys = buckets.shape
    order = np.argsort(buckets, axis=1, kind="stable")
    sorted_buckets = np.take_along_axis(buckets, order, axis=1)
    first = np.stack([np.searchsorted(row, np.arange(width)) for row in sorted_buckets])
    rank = np.arange(n_keys) - np.take_along_axis(first, sorted_buckets, axis=1)
    n_layers = int(rank.max()) + 1 if n_keys else 1
    indices = np.full((n_sketches, n_layers, width), n_keys, dtype=np.int64)
    layer_signs = np.zeros((n_sketches, n_layers, width), dtype=signs.dtype)
    sketch = np.arange(n_sketches)[:, None]
    indices[sketch, rank, sorted_buckets] = order
    layer_signs[sketch, rank, sorted_buckets] = np.take_along_axis(signs, order, axis=1)
    return indices, layer_signs


def count_sketch_array(X, indices, signs, width, xp):
    """The Count Sketch of the rows of ``X`` (an array of ``xp``) in ``width`` buckets.

    ``indices`` and ``signs`` are one sketch's tables of
    :func:`count_sketch_array_tables` (``indices[s]``, ``signs[s]``) on
    ``X``'s device. A bucket sums its keys' signed values in key order, as
    :func:`count_sketch_rows` does, one layer after the other; with torch's
    scatter-add, in the order torch adds them (on CUDA, atomically: the
    last bits may change between runs unless torch is asked for
    deterministic algorithms).

    Returns
    -------
    C : array of shape (n_rows, width)
    """
    n_rows = X.shape[0]
    device = X.device
    if indices.ndim == 1:
        out = xp.zeros((n_rows, width), dtype=X.dtype, device=device)
        return out.index_add_(1, indices, X * signs)
    zero = xp.zeros((n_rows, 1), dtype=X.dtype, device=device)
    padded = xp.concat([X, zero], axis=1)
    out = xp.take(padded, indices[0, ...], axis=1) * signs[0, ...]
    for layer in range(1, indices.shape[0]):
        out = out + xp.take(padded, indices[layer, ...], axis=1) * signs[layer, ...]
    return out


def hash_down_array_tables(hashes, n_features, width, gamma, coef0, dtype, scatter):
    """The host tables of :func:`hash_down_array`: :func:`hash_down`'s Count Sketch.

    Returns
    -------
    indices, signs : ndarray
        :func:`count_sketch_array_tables` of the features (one sketch), the
        signs times ``sqrt(gamma)``.
    constant : ndarray of shape (width,) or None
        ``sqrt(coef0)`` signed in the constant's bucket (None when ``coef0``
        is 0), added after the features as :func:`hash_down` adds it.
    """
    dtype = np.dtype(dtype)
    buckets, signs = hash_down_keys(hashes, np.arange(n_features), width, dtype)
    signs *= dtype.type(np.sqrt(gamma))
    indices, signs = count_sketch_array_tables(buckets[None], signs[None], width, scatter)
    constant = None
    if coef0 > 0:
        bucket, sign = hash_down_keys(hashes, np.array([n_features]), width, dtype)
        constant = np.zeros(width, dtype=dtype)
        constant[bucket[0]] = sign[0] * dtype.type(np.sqrt(coef0))
    return indices[0], signs[0], constant


def hash_down_array(X, tables, width, xp):
    """:func:`hash_down` of the rows of ``X`` (an array of ``xp``), with
    :func:`hash_down_array_tables` on ``X``'s device."""
    indices, signs, constant = tables
    U = count_sketch_array(X, indices, signs, width, xp)
    return U if constant is None else U + constant
