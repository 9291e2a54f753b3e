"""Ioffe's improved consistent weighted sampling (ICWS), as a compiled kernel.

For a nonnegative row ``x`` and one hash, every feature ``i`` with
``x_i > 0`` has three random variables, the same for every row:
``r_i, c_i ~ Gamma(2, 1)`` and ``beta_i ~ U[0, 1)``
(:func:`~sklearn_sketch.utils._counter_random.icws_variables`, generated
from counters keyed by (hash, feature), so nothing is stored per feature).
With

    ``y_i = ln(x_i) / r_i + beta_i``, ``t_i = floor(y_i)``,
    ``ln a_i = ln c_i - r_i (t_i - beta_i) - r_i``,

the sample is ``(i*, t*) = (argmin_i ln a_i, t_(i*))``, and two rows give the
same sample with probability exactly their min-max kernel
``sum_i min(x_i, y_i) / sum_i max(x_i, y_i)`` (Ioffe 2010). The "0-bit"
scheme keeps ``i*`` only (Li 2015), whose collision probability is larger.

Since ``r_i (t_i - beta_i) = ln x_i - r_i f_i`` with ``f_i = y_i - t_i``, the
kernel computes ``ln a_i = ((ln c_i - r_i) - ln x_i) + r_i f_i``: the same
number, without the cancellation of ``r_i t_i`` when ``|y_i|`` is large
(huge or tiny ``x_i``, small ``r_i``). Everything is float64, whatever the
input's dtype: ``ln x`` of a float32 value is its exact float64 logarithm
(rounded once), so rows scaled together by ``c`` have all their ``ln x_i``
shifted by ``ln c`` alike, and float32 data give the samples of the same
values in float64. The argmin goes to the first entry of a row (the smallest
feature) on an exact tie. A row's samples depend on its own entries only,
so a row gives the same samples in any chunk of rows.

Work: the rows are taken by blocks of at most ``BLOCK_NNZ`` entries, of a
size independent of the number of hashes and of rows, so that the cost per
(entry, hash) is too. Hash by hash, the variables of each distinct feature
of a block are generated once into a table read by its entries; then each
entry's ``ln a`` is bounded below by ``(ln c - r) - ln x`` (``r f >= 0``),
and computed in full only when that bound is below its row's smallest value
so far, which gives the same minimum, bit for bit, as computing all of them.
"""

import sys

import numba
import numpy as np

from ..utils._counter_random import icws_counters
from ..utils._hashing import mix64, splitmix64
from ._positions import MAX_CHUNK_NNZ, nnz_chunks

# Halves of a uint64 key seen as two uint32: (low, high) on a little-endian
# machine.
_HIGH_HALF = 1 if sys.byteorder == "little" else 0
# Entries of a block: its entries (16 bytes each) and its table of variables
# (32 bytes per distinct feature) stay within a core's cache, while the
# table is read by enough entries that generating it is a small part of the
# work.
BLOCK_NNZ = 2**15
# Streams (SplitMix64 words) per hash of the ICWS variables, as in
# utils._counter_random.icws_variables.
_ICWS_STREAMS = 3
# Separates the stream of the sample keys from the variables' streams.
_SAMPLE_KEY_SALT = 0x6A09E667F3BCC909
_LOW32 = np.uint64(0xFFFFFFFF)
_U32 = np.uint64(32)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_TWO_TO_MINUS_32 = 2.0**-32
_TWO_TO_MINUS_64 = 2.0**-64


