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
  entries are the cosine parts, the second half the sine parts. Box-Muller
  is a handful of vectorized passes (log, sqrt, cos, sin) where NumPy's
  ziggurat sampler draws one value at a time, several times slower. The
  24-bit uniforms cap ``|r|`` at ``sqrt(-2 ln 2**-24) = 5.77`` (the
  normal's mass beyond it is 8e-9). The entries are float32 draws for both
  float32 and float64 data (float64 output uses the same values, exactly
  converted), so the two precisions agree to float32 rounding of the
  arithmetic. NumPy keeps its bit generators' raw streams stable, so the
  values do not depend on the NumPy version beyond the last bits of its
  float32 ``log``/``cos``/``sin``.
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
it lives with them in ``utils._hashing`` (:func:`splitmix64`) and is
imported from there; the Philox bits come from NumPy.
"""

import sys

import numpy as np

from ._hashing import splitmix64

_SIGNS_OF_BYTE = 1 - 2 * np.unpackbits(
    np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little"
).astype(np.float32)
# Features per block of generated rows.
FEATURE_BLOCK = 256


def _words(seed, features, first_word, n_words, words_per_feature):
    """SplitMix64 outputs for ``features x [first_word, first_word + n_words)``."""
    counters = np.asarray(features, dtype=np.uint64)[:, None] * np.uint64(
        words_per_feature
    ) + np.arange(first_word + 1, first_word + n_words + 1, dtype=np.uint64)
    return splitmix64(seed, counters)


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
    blocks = np.asarray(blocks, dtype=np.int64)
    n_pairs = FEATURE_BLOCK * n_columns // 2  # FEATURE_BLOCK is even
    words = np.empty((len(blocks), n_pairs), dtype=np.uint64)
    # A loop over feature blocks (not features): each step draws 128 * k
    # words in compiled code.
    for row, block in enumerate(blocks.tolist()):
        bits = np.random.Philox(key=seed, counter=[0, 0, 0, block])
        words[row] = bits.random_raw(n_pairs)
    halves = words.view(np.uint32)  # (low, high) 32-bit halves of each word
    low = 0 if sys.byteorder == "little" else 1
    # Uniforms from the top 24 bits of each half: (0, 1] for the radius
    # (the log must stay finite), [0, 2 pi) for the angle.
    radius = (halves[:, low::2] >> np.uint32(8)).astype(np.float32)
    radius += 1
    radius *= np.float32(2.0**-24)
    np.log(radius, out=radius)
    radius *= -2
    np.sqrt(radius, out=radius)
    angle = (halves[:, 1 - low :: 2] >> np.uint32(8)).astype(np.float32)
    angle *= np.float32(2 * np.pi * 2.0**-24)
    out = np.empty((len(blocks), 2, n_pairs), dtype=np.float32)
    np.cos(angle, out=out[:, 0])
    np.sin(angle, out=out[:, 1])
    out *= radius[:, None]
    out = out.reshape(-1, n_columns)
    return out if np.dtype(dtype) == np.float32 else out.astype(dtype)


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
    bucket_bits = int(n_buckets).bit_length() - 1
    if n_buckets != 1 << bucket_bits or bucket_bits > 32:
        raise ValueError(f"n_buckets must be a power of 2 up to 2**32, got {n_buckets}.")
    words = _words(seed, features, group, 1, n_groups).ravel()
    # The top bits (the best mixed) make the bucket; the sign is bit 0.
    buckets = (words >> np.uint64(64 - bucket_bits)).astype(index_dtype)
    words &= np.uint64(1)
    signs = words.astype(dtype)
    signs *= -2
    signs += 1
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
    features = np.asarray(blocks, dtype=np.int64)[:, None] * FEATURE_BLOCK
    features = (features + np.arange(FEATURE_BLOCK)).ravel()
    return rademacher_block(seed, features, 0, n_columns, n_columns, dtype)


def gaussian_block(seed, features, start, stop, n_columns, dtype):
    """Rows ``features`` and columns ``start:stop`` of a Gaussian matrix.

    The rows of :func:`gaussian_blocks` (the blocks holding ``features`` are
    generated whole); for tests and small requests.
    """
    features = np.asarray(features, dtype=np.int64)
    blocks, inverse = np.unique(features // FEATURE_BLOCK, return_inverse=True)
    rows = inverse.ravel() * FEATURE_BLOCK + features % FEATURE_BLOCK
    return gaussian_blocks(seed, blocks, n_columns, dtype)[rows, start:stop]


def rademacher_block(seed, features, start, stop, n_columns, dtype):
    """Rows ``features`` and columns ``start:stop`` of a random +-1 matrix.

    ``start`` must be a multiple of 64. Arguments as in :func:`gaussian_block`.
    """
    words_per_feature = (n_columns + 63) // 64
    first, last = start // 64, (stop + 63) // 64
    words = _words(seed, features, first, last - first, words_per_feature)
    # Byte by byte through a table of the 8 signs of each byte value (bit 0
    # first): one gather writes the output.
    signs = _SIGNS_OF_BYTE.astype(dtype, copy=False).take(words.view(np.uint8), axis=0)
    # An explicit width: with no features, -1 cannot be inferred.
    signs = signs.reshape(words.shape[0], 64 * words.shape[1])
    return np.ascontiguousarray(signs[:, : stop - start])
