"""Consistent weighted sampling by DartMinHash (Christiani 2020).

For nonnegative rows, ``k`` samples per row such that two rows give the same
sample of a hash with probability exactly their min-max kernel
``sum_i min(x_i, y_i) / sum_i max(x_i, y_i)``, in expected time
``O(k log k + nnz log(|x|_1 + 1 / |x|_1))`` per row (``O(nnz * k)`` for
Ioffe's ICWS).

DartMinHash throws random *darts*, points ``(i, w, r)`` of a Poisson process
on (feature, weight, rank) of intensity ``2**tau``, the same for every row;
a row ``x`` is hit by the darts with ``w < x_i``. Each dart also falls into
one of ``k`` buckets (a hash of the dart), which splits the process into
``k`` independent ones, and the sample of bucket ``j`` is the hitting dart of
smallest rank in it. For two rows the darts hitting either lie in a region of
measure ``sum_i max(x_i, y_i)``, those hitting both in one of measure
``sum_i min``, and the first dart of a Poisson process in a region lands in
a subregion with probability the ratio of their measures: the two samples
are the same dart with probability ``K_MM(x, y)``. A row throws only the
darts of rank below a bound that gives ``n_darts(k) = k ln k + 2k`` of them
on average (all buckets are hit with probability at least ``1 - e**-2``),
and, while a bucket is empty, raises the bound to 1.5, 2, ... times the
first one and throws the darts between the old and the new bound only; the
minima do not depend on the bounds once every bucket is hit.

What is returned per (row, bucket): the position of the winning dart's
entry (its feature is the "0-bit" sample) and a 32-bit key of the dart (the
full sample: two different darts share a key with probability ``2**-32``).
Weights are read as float64 (float32 data give the samples of their float64
values) and each row is computed in a frame scaled by a power of two, so
that rows anywhere from the subnormals to 1e300 draw from the same process;
see :mod:`._dart_kernels`. A row's samples depend on its own entries only.
"""

import math

import numpy as np

from ..utils._validation import kernel_array

# Terms of the Poisson(1) CDF table: the probability of more darts in one
# cell is below 1e-19.
_POISSON_TERMS = 22


def n_darts(n_hashes):
    """Darts of a row's first round: ``ceil(k ln k + 2k)`` (Christiani 2020)."""
    return math.ceil(n_hashes * math.log(n_hashes) + 2 * n_hashes)


def dart_grid_bits(n_hashes):
    """``tau``: the cells have area ``2**-tau``, about ``1 / n_darts(k)``."""
    return max(0, math.ceil(math.log2(n_darts(n_hashes))))


def poisson_cdf():
    """Cumulative probabilities of Poisson(1), ending with a sentinel above 1."""
    terms = [math.exp(-1.0)]
    for count in range(1, _POISSON_TERMS):
        terms.append(terms[-1] / count)
    return np.append(np.cumsum(terms), 2.0)


def poisson_count_thresholds():
    """``ceil(2**53 cdf)``: a cell's top 53 bits ``n`` pass term ``q`` iff ``n 2**-53 >= cdf[q]``."""
    return np.ceil(np.ldexp(poisson_cdf(), 53)).astype(np.int64)


def dart_samples(indices, data, indptr, seed, n_hashes, first_round=None):
    """DartMinHash samples of the nonempty rows of a canonical CSR matrix.

    Parameters
    ----------
    indices, data, indptr : ndarray
        A CSR matrix: non-negative integer features (int32 or int64, below
        ``2**63``), positive finite ``data`` (float32 or float64) and
        ``indptr[0] == 0``.
    seed : int
        A 64-bit key of the darts.
    n_hashes : int
        Number of buckets ``k``.
    first_round : float, default=None
        Darts expected in a row's first round, ``n_darts(k)`` by default.
        It sets the cost only: the samples are the same for any value.

    Returns
    -------
    positions : ndarray of shape (n_nonempty_rows, k), dtype int64
        Position in ``indices`` of the winning dart's entry.
    keys : ndarray of shape (n_nonempty_rows, k), dtype uint64
        32-bit key of the winning dart.
    """
    from ._dart_kernels import _dart_rows, dart_work_arrays

    if not np.isfinite(data).all():
        # Reachable only under assume_finite=True; the darts under a NaN or
        # infinite weight never end.
        raise ValueError(
            "Input contains NaN or infinity: consistent weighted sampling needs "
            "finite weights, even under assume_finite=True."
        )
    lengths = np.diff(indptr)
    n_rows = int(np.count_nonzero(lengths))
    # The kernel computes in float64 (a float32 weight converts exactly) and
    # walks indptr and the keys as int64: converting these (a pass that costs
    # little next to the darts) spares numba more compilations of it.
    data = kernel_array(data, np.float64)
    indptr = kernel_array(indptr, np.int64)
    indices = kernel_array(indices, np.int64)  # (the keys of either kernel)
    positions = np.empty((n_rows, n_hashes), dtype=np.int64)
    keys = np.empty((n_rows, n_hashes), dtype=np.uint64)
    tau = dart_grid_bits(n_hashes)
    _dart_rows(
        indices, data, indptr, np.uint64(seed), tau,
        float(n_darts(n_hashes) if first_round is None else first_round),
        poisson_count_thresholds(), positions, keys,
        *dart_work_arrays(n_hashes, tau, int(lengths.max(initial=0))),
    )
    return positions, keys