def icws(indices, data, indptr, seed, n_hashes, *, return_t=False):
    """ICWS samples of the nonempty rows of a canonical CSR matrix.

    Parameters
    ----------
    indices, data, indptr : ndarray
        A CSR matrix with sorted indices (the features keying the random
        variables, non-negative), positive finite ``data`` (float32 or
        float64) and ``indptr[0] == 0``.
    seed : int
        Key of the random variables.
    n_hashes : int
        Number of hashes ``k``.
    return_t : bool, default=False
        Whether to return ``t*`` too (the full ICWS sample).

    Returns
    -------
    positions : ndarray of shape (n_nonempty_rows, k), dtype int64
        Position in ``indices`` of ``i*`` for each nonempty row and hash.
    t : ndarray of shape (n_nonempty_rows, k), dtype int64
        ``t*``, only when ``return_t`` is True.
    """
    nonempty_before = np.concatenate([[0], np.cumsum(np.diff(indptr) > 0)])
    shape = (int(nonempty_before[-1]), n_hashes)
    positions = np.empty(shape, dtype=np.int64)
    t = np.empty(shape, dtype=np.int64)
    stream_seeds = icws_stream_seeds(seed, n_hashes)
    for start, stop in nnz_chunks(indptr, BLOCK_NNZ):
        first, last = int(indptr[start]), int(indptr[stop])
        if first == last:
            continue
        rows = slice(nonempty_before[start], nonempty_before[stop])
        block_indptr = indptr[start : stop + 1] - first
        _block_samples(
            indices[first:last], data[first:last], block_indptr, stream_seeds,
            positions[rows], t[rows],
        )
        positions[rows] += first
    return (positions, t) if return_t else positions


def icws_stream_seeds(seed, n_hashes):
    """Seeds of the three SplitMix64 streams of each hash, shape (k, 3), uint64.

    Those of :func:`~sklearn_sketch.utils._counter_random.icws_variables`:
    outputs ``3 j``, ``3 j + 1`` and ``3 j + 2`` of the stream of ``seed``.
    """
    counters = np.arange(1, _ICWS_STREAMS * n_hashes + 1, dtype=np.uint64)
    return splitmix64(seed, counters).reshape(n_hashes, _ICWS_STREAMS)


def sample_keys(features, t, seed):
    """32-bit keys of full samples ``(features, t)``, as uint64.

    ``mix64(splitmix64(seed ^ salt, feature + 1) ^ t) >> 32``: a stream of
    its own, well mixed. For one feature, two different ``t`` give different
    64-bit words (``mix64`` is a bijection), so two different samples share
    a key with probability about ``2**-32``, and equal samples always do.

    Parameters
    ----------
    features : ndarray of non-negative int
        ``i*`` (the key of the sampled coordinate).
    t : ndarray of int64, same shape
        ``t*``, of any sign and size.
    seed : int
        A 64-bit key.

    Returns
    -------
    keys : ndarray of uint64, values below ``2**32``
    """
    words = np.asarray(features).astype(np.uint64)
    words += np.uint64(1)
    splitmix64(seed ^ _SAMPLE_KEY_SALT, words)
    words ^= np.ascontiguousarray(t, dtype=np.int64).view(np.uint64)
    mix64(words)
    words >>= _U32
    return words


def positions_by_chunks(indices, data, indptr, n_columns, fill, max_rows=None):
    """Sample positions of the nonempty rows of a CSR matrix, chunk by chunk.

    ``fill(indices, data, indptr, out=out)`` writes the positions within one
    chunk of at most ``MAX_CHUNK_NNZ`` entries (``indptr[0] == 0``) into
    ``out``, of shape (n_nonempty_rows_of_the_chunk, n_columns); they are
    offset here to positions in ``indices``. ``max_rows`` also bounds the
    rows of a chunk. (The loop of the bin-wise CWS of the benchmarks.)

    Returns
    -------
    positions : ndarray of shape (n_nonempty_rows, n_columns), dtype int64
    """
    nonempty_before = np.concatenate([[0], np.cumsum(np.diff(indptr) > 0)])
    positions = np.empty((nonempty_before[-1], n_columns), dtype=np.int64)
    for start, stop in nnz_chunks(indptr, MAX_CHUNK_NNZ, max_rows):
        first, last = indptr[start], indptr[stop]
        chunk = positions[nonempty_before[start] : nonempty_before[stop]]
        fill(
            indices[first:last], data[first:last], indptr[start : stop + 1] - first,
            out=chunk,
        )
        chunk += first
    return positions


