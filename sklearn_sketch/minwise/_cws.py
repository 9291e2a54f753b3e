"""Ioffe's improved consistent weighted sampling (ICWS), vectorized.

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
scheme keeps ``i*`` only (Li 2015).

Since ``r_i (t_i - beta_i) = ln x_i - r_i f_i`` with ``f_i = y_i - t_i``, the
code computes ``ln a_i = (ln c_i - r_i) - ln x_i + r_i f_i``: the same
number, without the cancellation of ``r_i t_i`` when ``|y_i|`` is large
(huge or tiny ``x_i``, small ``r_i``). A row's argmin does not change when
the same constant is subtracted from all its ``ln a_i``: the row's largest
``ln x_i`` is, so the values compared stay near 1 whatever the row's scale.
The argmin is taken on the values rounded to float32 and packed with the
entry's position in one 64-bit key; values equal in float32 go to the
smaller feature index. Every step is elementwise or a per-row minimum, so
a row gives the same bits in any chunk of rows.

Work saved without changing a bit: per hash, the variables of each
distinct feature of a chunk of rows are generated once and gathered by its
entries; and since ``f_i`` lies in [0, 1], each entry's ``ln a_i`` lies
between two bounds that need neither ``beta_i`` nor a logarithm per entry,
so the full value is computed only for the entries whose lower bound does
not exceed their row's smallest upper bound (the candidates).
"""

import sys

import numpy as np

from ..utils._counter_random import (
    icws_counters,
    icws_variables,
    icws_variables_of_counters,
)
from ._positions import MAX_CHUNK_NNZ, nnz_chunks

_LOW32 = np.uint64(0xFFFFFFFF)
# Halves of a uint64 key seen as two uint32: (low, high) on a little-endian
# machine.
_HIGH_HALF = 1 if sys.byteorder == "little" else 0
# Entries bounded at once (for one hash): their temporaries (about 40 bytes
# an entry) stay within a few MiB, and a whole chunk of the default budget
# is one block (fewer, longer passes).
MAX_PAIRS = 2**17
# Entries whose lower bound exceeds their row's smallest upper bound by more
# than this (in ``ln a``) cannot be the row's minimum, whatever the rounding
# (see :func:`_candidates`).
_MARGIN = 1e-3


def icws(indices, data, indptr, seed, n_hashes, *, return_t=False):
    """ICWS samples of the nonempty rows of a canonical CSR matrix.

    Parameters
    ----------
    indices, data, indptr : ndarray
        A CSR matrix with sorted indices (the features keying the random
        variables), positive finite ``data`` and ``indptr[0] == 0``.
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
    positions = positions_by_chunks(
        indices, data, indptr, n_hashes,
        lambda *chunk, out: _chunk_positions(*chunk, seed, out),
    )
    if not return_t:
        return positions
    return positions, _t_of(indices, data, positions, seed)


def positions_by_chunks(indices, data, indptr, n_columns, fill, max_rows=None):
    """Sample positions of the nonempty rows of a CSR matrix, chunk by chunk.

    ``fill(indices, data, indptr, out=out)`` writes the positions within one
    chunk of at most ``MAX_CHUNK_NNZ`` entries (``indptr[0] == 0``) into
    ``out``, of shape (n_nonempty_rows_of_the_chunk, n_columns); they are
    offset here to positions in ``indices``. ``max_rows`` also bounds the
    rows of a chunk.

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


def _chunk_positions(indices, data, indptr, seed, out):
    """:func:`icws` positions within one chunk of fewer than ``2**32`` entries.

    Written into ``out``, of shape (n_nonempty_rows, k). Hash by hash, the
    variables of each distinct feature of the chunk are computed once and
    gathered by its entries (unless there are about as many features as
    entries: then they are computed for the entries), and each row's
    minimum is found by blocks of rows among a few candidates
    (:func:`_candidates`).
    """
    lengths = np.diff(indptr)
    nonempty = lengths > 0
    if not nonempty.any():
        return out
    log_x = np.log(data)
    # ln a_i minus the row's largest ln x_i (see the module's docstring).
    peaks = np.maximum.reduceat(log_x, indptr[:-1][nonempty])
    shifted = np.repeat(peaks, lengths[nonempty])
    shifted -= log_x
    # The bounds are compared in float32 (half the traffic; see _candidates).
    shifted32 = shifted.astype(np.float32, copy=False)
    features, inverse = np.unique(indices, return_inverse=True)
    if features.size * 2 >= indices.size:
        features, inverse = indices, np.arange(indices.size)
    counters = icws_counters(features)
    blocks = _row_blocks(indptr, nonempty)
    for hash_ in range(out.shape[1]):
        variables, bounds = _variables(seed, counters, hash_, data.dtype)
        for begin, end, rows, starts, row_lengths in blocks:
            block = slice(begin, end)
            block_features = inverse[block]
            candidates = _candidates(
                shifted32[block], bounds.take(block_features, axis=0), starts, row_lengths
            )
            keys = _sort_keys(
                log_x[block][candidates], shifted[block][candidates],
                variables.take(block_features[candidates], axis=0),
                candidates.astype(np.uint32),
            )
            minima = np.minimum.reduceat(keys, np.searchsorted(candidates, starts))
            minima &= _LOW32  # the positions, below 2**32: exact as int64
            np.add(minima.view(np.int64), begin, out=out[rows, hash_])
    return out


