"""The chunk engine (``utils/_chunking.py``): parallel row chunks give every
job work, and transform's peak beyond its output is a chunk, whatever
n_samples is.

``tracemalloc`` sees numpy's and scipy's buffers, so the peak it reports
during ``transform`` (the input already exists when tracing starts) minus
the output is what the row chunks must bound. ``benchmarks/bench_memory.py``
measures it at 100,000 and 1,000,000 rows with the default chunk sizes; here
a small ``working_memory`` makes the chunks small, so that 10,000 and
100,000 rows already take several chunks, and the test runs in seconds.
"""

import threading
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import make_estimator
from sklearn import config_context, get_config
from threadpoolctl import threadpool_info

from sklearn_sketch.utils._chunking import (
    _run_in_threads,
    parallel_row_chunks,
    single_threaded_blas,
)

MIB = 2**20
# The chunk budget: scikit-learn's working_memory, below every estimator's
# own cap (16 MiB, KernelJL 64 MiB, CoREHasher 256 MiB), so it is the one
# that sizes the chunks.
WORKING_MEMORY_MIB = 4

# Registry entries (and the options this test needs) by input kind: every
# family and engine path, dense and sparse. KernelJL with a subsample of 100
# rows, so that its kernel blocks are what the chunks must bound.
CASES = [
    ("TensorSketch", "dense", {"n_components": 16, "degree": 2}),
    ("TensorSketch", "sparse", {"n_components": 16, "degree": 2}),
    ("TensorSRHT", "dense", {"n_components": 16, "degree": 2}),
    ("ComplexToRealSketch-srht", "dense", {"n_components": 16, "coef0": 1.0}),
    ("ComplexToRealSketch-rademacher", "dense", {"n_components": 16, "degree": 2}),
    ("PolynomialTreeSketch-tensorsrht", "dense", {"n_components": 16, "coef0": 1.0}),
    ("PolynomialTreeSketch-tensorsketch", "dense", {"n_components": 16, "degree": 4}),
    ("MaclaurinSketch-tree", "dense", {}),
    ("MaclaurinSketch-tree", "sparse", {}),
    ("KernelJL-rbf", "dense", {"n_components": 16, "n_subsample": 100, "gamma": 0.05}),
    ("CoREHasher-core1-gaussian", "dense", {"n_components": 8}),
    ("CoREHasher-core1-gaussian", "sparse", {"n_components": 8}),
    ("CoREHasher-core2-oph", "sparse", {"n_components": 8}),
]


def test_parallel_row_chunks_give_every_job_work():
    assert len(parallel_row_chunks(100, 8, 2, exact_rows=True)) == 2
    assert len(parallel_row_chunks(100, 8, 2, exact_rows=False)) == 1
    many = parallel_row_chunks(10_000, 2**20, 2, exact_rows=True)  # 1 MiB rows
    assert len(many) == 625  # the memory bound wins


def _input(kind, n_rows, seed=0):
    """Narrow float32 rows: 20 dense features, or 20 stored values of 1000."""
    rng = np.random.default_rng(seed)
    if kind == "dense":
        return rng.random((n_rows, 20), dtype=np.float32)
    X = sp.random(
        n_rows, 1000, density=0.02, format="csr", dtype=np.float32, random_state=rng
    )
    X.data += 0.5  # no stored zeros: canonical, as most sparse input is
    return X


def _nbytes(X):
    if sp.issparse(X):
        return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    return X.nbytes


def _peak_beyond_output(estimator, X):
    tracemalloc.start()
    try:
        X_new = estimator.transform(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak - _nbytes(X_new)


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, kind, params", CASES, ids=[f"{name}-{kind}" for name, kind, _ in CASES]
)
def test_transform_peak_beyond_output_is_one_chunk(name, kind, params):
    estimator = make_estimator(name, **params).fit(_input(kind, 500, seed=1))
    # The first transform of a process loads numba and the compiled kernels
    # (tens of MiB, once): not what a transform's chunking bounds.
    estimator.transform(_input(kind, 10))
    with config_context(working_memory=WORKING_MEMORY_MIB):
        peaks = [_peak_beyond_output(estimator, _input(kind, n)) for n in (10_000, 100_000)]
    budget = WORKING_MEMORY_MIB * MIB
    # Chunks are sized from each estimator's estimate of its temporaries per
    # row (plus its input's share, _chunking.input_bytes_per_row). Measured
    # at this budget, the peaks stay below 0.85 budget, except CoREHasher's
    # "minwise" hashing at 1.46 budget: on top of the chunk it hashes
    # blocks of up to 2**20 values (8 MiB, and a gathered copy), a fixed
    # size that its per-row estimate does not count (at the default 256 MiB
    # cap: 274 MiB measured). Twice the budget bounds them all, and is far
    # below what an unchunked transform takes (the 100,000 rows' output
    # alone is 6 MiB, their int64 row indices 15 MiB).
    assert max(peaks) < 2 * budget, [p / MIB for p in peaks]
    # Flat in n_samples: ten times the rows adds only the bookkeeping of ten
    # times the chunks (measured under 0.05 MiB), not memory per row: 0.1
    # MiB is one byte per row of the 90,000 extra rows.
    assert peaks[1] - peaks[0] < 0.1 * MIB, [p / MIB for p in peaks]