def packed_keys(high, low):
    """uint64 keys of two uint32 arrays: ``high`` in the high bits, ``low`` below.

    Unsigned order of the keys is the order of ``high``, ties broken by
    ``low`` (an entry's position, so that a minimum names its entry).
    """
    keys = np.empty(np.shape(high), dtype=np.uint64)
    halves = keys.view(np.uint32)
    halves[_HIGH_HALF::2] = high
    halves[1 - _HIGH_HALF :: 2] = low
    return keys


def _block_samples(indices, data, indptr, stream_seeds, positions, t):
    """Samples of the nonempty rows of one block (``indptr[0] == 0``), in place.

    The block's distinct features get one row each of the table of
    variables; ``ln x`` is taken in float64.
    """
    lengths = np.diff(indptr)
    nonempty = lengths > 0
    starts = indptr[:-1][nonempty].astype(np.intp)
    ends = indptr[1:][nonempty].astype(np.intp)
    features, inverse = np.unique(indices, return_inverse=True)
    log_x = np.log(data, dtype=np.float64)
    _icws_kernel(
        log_x, inverse.astype(np.intp, copy=False).ravel(), starts, ends,
        icws_counters(features), stream_seeds, positions, t,
    )


@numba.njit(nogil=True, cache=True)
def _icws_kernel(log_x, inverse, starts, ends, counters, stream_seeds, positions, t):
    """``i*`` (position in the block) and ``t*`` of each row and hash.

    ``inverse[e]`` is the row of entry ``e``'s feature in the table of
    variables, ``counters`` the features' counters. An entry whose lower
    bound ``(ln c - r) - ln x`` is not below its row's smallest ``ln a`` so
    far cannot be the (first) minimum: ``r f >= 0`` is added to it.
    """
    table = np.empty((counters.size, 4))
    for j in range(stream_seeds.shape[0]):
        _fill_table(counters, stream_seeds[j], table)
        for row in range(starts.size):
            best = np.inf
            best_entry = starts[row]
            best_t = 0.0
            for entry in range(starts[row], ends[row]):
                feature = inverse[entry]
                low = table[feature, 2] - log_x[entry]
                if low >= best:
                    continue
                y = log_x[entry] * table[feature, 1] + table[feature, 3]
                floor_y = np.floor(y)
                value = low + table[feature, 0] * (y - floor_y)
                if value < best:
                    best = value
                    best_entry = entry
                    best_t = floor_y
            positions[row, j] = best_entry
            t[row, j] = np.int64(best_t)


@numba.njit(nogil=True, cache=True)
def _fill_table(counters, seeds, table):
    """``r``, ``1 / r``, ``ln c - r`` and ``beta`` of each feature, for one hash.

    The values of :func:`~sklearn_sketch.utils._counter_random.icws_variables`
    in float64: word ``s`` of a feature is ``mix64(counter + seeds[s])``;
    ``r`` and ``c`` are ``-ln(u v)`` of the uniforms ``u, v`` of the two
    halves of words 0 and 1, ``beta`` the low half of word 2 over ``2**32``.
    """
    for feature in range(counters.size):
        r = -np.log(_uniform_product(_mix64(counters[feature] + seeds[0])))
        c = -np.log(_uniform_product(_mix64(counters[feature] + seeds[1])))
        beta_bits = _mix64(counters[feature] + seeds[2]) & _LOW32
        table[feature, 0] = r
        table[feature, 1] = 1.0 / r
        table[feature, 2] = np.log(c) - r
        table[feature, 3] = np.float64(beta_bits) * _TWO_TO_MINUS_32


@numba.njit(nogil=True, cache=True)
def _uniform_product(word):
    """``u v``, ``u, v = (h + 1/2) 2**-32`` of the halves ``h`` of ``word``."""
    low = np.float64(word & _LOW32) + 0.5
    high = np.float64(word >> _U32) + 0.5
    return low * high * _TWO_TO_MINUS_64


@numba.njit(nogil=True, cache=True)
def _mix64(z):
    """SplitMix64's finalizer (``utils._hashing.mix64``) of one uint64."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))
