"""Plain reference implementations of the counter-based random matrices and of
CoREHasher's projection, the oracles of ``utils/_counter_random_kernels.py``.

The random words come from NumPy (``np.random.Philox``, and SplitMix64 as
``utils._hashing.splitmix64``); Box-Muller is computed in float64 and rounded
to float32 at each step where the kernels round (the C library's float32
``logf``/``cosf``/``sinf`` are within an ulp of that).
"""

import numpy as np

from sklearn_sketch.utils._hashing import splitmix64

BLOCK = 256


def philox_words(seed, block, n_words):
    """The first ``n_words`` raw words of Philox key ``seed``, counter ``(0, 0, 0, block)``."""
    return np.random.Philox(key=seed, counter=[0, 0, 0, block]).random_raw(n_words)


def gaussian_rows(seed, block, n_columns):
    """The ``256 x n_columns`` float32 Gaussian rows of one feature block."""
    n_pairs = BLOCK * n_columns // 2
    words = philox_words(seed, block, n_pairs)
    low = (words & np.uint64(0xFFFFFFFF)) >> np.uint64(8)
    high = words >> np.uint64(40)
    uniform = (low.astype(np.float32) + np.float32(1)) * np.float32(2.0**-24)
    log = np.log(uniform.astype(np.float64)).astype(np.float32)
    radius = np.sqrt(np.float32(-2) * log)
    angle = high.astype(np.float32) * np.float32(2 * np.pi * 2.0**-24)
    cosine = np.cos(angle.astype(np.float64)).astype(np.float32) * radius
    sine = np.sin(angle.astype(np.float64)).astype(np.float32) * radius
    return np.concatenate([cosine, sine]).reshape(BLOCK, n_columns)


def rademacher_rows(seed, features, n_columns):
    """Entry ``(i, j)``: ``1 - 2 b``, ``b`` bit ``j % 64`` of SplitMix64 output ``i * n_words + j // 64``."""
    n_words = (n_columns + 63) // 64
    out = np.empty((len(features), n_columns), dtype=np.float32)
    for i, feature in enumerate(features):
        for j in range(n_columns):
            counter = np.array([feature * n_words + j // 64 + 1], dtype=np.uint64)
            word = int(splitmix64(seed, counter)[0])
            out[i, j] = 1 - 2 * ((word >> (j % 64)) & 1)
    return out


def signed_bucket(seed, feature, group, n_groups, n_buckets):
    """Bucket (top bits) and sign (bit 0) of SplitMix64 output ``feature * n_groups + group``."""
    counter = np.array([feature * n_groups + group + 1], dtype=np.uint64)
    word = int(splitmix64(seed, counter)[0])
    bits = n_buckets.bit_length() - 1
    return (word >> (64 - bits)) if bits else 0, 1 - 2 * (word & 1)


def grouped_product(X, R, span):
    """``X @ R`` row by row: each row's entries summed by groups of ``span``
    features in their order, the group sums added in group order (from zero)."""
    out = np.zeros((X.shape[0], R.shape[1]), dtype=X.dtype)
    for row in range(X.shape[0]):
        entries = range(X.indptr[row], X.indptr[row + 1])
        groups = sorted({int(X.indices[p]) // span for p in entries})
        for group in groups:
            partial = np.zeros(R.shape[1], dtype=X.dtype)
            for p in entries:
                if int(X.indices[p]) // span == group:
                    partial += X.data[p] * R[X.indices[p]]
            out[row] += partial
    return out


def hashed_product(X, seed, n_columns, n_buckets, group_columns, G):
    """"hashed_gaussian": group ``g`` of columns sums ``(s x) G[g][h]`` over each row's entries."""
    n_groups = -(-n_columns // group_columns)
    out = np.zeros((X.shape[0], n_columns), dtype=X.dtype)
    for g in range(n_groups):
        columns = slice(g * group_columns, min((g + 1) * group_columns, n_columns))
        for row in range(X.shape[0]):
            partial = np.zeros(G[g].shape[1], dtype=X.dtype)
            for p in range(X.indptr[row], X.indptr[row + 1]):
                bucket, sign = signed_bucket(seed, int(X.indices[p]), g, n_groups, n_buckets)
                partial += X.data.dtype.type(sign * X.data[p]) * G[g][bucket]
            out[row, columns] = partial
    return out
