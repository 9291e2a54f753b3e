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
  entries are the cosine parts, the second half the sine parts. So row ``r``
  of a block reads the ``k`` words from ``(r mod 128) k`` on: a compiled
  kernel (``_counter_random_kernels``) computes those words from their
  counters, for the rows asked for only, and their uniforms; the log, sqrt,
  cos and sin are NumPy's vectorized passes (NumPy's ziggurat sampler
  draws one value at a time, several times slower). The 24-bit uniforms
  cap ``|r|`` at ``sqrt(-2 ln 2**-24) = 5.77`` (the normal's mass beyond
  it is 8e-9). The entries are float32 draws for both
  float32 and float64 data (float64 output uses the same values, exactly
  converted), so the two precisions agree to float32 rounding of the
  arithmetic. The words are those of NumPy's ``Philox`` (the tests compare
  them), whose raw streams NumPy keeps stable, so the values do not depend
  on the NumPy version beyond the last bits of its float32
  ``log``/``cos``/``sin``.
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

import numpy as np

from ._hashing import splitmix64
from ._scratch import empty

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


def gaussian_rows(seed, features, n_columns, dtype, any_order=False, scratch=None):
    """Rows ``features`` of a Gaussian matrix, generated for those rows only.

    Parameters
    ----------
    seed : int
        Key of the matrix (a 64-bit integer).
    features : ndarray of non-negative int
        The rows (features) to generate, in any order, repeats allowed.
    n_columns : int
        Number of columns ``k`` of the matrix.
    dtype : numpy dtype
        float32 or float64 (the same values).
    any_order : bool, default=False
        Return the rows in the order they are computed, and where each
        feature's row is (saves a copy of the rows).
    scratch : ScratchBuffers, default=None
        Where the rows and their temporaries go (``utils._scratch``; the
        rows are then overwritten by the next call with the same buffers);
        None: fresh arrays.

    Returns
    -------
    rows : ndarray of shape (len(features), n_columns)
        Row ``i`` is row ``features[i]`` of the matrix whose feature blocks
        are laid out as the module docstring says; with ``any_order``, row
        ``where[i]`` is.
    where : ndarray of shape (len(features),)
        Only with ``any_order``.
    """
    from ._counter_random_kernels import _box_muller_inputs

    features = np.asarray(features, dtype=np.int64).ravel()
    # Row r of a block holds the cosine parts of the block's words r * k ..
    # when r < FEATURE_BLOCK / 2, else the sine parts of those of row
    # r - FEATURE_BLOCK / 2. The kernel writes the cosine rows first, then
    # the sine rows, so that each takes one call of NumPy's vectorized
    # functions; the rows are put back in the order asked after.
    half = FEATURE_BLOCK // 2
    in_block = features % FEATURE_BLOCK
    is_sine = in_block >= half
    n_cosine = features.size - int(np.count_nonzero(is_sine))
    destinations = np.cumsum(~is_sine) - 1
    destinations[is_sine] = n_cosine + np.arange(features.size - n_cosine)
    radius = empty(scratch, "radius", (features.size, n_columns), np.float32)
    angle = empty(scratch, "angle", (features.size, n_columns), np.float32)
    # Rows r and r + FEATURE_BLOCK / 2 of a block read the same words: listed
    # next to each other, the kernel computes them once.
    word_rows = features - in_block + in_block % half
    by_words = np.argsort(word_rows, kind="stable")
    key = int(seed) % 2**128  # numpy.random.Philox's key: two 64-bit words
    _box_muller_inputs(
        np.uint64(key % 2**64), np.uint64(key >> 64),
        (features[by_words] // FEATURE_BLOCK).astype(np.uint64),
        ((in_block[by_words] % half) * n_columns).astype(np.uint64),
        destinations[by_words], radius, angle,
    )
    # The functions NumPy computes with vector instructions stay NumPy's.
    np.log(radius, out=radius)
    radius *= -2
    np.sqrt(radius, out=radius)
    np.cos(angle[:n_cosine], out=angle[:n_cosine])
    np.sin(angle[n_cosine:], out=angle[n_cosine:])
    angle *= radius
    if np.dtype(dtype) != np.float32:
        rows = empty(scratch, "rows", angle.shape, dtype)
        np.copyto(rows, angle)
        angle = rows
    if any_order:
        return angle, destinations
    if is_sine[:n_cosine].any():
        angle = angle.take(destinations, axis=0)
    return angle


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
    rows_per_group = -(-n_buckets // FEATURE_BLOCK) * FEATURE_BLOCK
    columns = []
    for group in range(n_groups):
        width = min(group_columns, n_columns - group * group_columns)
        buckets, signs = signed_buckets(
            seed, features, group, n_groups, n_buckets, np.intp, dtype
        )
        rows = group * rows_per_group + np.arange(n_buckets)
        G = gaussian_rows(seed, rows, width, dtype)
        columns.append(signs[:, None] * G[buckets])
    return np.hstack(columns)


def rademacher_rows(seed, features, n_columns, dtype, any_order=False, scratch=None):
    """Rows ``features`` of a random +-1 matrix; as :func:`gaussian_rows`."""
    rows = rademacher_block(seed, features, 0, n_columns, n_columns, dtype, scratch)
    return (rows, np.arange(rows.shape[0])) if any_order else rows


def gaussian_block(seed, features, start, stop, n_columns, dtype):
    """Rows ``features`` and columns ``start:stop`` of a Gaussian matrix."""
    return gaussian_rows(seed, features, n_columns, dtype)[:, start:stop]


def rademacher_block(seed, features, start, stop, n_columns, dtype, scratch=None):
    """Rows ``features`` and columns ``start:stop`` of a random +-1 matrix.

    ``start`` must be a multiple of 64. Arguments as in :func:`gaussian_block`
    (and ``scratch`` as in :func:`gaussian_rows`).
    """
    words_per_feature = (n_columns + 63) // 64
    first, last = start // 64, (stop + 63) // 64
    words = _words(seed, features, first, last - first, words_per_feature)
    # Byte by byte through a table of the 8 signs of each byte value (bit 0
    # first): one gather writes the output.
    # (The bytes as intp indices first, into the scratch: take would make
    # that copy itself; mode="clip": they are valid, "raise" would buffer.)
    codes = empty(scratch, "sign_codes", words.shape + (8,), np.intp)
    np.copyto(codes, words.view(np.uint8).reshape(codes.shape))
    signs = empty(scratch, "signs", codes.shape + (8,), dtype)
    _SIGNS_OF_BYTE.astype(dtype, copy=False).take(codes, axis=0, out=signs, mode="clip")
    # An explicit width: with no features, -1 cannot be inferred.
    signs = signs.reshape(words.shape[0], 64 * words.shape[1])
    if signs.shape[1] == stop - start:
        return signs
    return np.ascontiguousarray(signs[:, : stop - start])
