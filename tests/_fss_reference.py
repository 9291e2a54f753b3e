"""Plain reference of the fast similarity sketch (the oracle of ``_minwise_kernels._fss_positions``).

Python integers and loops, written from the definition (Dahlgaard, Knudsen
and Thorup 2017) with no shortcut: bin ``j`` of a row holds, over all ``2k``
rounds, the element of smallest ``(round, hash)`` among those the round
sends to bin ``j`` (round ``i < k``: the bin of its hash; round ``k + j``:
bin ``j``). The hash of coordinate ``x`` in round ``i`` is
``mix64(mix64(x + s0) + s1 + (i + 1) * golden_gamma)``, ``mix64`` being
SplitMix64's finalizer.
"""

import numpy as np

MASK64 = (1 << 64) - 1
GOLDEN_GAMMA = 0x9E3779B97F4A7C15


def mix64(z):
    """SplitMix64's finalizer of a Python integer (taken modulo ``2**64``)."""
    z &= MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def round_hash(coordinate, round_, seeds):
    """The 32-bit hash of ``coordinate`` in round ``round_``."""
    s0, s1 = (int(s) for s in seeds)
    multiplier = mix64(s1 + (round_ + 1) * GOLDEN_GAMMA) | 1
    return ((multiplier * mix64(int(coordinate) + s0)) & MASK64) >> 32


def fss_row(coordinates, seeds, n_bins):
    """Offsets in the row of the element of each of the ``n_bins`` bins."""
    best = [None] * n_bins
    for round_ in range(2 * n_bins):
        for offset, coordinate in enumerate(coordinates):
            h = round_hash(coordinate, round_, seeds)
            if round_ < n_bins:
                bin_ = (h * n_bins) >> 32
            else:
                bin_ = round_ - n_bins
            if best[bin_] is None or (round_, h, offset) < best[bin_]:
                best[bin_] = (round_, h, offset)
    return [entry[2] for entry in best]


def fss_positions(indices, indptr, seeds, n_bins):
    """Positions (counted like ``indptr``) of every nonempty row's bins."""
    rows = []
    base = int(indptr[0])
    for start, stop in zip(indptr[:-1], indptr[1:]):
        start, stop = int(start), int(stop)
        if start == stop:
            continue
        offsets = fss_row(indices[start - base : stop - base], seeds, n_bins)
        rows.append([start + offset for offset in offsets])
    return np.array(rows, dtype=np.int64).reshape(-1, n_bins)
