"""Plain reference of the counter-generated Gaussian matrices: the oracle of
``utils._counter_random.gaussian_rows`` and of its compiled Philox kernel.

Feature block ``b`` (``FEATURE_BLOCK`` features) of a ``k``-column matrix
takes the first ``FEATURE_BLOCK * k / 2`` words of NumPy's
``Philox(key=seed, counter=[0, 0, 0, b])`` stream; word ``w`` gives the
radius uniform ``((low >> 8) + 1) 2**-24`` (``low`` its low 32 bits) and the
angle ``(high >> 8) 2 pi 2**-24`` (``high`` its high 32 bits), both float32;
the block's ``FEATURE_BLOCK x k`` entries in row-major order are first the
cosine parts ``sqrt(-2 ln u) cos(angle)`` of its words, then the sine parts,
all computed in float32 by NumPy's functions.
"""

import numpy as np

from sklearn_sketch.utils._counter_random import FEATURE_BLOCK


def philox_words(seed, block, first, n_words):
    """Words ``first .. first + n_words - 1`` of block ``block``'s stream."""
    # A uint64 array: NumPy converts a list of large integers through float64.
    counter = np.array([0, 0, 0, block], dtype=np.uint64)
    bits = np.random.Philox(key=seed, counter=counter)
    return bits.random_raw(first + n_words)[first:]


def gaussian_block_rows(seed, block, n_columns):
    """The ``FEATURE_BLOCK x n_columns`` float32 entries of one feature block."""
    n_pairs = FEATURE_BLOCK * n_columns // 2
    words = philox_words(seed, block, 0, n_pairs)
    low = (words & np.uint64(0xFFFFFFFF)) >> np.uint64(8)
    high = words >> np.uint64(40)
    radius = (low.astype(np.float32) + np.float32(1)) * np.float32(2.0**-24)
    radius = np.sqrt(np.float32(-2) * np.log(radius))
    angle = high.astype(np.float32) * np.float32(2 * np.pi * 2.0**-24)
    entries = np.concatenate([np.cos(angle) * radius, np.sin(angle) * radius])
    return entries.reshape(FEATURE_BLOCK, n_columns)


def gaussian_rows(seed, features, n_columns):
    """Rows ``features`` (float32), each from its whole block."""
    rows = [gaussian_block_rows(seed, f // FEATURE_BLOCK, n_columns)[f % FEATURE_BLOCK]
            for f in np.asarray(features, dtype=np.int64).tolist()]
    return np.array(rows, dtype=np.float32).reshape(len(rows), n_columns)
