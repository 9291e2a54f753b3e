"""Exact kernels, for ``SVC(kernel="precomputed")`` baselines and tests.

Both kernels are computed with two sparse products per block of rows of
``X``: the correlation ``rho = <u~, v~>`` of the l2-normalized rows and the
intersection sizes ``a = |S_u & S_v|`` of their nonzero patterns. Blocks are
sized by scikit-learn's ``working_memory``, so the temporaries beyond the
``(n_X, n_Y)`` output stay bounded.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.metrics.pairwise import check_pairwise_arrays
from sklearn.preprocessing import normalize

from .utils._chunking import row_chunks
from .utils._validation import canonical_csr

__all__ = ["core_kernel", "resemblance_kernel"]


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
