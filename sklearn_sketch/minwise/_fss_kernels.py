"""Compiled loop of the fast similarity sketch over the rows of a CSR chunk.

Dahlgaard, Knudsen and Thorup's sketch (FOCS 2017), written from the
paper: ``2k`` hash functions, each mapping a coordinate to a bin and to a
value in ``[i, i + 1)`` for round ``i``. In rounds ``i < k`` every element of
the row goes to a random bin; in round ``k + j`` every element goes to bin
``j``. Bin ``j`` keeps the element of smallest value over all rounds; since
values grow with the round, it is the element of smallest hash among those
the first round that reaches bin ``j`` sends there, and the rounds stop once
every bin is filled (no later round can change a bin). The kernel writes,
for every nonempty row, the position of each bin's element.

Hashing: element ``x`` has the key ``z = mix64(x + s0)`` and round ``i``
the 64-bit hash ``h = mix64(z + s1 + (i + 1) * golden_gamma)`` (output
``i`` of the SplitMix64 stream keyed by ``z + s1``), with ``(s0, s1)`` the
row-independent seeds. ``mix64`` is a bijection, so two coordinates never
share a key nor, in one round, a hash: there are no ties. The bin of ``h``
in the rounds ``i < k`` is ``((h >> 32) * k) >> 32`` and the order within
a bin is that of ``h`` (uniform within the bin's range of hashes).

``_mix64`` is SplitMix64's finalizer, ``utils._hashing.mix64`` written
out here because a kernel calls jitted functions of its own module only
(the tests compare the two bit for bit). All arithmetic is uint64 with
``np.uint64`` constants; the wrapper (``_positions.fss_positions``)
validates the arguments.
"""

import numpy as np

from ..utils._numba import kernel

_U27 = np.uint64(27)
_U30 = np.uint64(30)
_U31 = np.uint64(31)
_U32 = np.uint64(32)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)


@kernel(inline="always")
def _mix64(z):
    """SplitMix64's finalizer (uint64 in, out)."""
    z = (z ^ (z >> _U30)) * _M1
    z = (z ^ (z >> _U27)) * _M2
    return z ^ (z >> _U31)


@kernel
def _fss_positions(indices, indptr, seeds, out):
    """The fast similarity sketch of every nonempty row, as positions.

    ``indices`` holds the entries from position ``indptr[0]`` on; row ``r``
    is ``indices[indptr[r] - indptr[0] : indptr[r + 1] - indptr[0]]``. The
    next row of ``out`` (shape ``(n_nonempty_rows, k)``) gets, for every
    bin, the position (counted like ``indptr``) of the bin's element.
    """
    n_bins = out.shape[1]
    base = indptr[0]
    longest = 0
    for r in range(indptr.size - 1):
        longest = max(longest, indptr[r + 1] - indptr[r])
    keys = np.empty(longest, dtype=np.uint64)
    # Round that filled each bin (2k: not yet), the hash and the offset in
    # the row of its element.
    stamp = np.full(n_bins, 2 * n_bins, dtype=np.int64)
    best = np.empty(n_bins, dtype=np.uint64)
    chosen = np.empty(n_bins, dtype=np.int64)
    s0, s1 = seeds[0], seeds[1]
    row = 0
    for r in range(indptr.size - 1):
        start, stop = indptr[r] - base, indptr[r + 1] - base
        if start == stop:
            continue
        for p in range(stop - start):
            keys[p] = _mix64(np.uint64(indices[start + p]) + s0) + s1
        _sketch_row(keys[: stop - start], stamp, best, chosen)
        first = base + start
        for j in range(n_bins):
            out[row, j] = first + chosen[j]
            stamp[j] = 2 * n_bins
        row += 1


@kernel
def _sketch_row(keys, stamp, best, chosen):
    """Fill ``chosen`` with the offset in the row of each bin's element.

    ``stamp`` holds ``2k`` (no bin filled) on entry; the bins' rounds on
    return.
    """
    n_bins = stamp.size
    n_bins_64 = np.uint64(n_bins)
    n = keys.size
    if n == 1:
        # Every round sends the one element somewhere: it fills every bin.
        chosen[:] = 0
        return
    n_filled = 0
    for i in range(n_bins):
        stream = np.uint64(i + 1) * _GOLDEN_GAMMA
        for p in range(n):
            h = _mix64(keys[p] + stream)
            b = ((h >> _U32) * n_bins_64) >> _U32
            s = stamp[b]
            if s > i:  # the bin's first element
                stamp[b] = i
                best[b] = h
                chosen[b] = p
                n_filled += 1
            elif s == i and h < best[b]:
                best[b] = h
                chosen[b] = p
        if n_filled == n_bins:
            return
    # Round k + j sends every element to bin j: only the bins still empty
    # take theirs from it.
    for j in range(n_bins):
        if stamp[j] < n_bins:
            continue
        stream = np.uint64(n_bins + j + 1) * _GOLDEN_GAMMA
        low = _mix64(keys[0] + stream)
        chosen[j] = 0
        for p in range(1, n):
            h = _mix64(keys[p] + stream)
            if h < low:
                low = h
                chosen[j] = p
        stamp[j] = n_bins + j