@pytest.mark.parametrize("n_jobs", [2, 3, 8])
@pytest.mark.parametrize("n_chunks", [2, 5, 64])
def test_run_in_threads_runs_every_chunk_once_in_order(n_jobs, n_chunks):
    """Every chunk's result lands at its own index, each chunk runs exactly
    once, on up to ``n_jobs`` threads, in the caller's scikit-learn
    configuration and with BLAS on one thread."""
    chunks = [slice(i, i + 1) for i in range(n_chunks)]
    calls, threads = [], set()

    def function(rows):
        calls.append(rows.start)
        threads.add(threading.get_ident())
        blas = [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]
        return rows.start, get_config()["working_memory"], blas

    with config_context(working_memory=123):
        results = _run_in_threads(function, chunks, n_jobs)
    assert [r[0] for r in results] == list(range(n_chunks))
    assert sorted(calls) == list(range(n_chunks))
    assert len(threads) <= min(n_jobs, n_chunks)
    assert all(r[1] == 123 for r in results)
    assert all(all(n == 1 for n in r[2]) for r in results)


def test_run_in_threads_raises_a_chunks_error_and_restores_blas():
    before = [p["num_threads"] for p in threadpool_info()]

    def function(rows):
        if rows.start == 3:
            raise ValueError("chunk 3 failed")
        return rows.start

    with pytest.raises(ValueError, match="chunk 3 failed"):
        _run_in_threads(function, [slice(i, i + 1) for i in range(8)], 2)
    assert [p["num_threads"] for p in threadpool_info()] == before


# -- the process-wide BLAS limit -------------------------------------------------


def _blas_threads():
    return [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]


def _run_steps(steps):
    """Run ``steps`` (thread index, "enter" or "leave") in that order, each
    step in its thread; every thread stays alive until all steps are done."""
    n_threads = 1 + max(thread for thread, _ in steps)
    turns = [threading.Event() for _ in steps]
    finished, done, seen, errors = threading.Event(), threading.Event(), [], []

    def work(me):
        contexts = []
        try:
            for index, (thread, action) in enumerate(steps):
                if thread != me:
                    continue
                turns[index].wait()
                if action == "enter":
                    contexts.append(single_threaded_blas())
                    contexts[-1].__enter__()
                else:
                    contexts.pop().__exit__(None, None, None)
                seen.append(_blas_threads())
                if index + 1 < len(turns):
                    turns[index + 1].set()
                else:
                    finished.set()
            done.wait()
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)
            finished.set()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(n_threads)]
    for thread in threads:
        thread.start()
    turns[0].set()
    finished.wait(timeout=60)
    after = _blas_threads()
    done.set()
    for thread in threads:
        thread.join()
    assert not errors
    return seen, after


ORDERS = {
    # The first to enter leaves first, while still alive: the restore falls
    # to another thread (threadpoolctl 3.8 dropped it, BLAS stayed on one
    # thread for good).
    "first-leaves-first": [(0, "enter"), (1, "enter"), (0, "leave"), (1, "leave")],
    "nested-in-one-thread": [(0, "enter"), (0, "enter"), (0, "leave"), (0, "leave")],
    "overlapping-chains": [
        (0, "enter"), (1, "enter"), (0, "leave"), (2, "enter"), (1, "leave"),
        (0, "enter"), (2, "leave"), (0, "leave"),
    ],
    "last-in-first-out": [(0, "enter"), (1, "enter"), (2, "enter"),
                          (2, "leave"), (1, "leave"), (0, "leave")],
    "separate-windows": [(1, "enter"), (1, "leave"), (0, "enter"), (2, "enter"),
                         (0, "leave"), (2, "leave")],
}


@pytest.mark.parametrize("order", ORDERS)
def test_blas_limiter_lowers_while_any_caller_is_inside_and_restores_after_the_last(order):
    """The rule: BLAS runs on one thread exactly while some caller is inside,
    and the limits found by the first to enter are back when the last
    leaves, whatever threads enter and leave in whatever order."""
    steps = ORDERS[order]
    before = _blas_threads()
    seen, after = _run_steps(steps)
    inside = 0
    for (_, action), limits in zip(steps, seen):
        inside += 1 if action == "enter" else -1
        assert limits == (([1] * len(before)) if inside else before), (order, seen)
    assert after == before
    # And a later caller can still lower and restore them.
    with single_threaded_blas():
        assert all(n == 1 for n in _blas_threads())
    assert _blas_threads() == before


STRESS_NAMES = [
    "TensorSketch", "OrthogonalRBFSampler-orf", "OrthogonalRBFSampler-sorf",
    "KernelJL-rbf", "MaclaurinSketch-tree", "MinMaxHasher-minmax",
]


def test_concurrent_parallel_transforms_of_several_estimators_keep_the_blas_limits():
    """Many user threads transform at once with ``n_jobs=2``, across several
    estimators, some in one chunk and some in many; after each round the
    process's limits (BLAS and OpenMP) are those before."""
    X = np.random.RandomState(0).rand(300, 12)
    estimators = [make_estimator(name, n_jobs=2).fit(X) for name in STRESS_NAMES]
    before = [(p["filepath"], p["num_threads"]) for p in threadpool_info()]
    for repeat in range(4):
        barrier, errors = threading.Barrier(6), []

        def work(me):
            try:
                barrier.wait()
                for call in range(6):
                    memory = 0.02 if (me + call) % 3 else 64  # many chunks, or one
                    with config_context(working_memory=memory):
                        estimators[(me + call) % len(estimators)].transform(X)
            except Exception as error:  # pragma: no cover - reported below
                errors.append(error)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not errors
        after = [(p["filepath"], p["num_threads"]) for p in threadpool_info()]
        assert after == before, repeat