def _row_blocks(indptr, nonempty):
    """The nonempty blocks of rows of about ``MAX_PAIRS`` entries.

    ``(begin, end, rows, starts, lengths)``: entries ``begin:end``, rows
    ``rows`` of the output, and the starts (within the block) and lengths of
    its nonempty rows.
    """
    nonempty_before = np.concatenate([[0], np.cumsum(nonempty)])
    blocks = []
    for start, stop in nnz_chunks(indptr, max_nnz=MAX_PAIRS):
        begin, end = int(indptr[start]), int(indptr[stop])
        if begin < end:
            rows = slice(nonempty_before[start], nonempty_before[stop])
            kept = nonempty[start:stop]
            starts = indptr[start:stop][kept] - begin
            lengths = np.diff(indptr[start : stop + 1])[kept]
            blocks.append((begin, end, rows, starts, lengths))
    return blocks


def _variables(seed, counters, hash_, dtype):
    """The variables of some features (given by ``counters``) for one hash.

    Returns ``variables``, of shape (n_features, 4): ``1 / r``, ``beta``,
    ``r`` and ``ln c - r``, and ``bounds``, of shape (n_features, 2): ``ln c
    - r`` and ``(ln c - r) + r`` rounded to float32, so that one gather of
    rows moves each.
    """
    r, ln_c, beta = icws_variables_of_counters(seed, counters, np.array([hash_]), dtype)
    variables = np.empty((counters.size, 4), dtype=dtype)
    np.reciprocal(r, out=variables[:, 0])
    variables[:, 1] = beta
    variables[:, 2] = r
    np.subtract(ln_c, r, out=variables[:, 3])
    bounds = np.empty((counters.size, 2), dtype=np.float32)
    bounds[:, 0] = variables[:, 3]
    np.add(variables[:, 3], r, out=bounds[:, 1], casting="same_kind")
    return variables, bounds


def _candidates(shifted, bounds, starts, lengths):
    """Positions of the entries of a block that may hold their row's smallest key.

    ``bounds``: ``ln c - r`` and ``(ln c - r) + r`` of each entry, and
    ``shifted`` its shift, all float32. The shifted ``ln a = r f + (ln c -
    r) + shift`` of an entry, with the fraction ``f`` in [0, 1], lies
    between ``low = (ln c - r) + shift`` and ``high = ((ln c - r) + r) +
    shift``, and so does its rounded value (rounding is monotonic). Only the
    entries whose ``low`` is at most the row's smallest ``high`` plus
    ``_MARGIN`` are kept: any other has a larger float32 ``a`` than the
    entry of that ``high``, since the values compared lie between -70 and 4
    (:func:`_sort_keys`), where ``_MARGIN`` is over a hundred float32 steps
    (and a relative change of ``a`` far above float32's). The float32
    rounding of the bounds moves them by a few float32 steps of values below
    80 in magnitude wherever the comparison is close (an entry whose shift
    exceeds 75 has ``low`` above 5, beyond every row's smallest ``high``),
    well within the margin. The minimum over the candidates is the minimum
    over all the entries, bit for bit, for a fraction of the work.
    """
    low = np.add(bounds[:, 0], shifted)
    high = np.add(bounds[:, 1], shifted)
    ceilings = np.minimum.reduceat(high, starts)
    ceilings += _MARGIN
    return np.flatnonzero(low <= np.repeat(ceilings, lengths))


def _sort_keys(log_x, shifted, variables, positions):
    """``a`` (shifted) of entries, as order-preserving uint64 keys.

    ``variables`` from :func:`_variables`, one row per entry. The high 32
    bits of each key hold the bits of the float32 value of ``a = exp(ln
    a)``, positive, so that unsigned order is numeric order; the low 32 bits
    hold the entry's position. The shifted ``ln a`` of a row's minimum lies
    between -70 and 4 (the largest ``x_i`` has shift 0, and the Gamma
    variables from 32-bit uniforms lie between 2e-10 and 46), where ``exp``
    neither underflows nor overflows in float32; larger values of other
    entries, even infinite, are never the minimum.
    """
    inverse_r, beta, r, ln_c_minus_r = variables.T
    y = log_x * inverse_r
    y += beta
    t = np.floor(y)
    y -= t  # the fraction f
    y *= r
    y += ln_c_minus_r
    y += shifted
    values = y.astype(np.float32, copy=False)
    with np.errstate(over="ignore"):
        np.exp(values, out=values)
    return packed_keys(values.view(np.uint32), positions)


def _t_of(indices, data, positions, seed):
    """``t*`` of the samples at ``positions``: ``floor(ln x / r + beta)`` there."""
    hashes = np.arange(positions.shape[1])
    r, _, beta = icws_variables(seed, indices[positions], hashes, data.dtype)
    y = np.log(data[positions]) / r
    y += beta
    return np.floor(y).astype(np.int64)
