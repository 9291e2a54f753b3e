"""Random projection matrices generated on demand from counters.

Entry ``(i, j)`` of a ``n_features x k`` random matrix is a pure function of
``(seed, i, j, k)``, so any rows of the matrix can be produced, in any order
and in pieces, without storing the matrix or walking a stream. A transformer
then needs only the seed as fitted state, whatever the number of features,
and gives identical rows whether the data are transformed whole or in chunks.

* Gaussian entries: the features are grouped in blocks of
  ``FEATURE_BLOCK = 256``; block ``b`` takes ``128 * k`` raw 64-bit words of
  the counter-based Philox-4x64 generator with key ``seed`` and counter
  ``(0, 0, 0, b)`` (Salmon et al. 2011; distinct blocks use disjoint
  counter ranges, so they are independent streams). Each word gives two
  24-bit uniforms and, by the Box-Muller transform, two independent N(0, 1)
  values in float32: the first half of the block's ``256 x k`` row-major
  entries are the cosine parts, the second half the sine parts. The
  words are NumPy's ``np.random.Philox(key=seed, counter=[0, 0, 0, b])``
  stream (word ``w`` from counter ``(w // 4 + 1, 0, 0, b)``), computed by
  a compiled copy of Philox so that any entry is reached directly; the
  logarithm, cosine and sine are the C library's float32 ones (within an
  ulp of the exact values). The 24-bit uniforms cap ``|r|`` at ``sqrt(-2
  ln 2**-24) = 5.77`` (the normal's mass beyond it is 8e-9). The entries
  are float32 draws for both float32 and float64 data (float64 output
  uses the same values, exactly converted), so the two precisions agree
  to float32 rounding of the arithmetic.
* Rademacher entries: entry ``(i, j)`` is a bit of the SplitMix64 output
  number ``i * n_words + j // 64`` of the stream seeded by ``seed``
  (SplitMix64, Steele, Lea and Flood 2014, is counter-based: output ``n`` is
  ``mix64(seed + (n + 1) * golden_gamma)``): one word gives 64 signs.
* Count Sketch buckets and signs (:func:`signed_buckets`): sketch ``g`` of
  ``n_groups`` takes SplitMix64 output number ``i * n_groups + g`` for
  feature ``i``; its top bits are the bucket, its lowest bit the sign.

This module owns the matrices: the layout of their entries on counters
(feature blocks, words per feature, sketch groups) and the conversion of
random words to Gaussian, Rademacher, bucket and sign entries. SplitMix64
itself is a hash of counters, a hash family like the package's others, so
it is defined with them in ``utils._hashing`` (:func:`splitmix64`). The
loops (the words, the entries and CoREHasher's products with them) are
compiled in ``utils._counter_random_kernels``, which carries its own copies
of the two mixers; the functions here wrap them for explicit rows.
"""

import numpy as np

# Features per block of generated rows.
FEATURE_BLOCK = 256


def philox_key(seed):
    """The two 64-bit words of the Philox key ``seed`` (as NumPy's ``Philox(key=seed)``)."""
    seed = int(seed)
    if not 0 <= seed < 2**128:
        raise ValueError(f"seed must be in [0, 2**128), got {seed}.")
    return np.uint64(seed & (2**64 - 1)), np.uint64(seed >> 64)


def _generated_rows(kind, seed, blocks, start, stop, n_columns, dtype):
    """Columns ``start:stop`` of whole feature blocks, stacked (the kernels' rows)."""
    from ._counter_random_kernels import _gaussian_rows, _rademacher_rows

    blocks = np.ascontiguousarray(blocks, dtype=np.int64)
    slots = np.arange(blocks.size, dtype=np.int64)
    out = np.empty((blocks.size * FEATURE_BLOCK, stop - start), dtype=dtype)
    if kind == "gaussian":
        k0, k1 = philox_key(seed)
        words = np.empty(4, dtype=np.uint64)
        _gaussian_rows(k0, k1, blocks, slots, n_columns, start, stop, words, out)
    else:
        n_words = (n_columns + 63) // 64
        _rademacher_rows(np.uint64(seed), blocks, slots, n_words, start, stop, out)
    return out


