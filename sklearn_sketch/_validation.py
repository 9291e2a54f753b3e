"""Input validation shared by the estimators."""

import numpy as np
from sklearn.utils.validation import validate_data

FLOAT_DTYPES = (np.float64, np.float32)


def validate_features(estimator, X, *, reset, accept_sparse=("csr", "csc")):
    """Validate ``X`` for ``fit`` (``reset=True``) or ``transform`` (``reset=False``).

    Integer and boolean input become float64; float32 stays float32. NaN and
    infinity are rejected with an error that names them, and so is a wrong
    number of features at transform time (scikit-learn's own message).

    Parameters
    ----------
    estimator : BaseEstimator
        The estimator that records or checks ``n_features_in_``.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The input.
    reset : bool
        True in ``fit``, False in ``transform``.
    accept_sparse : str or tuple of str, default=("csr", "csc")
        Sparse formats passed through unchanged; others are converted to the
        first one.

    Returns
    -------
    X : {ndarray, sparse matrix}
        Validated, finite, floating-point input.
    """
    return validate_data(
        estimator,
        X,
        reset=reset,
        accept_sparse=accept_sparse,
        dtype=FLOAT_DTYPES,
        ensure_all_finite=True,
    )
