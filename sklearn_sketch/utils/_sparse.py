"""Sparse-matrix helpers shared by the estimators."""

import numpy as np
import scipy.sparse as sp

from ._scratch import empty


def dense_to_csr(X):
    """The nonzeros of a dense 2-D array as a CSR matrix (canonical format).

    Hand-written because it measured faster than ``scipy.sparse.csr_matrix(X)``
    on row chunks: one pass over a boolean mask finds the nonzeros in
    row-major order, which is already CSR order, so the row pointers follow
    from one binary search.

    Parameters
    ----------
    X : ndarray of shape (n_rows, n_columns)

    Returns
    -------
    X_csr : csr_matrix of shape (n_rows, n_columns)
    """
    X = np.ascontiguousarray(X)
    n_rows, n_columns = X.shape
    small = X.size < np.iinfo(np.int32).max
    index_dtype = np.int32 if small else np.int64
    # ``flatnonzero`` of the boolean mask rather than of the values: NumPy
    # scans a boolean array many times faster than a float one (the same
    # entries: NaN is nonzero, -0.0 is zero).
    positions = np.flatnonzero(X != 0).astype(index_dtype, copy=False)
    data = gather(X.ravel(), positions)
    row_starts = np.arange(n_rows + 1, dtype=index_dtype) * index_dtype(n_columns)
    indptr = np.searchsorted(positions, row_starts)
    # The column is ``position - n_columns * (position // n_columns)``:
    # NumPy divides by a scalar much faster than it takes a remainder.
    indices = positions
    if n_columns:
        indices = positions // index_dtype(n_columns)
        indices *= index_dtype(n_columns)
        np.subtract(positions, indices, out=indices)
    return sp.csr_matrix(
        (data, indices, indptr.astype(index_dtype, copy=False)), shape=(n_rows, n_columns)
    )


def gather(values, indices, out=None, scratch=None):
    """``values.take(indices)`` (flat), with the indices converted to intp first.

    NumPy's ``take`` converts narrower indices one element at a time, which
    measured slower than one conversion pass followed by the gather. With
    ``out``, the indices are known to be in range (they come from the data
    structure itself), and ``mode="clip"`` lets NumPy write straight to
    ``out`` instead of through a temporary. ``scratch``: buffers for the
    converted indices (``utils._scratch``); None: a fresh array.
    """
    indices = np.asarray(indices)
    if indices.dtype != np.intp:
        converted = empty(scratch, "gather_indices", indices.shape, np.intp)
        np.copyto(converted, indices)
        indices = converted
    if out is None:
        return values.take(indices)
    return values.take(indices, out=out, mode="clip")
