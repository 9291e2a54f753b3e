"""Plain reference implementations of the Walsh-Hadamard transform and the
structured products built on it: the oracles of the compiled kernels.

The transform of a row of length ``d`` is the package's: below 64,
``log2(d)`` butterfly levels ``(a + b, a - b)``; from 64 on, one pass per
Kronecker factor ``H_f`` of the plan, each output the sum of its ``f``
signed inputs taken in order from zero. Everything is computed in the rows'
dtype, so the results are comparable bit for bit.
"""

import numpy as np

from sklearn_sketch.utils._hadamard import hadamard_plan


def sylvester(f, dtype):
    """``H[i, k] = (-1)^popcount(i & k)``, the Sylvester +-1 matrix of size ``f``."""
    i, k = np.meshgrid(np.arange(f), np.arange(f), indexing="ij")
    parity = np.array([bin(v).count("1") % 2 for v in (i & k).ravel()]).reshape(f, f)
    return (1 - 2 * parity).astype(dtype)


def fwht_row(x, factor_log2=None):
    """The transform of one row ``x`` (1-d), a new array of its dtype."""
    x = np.array(x)
    d = x.size
    plan = hadamard_plan(d, factor_log2)
    if plan.size == 0:
        half = 1
        while half < d:
            pairs = x.reshape(-1, 2, half)
            x = np.concatenate([pairs[:, 0] + pairs[:, 1], pairs[:, 0] - pairs[:, 1]], axis=1)
            x = x.reshape(d)
            half *= 2
        return x
    prefix = 1
    for f in plan:
        X = x.reshape(prefix, f, d // (prefix * f))
        H = sylvester(f, x.dtype)
        Y = np.empty_like(X)
        for i in range(f):
            total = np.zeros_like(X[:, 0, :])
            for k in range(f):
                total = total + H[i, k] * X[:, k, :]
            Y[:, i, :] = total
        x = Y.reshape(d)
        prefix *= f
    return x


def padded(row, width):
    out = np.zeros(width, dtype=row.dtype)
    out[: row.size] = row
    return out


def sorf(X, signs, scales, factor_log2):
    """``S H D1 H D2 H D3 x`` of every row and block, (n, n_blocks * width)."""
    n_blocks, width = scales.shape
    rows = []
    for x in X:
        blocks = []
        for b in range(n_blocks):
            v = padded(x, width) * signs[2, b]
            for diagonal in (signs[1, b], signs[0, b], scales[b]):
                v = fwht_row(v, factor_log2) * diagonal
            blocks.append(v)
        rows.append(np.concatenate(blocks))
    return np.array(rows)


def fastfood(X, signs, permutations, gaussian, scales, factor_log2):
    """``S H G Pi H B x`` of every row and block, ``(Pi v)[j] = v[permutations[j]]``."""
    n_blocks, width = scales.shape
    rows = []
    for x in X:
        blocks = []
        for b in range(n_blocks):
            v = fwht_row(padded(x, width) * signs[b], factor_log2)
            v = fwht_row(v[permutations[b]] * gaussian[b], factor_log2)
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
