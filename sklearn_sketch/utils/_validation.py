"""The input path and parameter constraints shared by every estimator.

Every estimator validates its input through :func:`validate_features`, so
the input rules hold for all of them at once:

* integer and boolean input become float64, float32 stays float32;
* NaN and infinity are refused with an error naming them (unless the user
  opted out with ``sklearn.set_config(assume_finite=True)``);
* sparse input of any format becomes a CSR matrix in canonical form (sorted
  indices, no duplicate entries, no stored zeros), with int32 indices
  whenever they fit: a non-canonical CSR, whose duplicates scipy sums, is
  treated exactly as its canonical form. Only the nonzeros are read, so the
  cost does not depend on the number of columns;
* at most ``MAX_N_FEATURES = 2**61 - 2`` columns: feature indices (and the
  index ``n_features`` of the constant coordinate of the polynomial
  sketches) are hashed as elements of the prime field ``2**61 - 1``, where a
  wider index would silently collide with a narrower one.
"""

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn import get_config
from sklearn.utils import assert_all_finite
from sklearn.utils.validation import check_array, validate_data

from ._compat import Interval

FLOAT_DTYPES = (np.float64, np.float32)

# Feature indices 0 .. n_features are keys of hashes over the field of the
# Mersenne prime 2**61 - 1 (see _hashing); keys must stay below it.
MAX_N_FEATURES = 2**61 - 2


class StrictInterval(Interval):
    """scikit-learn's ``Interval`` constraint, refusing booleans.

    ``True`` is an ``Integral`` for Python, but ``n_components=True`` is a
    mistake, not a request for one component.
    """

    def is_satisfied_by(self, val):
        if isinstance(val, (bool, np.bool_)):
            return False
        return super().is_satisfied_by(val)

    def __str__(self):
        return super().__str__().replace("an int ", "an int (not a bool) ", 1)


def positive_int():
    """Constraint: an int >= 1 (not a bool)."""
    return StrictInterval(Integral, 1, None, closed="left")


# joblib's convention: a positive number of jobs, or -1 for all processors,
# -2 for all but one, ...; 0 is meaningless and refused at fit.
N_JOBS_CONSTRAINT = [
    StrictInterval(Integral, 1, None, closed="left"),
    StrictInterval(Integral, None, -1, closed="right"),
    None,
]

__all__ = [
    "FLOAT_DTYPES",
    "MAX_N_FEATURES",
    "N_JOBS_CONSTRAINT",
    "StrictInterval",
    "canonical_csr",
    "positive_int",
    "validate_features",
]


def canonical_csr(X):
    """``X`` as a canonical ``csr_matrix`` with int32 indices where they fit.

    Canonical: sorted column indices within each row, no duplicate entries
    (summed, as scipy's arithmetic treats them) and no stored zeros. The
    input is copied only when it is not canonical already; the cost is
    ``O(nnz + n_rows)`` whatever the number of columns.

    Parameters
    ----------
    X : sparse matrix or array of shape (n_samples, n_features)

    Returns
    -------
    X : csr_matrix of shape (n_samples, n_features)
    """
    X = sp.csr_matrix(X) if not isinstance(X, sp.csr_matrix) else X
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    if X.nnz and not np.all(X.data):
        X = X.copy()
        X.eliminate_zeros()
    int32_max = np.iinfo(np.int32).max
    fits_int32 = X.shape[1] - 1 <= int32_max and X.nnz <= int32_max
    if fits_int32 and (X.indices.dtype != np.int32 or X.indptr.dtype != np.int32):
        X = sp.csr_matrix(
            (X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)),
            shape=X.shape,
        )
        X.has_sorted_indices = True
        X.has_canonical_format = True
    return X


