"""Plain reference implementations of the Walsh-Hadamard transform and the
structured products built on it: the oracles of the compiled kernels.

The transform of a row of length ``d`` is the radix-2 butterfly network:
levels ``half = 1, 2, 4, ..., d / 2`` in that order, each replacing every
pair ``a = x[t], b = x[t + half]`` (``t`` in the first half of a run of
``2 half``) by ``a + b, a - b``, one row and one level at a time.
Everything is computed in the rows' dtype, so the results are comparable bit
for bit.
"""

import numpy as np


def sylvester(f, dtype):
    """``H[i, k] = (-1)^popcount(i & k)``, the Sylvester +-1 matrix of size ``f``."""
    index = np.arange(f, dtype=np.uint16 if f <= 2**16 else np.uint64)
    bits = index[:, None] & index[None, :]
    parity = np.zeros((f, f), dtype=np.int8)
    while bits.any():  # the parity of the set bits, one bit position at a time
        parity ^= (bits & 1).astype(np.int8)
        bits >>= 1
    return (1 - 2 * parity).astype(dtype)


def fwht_row(x):
    """The transform of one row ``x`` (1-d), a new array of its dtype."""
    x = np.array(x)
    half = 1
    while half < x.size:
        # Runs of 2 half: first halves a, second halves b.
        runs = x.reshape(-1, 2, half)
        a, b = runs[:, 0], runs[:, 1]
        x = np.stack([a + b, a - b], axis=1).reshape(x.size)
        half *= 2
    return x


def padded(row, width):
    out = np.zeros(width, dtype=row.dtype)
    out[: row.size] = row
    return out


def sorf(X, signs, scales):
    """``S H D1 H D2 H D3 x`` of every row and block, (n, n_blocks * width)."""
    n_blocks, width = scales.shape
    rows = []
    for x in X:
        blocks = []
        for b in range(n_blocks):
            v = padded(x, width) * signs[2, b]
            for diagonal in (signs[1, b], signs[0, b], scales[b]):
                v = fwht_row(v) * diagonal
            blocks.append(v)
        rows.append(np.concatenate(blocks))
    return np.array(rows)


def fastfood(X, signs, permutations, gaussian, scales):
    """``S H G Pi H B x`` of every row and block, ``(Pi v)[j] = v[permutations[j]]``."""
    n_blocks, width = scales.shape
    rows = []
    for x in X:
        blocks = []
        for b in range(n_blocks):
            v = fwht_row(padded(x, width) * signs[b])
            v = fwht_row(v[permutations[b]] * gaussian[b])
            blocks.append(v * scales[b])
        rows.append(np.concatenate(blocks))
    return np.array(rows)


def srht(inputs, signs, coordinates, n_components):
    """TensorSRHT: the product over degrees of the sampled coordinates of the
    transformed signed blocks, times ``1 / sqrt(n_components)``."""
    out = None
    for U, S, C in zip(inputs, signs, coordinates):
        sampled = np.array([
            np.concatenate([fwht_row(u * s) for s in S])[C] for u in U
        ])
        out = sampled if out is None else out * sampled
    return out * out.dtype.type(1.0 / np.sqrt(n_components))
