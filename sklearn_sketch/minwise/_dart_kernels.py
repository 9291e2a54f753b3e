"""Compiled DartMinHash (Christiani 2020): the loops of :mod:`._cws`.

The darts are a Poisson process of intensity ``2**tau`` on (feature, weight
``w >= 0``, rank ``r >= 0``), a fixed function of the seed: a row ``x`` is
hit by the darts with ``w < x_i`` and the sample of a bucket is its hitting
dart of smallest rank. The grid that carries the process is DartHash's:
weight band ``nu`` is ``[(2**nu - 1), (2**(nu+1) - 1)) * 2**-tau``, rank band
``rho`` is ``[2**rho - 1, 2**(rho+1) - 1)``, and region ``(nu, rho)`` is cut
into ``2**rho`` weight steps times ``2**nu`` rank steps, cells of area
``2**-tau`` holding a Poisson(1) number of darts each, uniform in the cell.

Numbers are computed in the row's *frame*: weights times ``2**-s`` and ranks
times ``2**s`` (``s`` the binary exponent of the row's largest value), which
keeps every quantity a row reads within float64's range for data anywhere
from the subnormals to 1e300, and changes nothing else: every grid point and
every dart position is a sum or product of powers of two and a few exact
integers, so its value in the frame is its absolute value times an exact
power of two, rounded as the absolute one would be. Two rows in different
frames see the same darts.

Random words: ``_mix`` is SplitMix64's finalizer (a bijection of uint64);
the key of a cell is ``mix(region + (j + 1) G_W + (l + 1) G_R)`` with
``region = mix(element + (nu + 1) G_NU + (rho + 1) G_RHO)`` and ``element =
mix(seed + (feature + 1) G_F)``; the cell's word gives its count (inverse
CDF of Poisson(1), compared as integers: its top 53 bits against
``ceil(2**53 cdf)``). Dart ``q`` (from 1) of a cell has two words, ``a =
mix(z)`` and ``b = mix(z ^ C_B)`` of ``z = cell + q G_Q``, independent of
each other: ``a >> 16`` is its weight step and ``b >> 16`` its rank step,
each one of ``2**48`` equal steps across the cell; the low 16 bits of ``a``
and of ``b`` make the 32-bit word of its bucket, and ``mix(a ^ C_KEY) >> 32``
is its key. A dart passes a weight when its step is below the column's
count of steps under that weight, ``ceil((weight - w0) / width * 2**48)``
(all of them for a column entirely below the weight): an integer compare
per dart, growing with the weight, so each dart passes above a weight of
its own, the same for every row.

A round of a row is one loop nest (:func:`_round`) over its entries, their
regions and cells. The darts of an entry's cells are listed (their ``z``,
cell and column) with no branch on the cells' counts, then thrown in one
loop (:func:`_throw`) whose tests are selects: a loop per cell would
mispredict its random length at nearly every cell. Apart from that one call
per entry, the nest calls no compiled function that takes an array (numba
updates the reference counts of array arguments at each such call, which
costs more than a cell), and it calls no libm function either: a row's
weights in its frame and the cell sizes of its regions (powers of two that
depend on ``nu - rho`` only) are
computed once per row or round into arrays that the loop reads.

The helpers called once per row or round are inlined into ``_dart_rows``
(``inline="always"``): numba takes each separately compiled function through
its whole pipeline, so fewer of them compile sooner at first use; the
per-cell and per-entry ones (``_mix``, ``_throw``, ...) stay functions of
their own, which LLVM inlines where it pays.
"""

import math

import numpy as np

