"""Random projection matrices generated on demand from counters.

Entry ``(i, j)`` of a ``n_features x k`` random matrix is a pure function of
``(seed, i, j, k)``, so any rows of the matrix can be produced, in any order
and in pieces, without storing the matrix or walking a stream. A transformer
then needs only the seed as fitted state, whatever the number of features,
and gives identical rows whether the data are transformed whole or in chunks.

* Gaussian entries: the features are grouped in blocks of
  ``FEATURE_BLOCK = 256``; block ``b`` is the ``256 x k`` row-major output of
  NumPy's ziggurat ``standard_normal(dtype=float32)`` driven by the
  counter-based Philox-4x64 generator with key ``seed`` and counter
  ``(0, 0, 0, b)`` (Salmon et al. 2011): distinct blocks use disjoint counter
  ranges, so they are independent streams. The entries are float32 N(0, 1)
  draws for both float32 and float64 data (float64 output uses the same
  values, exactly converted), so the two precisions agree to float32
  rounding of the arithmetic. The values are reproducible for a given NumPy
  version; NumPy does not promise its ``Generator`` streams across versions.
* Rademacher entries: entry ``(i, j)`` is a bit of the SplitMix64 output
  number ``i * n_words + j // 64`` of the stream seeded by ``seed``
  (SplitMix64, Steele, Lea and Flood 2014, is counter-based: output ``n`` is
  ``mix64(seed + (n + 1) * golden_gamma)``): one word gives 64 signs.
"""

import numpy as np

_GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_LOW32 = np.uint64(0xFFFFFFFF)
_U32 = np.uint64(32)
_SIGNS_OF_BYTE = 1 - 2 * np.unpackbits(
    np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little"
).astype(np.float32)
# Features per block of generated rows.
FEATURE_BLOCK = 256


def mix64(z):
    """SplitMix64's finalizer, a bijection of 64-bit integers (in place)."""
    z ^= z >> np.uint64(30)
    z *= _M1
    z ^= z >> np.uint64(27)
    z *= _M2
    z ^= z >> np.uint64(31)
    return z


def _words(seed, features, first_word, n_words, words_per_feature):
    """SplitMix64 outputs for ``features x [first_word, first_word + n_words)``."""
    counters = np.asarray(features, dtype=np.uint64)[:, None] * np.uint64(
        words_per_feature
    ) + np.arange(first_word + 1, first_word + n_words + 1, dtype=np.uint64)
    counters *= _GOLDEN_GAMMA
    counters += np.uint64(seed)
    return mix64(counters)


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
    out = np.empty((len(blocks), FEATURE_BLOCK, n_columns), dtype=np.float32)
    # A loop over feature blocks (not features): each step fills 256 * k
    # entries in compiled code.
    for row, block in enumerate(np.asarray(blocks, dtype=np.int64).tolist()):
        generator = np.random.Generator(
            np.random.Philox(key=seed, counter=[0, 0, 0, block])
        )
        generator.standard_normal(out=out[row], dtype=np.float32)
    out = out.reshape(-1, n_columns)
    return out if np.dtype(dtype) == np.float32 else out.astype(dtype)


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
    return np.ascontiguousarray(signs.reshape(words.shape[0], -1)[:, : stop - start])
