"""``gamma="scale"``: the RBF kernel's width from the data's variance, computed stably.

One home for the concept, shared by every estimator that offers it
(``OrthogonalRBFSampler``, ``KernelJL``): the value is that of
:class:`sklearn.svm.SVC`, ``1 / (n_features * X.var())``, taken without the
overflow, underflow and cancellation of the textbook formula.
"""

import numpy as np
import scipy.sparse as sp


def _cell_values(X):
    """The stored values of ``X`` in float64 and how many cells are implicit zeros."""
    if sp.issparse(X):
        data = np.asarray(X.data, dtype=np.float64)
        return data, X.shape[0] * X.shape[1] - data.size
    return np.asarray(X, dtype=np.float64).ravel(), 0


def scaled_variance(X):
    """The variance of every cell of ``X`` as ``(v, e)``: ``X.var() = v * 4 ** e``.

    Dense and sparse input take the same steps, O(nnz) for sparse input (its
    implicit zeros are counted, not stored). The values are first scaled by
    a power of two, ``2 ** -e``, which is exact, so that neither their
    squares nor their sum overflow near the dtype's maximum nor underflow
    near its minimum; then the corrected two-pass algorithm (Chan, Golub and
    LeVeque 1983) takes the variance without the cancellation of
    ``E[x^2] - E[x]^2``, which a large common offset turns into noise.
    Constant ``X`` (every cell equal, implicit zeros included) gives exactly 0.
    """
    values, n_zeros = _cell_values(X)
    n_cells = values.size + n_zeros
    if values.size == 0:
        return 0.0, 0
    low, high = values.min(), values.max()
    if low == high and (n_zeros == 0 or low == 0):
        return 0.0, 0
    exponent = int(np.frexp(max(abs(low), abs(high), 0.0))[1])
    scaled = np.ldexp(values, -exponent)
    mean = (scaled.sum() / n_cells)
    deviations = scaled - mean
    sum_squares = deviations @ deviations + n_zeros * mean * mean
    sum_deviations = deviations.sum() - n_zeros * mean
    variance = (sum_squares - sum_deviations * sum_deviations / n_cells) / n_cells
    return max(variance, 0.0), exponent


def scale_gamma(X):
    """``gamma="scale"``: ``1 / (n_features * X.var())`` (1.0 for constant X), O(nnz).

    Raises
    ------
    ValueError
        If that value is not a positive finite float64, as for input whose
        variance is beyond float64's range (values near the dtype's maximum
        or its smallest ones).
    """
    variance, exponent = scaled_variance(X)
    if variance == 0:
        return 1.0
    with np.errstate(over="ignore", under="ignore"):
        gamma = float(np.ldexp(1.0 / (X.shape[1] * variance), -2 * exponent))
    if not 0 < gamma < np.inf:
        raise ValueError(
            f"gamma='scale' overflowed float64's range: 1 / (n_features * X.var()) "
            f"{'underflows to 0' if gamma == 0 else 'is infinite'} for this input "
            f"(X.var() = {variance:.3g} * 4**{exponent}). "
            "Scale the input towards unit variance, or pass a numeric gamma."
        )
    return gamma
