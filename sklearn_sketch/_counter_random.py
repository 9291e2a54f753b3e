"""Random projection matrices generated on demand from a counter.

Entry ``(i, j)`` of a ``n_features x k`` random matrix is a pure function of
``(seed, i, j)``: it is the SplitMix64 output number ``i * n_words + w`` (a
64-bit word, ``w`` the word holding column ``j``) of the stream seeded by
``seed``. SplitMix64 (Steele, Lea and Flood 2014) is a counter-based generator:
output ``n`` is ``mix64(seed + (n + 1) * golden_gamma)``, so any block of the
matrix can be produced, in any order and in pieces, without storing the matrix
or walking the stream. A transformer then needs only the seed as fitted state,
whatever the number of features, and gives identical rows whether the data
are transformed whole or in chunks.

* Gaussian entries: one word gives two N(0, 1) values by the Box-Muller
  transform of its two 32-bit halves.
* Rademacher entries: one word gives 64 independent signs.
"""

import numpy as np

_GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_LOW32 = np.uint64(0xFFFFFFFF)
_U32 = np.uint64(32)


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


def gaussian_block(seed, features, start, stop, n_columns, dtype):
    """Rows ``features`` and columns ``start:stop`` of a Gaussian matrix.

    Parameters
    ----------
    seed : int
        Key of the matrix (a 64-bit integer).
    features : ndarray of int
        Row indices (feature indices) to generate.
    start, stop : int
        Column range; ``start`` must be even.
    n_columns : int
        Total number of columns of the matrix (fixes the counter layout).
    dtype : numpy dtype
        float32 or float64.

    Returns
    -------
    block : ndarray of shape (len(features), stop - start)
    """
    dtype = np.dtype(dtype).type
    words_per_feature = (n_columns + 1) // 2
    first, last = start // 2, (stop + 1) // 2
    words = _words(seed, features, first, last - first, words_per_feature)
    # u1 in (0, 1] so that the logarithm is finite; u2 in [0, 1).
    scale = dtype(2.0**-32)
    u1 = (words >> _U32).astype(dtype)
    u1 += dtype(0.5)
    u1 *= scale
    angle = (words & _LOW32).astype(dtype)
    angle *= dtype(2.0 * np.pi) * scale
    radius = np.log(u1, out=u1)
    radius *= dtype(-2.0)
    np.sqrt(radius, out=radius)
    block = np.empty((words.shape[0], 2 * words.shape[1]), dtype=dtype)
    np.multiply(radius, np.cos(angle), out=block[:, 0::2])
    np.multiply(radius, np.sin(angle), out=block[:, 1::2])
    return block[:, : stop - start]


def rademacher_block(seed, features, start, stop, n_columns, dtype):
    """Rows ``features`` and columns ``start:stop`` of a random +-1 matrix.

    ``start`` must be a multiple of 64. Arguments as in :func:`gaussian_block`.
    """
    words_per_feature = (n_columns + 63) // 64
    first, last = start // 64, (stop + 63) // 64
    words = _words(seed, features, first, last - first, words_per_feature)
    bits = np.unpackbits(words.view(np.uint8), axis=1, bitorder="little")
    signs = np.subtract(1, 2 * bits[:, : stop - start], dtype=dtype)
    return signs