def validate_features(estimator, X, *, reset, check_finite=True):
    """Validate ``X`` for ``fit`` (``reset=True``) or ``transform`` (``reset=False``).

    Parameters
    ----------
    estimator : BaseEstimator
        The estimator that records or checks ``n_features_in_`` and
        ``feature_names_in_``.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The input.
    reset : bool
        True in ``fit``, False in ``transform`` and later ``partial_fit``
        batches.
    check_finite : bool, default=True
        False leaves the check for NaN and infinite values to the caller,
        chunk by chunk (:func:`finite_check`), so that it runs in the
        transform's threads instead of before them.

    Returns
    -------
    X : {ndarray, csr_matrix}
        Validated floating-point input; sparse input is a canonical CSR
        matrix (see :func:`canonical_csr`).

    Raises
    ------
    ValueError
        If ``X`` has NaN or infinite values, more than ``MAX_N_FEATURES``
        columns (at fit) or another number of features than at fit.
    """
    if not reset:
        X_valid = _valid_fitted_csr(estimator, X, check_finite)
        if X_valid is not None:
            return X_valid
    arrays = dict(accept_sparse="csr", accept_large_sparse=True, dtype=FLOAT_DTYPES)
    try:
        X = validate_data(estimator, X, reset=reset, ensure_all_finite=check_finite, **arrays)
    except ValueError:
        if not check_finite:
            # scikit-learn names non-finite values before a wrong number of
            # features: so does a transform that defers the finite check.
            check_array(X, ensure_all_finite=True, **arrays)
        raise
    if reset and X.shape[1] > MAX_N_FEATURES:
        raise ValueError(
            f"{type(estimator).__name__} supports at most 2**61 - 2 features "
            f"(feature indices are hashed modulo the prime 2**61 - 1, where "
            f"wider indices would collide); got {X.shape[1]} columns."
        )
    if sp.issparse(X):
        X = canonical_csr(X)
    return X


def _valid_fitted_csr(estimator, X, check_finite):
    """``X`` made canonical if it passes every check of a transform as it is, else None.

    The common input of a fitted sparse-input estimator, a float
    ``csr_matrix`` with the fitted number of features and no feature names
    expected, needs none of scikit-learn's conversions: its checks are done
    here without their per-call overhead (several times the finite check on
    a few thousand rows). Anything else, and any input that fails a check,
    takes the full path, which raises scikit-learn's errors and warnings.
    """
    if not (
        isinstance(X, sp.csr_matrix)
        and X.dtype.type in FLOAT_DTYPES
        and X.shape[0] >= 1
        and X.shape[1] >= 1
        and X.shape[1] == getattr(estimator, "n_features_in_", None)
        and not hasattr(estimator, "feature_names_in_")
    ):
        return None
    if check_finite and not get_config()["assume_finite"]:
        if not np.isfinite(X.data).all():
            return None
    return canonical_csr(X)


def finite_check(estimator):
    """The check of :func:`validate_features` for NaN and infinity, for chunks.

    Parameters
    ----------
    estimator : object
        The estimator, named in the error.

    Returns
    -------
    check : callable or None
        ``check(X_chunk)`` raises scikit-learn's ValueError for NaN or
        infinite values in ``X_chunk`` (dense or sparse); None under
        ``assume_finite=True``, where nothing is checked.
    """
    if get_config()["assume_finite"]:
        return None
    name = type(estimator).__name__

    def check(X_chunk):
        assert_all_finite(X_chunk, allow_nan=False, estimator_name=name, input_name="X")

    return check


def overflow_error(estimator, dtype, what, remedy):
    """The ValueError of a transform whose result left the range of ``dtype``.

    Parameters
    ----------
    estimator : object or str
        The estimator, or its class name, named in the message.
    dtype : numpy dtype
        The dtype of the result.
    what : str
        What exceeded the range (for example "the input values raised to
        degree=3").
    remedy : str
        What the user can do whatever the dtype, as a sentence without its
        final period (for example "Scale the input down"). For float32
        results, passing float64 input is added: its range is far larger.

    Returns
    -------
    error : ValueError
    """
    dtype = np.dtype(dtype)
    if dtype != np.float64:
        remedy += ", or pass float64 input"
    name = estimator if isinstance(estimator, str) else type(estimator).__name__
    return ValueError(
        f"{name} overflowed {dtype.name}: {what} exceed the "
        f"range of {dtype.name}. {remedy}."
    )


def all_finite(X):
    """Whether every value of a dense or sparse array is finite."""
    return bool(np.isfinite(X.data if sp.issparse(X) else X).all())


def kernel_array(array, dtype=None):
    """``array`` as the compiled kernels take it: C-ordered and writable.

    A copy where it is not: numba compiles a kernel once more for a
    read-only array (a type of its own), which fitted attributes and inputs
    are after a read-only memory map (joblib); copying small fitted arrays,
    or a chunk of rows, costs less than that compilation.
    """
    array = np.asarray(array, dtype=dtype)
    if array.flags.c_contiguous and array.flags.writeable:
        return array
    return np.array(array, order="C")
