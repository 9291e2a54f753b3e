"""Row-chunked transforms with bounded working memory.

Every estimator of the package maps each row independently, so a transform
can walk the rows in chunks and write each chunk's result into a
preallocated output.  A chunk's temporaries are kept under
``MAX_CHUNK_MIB`` (measured fastest: small enough that the allocator reuses
freed memory instead of faulting fresh pages in every chunk) or under
scikit-learn's ``working_memory`` setting (``sklearn.set_config`` /
``config_context``) when that is smaller.  So the peak memory beyond the
output is bounded whatever ``n_samples`` is.
"""

import numpy as np
from sklearn import get_config
from sklearn.utils import gen_batches

MAX_CHUNK_MIB = 16


def row_chunks(n_rows, bytes_per_row, working_memory=None, max_chunk_mib=MAX_CHUNK_MIB):
    """Slices that cover ``range(n_rows)`` in chunks fitting working memory.

    Parameters
    ----------
    n_rows : int
        Number of rows to cover.
    bytes_per_row : int
        Temporary memory one row needs while it is being transformed.
    working_memory : float, default=None
        Memory budget in MiB; ``None`` uses ``sklearn.get_config()``. The
        budget is capped at ``max_chunk_mib``.
    max_chunk_mib : float, default=MAX_CHUNK_MIB
        Cap on a chunk's temporaries, for transforms whose per-chunk work
        (such as one large matrix product) is faster in larger chunks.

    Returns
    -------
    slices : generator of slice
    """
    if working_memory is None:
        working_memory = get_config()["working_memory"]
    working_memory = min(working_memory, max_chunk_mib)
    # At least one row per chunk, even when one row exceeds the budget.
    chunk_n_rows = int(working_memory * 2**20 // max(int(bytes_per_row), 1))
    chunk_n_rows = min(max(chunk_n_rows, 1), max(n_rows, 1))
    return gen_batches(n_rows, chunk_n_rows)


def transform_in_chunks(
    X, transform_chunk, n_output_features, dtype, bytes_per_row, max_chunk_mib=MAX_CHUNK_MIB
):
    """Apply ``transform_chunk`` to row chunks of ``X`` into one dense output.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        Validated input; sparse input must support row slicing (CSR).
    transform_chunk : callable
        ``transform_chunk(X_chunk, out_chunk)`` writes the transformed rows of
        ``X_chunk`` into ``out_chunk`` (a view of the output).
    n_output_features : int
        Width of the output.
    dtype : numpy dtype
        Output dtype.
    bytes_per_row : int
        Temporary memory ``transform_chunk`` needs per row, used to size chunks.
    max_chunk_mib : float, default=MAX_CHUNK_MIB
        Cap on a chunk's temporaries in MiB (see :func:`row_chunks`).

    Returns
    -------
    X_new : ndarray of shape (n_samples, n_output_features)
    """
    n_samples = X.shape[0]
    X_new = np.empty((n_samples, n_output_features), dtype=dtype)
    for rows in row_chunks(n_samples, bytes_per_row, max_chunk_mib=max_chunk_mib):
        transform_chunk(X[rows], X_new[rows])
    return X_new
