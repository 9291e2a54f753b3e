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
the 64-bit hash ``h = a_i * z mod 2**64``, with the odd multiplier
``a_i = mix64(s1 + (i + 1) * golden_gamma) | 1`` (output ``i`` of the
SplitMix64 stream seeded by ``s1``, made odd) and ``(s0, s1)`` the
row-independent seeds. The bin of ``h`` in the rounds ``i < k`` is
``((h >> 32) * k) >> 32``, and the order within a bin that of ``h >> 32``,
ties to the smaller coordinate (the first in the row). Whatever the rounds'
hashes, a bin's element is the one of the row minimizing a fixed function
of its coordinate (its first round in the bin, then its hash), and the keys
of distinct coordinates are as independent uniform 64-bit words (``mix64``
is a bijection), so each element of a union is as likely as any other to
be the bin's element of the union: the codes of two rows collide with
probability their resemblance (up to ties of 32-bit hashes, which a fixed
tie-break keeps consistent). One multiplication per element and round
(each key mixed once) keeps the rounds cheap; a multiplier of its own per
round decorrelates the rounds' bins, which the variance (not the collision
probability) relies on; the tests check it against MinHash's.

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
_ONE = np.uint64(1)
_LOW32 = np.uint64(0xFFFFFFFF)
_HIGH32 = np.uint64(0xFFFFFFFF00000000)
_EMPTY = np.uint64(0xFFFFFFFFFFFFFFFF)


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
    candidates = np.empty(longest, dtype=np.int64)
    # 1 while a bin is empty; (high half of the hash, offset in the row)
    # of its element packed in one word, whose minimum is the bin's element.
    empty = np.ones(n_bins, dtype=np.uint8)
    best = np.full(n_bins, _EMPTY, dtype=np.uint64)
    s0, s1 = seeds[0], seeds[1]
    row = 0
    for r in range(indptr.size - 1):
        start, stop = indptr[r] - base, indptr[r + 1] - base
        if start == stop:
            continue
        for p in range(stop - start):
            keys[p] = _mix64(np.uint64(indices[start + p]) + s0)
        _sketch_row(keys[: stop - start], s1, candidates, empty, best)
        first = base + start
        for j in range(n_bins):
            out[row, j] = first + np.int64(best[j] & _LOW32)
            empty[j] = 1
            best[j] = _EMPTY
        row += 1


@kernel(inline="always")
def _multiplier(s1, round_):
    """The odd multiplier of round ``round_``."""
    return _mix64(s1 + np.uint64(round_ + 1) * _GOLDEN_GAMMA) | _ONE


@kernel
def _sketch_row(keys, s1, candidates, empty, best):
    """Fill ``best`` with the packed hash and offset of each bin's element.

    ``empty`` is all ones and ``best`` all ``_EMPTY`` on entry; ``empty`` is
    all zeros on return. Each round first lists, without a branch, the
    elements that reach a bin still empty (few, once most bins are filled:
    the rounds then cost their hashing only), then settles those bins.
    """
    n_bins = empty.size
    n_bins_64 = np.uint64(n_bins)
    n = keys.size
    if n == 1:
        # Every round sends the one element somewhere: it fills every bin.
        best[:] = 0
        return
    n_filled = 0
    for i in range(n_bins):
        a = _multiplier(s1, i)
        n_candidates = 0
        for p in range(n):
            b = (((a * keys[p]) >> _U32) * n_bins_64) >> _U32
            candidates[n_candidates] = p
            n_candidates += empty[b]
        for q in range(n_candidates):
            p = candidates[q]
            h = a * keys[p]
            b = ((h >> _U32) * n_bins_64) >> _U32
            best[b] = min(best[b], (h & _HIGH32) | np.uint64(p))
            n_filled += empty[b]
            empty[b] = 0
        if n_filled == n_bins:
            return
    # Round k + j sends every element to bin j: only the bins still empty
    # take theirs from it.
    for j in range(n_bins):
        if not empty[j]:
            continue
        a = _multiplier(s1, n_bins + j)
        for p in range(n):
            best[j] = min(best[j], ((a * keys[p]) & _HIGH32) | np.uint64(p))