from ..utils._numba import kernel

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_G_F = np.uint64(0x9E3779B97F4A7C15)
_G_NU = np.uint64(0xD1B54A32D192ED03)
_G_RHO = np.uint64(0xAEF17502108EF2D9)
_G_W = np.uint64(0xDB4F0B9175AE2165)
_G_R = np.uint64(0x8CB92BA72F3D8DD7)
_G_Q = np.uint64(0xF1357AEA2E62A9C5)
_C_B = np.uint64(0x243F6A8885A308D3)
_C_KEY = np.uint64(0x13198A2E03707344)
_ONE = np.uint64(1)
_LOW16 = np.uint64(0xFFFF)
_U16 = np.uint64(16)
_U11 = np.uint64(11)
_U32 = np.uint64(32)
_TWO_TO_MINUS_48 = 2.0**-48
# A dart's weight position on its cell's 2**48 steps, all of which pass a
# cell entirely below the weight.
_ALL_STEPS = 2**48
_TWO_TO_48 = 2.0**48
# Largest shift of a count of cells (loops end long before).
_MAX_CELL_BITS = 62
# Most rank bands a row can reach: its frame's ranks start at 2**-1074.
_MAX_BANDS = 2200
# Darts listed before they are thrown (an entry's, or as many as fit): a
# run of cells stops listing at
# _FILL, and one cell lists at most 22 (the Poisson table's length).
_FILL = 232
_SLOTS = _FILL + 24


