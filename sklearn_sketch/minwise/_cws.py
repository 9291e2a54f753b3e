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
"""

import numpy as np

from ..utils._counter_random import icws_variables
from ._positions import MAX_CHUNK_NNZ, nnz_chunks

_LOW32 = np.uint64(0xFFFFFFFF)
# (entry, hash) pairs computed at once: their temporaries (about 40 bytes
# a pair in float32, 70 in float64) stay within a few MiB.
MAX_PAIRS = 2**16


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
    starts = indptr[:-1][np.diff(indptr) > 0]
    positions = np.empty((starts.size, n_hashes), dtype=np.int64)
    max_nnz = max(1, min(MAX_CHUNK_NNZ, MAX_PAIRS))
    done = 0
    for start, stop in nnz_chunks(indptr, max_nnz=max_nnz):
        first, last = indptr[start], indptr[stop]
        chunk = _chunk_positions(
            indices[first:last], data[first:last], indptr[start : stop + 1] - first,
            seed, n_hashes,
        )
        chunk += first
        positions[done : done + chunk.shape[0]] = chunk
        done += chunk.shape[0]
    if not return_t:
        return positions
    return positions, _t_of(indices, data, positions, seed)


def _chunk_positions(indices, data, indptr, seed, n_hashes):
    """:func:`icws` positions within one chunk of fewer than ``2**32`` entries."""
    nonempty = np.diff(indptr) > 0
    starts = indptr[:-1][nonempty]
    positions = np.empty((starts.size, n_hashes), dtype=np.int64)
    if starts.size == 0:
        return positions
    log_x = np.log(data)
    # ln a_i minus the row's largest ln x_i (see the module's docstring).
    log_peaks = np.maximum.reduceat(log_x, starts)
    shifted = np.repeat(log_peaks, np.diff(indptr)[nonempty])
    shifted -= log_x
    # The variables of each distinct feature of the chunk once, gathered by
    # the entries, unless there are about as many features as entries.
    features, inverse = np.unique(indices, return_inverse=True)
    use_table = features.size * 2 < indices.size
    keyed = features if use_table else indices
    position_bits = np.arange(indices.size, dtype=np.uint64)
    block = max(1, min(n_hashes, MAX_PAIRS // indices.size))
    for first in range(0, n_hashes, block):
        hashes = np.arange(first, min(first + block, n_hashes))
        r, ln_c, beta = icws_variables(seed, keyed[:, None], hashes, data.dtype)
        inverse_r = np.reciprocal(r)
        ln_c -= r
        table = (inverse_r, beta, r, ln_c)
        if use_table:
            table = (v.take(inverse, axis=0) for v in table)
        keys = _sort_keys(log_x, shifted, *table)
        keys |= position_bits[:, None]
        minima = np.minimum.reduceat(keys, starts, axis=0)
        positions[:, first : first + hashes.size] = minima & _LOW32
    return positions


def _sort_keys(log_x, shifted, inverse_r, beta, r, ln_c_minus_r):
    """``a`` (shifted) of every entry and hash, as order-preserving uint64 keys.

    The high 32 bits of each key hold the bits of the float32 value of
    ``a = exp(ln a)``, positive, so that unsigned order is numeric order;
    the low 32 bits are left zero. The shifted ``ln a`` of a row's minimum
    lies between -70 and 4 (the largest ``x_i`` has shift 0, and the
    Gamma variables from 32-bit uniforms lie between 2e-10 and 46), where
    ``exp`` neither underflows nor overflows in float32; larger values of
    other entries, even infinite, are never the minimum.
    """
    y = log_x[:, None] * inverse_r
    y += beta
    t = np.floor(y)
    y -= t  # the fraction f
    y *= r
    y += ln_c_minus_r
    y += shifted[:, None]
    with np.errstate(over="ignore"):
        values = np.exp(y.astype(np.float32, copy=False))
    keys = values.view(np.uint32).astype(np.uint64)
    keys <<= np.uint64(32)
    return keys


def _t_of(indices, data, positions, seed):
    """``t*`` of the samples at ``positions``: ``floor(ln x / r + beta)`` there."""
    hashes = np.arange(positions.shape[1])
    r, _, beta = icws_variables(seed, indices[positions], hashes, data.dtype)
    y = np.log(data[positions]) / r
    y += beta
    return np.floor(y).astype(np.int64)
