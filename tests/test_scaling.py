"""partial_fit (incremental fitting) and n_jobs (parallel row chunks).

The dask integration is tested in ``test_dask.py``.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import statistical_seeds
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats
from sklearn import config_context
from sklearn.metrics.pairwise import pairwise_kernels

from sklearn_sketch import (
    ComplexToRealSketch,
    CoREHasher,
    KernelJL,
    PolynomialTreeSketch,
    TensorSketch,
    TensorSRHT,
)
from sklearn_sketch.utils._chunking import parallel_row_chunks
from sklearn_sketch.utils._incremental import reservoir_update


def _data(n_samples=600, n_features=40, density=0.3, seed=0, dtype=np.float64):
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n_samples, n_features)).astype(dtype)
    X[rng.rand(n_samples, n_features) > density] = 0
    X[3] = 0  # an all-zero row
    return X


OBLIVIOUS = [
    TensorSketch(n_components=64, degree=3, coef0=1.0, random_state=0),
    TensorSRHT(n_components=32, degree=2, random_state=0),
    ComplexToRealSketch(n_components=32, degree=2, projection="rademacher", random_state=0),
    PolynomialTreeSketch(n_components=32, degree=3, coef0=1.0, random_state=0),
    CoREHasher(n_components=32, random_state=0),
    CoREHasher(n_components=16, kernel="core2", hashing="oph", random_state=0),
]


def _dense(X):
    return X.toarray() if sp.issparse(X) else X


# ---------------------------------------------------------------------------
# partial_fit of the oblivious sketches
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("estimator", OBLIVIOUS, ids=lambda e: type(e).__name__)
def test_oblivious_partial_fit_draws_once_and_matches_fit(estimator):
    X = _data()
    fitted = estimator.__class__(**estimator.get_params()).fit(X)
    incremental = estimator.__class__(**estimator.get_params())
    for batch in np.array_split(X, 4):
        assert incremental.partial_fit(batch) is incremental
        state = {k: v.copy() for k, v in vars(incremental).items() if k.endswith("_") and isinstance(v, np.ndarray)}
    # Later batches changed nothing that was drawn by the first one.
    for name, value in state.items():
        assert_array_equal(getattr(incremental, name), value)
        assert_array_equal(getattr(fitted, name), value)
    assert_array_equal(_dense(incremental.transform(X)), _dense(fitted.transform(X)))


@pytest.mark.parametrize("estimator", OBLIVIOUS + [KernelJL(n_subsample=20, random_state=0)], ids=lambda e: type(e).__name__)
def test_partial_fit_rejects_other_number_of_features(estimator):
    X = _data(n_samples=50)
    estimator = estimator.__class__(**estimator.get_params()).partial_fit(X)
    with pytest.raises(ValueError, match="X has 39 features, but .* is expecting 40"):
        estimator.partial_fit(X[:, :-1])
    with pytest.raises(ValueError, match="NaN"):
        estimator.partial_fit(np.full((2, 40), np.nan))


# ---------------------------------------------------------------------------
# Reservoir sampling (KernelJL.partial_fit)
# ---------------------------------------------------------------------------


def _chi_square_uniform_inclusion(counts, n_trials, p):
    """p-value of "each item is included with probability p" (binomial counts)."""
    expected = n_trials * p
    statistic = np.sum((counts - expected) ** 2 / (expected * (1 - p)))
    # The counts sum to n_trials * n_reservoir exactly: one degree of freedom less.
    return stats.chi2.sf(statistic, df=counts.size - 1)


def _reservoir(batches, n_reservoir, seed):
    """Item numbers in the reservoir after feeding ``batches`` (sizes)."""
    random_state = np.random.RandomState(seed)
    reservoir = np.full(n_reservoir, -1)
    n_seen = 0
    for n_batch in batches:
        slots, items = reservoir_update(n_seen, n_reservoir, n_batch, random_state)
        assert np.all(np.diff(slots) > 0)  # distinct slots
        reservoir[slots] = n_seen + items
        n_seen += n_batch
    return reservoir


@pytest.mark.statistical
def test_reservoir_is_a_uniform_subsample():
    # Batches of uneven sizes, smaller and larger than the reservoir.
    batches, n_reservoir = [7, 1, 0, 20, 3, 9], 10
    n_items, n_trials = sum(batches), 2000
    counts = np.zeros(n_items)
    pair_first_two = 0
    for seed in statistical_seeds(n_trials):
        reservoir = _reservoir(batches, n_reservoir, seed)
        assert np.unique(reservoir).size == n_reservoir and reservoir.min() >= 0
        counts[reservoir] += 1
        pair_first_two += {0, n_items - 1} <= set(reservoir)
    # Each item is kept with probability n / N.
    assert _chi_square_uniform_inclusion(counts, n_trials, n_reservoir / n_items) > 1e-3
    # And a pair with probability n (n - 1) / (N (N - 1)) (within 4 standard errors).
    p_pair = n_reservoir * (n_reservoir - 1) / (n_items * (n_items - 1))
    assert abs(pair_first_two / n_trials - p_pair) < 4 * np.sqrt(p_pair * (1 - p_pair) / n_trials)


@pytest.mark.statistical
def test_reservoir_chi_square_detects_a_biased_sampler():
    # The same statistic on a sampler that favours later items (each item of a
    # batch replaces a slot with probability n / n_seen_before_batch, too
    # often) has a tiny p-value: the test above can fail.
    batches, n_reservoir = [7, 1, 0, 20, 3, 9], 10
    n_items, n_trials = sum(batches), 2000
    counts = np.zeros(n_items)
    for seed in statistical_seeds(n_trials):
        rng = np.random.RandomState(seed)
        reservoir = np.arange(n_reservoir)
        n_seen = 0
        for n_batch in batches:
            t = n_seen + np.arange(n_batch)
            fill = t < n_reservoir
            draws = rng.randint(0, max(n_seen, n_reservoir), size=n_batch)
            slots = np.where(fill, t, draws)
            kept = slots < n_reservoir
            reservoir[slots[kept]] = t[kept]
            n_seen += n_batch
        counts[reservoir] += 1
    assert _chi_square_uniform_inclusion(counts, n_trials, n_reservoir / n_items) < 1e-6


@pytest.mark.statistical
def test_kernel_jl_partial_fit_subsample_is_uniform():
    X = np.arange(30.0)[:, None] * np.ones((1, 2))  # row i identifies item i
    batches = np.split(np.arange(30), [4, 5, 17])
    n_subsample, n_trials = 5, 300
    counts = np.zeros(30)
    for seed in statistical_seeds(n_trials):
        kjl = KernelJL(n_components=3, n_subsample=n_subsample, gamma=0.1, random_state=seed)
        for rows in batches:
            kjl.partial_fit(X[rows])
        assert_array_equal(kjl.components_[:, 0], kjl.component_indices_)
        counts[kjl.component_indices_] += 1
    assert _chi_square_uniform_inclusion(counts, n_trials, n_subsample / 30) > 1e-3


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_kernel_jl_partial_fit_state_and_transform(sparse, dtype):
    X = _data(n_samples=300, dtype=dtype)
    X_in = sp.csr_matrix(X) if sparse else X
    kjl = KernelJL(n_components=8, n_subsample=50, gamma=0.05, random_state=0)
    seen = 0
    for rows in np.array_split(np.arange(300), [30, 31, 120]):
        kjl.partial_fit(X_in[rows])
        seen += rows.size
        n = min(50, seen)
        assert kjl.n_samples_seen_ == seen and kjl.n_subsample_ == n
        indices = kjl.component_indices_
        assert indices.size == n and np.all(np.diff(indices) > 0) and indices[-1] < seen
        assert_array_equal(_dense(kjl.components_), X[indices])
        # W = K Z^T / (n sqrt(n d)) for the current subsample and the first n
        # columns of the Z drawn by the first call.
        Z = np.random.RandomState(0).standard_normal((8, 50))[:, :n]
        K = pairwise_kernels(X[indices].astype(np.float64), metric="rbf", gamma=0.05)
        tol = 1e-5 if dtype == np.float32 else 1e-12
        assert_allclose(kjl.projection_, K @ Z.T / (n * np.sqrt(n * 8)), rtol=tol, atol=tol)
        assert kjl.projection_.dtype == dtype
        X_new = kjl.transform(X_in)
        assert X_new.dtype == dtype
        expected = pairwise_kernels(X, X[indices], metric="rbf", gamma=0.05) @ kjl.projection_
        assert_allclose(X_new, expected, rtol=10 * tol, atol=10 * tol)
    # Deterministic given random_state.
    again = KernelJL(n_components=8, n_subsample=50, gamma=0.05, random_state=0)
    for rows in np.array_split(np.arange(300), [30, 31, 120]):
        again.partial_fit(X_in[rows])
    assert_array_equal(again.component_indices_, kjl.component_indices_)
    assert_array_equal(again.transform(X_in), kjl.transform(X_in))


def test_kernel_jl_partial_fit_after_fit_starts_afresh_and_precomputed_has_none():
    X = _data(n_samples=100)
    kjl = KernelJL(n_components=4, n_subsample=10, random_state=0).fit(X)
    kjl.partial_fit(X[:6])
    assert kjl.n_samples_seen_ == 6 and kjl.n_subsample_ == 6
    assert_array_equal(kjl.component_indices_, np.arange(6))
    precomputed = KernelJL(kernel="precomputed")
    assert not hasattr(precomputed, "partial_fit")
    with pytest.raises(AttributeError, match="partial_fit") as excinfo:
        precomputed.partial_fit(np.eye(3))
    # scikit-learn's available_if keeps the reason as the cause.
    assert "precomputed" in str(excinfo.value.__cause__)


# ---------------------------------------------------------------------------
# n_jobs: parallel row chunks, identical output
# ---------------------------------------------------------------------------


def test_parallel_row_chunks_give_every_job_work():
    assert len(parallel_row_chunks(100, 8, 2, exact_rows=True)) == 2
    assert len(parallel_row_chunks(100, 8, 2, exact_rows=False)) == 1
    many = parallel_row_chunks(10_000, 2**20, 2, exact_rows=True)  # 1 MiB rows
    assert len(many) == 625  # the memory bound wins


ESTIMATORS = [
    TensorSketch(n_components=64, degree=2, coef0=0.5, random_state=0),
    TensorSRHT(n_components=32, degree=3, random_state=0),
    ComplexToRealSketch(n_components=32, degree=2, coef0=0.5, random_state=0),
    PolynomialTreeSketch(n_components=32, degree=4, random_state=0),
    CoREHasher(n_components=32, random_state=0),
    CoREHasher(n_components=16, kernel="resemblance", hashing="oph", b_bits=None, random_state=0),
    KernelJL(n_components=16, n_subsample=64, random_state=0),
    KernelJL(n_components=16, n_subsample=64, kernel="poly", degree=2, random_state=0),
]


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("working_memory", [None, 0.05])
def test_n_jobs_output_identical_to_one_job(estimator, sparse, dtype, working_memory):
    X = _data(n_samples=700, dtype=dtype)
    if sparse:
        X = sp.csr_matrix(X)
    params = estimator.get_params()
    one = estimator.__class__(**{**params, "n_jobs": 1}).fit(X)
    two = estimator.__class__(**{**params, "n_jobs": 2}).fit(X)
    with config_context(working_memory=working_memory or 1024):
        expected, result = one.transform(X), two.transform(X)
    assert type(result) is type(expected) and result.dtype == expected.dtype == dtype
    if isinstance(estimator, KernelJL):
        # BLAS products round differently with other thread counts and
        # shapes, so KernelJL is equal up to rounding, not bit for bit.
        tol = 1e-5 if dtype == np.float32 else 1e-12
        assert_allclose(result, expected, rtol=tol, atol=tol * np.abs(expected).max())
    elif sp.issparse(expected):
        assert result.indices.dtype == expected.indices.dtype
        assert result.indptr.dtype == expected.indptr.dtype
        for name in ("data", "indices", "indptr"):
            assert_array_equal(getattr(result, name), getattr(expected, name))
    else:
        assert_array_equal(result, expected)


def test_n_jobs_errors_surface_from_threads():
    X = np.full((40, 3), 1e30, dtype=np.float32)
    sketch = TensorSketch(n_components=16, degree=3, random_state=0, n_jobs=2).fit(X)
    with pytest.raises(ValueError, match="overflowed float32"):
        sketch.transform(X)