@kernel
def _mix(z):
    """SplitMix64's finalizer of one uint64."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@kernel(inline="always")
def _capped_bits(n):
    """``min(n, _MAX_CELL_BITS)`` as an int64 (a conditional: the builtin
    ``min`` of an int64 and a literal is one more overload to compile)."""
    return np.int64(n) if n < _MAX_CELL_BITS else np.int64(_MAX_CELL_BITS)


@kernel(inline="always")
def _band_start(n, shift):
    """``(2**n - 1) * 2**shift`` as float64 rounds it (exact below n = 54)."""
    if n <= 53:
        return math.ldexp(np.float64((np.int64(1) << n) - 1), shift)
    return math.ldexp(1.0, n + shift)


def dart_work_arrays(n_hashes, tau, max_entries):
    """The work arrays of :func:`_dart_rows` (allocated by the caller: each
    ``np.empty`` in a kernel is one more compilation at first use).

    ``best`` (a bucket's best rank), the dart slots (``z``, rank start,
    height, weight threshold), the band starts of a row's frame (weight bands
    end below the frame's weights, < 1, rank bands below the bound: each
    fits ``_MAX_BANDS``), the cell widths and heights of the regions by
    ``nu - rho``, and a row's weights in its frame.
    """
    return (
        np.empty(n_hashes), np.empty(_SLOTS, dtype=np.uint64), np.empty(_SLOTS),
        np.empty(_SLOTS), np.empty(_SLOTS, dtype=np.int64),
        np.empty(tau + _MAX_BANDS), np.empty(_MAX_BANDS),
        np.empty((tau + 2 * _MAX_BANDS, 2)), np.empty(max(max_entries, 1)),
    )


@kernel
def _dart_rows(indices, data, indptr, seed, tau, n_darts, count_thresholds,
               positions, keys, best, slot_z, slot_r0, slot_h, slot_t,
               w_starts, r_starts, sizes, weights):
    """Per nonempty row and bucket: the winning dart's entry and 32-bit key.

    A first round throws the darts of rank below a bound giving ``n_darts``
    of them on average; while a bucket is empty, the bound grows by half
    the first one and only the darts between the old and the new bound are
    thrown: the minima over all darts below the last bound are the same.
    The arrays after ``keys`` are :func:`dart_work_arrays`.
    """
    out = 0
    for row in range(indptr.size - 1):
        first, last = indptr[row], indptr[row + 1]
        if first == last:
            continue
        _row(indices, data, first, last, seed, tau, n_darts, count_thresholds,
             w_starts, r_starts, sizes, weights, slot_z, slot_r0, slot_h, slot_t, best,
             positions[out], keys[out])
        out += 1


@kernel(inline="always")
def _row(indices, data, first, last, seed, tau, n_darts, count_thresholds,
         w_starts, r_starts, sizes, weights, slot_z, slot_r0, slot_h, slot_t, best,
         positions, keys):
    """The samples of one nonempty row, in rounds of growing rank bound."""
    largest = 0.0
    for e in range(first, last):
        value = np.float64(data[e])
        largest = value if value > largest else largest
    shift = math.frexp(largest)[1]
    total = 0.0
    for e in range(first, last):
        weights[e - first] = math.ldexp(np.float64(data[e]), -shift)
        total += weights[e - first]
    n_weight_bands = _fill_band_starts(w_starts, -tau - shift, 1.0, 0)
    best[:] = np.inf
    low, theta, n_rank_bands = 0.0, 1.0, 0
    while True:
        rank_bound = theta * n_darts / (math.ldexp(1.0, tau) * total)
        n_rank_bands = _fill_band_starts(r_starts, shift, rank_bound, n_rank_bands)
        _fill_sizes(sizes, n_weight_bands, n_rank_bands, tau, shift)
        _round(indices, weights, first, last, seed, tau, low, rank_bound,
               w_starts, r_starts, n_rank_bands - 1, sizes, count_thresholds,
               slot_z, slot_r0, slot_h, slot_t, best, positions, keys)
        if _all_hit(best):
            for bucket in range(keys.size):
                keys[bucket] = _mix(keys[bucket] ^ _C_KEY) >> _U32
            return
        low = rank_bound
        theta += 0.5


@kernel(inline="always")
def _fill_band_starts(starts, shift, bound, n_filled):
    """Extend ``starts`` with band starts until one reaches ``bound``; their number."""
    n = n_filled
    while n == 0 or (starts[n - 1] < bound and n < starts.size):
        starts[n] = _band_start(n, shift)
        n += 1
    return n


@kernel(inline="always")
def _fill_sizes(sizes, n_weight_bands, n_rank_bands, tau, shift):
    """Cell width and height of region (nu, rho) at ``sizes[nu - rho + n_rank_bands - 1]``."""
    for d in range(1 - n_rank_bands, n_weight_bands):
        sizes[d + n_rank_bands - 1, 0] = math.ldexp(1.0, d - tau - shift)
        sizes[d + n_rank_bands - 1, 1] = math.ldexp(1.0, shift - d)


@kernel(inline="always")
def _all_hit(best):
    """Whether every bucket holds a dart."""
    for value in best:
        if value == np.inf:
            return False
    return True


@kernel(inline="always")
def _list_cell(cell, r0, fine_height, w_threshold, count_thresholds, slot_z, slot_r0,
               slot_h, slot_t, n):
    """List the darts of one cell from slot ``n``; return the next free slot.

    The cell's Poisson count is read off the word ``cell``: three slots are
    written whatever the count (no branch), the count moves ``n`` past them.
    """
    count_word = np.int64(cell >> _U11)
    for q in range(3):
        slot_z[n + q] = cell + np.uint64(q + 1) * _G_Q
        slot_r0[n + q] = r0
        slot_h[n + q] = fine_height
        slot_t[n + q] = w_threshold
    n += ((count_word >= count_thresholds[0]) + (count_word >= count_thresholds[1])
          + (count_word >= count_thresholds[2]))
    q = 3
    while count_word >= count_thresholds[q]:
        q += 1
        slot_z[n] = cell + np.uint64(q) * _G_Q
        slot_r0[n] = r0
        slot_h[n] = fine_height
        slot_t[n] = w_threshold
        n += 1
    return n


@kernel
def _round(indices, weights, first, last, seed, tau, low, rank_bound,
           w_starts, r_starts, size_offset, sizes, count_thresholds,
           slot_z, slot_r0, slot_h, slot_t, best, positions, keys):
    """The darts of a row under its weights with ranks in ``[low, rank_bound)``.

    One loop nest over entries, regions (weight band ``nu``, rank band
    ``rho``) and their cells; the one function it calls per cell is inlined
    (a call taking arrays costs more than a cell).
    """
    for e in range(first, last):
        weight = weights[e - first]
        element = _mix(seed + (np.uint64(indices[e]) + _ONE) * _G_F)
        # An int64 (not the literal 0, which would compile _throw once more).
        n = np.int64(0)
        nu = 0
        while nu < w_starts.size and w_starts[nu] < weight:
            w_start, r_bits = w_starts[nu], _capped_bits(nu)
            n_steps = np.int64(1) << r_bits
            rho = 0
            while rho < r_starts.size and r_starts[rho] < rank_bound:
                r_start = r_starts[rho]
                width = sizes[nu - rho + size_offset, 0]
                height = sizes[nu - rho + size_offset, 1]
                if width > 0.0 and height > 0.0:
                    region = _mix(element + np.uint64(nu + 1) * _G_NU
                                  + np.uint64(rho + 1) * _G_RHO)
                    l_first = _first_new_step(r_start, height, n_steps, low)
                    fine_height = height * _TWO_TO_MINUS_48
                    for j in range(np.int64(1) << _capped_bits(rho)):
                        w0 = w_start + j * width
                        if w0 >= weight:
                            break
                        column = region + np.uint64(j + 1) * _G_W
                        w_threshold = _weight_threshold(weight, w0, width)
                        l = l_first
                        more = True
                        while more:
                            # The darts of a run of cells are listed first, with
                            # no branch on their counts, then thrown in one loop:
                            # a loop per cell mispredicts its random length.
                            while n < _FILL:
                                if l >= n_steps:
                                    more = False
                                    break
                                r0 = r_start + l * height
                                if r0 >= rank_bound:
                                    more = False
                                    break
                                l += 1
                                if r0 + height < low:
                                    continue
                                n = _list_cell(
                                    _mix(column + np.uint64(l) * _G_R), r0, fine_height,
                                    w_threshold, count_thresholds, slot_z, slot_r0, slot_h,
                                    slot_t, n,
                                )
                            if more:
                                n = _throw(slot_z, slot_r0, slot_h, slot_t, n, e, rank_bound,
                                           low, best, positions, keys)
                rho += 1
            nu += 1
        _throw(slot_z, slot_r0, slot_h, slot_t, n, e, rank_bound, low, best, positions, keys)


@kernel
def _throw(slot_z, slot_r0, slot_h, slot_t, n, e, rank_bound, low, best, positions, keys):
    """Throw the ``n`` listed darts of entry ``e``; 0 (the darts left listed)."""
    k = np.uint64(best.size)
    for i in range(n):
        z = slot_z[i]
        a = _mix(z)
        b = _mix(z ^ _C_B)
        rank = slot_r0[i] + np.float64(np.int64(b >> _U16)) * slot_h[i]
        word = ((a & _LOW16) << _U16) | (b & _LOW16)
        bucket = (word * k) >> _U32
        # Selects, not branches: about half the darts pass, at random.
        held = best[bucket]
        win = ((np.int64(a >> _U16) < slot_t[i]) & (rank < rank_bound)
               & (rank >= low) & (rank < held))
        best[bucket] = rank if win else held
        positions[bucket] = e if win else positions[bucket]
        keys[bucket] = a if win else keys[bucket]
    return np.int64(0)


@kernel(inline="always")
def _weight_threshold(weight, w0, width):
    """Steps of a column (of ``2**48``) whose darts pass under ``weight``.

    A dart at step ``u`` passes iff ``u < ceil((weight - w0) / width * 2**48)``,
    a count that grows with ``weight``: each dart passes above a weight of
    its own, the same for every row.
    """
    if w0 + width <= weight:
        return np.int64(_ALL_STEPS)
    return np.int64(math.ceil((weight - w0) / width * _TWO_TO_48))


@kernel(inline="always")
def _first_new_step(r_start, height, n_steps, low):
    """A rank step before which every cell's ranks lie below ``low`` (0 if unsure).

    The ranks of cell ``l`` are at most ``r_start + l * height + height`` as
    rounded, which grows with ``l``: when the cell before the guess is
    entirely below ``low``, so are all before it.
    """
    if not low > r_start:
        return np.int64(0)
    steps = (low - r_start) / height - 1.0
    guess = n_steps if steps >= n_steps else (np.int64(steps) if steps > 0 else np.int64(0))
    if guess > 0 and r_start + (guess - 1) * height + height < low:
        return guess
    return np.int64(0)
