"""Plain dense references of the exact kernels of ``sklearn_sketch.metrics``.

Written from the definitions, pair by pair over small dense float64 arrays,
with no scaling: the oracles of the compiled kernels at ordinary scales.
"""

import numpy as np


def _split(X):
    """The rows ``[max(x, 0), max(-x, 0)]``."""
    return np.hstack([np.maximum(X, 0.0), np.maximum(-X, 0.0)])


def min_max(X, Y):
    """``sum min / sum max`` of every pair of rows (0 if a row is zero)."""
    K = np.zeros((X.shape[0], Y.shape[0]))
    for i, x in enumerate(np.asarray(X, dtype=np.float64)):
        for j, y in enumerate(np.asarray(Y, dtype=np.float64)):
            top = np.maximum(x, y).sum()
            if x.any() and y.any():
                K[i, j] = np.minimum(x, y).sum() / top
    return K


def gmm(X, Y):
    """The min-max kernel of the split rows."""
    X, Y = np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=np.float64)
    return min_max(_split(X), _split(Y))


def pattern(X, Y, kind):
    """Resemblance (``kind=0``) or CoRE kernel of type ``kind`` of every pair."""
    X, Y = np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=np.float64)
    K = np.zeros((X.shape[0], Y.shape[0]))
    for i, u in enumerate(X):
        for j, v in enumerate(Y):
            S_u, S_v = set(np.flatnonzero(u)), set(np.flatnonzero(v))
            if not S_u or not S_v:
                continue
            union = len(S_u | S_v)
            R = len(S_u & S_v) / union
            rho = u @ v / np.linalg.norm(u) / np.linalg.norm(v)
            K[i, j] = (R, rho * R, rho * np.sqrt(len(S_u) * len(S_v)) / union)[kind]
    return K