def gaussian_blocks(seed, blocks, n_columns, dtype):
    """Whole feature blocks of a Gaussian matrix, stacked.

    Parameters
    ----------
    seed : int
        Key of the matrix (a 64-bit integer).
    blocks : ndarray of int
        Feature blocks to generate: block ``b`` holds the rows (features)
        ``b * FEATURE_BLOCK`` to ``(b + 1) * FEATURE_BLOCK - 1``.
    n_columns : int
        Number of columns of the matrix.
    dtype : numpy dtype
        float32 or float64 (the same values).

    Returns
    -------
    rows : ndarray of shape (len(blocks) * FEATURE_BLOCK, n_columns)
    """
    return _generated_rows("gaussian", seed, blocks, 0, n_columns, n_columns, dtype)


def signed_buckets(seed, features, group, n_groups, n_buckets, index_dtype, dtype):
    """Bucket and sign of each feature in Count Sketch ``group`` of ``n_groups``.

    Parameters
    ----------
    seed : int
        Key of the stream (a 64-bit integer).
    features : ndarray of non-negative int
        Feature indices.
    group, n_groups : int
        Which of the ``n_groups`` independent sketches.
    n_buckets : int
        A power of 2 up to ``2**32``.
    index_dtype, dtype : numpy dtypes
        Of the buckets and of the signs.

    Returns
    -------
    buckets : ndarray of index_dtype, values in ``[0, n_buckets)``
    signs : ndarray of dtype, values +-1
    """
    from ._counter_random_kernels import _signed_buckets

    bucket_bits = int(n_buckets).bit_length() - 1
    if n_buckets != 1 << bucket_bits or bucket_bits > 32:
        raise ValueError(f"n_buckets must be a power of 2 up to 2**32, got {n_buckets}.")
    features = np.ascontiguousarray(features, dtype=np.int64).ravel()
    buckets = np.empty(features.size, dtype=index_dtype)
    signs = np.empty(features.size, dtype=dtype)
    _signed_buckets(np.uint64(seed), features, group, n_groups, bucket_bits, buckets, signs)
    return buckets, signs


def hashed_gaussian_block(seed, features, n_columns, n_buckets, group_columns, dtype):
    """Rows ``features`` of a Gaussian matrix behind Count Sketches, explicitly.

    Column group ``g`` (``group_columns`` columns) has entries ``s_g(i)
    G_g[h_g(i), :]``, from :func:`signed_buckets` and the Gaussian blocks
    ``g * ceil(n_buckets / FEATURE_BLOCK)`` onwards. For tests and small
    requests: CoREHasher multiplies by the sketches instead.
    """
    features = np.asarray(features, dtype=np.int64)
    n_groups = -(-n_columns // group_columns)
    blocks_per_group = -(-n_buckets // FEATURE_BLOCK)
    columns = []
    for group in range(n_groups):
        width = min(group_columns, n_columns - group * group_columns)
        buckets, signs = signed_buckets(
            seed, features, group, n_groups, n_buckets, np.intp, dtype
        )
        blocks = group * blocks_per_group + np.arange(blocks_per_group)
        G = gaussian_blocks(seed, blocks, width, dtype)
        columns.append(signs[:, None] * G[buckets])
    return np.hstack(columns)


def rademacher_blocks(seed, blocks, n_columns, dtype):
    """Whole feature blocks of a random +-1 matrix; as :func:`gaussian_blocks`."""
    return _generated_rows("rademacher", seed, blocks, 0, n_columns, n_columns, dtype)


def gaussian_block(seed, features, start, stop, n_columns, dtype):
    """Rows ``features`` and columns ``start:stop`` of a Gaussian matrix.

    The rows of :func:`gaussian_blocks` (the blocks holding ``features`` are
    generated whole); for tests and small requests.
    """
    return _block_rows("gaussian", seed, features, start, stop, n_columns, dtype)


def rademacher_block(seed, features, start, stop, n_columns, dtype):
    """Rows ``features`` and columns ``start:stop`` of a random +-1 matrix.

    Arguments as in :func:`gaussian_block`.
    """
    return _block_rows("rademacher", seed, features, start, stop, n_columns, dtype)


def _block_rows(kind, seed, features, start, stop, n_columns, dtype):
    """Rows ``features`` of the blocks holding them, generated whole."""
    features = np.asarray(features, dtype=np.int64).ravel()
    blocks, inverse = np.unique(features // FEATURE_BLOCK, return_inverse=True)
    rows = inverse.ravel() * FEATURE_BLOCK + features % FEATURE_BLOCK
    return _generated_rows(kind, seed, blocks, start, stop, n_columns, dtype)[rows]
