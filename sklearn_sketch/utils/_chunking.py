"""Row-chunked transforms with bounded working memory.

Every estimator of the package maps each row independently, so a transform
can walk the rows in chunks and write each chunk's result into a
preallocated output.  A chunk's temporaries are kept under
``MAX_CHUNK_MIB`` (measured fastest: small enough that the allocator reuses
freed memory instead of faulting fresh pages in every chunk) or under
scikit-learn's ``working_memory`` setting (``sklearn.set_config`` /
``config_context``) when that is smaller.  So the peak memory beyond the
output is bounded whatever ``n_samples`` is.

With ``n_jobs`` the chunks are transformed in parallel threads (numpy, scipy
and BLAS release the GIL in the heavy parts), each writing its own slice of
the preallocated output, so the result is the same array as with one job.
"""

import functools
import os
import queue
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np
import scipy.sparse as sp
from sklearn import config_context, get_config
import threadpoolctl
from threadpoolctl import ThreadpoolController

# -- every memory budget of the package, in one place -----------------------
# Cap on a chunk's temporaries (the default of every estimator; see the
# module docstring).
MAX_CHUNK_MIB = 16
# CoREHasher's chunks, shared by the jobs: each chunk regenerates the
# projection blocks of the features it touches, so small chunks would
# generate the same blocks over and over.
HASHING_CHUNK_MIB = 256
# KernelJL's chunks: the kernel block is one matrix product per chunk, which
# BLAS computes faster on large blocks than in 16 MiB pieces.
KERNEL_CHUNK_MIB = 64
# Memory for the rows of CoREHasher's projection R generated at once (whole
# blocks of features, all k columns): X @ R is a sum over groups of feature
# blocks of this size, each multiplied while its rows are still in cache.
PROJECTION_BLOCK_BYTES = 8 * 2**20
# Scratch buffers a map keeps across its transform calls, per task running
# at once (utils._scratch): larger temporaries are allocated for their task.
SCRATCH_MIB = 64
# Array API input (a GPU): rows are transformed in chunks whose input and
# output rows take at most this much. The maps' whole-array operations hold a
# few temporaries the size of a chunk's input or output; chunks this large
# keep a GPU busy, and few enough that the launches of a chunk's operations
# cost little.
DEVICE_CHUNK_MIB = 512

# Bytes per stored input value of a chunk's own copies of its input: the
# row slice of a CSR input (value and index), and a dense chunk's
# conversion to CSR (int64 positions and indices, int32 indices, values):
# on narrow input at small n_components they outweigh the estimator's own
# temporaries.
_INPUT_BYTES_PER_VALUE = 32


