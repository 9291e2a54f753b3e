"""Exact kernels, for ``SVC(kernel="precomputed")`` baselines and tests.

The CoRE and resemblance kernels are computed with two sparse products per
block of rows of ``X``: the correlation ``rho = <u~, v~>`` of the
l2-normalized rows and the intersection sizes ``a = |S_u & S_v|`` of their
nonzero patterns. Blocks are sized by scikit-learn's ``working_memory``, so
the temporaries beyond the ``(n_X, n_Y)`` output stay bounded. The min-max and GMM kernels follow from
the l1 norms of the rows and their l1 distances (scikit-learn's
``manhattan_distances``, sparse-aware), by blocks of rows alike.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.metrics.pairwise import check_pairwise_arrays, manhattan_distances
from sklearn.preprocessing import normalize
from sklearn.utils.validation import check_non_negative

from .utils._chunking import row_chunks
from .utils._validation import canonical_csr

__all__ = ["core_kernel", "gmm_kernel", "min_max_kernel", "resemblance_kernel"]


def _patterns(X):
    """Canonical CSR, its l2-normalized copy, its binary pattern and set sizes."""
    X = canonical_csr(X)
    # normalize leaves all-zero rows at zero.
    X_normalized = normalize(X, norm="l2")
    pattern = sp.csr_matrix(
        (np.ones_like(X.data, dtype=np.float64), X.indices, X.indptr), shape=X.shape
    )
    sizes = np.diff(X.indptr).astype(np.float64)
    return X_normalized, pattern, sizes


def _pairwise(X, Y, combine):
    X, Y = check_pairwise_arrays(X, Y, accept_sparse="csr")
    dtype = np.result_type(X.dtype, Y.dtype)
    X_norm, X_pattern, f_X = _patterns(X)
    Y_norm, Y_pattern, f_Y = _patterns(Y)
    Y_norm_T = Y_norm.T.tocsc()
    Y_pattern_T = Y_pattern.T.tocsc()
    K = np.empty((X.shape[0], Y.shape[0]), dtype=dtype)
    # Per row of a block: rho, a, the union and the result, all float64.
    for rows in row_chunks(X.shape[0], 4 * 8 * max(Y.shape[0], 1)):
        a = (X_pattern[rows] @ Y_pattern_T).toarray()
        union = f_X[rows, None] + f_Y[None, :] - a
        # Two all-zero rows have an empty union: their kernel value is 0.
        union[union == 0] = np.inf
        if combine is None:
            K[rows] = a / union
        else:
            rho = (X_norm[rows] @ Y_norm_T).toarray()
            K[rows] = combine(rho, a, union, f_X[rows, None], f_Y[None, :])
    return K


def resemblance_kernel(X, Y=None):
    """Resemblance ``|S_x & S_y| / |S_x | S_y|`` of the nonzero patterns.

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

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketch.metrics import resemblance_kernel
    >>> X = np.array([[1.0, 2.0, 0.0], [0.0, -1.0, 5.0]])
    >>> resemblance_kernel(X)
    array([[1.        , 0.33333333],
           [0.33333333, 1.        ]])
    """
    return _pairwise(X, Y, None)


def _core1(rho, a, union, f_x, f_y):
    return rho * (a / union)


def _core2(rho, a, union, f_x, f_y):
    return rho * (np.sqrt(f_x * f_y) / union)


def core_kernel(X, Y=None, *, kind=1):
    """CoRE kernel of type 1 or 2 (Li, 2014).

    With ``rho`` the correlation of the l2-normalized rows, ``S`` the set of
    nonzero coordinates of a row, ``f = |S|`` and ``R`` the resemblance:

    * ``kind=1``: ``K_C1 = rho * R``;
    * ``kind=2``: ``K_C2 = rho * sqrt(f_x f_y) / |S_x | S_y|``.

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
    return _pairwise(X, Y, _core1 if kind == 1 else _core2)


