"""Plain reference implementations of the compiled minwise kernels (the oracles).

Python integers and loops over rows and entries, written from the
definitions in ``utils/_hashing.py`` and ``minwise/_positions.py``, so that
the kernels of ``utils/_hash_kernels.py`` and ``minwise/_minwise_kernels.py``
can be compared with them bit for bit.
"""

import numpy as np

P = (1 << 61) - 1
MASK32 = (1 << 32) - 1
MASK64 = (1 << 64) - 1


def fmix32(key):
    """MurmurHash3's finalizer of ``key`` folded to 32 bits (XOR of its halves)."""
    h = (key & MASK32) ^ (key >> 32)
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & MASK32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & MASK32
    return h ^ (h >> 16)


def minwise_hash(a, b, coordinate):
    """High 32 bits of ``a * fmix32(coordinate) + b mod 2**64``."""
    return ((int(a) * fmix32(int(coordinate)) + int(b)) & MASK64) >> 32


def polynomial(coefficients, key):
    """``sum a_c key**(k-1-c) mod P`` (Horner order)."""
    value = 0
    for coefficient in coefficients:
        value = (value * int(key) + int(coefficient)) % P
    return value


def mix64(z):
    """SplitMix64's finalizer of a 64-bit integer."""
    z ^= z >> 30
    z = (z * 0xBF58476D1CE4E5B9) & MASK64
    z ^= z >> 27
    z = (z * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def probes(probe_coefficients, n_bins, n_attempts):
    """Bin probed by bin ``j`` at attempt ``t``: key ``j * n_attempts + t``, mod k.

    The polynomial's value of the key passes through SplitMix64's finalizer
    before the reduction to a bin.
    """
    table = []
    for j in range(n_bins):
        keys = range(j * n_attempts, (j + 1) * n_attempts)
        values = (mix64(polynomial(probe_coefficients, key)) for key in keys)
        table.append([value % n_bins for value in values])
    return table


def invert_probes(probe_table):
    """Pairs ``(j, t)`` by the bin ``probe_table[j][t]`` they probe, then ``t``, ``j``.

    Returns the pairs packed as ``t << 32 | j``, and ``starts[f]``: how many
    pairs probe a bin below ``f`` (``n_bins + 1`` of them).
    """
    n_bins, n_attempts = len(probe_table), len(probe_table[0])
    pairs = sorted(
        (probe_table[j][t], t, j) for j in range(n_bins) for t in range(n_attempts)
    )
    starts = [sum(1 for g, _, _ in pairs if g < f) for f in range(n_bins + 1)]
    return [(t << 32) | j for _, t, j in pairs], starts


def oph_positions(indices, indptr, hash_coefficients, probe_table):
    """One-permutation hashing with optimal densification, row by row.

    ``probe_table[j]`` is bin ``j``'s probe sequence; a bin whose probes all
    miss takes the first filled bin after it, circularly.
    """
    n_bins = len(probe_table)
    a, b = (int(c) for c in hash_coefficients)
    rows = []
    for start, stop in zip(indptr[:-1], indptr[1:]):
        if start == stop:
            continue
        best = {}
        for position in range(start, stop):
            value = minwise_hash(a, b, indices[position])
            bin_ = value * n_bins >> 32
            best[bin_] = min(best.get(bin_, (value, position)), (value, position))
        row = []
        for j in range(n_bins):
            source = j
            if j not in best:
                hits = [f for f in probe_table[j] if f in best]
                if hits:
                    source = hits[0]
                else:
                    after = ((j + t) % n_bins for t in range(1, n_bins))
                    source = next(f for f in after if f in best)
            row.append(best[source][1])
        rows.append(row)
    return np.array(rows, dtype=np.int64).reshape(-1, n_bins)


def minwise_positions(indices, indptr, hash_coefficients):
    """Position of each nonempty row's minimum under each hash (ties: the first)."""
    rows = []
    for start, stop in zip(indptr[:-1], indptr[1:]):
        if start == stop:
            continue
        row = []
        for a, b in hash_coefficients:
            values = [minwise_hash(a, b, indices[p]) for p in range(start, stop)]
            row.append(start + values.index(min(values)))
        rows.append(row)
    return np.array(rows, dtype=np.int64).reshape(-1, len(hash_coefficients))


def bbit_code(a, b, location, b_bits, n_keys):
    """Multiply-add-shift b-bit code: 32-bit word when keys below ``n_keys`` allow.

    With keys of more than 32 bits (``n_keys > 2**32``) every location is
    ``fmix32``-folded first; with ``n_keys=None`` those above ``2**32 - 1``.
    """
    a, b, location = int(a), int(b), int(location)
    key_bits = 64 if n_keys is None else max(1, (int(n_keys) - 1).bit_length())
    if key_bits + b_bits - 1 <= 32:
        return (((a & MASK32) * location + (b & MASK32)) & MASK32) >> (32 - b_bits)
    if (n_keys is not None and key_bits > 32) or location > MASK32:
        location = fmix32(location)
    return ((a * location + b) & MASK64) >> (64 - b_bits)
