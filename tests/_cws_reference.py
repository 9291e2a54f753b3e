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
C_RANK, C_BUCKET = 0x243F6A8885A308D3, 0x13198A2E03707344


def mix(z):
    z &= MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def unit(word):
    return (word >> 11) * 2.0**-53


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
            for dart in entry_darts(element, weight, bound, shift, tau, cdf):
                rank, tag = dart
                bucket = ((tag & 0xFFFFFFFF) * k) >> 32
                if rank < best[bucket][0]:
                    best[bucket] = (rank, entry, tag >> 32)
        if all(b[1] is not None for b in best):
            return [(b[1], b[2]) for b in best]
        theta += 0.5


def entry_darts(element, weight, bound, shift, tau, cdf):
    """(rank, bucket word) of the darts below ``weight`` and ``bound``, in grid order."""
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
                l = 0
                while l < 2**nu and r_start + l * height < bound:
                    r0 = r_start + l * height
                    cell = mix(region + (j + 1) * G_W + (l + 1) * G_R)
                    count = 0
                    while unit(cell) >= cdf[count]:
                        count += 1
                    for q in range(count):
                        h = mix(cell + (q + 1) * G_Q)
                        rank = r0 + height * unit(mix(h ^ C_RANK))
                        if w0 + width * unit(h) < weight and rank < bound:
                            yield rank, mix(h ^ C_BUCKET)
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