def _l1_norms(X):
    """The l1 norm of every row, in float64."""
    if sp.issparse(X):
        return np.asarray(abs(X).sum(axis=1), dtype=np.float64).ravel()
    return np.abs(X).sum(axis=1, dtype=np.float64)


def _split_pattern(X):
    """Binary CSR pattern of the split rows ``[x > 0, x < 0]`` (width 2 d)."""
    X = canonical_csr(X)
    indices = X.indices.astype(np.int64) + X.shape[1] * (X.data < 0)
    pattern = sp.csr_matrix(
        (np.ones(X.nnz), indices, X.indptr), shape=(X.shape[0], 2 * X.shape[1])
    )
    pattern.sort_indices()
    return pattern


def _min_max_from_l1(X, Y):
    """``sum min / sum max`` of the split rows, from l1 norms and distances.

    With ``x~ = [max(x, 0), max(-x, 0)]``: ``|x~ - y~|_1 = |x - y|_1``
    (coordinate by coordinate, whether the signs agree or not), so
    ``sum min(x~, y~) = (|x|_1 + |y|_1 - |x - y|_1) / 2`` and ``sum max``
    the same with ``+``. For nonnegative rows ``x~ = [x, 0]``: the min-max
    kernel.
    """
    X, Y = check_pairwise_arrays(
        X, Y, accept_sparse="csr", dtype=(np.float64, np.float32)
    )
    dtype = np.result_type(X.dtype, Y.dtype)
    if sp.issparse(X):
        X = canonical_csr(X)
    if sp.issparse(Y):
        Y = canonical_csr(Y)
    norms_X, norms_Y = _l1_norms(X), _l1_norms(Y)
    # Rows that share no coordinate of the same sign have kernel 0 exactly,
    # where the difference of the sums would leave a rounding error.
    pattern_X, pattern_Y_T = _split_pattern(X), _split_pattern(Y).T.tocsc()
    K = np.empty((X.shape[0], Y.shape[0]), dtype=dtype)
    # Per row of a block: the distances, the overlaps, the sums and the
    # result, float64.
    for rows in row_chunks(X.shape[0], 5 * 8 * max(Y.shape[0], 1)):
        distances = manhattan_distances(X[rows], Y).astype(np.float64, copy=False)
        sums = norms_X[rows, None] + norms_Y[None, :]
        maxima = sums + distances
        sums -= distances
        sums[(pattern_X[rows] @ pattern_Y_T).toarray() == 0] = 0.0
        maxima[maxima == 0] = np.inf  # two all-zero rows: kernel 0
        sums /= maxima
        K[rows] = np.clip(sums, 0.0, 1.0)
    return K


def min_max_kernel(X, Y=None):
    """Min-max kernel ``sum_i min(x_i, y_i) / sum_i max(x_i, y_i)`` of nonnegative rows.

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
        If ``X`` or ``Y`` has negative values (see :func:`gmm_kernel`).

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
    check_non_negative(X, "min_max_kernel (gmm_kernel accepts real values)")
    if Y is not None:
        check_non_negative(Y, "min_max_kernel (gmm_kernel accepts real values)")
    return _min_max_from_l1(X, Y)


def gmm_kernel(X, Y=None):
    """Generalized min-max (GMM) kernel of real rows (Li, 2017).

    Each row is split into its positive and negative parts, ``x~ = [max(x,
    0), max(-x, 0)]``, and ``K_GMM(x, y) = sum_i min(x~_i, y~_i) / sum_i
    max(x~_i, y~_i)``: the min-max kernel of the split rows, which equals
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

    See Also
    --------
    min_max_kernel : The min-max kernel of nonnegative rows.
    sklearn_sketch.MinMaxHasher : Hashed features that linearize it.

    References
    ----------
    Li, P. "Linearized GMM Kernels and Normalized Random Fourier Features."
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
    return _min_max_from_l1(X, Y)
