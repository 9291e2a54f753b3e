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
CDF of Poisson(1)), dart ``q`` has ``h = mix(cell + (q + 1) G_Q)`` (its
weight position: the top 53 bits), ``mix(h ^ C_RANK)`` (its rank position)
and ``mix(h ^ C_BUCKET)`` (low 32 bits: its bucket; high 32 bits: its key).
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
_C_RANK = np.uint64(0x243F6A8885A308D3)
_C_BUCKET = np.uint64(0x13198A2E03707344)
_ONE = np.uint64(1)
_LOW32 = np.uint64(0xFFFFFFFF)
_U11 = np.uint64(11)
_U32 = np.uint64(32)
_TWO_TO_MINUS_53 = 2.0**-53
# Largest shift of a count of cells (loops end long before).
_MAX_CELL_BITS = 62


@kernel
def _mix(z):
    """SplitMix64's finalizer of one uint64."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@kernel
def _unit(word):
    """The top 53 bits of ``word`` as a uniform on [0, 1)."""
    return np.float64(word >> _U11) * _TWO_TO_MINUS_53


@kernel
def _band_start(n, shift):
    """``(2**n - 1) * 2**shift`` as float64 rounds it (exact below n = 54)."""
    if n <= 53:
        return math.ldexp(math.ldexp(1.0, n) - 1.0, shift)
    return math.ldexp(1.0, n + shift)


@kernel
def _dart_rows(indices, data, indptr, seed, tau, n_darts, poisson_cdf,
               positions, keys):
    """Per nonempty row and bucket: the winning dart's entry and 32-bit key.

    ``n_darts`` darts are expected in a first round (rank bound ``theta *
    n_darts / (2**tau * |x|_1)`` with ``theta = 1``); while a bucket is
    empty, ``theta`` grows by 1/2 and the row is thrown again.
    """
    k = positions.shape[1]
    best = np.empty(k)
    seed_word = np.uint64(seed)
    out = 0
    for row in range(indptr.size - 1):
        first, last = indptr[row], indptr[row + 1]
        if first == last:
            continue
        largest = 0.0
        for e in range(first, last):
            largest = max(largest, np.float64(data[e]))
        shift = math.frexp(largest)[1]
        total = 0.0
        for e in range(first, last):
            total += math.ldexp(np.float64(data[e]), -shift)
        theta = 1.0
        while True:
            best[:] = np.inf
            rank_bound = theta * n_darts / (math.ldexp(1.0, tau) * total)
            for e in range(first, last):
                weight = math.ldexp(np.float64(data[e]), -shift)
                element = _mix(seed_word + (np.uint64(indices[e]) + _ONE) * _G_F)
                _throw(element, e, weight, rank_bound, shift, tau, poisson_cdf,
                       best, positions[out], keys[out])
            if np.all(best < np.inf):
                break
            theta += 0.5
        out += 1


@kernel
def _throw(element, entry, weight, rank_bound, shift, tau, poisson_cdf,
           best, positions, keys):
    """The darts of one entry below ``weight`` and ``rank_bound`` (frame values)."""
    nu = 0
    while True:
        w_start = _band_start(nu, -tau - shift)
        if w_start >= weight:
            break
        rho = 0
        while True:
            r_start = _band_start(rho, shift)
            if r_start >= rank_bound:
                break
            width = math.ldexp(1.0, nu - rho - tau - shift)
            height = math.ldexp(1.0, rho - nu + shift)
            if width > 0.0 and height > 0.0:
                region = _mix(element + np.uint64(nu + 1) * _G_NU
                              + np.uint64(rho + 1) * _G_RHO)
                _region(region, entry, w_start, width, min(rho, _MAX_CELL_BITS),
                        r_start, height, min(nu, _MAX_CELL_BITS), weight,
                        rank_bound, poisson_cdf, best, positions, keys)
            rho += 1
        nu += 1


@kernel
def _region(region, entry, w_start, width, w_bits, r_start, height, r_bits,
            weight, rank_bound, poisson_cdf, best, positions, keys):
    """The cells of one region that meet ``[0, weight) x [0, rank_bound)``."""
    k = best.size
    for j in range(np.int64(1) << w_bits):
        w0 = w_start + j * width
        if w0 >= weight:
            break
        column = region + np.uint64(j + 1) * _G_W
        for l in range(np.int64(1) << r_bits):
            r0 = r_start + l * height
            if r0 >= rank_bound:
                break
            cell = _mix(column + np.uint64(l + 1) * _G_R)
            u = _unit(cell)
            count = 0
            while u >= poisson_cdf[count]:
                count += 1
            for q in range(count):
                h = _mix(cell + np.uint64(q + 1) * _G_Q)
                if w0 + width * _unit(h) >= weight:
                    continue
                rank = r0 + height * _unit(_mix(h ^ _C_RANK))
                if rank >= rank_bound:
                    continue
                tag = _mix(h ^ _C_BUCKET)
                bucket = ((tag & _LOW32) * np.uint64(k)) >> _U32
                if rank < best[bucket]:
                    best[bucket] = rank
                    positions[bucket] = entry
                    keys[bucket] = tag >> _U32