def chunk_budget_bytes(max_chunk_mib=MAX_CHUNK_MIB, working_memory=None):
    """Bytes a chunk's temporaries may take: ``max_chunk_mib``, or less under
    scikit-learn's ``working_memory`` (``None``: ``sklearn.get_config()``)."""
    if working_memory is None:
        working_memory = get_config()["working_memory"]
    return min(working_memory, max_chunk_mib) * 2**20


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
    budget = chunk_budget_bytes(max_chunk_mib, working_memory)
    # At least one row per chunk, even when one row exceeds the budget.
    chunk_n_rows = int(budget // max(int(bytes_per_row), 1))
    chunk_n_rows = min(max(chunk_n_rows, 1), max(n_rows, 1))
    return _batches(n_rows, chunk_n_rows)


def _batches(n_rows, batch_size):
    """Slices of ``batch_size`` rows covering ``range(n_rows)``, the last one shorter.

    scikit-learn's ``gen_batches``, without the validation of its arguments,
    which costs more than a transform of a few rows (these are checked).
    """
    return (
        slice(start, min(start + batch_size, n_rows))
        for start in range(0, n_rows, batch_size)
    )


def parallel_row_chunks(n_rows, bytes_per_row, n_jobs, exact_rows, max_chunk_mib=MAX_CHUNK_MIB):
    """The chunks of :func:`row_chunks`, split further for ``n_jobs`` when allowed.

    Parameters
    ----------
    n_rows, bytes_per_row, max_chunk_mib
        As in :func:`row_chunks`.
    n_jobs : int
        Effective number of jobs (at least 1).
    exact_rows : bool
        True when a row's result does not depend, bit for bit, on which other
        rows share its chunk. Then, with several jobs, chunks are also capped
        at ``ceil(n_rows / n_jobs)`` rows so that every job gets work. False
        (for example when a chunk goes through a BLAS matrix product, whose
        rounding depends on the matrix shape) keeps exactly the chunks of one
        job, which keeps the output identical to it.

    Returns
    -------
    slices : list of slice
    """
    chunks = list(row_chunks(n_rows, bytes_per_row, max_chunk_mib=max_chunk_mib))
    if n_jobs > 1 and exact_rows and len(chunks) < n_jobs and n_rows > 1:
        per_job = -(-n_rows // n_jobs)
        chunks = list(_batches(n_rows, per_job))
    return chunks


def input_bytes_per_row(X):
    """Temporary bytes per row of a chunk's copies and conversions of ``X``.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)

    Returns
    -------
    bytes_per_row : int
    """
    n_values = X.nnz / max(X.shape[0], 1) if sp.issparse(X) else X.shape[1]
    return int(np.ceil(n_values * (_INPUT_BYTES_PER_VALUE + 2 * X.dtype.itemsize)))


# The BLAS thread limit is process-wide state: with several transforms
# running at once (in threads of the user's), a plain ``threadpool_limits``
# context would restore the limit it found, which may be another call's
# lowered one. So one reference-counted limiter serves the whole process:
# the first call to enter lowers the limits, the last to leave restores
# those the first one found, under a lock.
_BLAS_LIMIT_LOCK = threading.Lock()
_blas_limit = {"users": 0, "saved": []}


def _release_blas_control():
    """Give back threadpoolctl's claim of this thread on a shared BLAS pool.

    threadpoolctl (3.8 and later) lets one thread at a time change the limit
    of a BLAS with a process-wide thread pool (OpenBLAS on pthreads): the
    first thread to set it, until that thread clears its claim; the others'
    changes are silently dropped. The first entrant and the last leaver of
    the limiter are often different threads, so each change gives the claim
    back at once: a claim kept by the first entrant dropped the last
    leaver's restore, and left BLAS on one thread for good. The call clears
    only this thread's own claim, never the user's.
    """
    controller_class = getattr(threadpoolctl, "OpenBLASController", None)
    clear = getattr(controller_class, "clear_controlling_thread", None)
    if clear is not None:
        clear()


@functools.lru_cache(maxsize=1)
def _blas_libraries():
    """threadpoolctl's controllers of the BLAS libraries loaded, found once.

    Finding them scans every loaded library, which costs several
    milliseconds: as much as a whole transform of a few thousand rows,
    paid at every call with ``n_jobs > 1``. The BLAS libraries are loaded
    with NumPy and SciPy, before any transform.
    """
    return tuple(ThreadpoolController().select(user_api="blas").lib_controllers)


def _lower_blas_limits():
    """Set every BLAS to one thread; return ``(library, found, set)`` of each."""
    saved = []
    for library in _blas_libraries():
        found = library.num_threads
        library.set_num_threads(1)
        saved.append((library, found, library.num_threads))
    _release_blas_control()
    return saved


def _restore_blas_limits(saved):
    """Set each BLAS back to the limit found, unless another caller has changed it since."""
    for library, found, lowered in saved:
        # A limit that someone else (the user's own threadpool_limits, in
        # another thread) set meanwhile is theirs to restore.
        if library.num_threads == lowered:
            library.set_num_threads(found)
    _release_blas_control()


@contextmanager
def single_threaded_blas():
    """Limit BLAS to one thread while any caller is inside; restore after the last.

    Process-wide and reference-counted: calls from any threads may enter
    and leave in any order, nested or overlapping; the limits found by the
    first to enter are restored when the last one leaves.
    """
    with _BLAS_LIMIT_LOCK:
        if _blas_limit["users"] == 0:
            _blas_limit["saved"] = _lower_blas_limits()
        _blas_limit["users"] += 1
    try:
        yield
    finally:
        with _BLAS_LIMIT_LOCK:
            _blas_limit["users"] -= 1
            if _blas_limit["users"] == 0:
                saved, _blas_limit["saved"] = _blas_limit["saved"], []
                _restore_blas_limits(saved)


def _run_in_threads(function, chunks, n_jobs):
    """``[function(rows) for rows in chunks]``, in ``n_jobs`` threads if > 1.

    Each thread takes the next chunk from a shared queue until none is left,
    so a thread costs one Python call per chunk: a joblib task costs far
    more, all of it holding the GIL, which the other thread then waits for
    (two jobs ran slower than one on small chunks). The threads run in the
    caller's scikit-learn configuration (``working_memory``,
    ``assume_finite``, ...). While they run, BLAS is limited to one thread
    each: a BLAS that already spreads one product over every core would
    otherwise run ``n_jobs`` times as many threads as cores.
    """
    if n_jobs == 1 or len(chunks) <= 1:
        return [function(rows) for rows in chunks]
    pending = queue.SimpleQueue()
    for index in range(len(chunks)):
        pending.put(index)
    results = [None] * len(chunks)
    config = get_config()
    failed = threading.Event()

    def work():
        with config_context(**config):
            # After a chunk's error (NaN in the input, say) the threads take
            # no further chunk: the error is raised at once.
            while not failed.is_set():
                try:
                    index = pending.get_nowait()
                except queue.Empty:
                    return
                try:
                    results[index] = function(chunks[index])
                except BaseException:
                    failed.set()
                    raise

    n_threads = min(n_jobs, len(chunks))
    with single_threaded_blas(), ThreadPoolExecutor(n_threads) as executor:
        workers = [executor.submit(work) for _ in range(n_threads)]
        for worker in workers:
            worker.result()  # re-raises a chunk's exception
    return results


def run_in_threads(function, items, n_jobs):
    """``[function(item) for item in items]``, in ``n_jobs`` threads if > 1.

    For the work of one chunk that its transform shares out itself (when
    the chunks are not split per job); see :func:`_run_in_threads`.
    """
    return _run_in_threads(function, list(items), n_jobs)


def dense_transform(X, chunks, transform_chunk, n_output_features, dtype, n_jobs):
    """Apply ``transform_chunk`` to row chunks of ``X``, into one dense output.

    Parameters
    ----------
    X : {ndarray, csr_matrix} of shape (n_samples, n_features)
        Validated input.
    chunks : list of slice
        Row chunks covering ``X`` (see :func:`parallel_row_chunks`).
    transform_chunk : callable
        ``transform_chunk(X_chunk, out_chunk)`` writes the transformed rows of
        ``X_chunk`` into ``out_chunk`` (a view of the output); thread-safe.
    n_output_features : int
        Width of the output.
    dtype : numpy dtype
        Output dtype.
    n_jobs : int
        Effective number of threads transforming chunks at once. Peak memory
        beyond the output grows to ``n_jobs`` chunks.

    Returns
    -------
    X_new : ndarray of shape (n_samples, n_output_features)
    """
    X_new = np.empty((X.shape[0], n_output_features), dtype=dtype)

    def run(rows):
        transform_chunk(X[rows], X_new[rows])

    _run_in_threads(run, chunks, n_jobs)
    return X_new


def sparse_transform(X, chunks, transform_chunk, indptr, dtype, n_output_features, n_jobs):
    """Apply ``transform_chunk`` to row chunks of ``X``, into one preallocated CSR.

    For transforms with a sparse output whose number of nonzeros per row is
    known beforehand. The output's data and indices are allocated once and
    each chunk's piece is copied into its place as soon as it is computed,
    so the memory beyond the output is that of the chunks being transformed,
    never a second copy of the output (as stacking the pieces would need).

    Parameters
    ----------
    X : {ndarray, csr_matrix} of shape (n_samples, n_features)
        Validated input.
    chunks : list of slice
        Row chunks covering ``X``.
    transform_chunk : callable
        ``transform_chunk(X_chunk)`` returns the CSR matrix of the rows of
        ``X_chunk``, with the nonzeros ``indptr`` gives them; thread-safe.
    indptr : ndarray of shape (n_samples + 1,)
        Row pointers of the output; their dtype is that of its indices.
    dtype : numpy dtype
        Dtype of the output's values.
    n_output_features : int
        Width of the output.
    n_jobs : int
        Effective number of threads transforming chunks at once.

    Returns
    -------
    X_new : csr_matrix of shape (n_samples, n_output_features)
    """
    if len(chunks) == 1:
        # One chunk is the whole output: no copy of the input or the result.
        X_new = transform_chunk(X)
        if X_new.nnz != indptr[-1]:
            raise RuntimeError("The transform has an unexpected number of nonzeros.")
        return X_new
    data = np.empty(int(indptr[-1]), dtype=dtype)
    indices = np.empty(int(indptr[-1]), dtype=indptr.dtype)

    def run(rows):
        piece = transform_chunk(X[rows])
        place = slice(indptr[rows.start], indptr[rows.stop])
        if piece.nnz != place.stop - place.start:
            raise RuntimeError("A chunk's transform has an unexpected number of nonzeros.")
        data[place] = piece.data
        indices[place] = piece.indices

    _run_in_threads(run, chunks, n_jobs)
    return sp.csr_matrix((data, indices, indptr), shape=(X.shape[0], n_output_features))


def _physical_memory_bytes():
    """Total physical memory of the machine, or None where it cannot be read."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):
        return None


def check_allocation(n_bytes, what, remedy="Reduce n_components or the other size parameters"):
    """Refuse, before allocating it, a block larger than the machine's memory.

    An impossible size (say ``n_components=10**9``) must fail at once with
    the size it would need, not after minutes of swapping or computing.

    Parameters
    ----------
    n_bytes : int or float
        Size of the block about to be allocated.
    what : str
        What the block is, for the message (for example "the output of
        transform (5 x 1000000000 float64)").
    remedy : str, default="Reduce n_components or the other size parameters"
        What the user can do, as a sentence without its final period.

    Raises
    ------
    MemoryError
        If ``n_bytes`` exceeds the machine's physical memory.
    """
    limit = _physical_memory_bytes()
    if limit is not None and n_bytes > limit:
        raise MemoryError(
            f"{what} would need {n_bytes / 2**30:.1f} GiB, more than this "
            f"machine's {limit / 2**30:.1f} GiB of memory. {remedy}."
        )
