"""Exact kernels, for ``SVC(kernel="precomputed")`` baselines and tests, and the
error a fitted sketch achieves against its kernel (:func:`kernel_approximation_error`).

The kernels are compiled loops (``_kernels``) over the rows of ``X`` and an
inverted index of ``Y`` (its rows by column, over the columns it stores), in
the order of a sparse product: only pairs of values that share a column are
visited, and the memory beyond the ``(n_X, n_Y)`` output is ``O(nnz + n_Y)``
whatever the number of columns (int64 column indices are accepted). Each
row is first brought near unit scale by a power of two, so that huge values
(up to the largest float) and tiny ones (down to subnormal numbers) give the
kernel of the same rows at unit scale, finite. The compiled loops are
imported, and compiled, on the first call only.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_array
from sklearn.utils.validation import check_non_negative

from ..utils._validation import FLOAT_DTYPES, canonical_csr
from ._approximation import kernel_approximation_error

__all__ = [
    "core_kernel",
    "gmm_kernel",
    "kernel_approximation_error",
    "min_max_kernel",
    "resemblance_kernel",
]


def _canonical(X):
    """Sparse ``X`` as a canonical CSR matrix, dense ``X`` as it is."""
    return canonical_csr(X) if sp.issparse(X) else X


def _check_pair(X, Y, name):
    """``X`` and ``Y`` validated for the kernel ``name``, and the output dtype.

    Both must be 2-D, finite, with at least one row and one column, and of
    the same width. Sparse input of any format becomes canonical CSR (int64
    indices kept), so that duplicates that cancel are not negative values;
    integers and booleans become float64.
    """
    params = dict(
        accept_sparse="csr",
        accept_large_sparse=True,
        dtype=FLOAT_DTYPES,
        ensure_all_finite=True,
        estimator=name,
    )
    # scikit-learn's first test of finiteness sums the values: huge values
    # of both signs give inf - inf there, a spurious "invalid value" warning
    # before its element-wise test finds them finite.
    with np.errstate(invalid="ignore"):
        X = _canonical(check_array(X, input_name="X", **params))
        if Y is not None:
            Y = _canonical(check_array(Y, input_name="Y", **params))
    if Y is not None and Y.shape[1] != X.shape[1]:
        raise ValueError(
            f"Incompatible dimension for X and Y matrices in {name}: "
            f"X has {X.shape[1]} features, Y has {Y.shape[1]}."
        )
    both_float32 = X.dtype == np.float32 and (Y is None or Y.dtype == np.float32)
    return X, Y, (np.float32 if both_float32 else np.float64)


# halves[d] = 2**-d: the factor that brings a row whose exponent is d lower
# to the scale of a pair. Past 2**-1074, the smallest subnormal, it is 0;
# the kernels use the last entry for every larger d.
_HALVES = np.ldexp(1.0, -np.arange(1100))


def _scaled_rows(X, unit_l2):
    """The canonical CSR arrays of ``X`` for the kernels, its rows scaled.

    Returns int64 ``indptr`` and ``indices``, and from ``scale_rows`` the
    scaled float64 values, the row exponents and the row norms.
    """
    from ._kernels import scale_rows

    X = canonical_csr(X)
    indptr = np.ascontiguousarray(X.indptr, dtype=np.int64)
    indices = np.ascontiguousarray(X.indices, dtype=np.int64)
    data = np.ascontiguousarray(X.data, dtype=np.float64)
    scaled = np.empty_like(data)
    exponents = np.empty(X.shape[0], dtype=np.int64)
    norms = np.empty(X.shape[0])
    scale_rows(indptr, data, unit_l2, scaled, exponents, norms)
    return indptr, indices, scaled, exponents, norms


def _inverted_index(indptr, indices, values):
    """The rows of a CSR matrix by column, over the columns it stores.

    Returns the sorted distinct ``columns``, and ``colptr``, ``rows``,
    ``values``: the rows (ascending) and values of ``columns[c]`` are
    ``rows[colptr[c]:colptr[c + 1]]``. ``O(nnz)`` memory: the columns no row
    stores take no room.
    """
    order = np.argsort(indices, kind="stable")  # stable: rows stay ascending
    by_column = indices[order]
    starts = np.flatnonzero(by_column[1:] != by_column[:-1]) + 1
    colptr = np.concatenate(([0], starts, [by_column.size])) if by_column.size else [0]
    colptr = np.asarray(colptr, dtype=np.int64)
    rows = np.repeat(np.arange(indptr.size - 1, dtype=np.int64), np.diff(indptr))
    return by_column[colptr[:-1]], colptr, rows[order], values[order]


def _positions(columns, indices):
    """The position of each of ``indices`` in the sorted ``columns``, -1 if absent."""
    if columns.size == 0:
        return np.full(indices.size, -1, dtype=np.int64)
    positions = np.minimum(np.searchsorted(columns, indices), columns.size - 1)
    return np.where(columns[positions] == indices, positions, -1).astype(np.int64)


def _prepare(X, Y, unit_l2):
    """The arrays the compiled loops take, for ``X`` and ``Y`` (None: ``X``).

    Returns the scaled CSR arrays of ``X`` (``_scaled_rows``) with its column
    indices replaced by positions in the inverted index of ``Y``, that index
    (``colptr``, ``rows``, ``values``), and ``Y``'s exponents, norms and
    numbers of stored values per row.
    """
    x = _scaled_rows(X, unit_l2)
    y = x if Y is None else _scaled_rows(Y, unit_l2)
    columns, colptr, rows, values = _inverted_index(*y[:3])
    x_rows = (x[0], _positions(columns, x[1]), *x[2:])
    y_sizes = np.diff(y[0]).astype(np.float64)
    return x_rows, (colptr, rows, values, *y[3:], y_sizes)


def _pattern_kernel(X, Y, kind, name):
    """Resemblance (``kind=0``) or CoRE kernel (``kind=1, 2``) of all row pairs."""
    from ._kernels import core_rows

    X, Y, dtype = _check_pair(X, Y, name)
    x, (colptr, rows, values, _, _, y_sizes) = _prepare(X, Y, True)
    n_Y = y_sizes.size
    out = np.empty((x[0].size - 1, n_Y), dtype=dtype)
    core_rows(*x[:3], colptr, rows, values, y_sizes, kind, Y is None,
              np.empty(n_Y), np.empty(n_Y), out)
    return out


def resemblance_kernel(X, Y=None):
    r"""Resemblance :math:`|S_x \cap S_y| / |S_x \cup S_y|` of the nonzero patterns.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples_X, n_features)
        Real values; only which entries are nonzero matters.

    Y : {array-like, sparse matrix} of shape (n_samples_Y, n_features), default=None
        If None, ``Y = X``.

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Y)
        0 where either row is all zero. float32 when both inputs are
        float32, float64 otherwise.

    Raises
    ------
    ValueError
        If ``X`` or ``Y`` is not 2-D, has no row or no column, or has NaN
        or infinite values, or if their numbers of columns differ.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketch.metrics import resemblance_kernel
    >>> X = np.array([[1.0, 2.0, 0.0], [0.0, -1.0, 5.0]])
    >>> resemblance_kernel(X)
    array([[1.        , 0.33333333],
           [0.33333333, 1.        ]])
    """
    return _pattern_kernel(X, Y, 0, "resemblance_kernel")


def core_kernel(X, Y=None, *, kind=1):
    r"""CoRE kernel of type 1 or 2 (Li, 2014).

    With :math:`\rho` the correlation of the l2-normalized rows, :math:`S` the set
    of nonzero coordinates of a row, :math:`f = |S|` and :math:`R` the resemblance:

    * ``kind=1``: :math:`K_{C1} = \rho R`;
    * ``kind=2``: :math:`K_{C2} = \rho \sqrt{f_x f_y} / |S_x \cup S_y|`.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples_X, n_features)
        Real values; negative values are allowed.

    Y : {array-like, sparse matrix} of shape (n_samples_Y, n_features), default=None
        If None, ``Y = X``.

    kind : {1, 2}, default=1
        Type of the CoRE kernel.

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Y)
        0 where either row is all zero. float32 when both inputs are
        float32, float64 otherwise.

    Raises
    ------
    ValueError
        If ``X`` or ``Y`` is not 2-D, has no row or no column, or has NaN
        or infinite values, or if their numbers of columns differ.
        Also if ``kind`` is not 1 or 2.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketch.metrics import core_kernel
    >>> X = np.array([[1.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    >>> core_kernel(X, kind=1).round(4)
    array([[1.    , 0.3536],
           [0.3536, 1.    ]])
    >>> core_kernel(X, kind=2).round(4)
    array([[1. , 0.5],
           [0.5, 1. ]])
    """
    if kind not in (1, 2) or isinstance(kind, bool):
        raise ValueError(f"kind must be 1 or 2, got {kind!r}.")
    return _pattern_kernel(X, Y, kind, "core_kernel")


def _min_max(X, Y, name):
    """``sum min / sum max`` of the split rows ``[max(x, 0), max(-x, 0)]``."""
    from ._kernels import min_max_rows

    X, Y, dtype = _check_pair(X, Y, name)
    if name == "min_max_kernel":
        for data in (X, Y) if Y is not None else (X,):
            check_non_negative(data, "min_max_kernel (gmm_kernel accepts real values)")
    x, y = _prepare(X, Y, False)
    n_Y = y[-1].size
    out = np.empty((x[0].size - 1, n_Y), dtype=dtype)
    min_max_rows(*x, *y[:-1], _HALVES, Y is None, np.empty(n_Y), out)
    return out


def _zero_bit_probability(X, Y=None):
    """``P[i(x) = i(y)]`` of the coordinates of two rows' consistent samples.

    The collision probability of MinMaxHasher's ``codes="0bit"`` for the
    split rows ``[max(x, 0), max(-x, 0)]`` (the rows themselves when they
    are nonnegative): at least the GMM kernel, see ``zero_bit_rows``.
    """
    from ._kernels import zero_bit_rows

    X, Y, dtype = _check_pair(X, Y, "_zero_bit_probability")
    x, y = _prepare(X, Y, False)
    n_Y = y[-1].size
    out = np.empty((x[0].size - 1, n_Y), dtype=dtype)
    zero_bit_rows(*x, *y[:-1], _HALVES, Y is None, np.empty(n_Y), np.empty(n_Y),
                  np.empty(n_Y), out)
    return out


def min_max_kernel(X, Y=None):
    r"""Min-max kernel :math:`\sum_i \min(x_i, y_i) / \sum_i \max(x_i, y_i)` of nonnegative rows.

    Also called the weighted Jaccard similarity (or Ruzicka similarity); it
    equals the resemblance on binary data.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples_X, n_features)
        Nonnegative values.

    Y : {array-like, sparse matrix} of shape (n_samples_Y, n_features), default=None
        Nonnegative values. If None, ``Y = X``.

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Y)
        0 where both rows are all zero (and where either is). float32 when
        both inputs are float32, float64 otherwise; exact up to rounding
        (computed in float64).

    Raises
    ------
    ValueError
        If ``X`` or ``Y`` is not 2-D, has no row or no column, or has NaN
        or infinite values, or if their numbers of columns differ.
        Also if ``X`` or ``Y`` has negative values (see :func:`gmm_kernel`).

    See Also
    --------
    gmm_kernel : The generalized min-max kernel, for real values.
    sklearn_sketch.MinMaxHasher : Hashed features that linearize it.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketch.metrics import min_max_kernel
    >>> X = np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 1.0]])
    >>> min_max_kernel(X)
    array([[1. , 0.4],
           [0.4, 1. ]])
    """
    return _min_max(X, Y, "min_max_kernel")


def gmm_kernel(X, Y=None):
    r"""Generalized min-max (GMM) kernel of real rows (Li, 2017).

    Each row is split into its positive and negative parts,
    :math:`\tilde{x} = [\max(x, 0), \max(-x, 0)]`, and

    .. math::

        K_{GMM}(x, y) = \frac{\sum_i \min(\tilde{x}_i, \tilde{y}_i)}
                             {\sum_i \max(\tilde{x}_i, \tilde{y}_i)}:

    the min-max kernel of the split rows, which equals
    :func:`min_max_kernel` on nonnegative data.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples_X, n_features)
        Real values.

    Y : {array-like, sparse matrix} of shape (n_samples_Y, n_features), default=None
        If None, ``Y = X``.

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Y)
        0 where either row is all zero. float32 when both inputs are
        float32, float64 otherwise.

    Raises
    ------
    ValueError
        If ``X`` or ``Y`` is not 2-D, has no row or no column, or has NaN
        or infinite values, or if their numbers of columns differ.

    See Also
    --------
    min_max_kernel : The min-max kernel of nonnegative rows.
    sklearn_sketch.MinMaxHasher : Hashed features that linearize it.

    References
    ----------
    .. [1] Li, P. "Linearized GMM Kernels and Normalized Random Fourier Features."
       KDD 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketch.metrics import gmm_kernel
    >>> X = np.array([[1.0, -2.0], [1.0, 2.0]])
    >>> gmm_kernel(X)
    array([[1. , 0.2],
           [0.2, 1. ]])
    """
    return _min_max(X, Y, "gmm_kernel")
