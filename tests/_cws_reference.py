"""Plain DartMinHash, row by row in pure Python: the oracle of minwise._dart_kernels.

The same darts as the compiled kernel (the grid, the frame, the random words
its module documents), written as directly as possible: Python integers
masked to 64 bits, ``math`` floats, lists.
"""

import math

from sklearn_sketch.minwise._cws import dart_grid_bits, n_darts, poisson_cdf

MASK = 2**64 - 1
G_F, G_NU, G_RHO = 0x9E3779B97F4A7C15, 0xD1B54A32D192ED03, 0xAEF17502108EF2D9
G_W, G_R, G_Q = 0xDB4F0B9175AE2165, 0x8CB92BA72F3D8DD7, 0xF1357AEA2E62A9C5
C_B, C_KEY = 0x243F6A8885A308D3, 0x13198A2E03707344


def mix(z):
    z &= MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def unit(word):
    return (word >> 11) * 2.0**-53


def weight_threshold(weight, w0, width):
    """Of a column's 2**48 weight steps, those below ``weight`` (all if the column is)."""
    if w0 + width <= weight:
        return 2**48
    return math.ceil((weight - w0) / width * 2.0**48)


def band_start(n, shift):
    """``(2**n - 1) 2**shift`` rounded to float64 (exact integers below 2**53)."""
    return math.ldexp(float(2**n - 1), shift)


def row_darts(features, values, seed, k):
    """Per bucket: (entry, key) of the winning dart of one nonempty row."""
    tau, cdf = dart_grid_bits(k), poisson_cdf()
    shift = math.frexp(max(float(v) for v in values))[1]
    weights = [math.ldexp(float(v), -shift) for v in values]
    total = 0.0
    for w in weights:
        total += w
    theta = 1.0
    while True:
        bound = theta * float(n_darts(k)) / (math.ldexp(1.0, tau) * total)
        best = [(math.inf, None, None)] * k
        for entry, (feature, weight) in enumerate(zip(features, weights)):
            element = mix(seed + (int(feature) + 1) * G_F)
            for rank, a, b in entry_darts(element, weight, bound, shift, tau, cdf):
                bucket = ((((a & 0xFFFF) << 16) | (b & 0xFFFF)) * k) >> 32
                if rank < best[bucket][0]:
                    best[bucket] = (rank, entry, mix(a ^ C_KEY) >> 32)
        if all(b[1] is not None for b in best):
            return [(b[1], b[2]) for b in best]
        theta += 0.5


def entry_darts(element, weight, bound, shift, tau, cdf):
    """(rank, a, b) of the darts below ``weight`` and ``bound``, in grid order.

    Dart ``q`` (from 1) of a cell has the words ``a = mix(z)`` and ``b = mix(z ^ C_B)``
    of ``z = cell + q G_Q``: ``a >> 16`` is its weight step and ``b >> 16`` its
    rank step (of 2**48 each, across the cell), the low 16 bits of both its bucket.
    """
    nu = 0
    while band_start(nu, -tau - shift) < weight:
        rho = 0
        while band_start(rho, shift) < bound:
            w_start, r_start = band_start(nu, -tau - shift), band_start(rho, shift)
            width = math.ldexp(1.0, nu - rho - tau - shift)
            height = math.ldexp(1.0, rho - nu + shift)
            region = mix(element + (nu + 1) * G_NU + (rho + 1) * G_RHO)
            j = 0
            while j < 2**rho and w_start + j * width < weight:
                w0 = w_start + j * width
                steps = weight_threshold(weight, w0, width)
                l = 0
                while l < 2**nu and r_start + l * height < bound:
                    r0 = r_start + l * height
                    cell = mix(region + (j + 1) * G_W + (l + 1) * G_R)
                    count = 0
                    while unit(cell) >= cdf[count]:
                        count += 1
                    for q in range(1, count + 1):
                        a = mix(cell + q * G_Q)
                        b = mix(((cell + q * G_Q) & MASK) ^ C_B)
                        rank = r0 + (b >> 16) * (height * 2.0**-48)
                        if (a >> 16) < steps and rank < bound:
                            yield rank, a, b
                    l += 1
                j += 1
            rho += 1
        nu += 1


def dart_samples(X, seed, k):
    """Positions (in ``X.indices``) and keys of every nonempty row of a CSR matrix."""
    positions, keys = [], []
    for row in range(X.shape[0]):
        first, last = X.indptr[row], X.indptr[row + 1]
        if first == last:
            continue
        darts = row_darts(X.indices[first:last], X.data[first:last], seed, k)
        positions.append([first + entry for entry, _ in darts])
        keys.append([key for _, key in darts])
    return positions, keys
