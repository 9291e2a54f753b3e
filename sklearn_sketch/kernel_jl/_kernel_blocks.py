"""Kernel blocks ``k(X, Y)`` between row sets, dense or sparse, at the cost of their nonzeros.

:func:`kernel_block` is scikit-learn's
:func:`~sklearn.metrics.pairwise.pairwise_kernels` for any input format:
sparse operands are restricted to the columns where they have nonzeros (the
same kernel values, bit for bit), and the kernels scikit-learn evaluates on
dense data only are evaluated on small row blocks densified over those
columns.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.utils import gen_batches

from ..utils._chunking import KERNEL_CHUNK_MIB, chunk_budget_bytes

# Kernels scikit-learn evaluates on dense data only. Their value depends only
# on the coordinates where one of the two rows is nonzero (a coordinate where
# both are zero adds nothing), so sparse rows are densified in blocks over
# the union of their nonzero columns, never over all n_features.
DENSE_ONLY_KERNELS = frozenset({"chi2", "additive_chi2"})

# Kernels whose default gamma is 1 / n_features: it is set explicitly before
# sparse rows are restricted to their nonzero columns, which changes the width
# scikit-learn would read it from.
_GAMMA_FROM_WIDTH_KERNELS = frozenset(
    {"rbf", "laplacian", "poly", "polynomial", "sigmoid"}
)

_INT32_MAX = np.iinfo(np.int32).max

# Rows per block of sparse data densified for a dense-only kernel, at most:
# every pair of rows is evaluated over all the columns of its two blocks, so
# larger blocks cost more per pair, smaller ones more calls.
_SPARSE_BLOCK_ROWS = 32

# Sparse operands are restricted to their nonzero columns when they are
# wider than this many columns per nonzero. scikit-learn's sparse kernels
# allocate and pass over a row pointer per column, the restriction sorts the
# nonzeros, a far dearer step per entry than a pointer. Up to 8 columns per
# nonzero, those pointers take no more memory than the chunk budget allows
# for the input's own copies, and scikit-learn's pass is the cheaper.
_COLUMNS_PER_NONZERO = 8


def _on_columns(X, columns):
    """The CSR matrix ``X`` restricted to ``columns``, renumbered ``0 .. len - 1``.

    ``columns`` is sorted and holds every column where ``X`` has a nonzero,
    so no entry is dropped and the entries keep their order within each row:
    sums over a row's entries (products, norms, distances) are the same
    floating-point operations as on ``X``. At least one column is kept, as
    scikit-learn refuses zero features.
    """
    width = max(columns.size, 1)
    index_dtype = np.int32 if max(width, X.nnz) <= _INT32_MAX else np.int64
    indices = np.searchsorted(columns, X.indices).astype(index_dtype, copy=False)
    indptr = X.indptr.astype(index_dtype, copy=False)
    X = sp.csr_matrix((X.data, indices, indptr), shape=(X.shape[0], width))
    X.has_sorted_indices = True
    return X


def _on_shared_columns(X, Y, kernel, params):
    """Sparse ``X`` and ``Y`` restricted to the columns where either is nonzero.

    scikit-learn's sparse kernels cost ``O(n_features)`` (the transpose of
    ``Y`` is converted to CSR, with one row pointer per feature), and its
    sparse Manhattan distance takes only int32 indices; the restricted
    matrices are at most ``nnz`` wide, with int32 indices, and give the same
    kernel values, bit for bit. Restricted only where that helps: when the
    width is many times the number of nonzeros, or when indices are int64.
    ``Y=None`` is the Gram matrix of ``X``.

    Returns
    -------
    X, Y, params
        The operands, and the kernel's parameters with a default gamma of
        ``1 / n_features`` made explicit when the width changed.
    """
    if not sp.issparse(X) or not (Y is None or sp.issparse(Y)):
        return X, Y, params
    pair = (X,) if Y is None else (X, Y)
    narrow = all(M.indices.dtype == np.int32 for M in pair)
    nnz = sum(M.nnz for M in pair)
    if narrow and X.shape[1] <= _COLUMNS_PER_NONZERO * nnz:
        return X, Y, params
    if kernel in _GAMMA_FROM_WIDTH_KERNELS and params.get("gamma") is None:
        # scikit-learn's own default, 1.0 / X.shape[1], before the restriction.
        params = {**params, "gamma": 1.0 / X.shape[1]}
    if Y is None:
        return _on_columns(X, np.unique(X.indices)), None, params
    columns = np.union1d(X.indices, Y.indices)
    return _on_columns(X, columns), _on_columns(Y, columns), params


def _dense_kernel_blocks(X, Y, kernel, params, n_jobs):
    """``kernel(X, Y)`` for a dense-only kernel, on densified pairs of row blocks.

    Two sparse blocks are densified over the union of their nonzero
    columns only (:func:`_on_columns`), a sparse block facing dense rows
    over all columns. The kernel is evaluated pair by pair of rows, and a
    column where both rows are zero adds nothing, so the blocks give
    exactly the values of one dense call. ``Y=None`` is the Gram matrix.
    """
    Y = X if Y is None else Y
    dtype = np.result_type(X.dtype, Y.dtype)
    rows = _dense_block_rows(X, Y, dtype)
    block = np.empty((X.shape[0], Y.shape[0]), dtype=dtype)
    for x_rows in gen_batches(X.shape[0], rows):
        for y_rows in gen_batches(Y.shape[0], rows):
            X_block, Y_block = X[x_rows], Y[y_rows]
            if sp.issparse(X_block) and sp.issparse(Y_block):
                columns = np.union1d(X_block.indices, Y_block.indices)
                X_block = _on_columns(X_block, columns)
                Y_block = _on_columns(Y_block, columns)
            block[x_rows, y_rows] = pairwise_kernels(
                _dense(X_block, dtype), _dense(Y_block, dtype), metric=kernel,
                filter_params=True, n_jobs=n_jobs, **params,
            )
    return block


def _dense_block_rows(X, Y, dtype):
    """Rows per block so that two densified blocks fit the chunk budget.

    Two blocks of ``b`` rows take ``2 b w`` values, with ``w`` the number of
    columns, or, when both are sparse, at most the ``2 b r`` nonzeros of
    their rows (``r`` the mean number per row): ``b`` is the larger of the
    sizes each bound allows.
    """
    budget_values = chunk_budget_bytes(KERNEL_CHUNK_MIB) / (2 * dtype.itemsize)
    rows = budget_values / X.shape[1]
    if sp.issparse(X) and sp.issparse(Y):
        per_row = (X.nnz + Y.nnz) / max(X.shape[0] + Y.shape[0], 1)
        sparse_rows = np.sqrt(budget_values / (2 * max(per_row, 1)))
        rows = max(rows, min(sparse_rows, _SPARSE_BLOCK_ROWS))
    return max(int(rows), 1)


def _dense(X, dtype):
    """``X`` as a dense array of ``dtype``."""
    X = X.toarray() if sp.issparse(X) else X
    return X.astype(dtype, copy=False)


def kernel_block(X, Y, kernel, params, n_jobs=None):
    """The dense block ``pairwise_kernels(X, Y)`` for any input format.

    Sparse operands cost what their nonzeros cost, whatever
    ``n_features``; the dense-only kernels are evaluated on densified
    blocks. ``Y=None`` gives the Gram matrix of ``X`` (as
    :func:`~sklearn.metrics.pairwise.pairwise_kernels` does, with the
    exact zeros of the RBF kernel's distances on its diagonal).
    """
    if not callable(kernel):
        if kernel in DENSE_ONLY_KERNELS and (sp.issparse(X) or sp.issparse(Y)):
            return _dense_kernel_blocks(X, Y, kernel, params, n_jobs)
        X, Y, params = _on_shared_columns(X, Y, kernel, params)
    block = pairwise_kernels(
        X, Y, metric=kernel, filter_params=True, n_jobs=n_jobs, **params
    )
    return block.toarray() if sp.issparse(block) else block
