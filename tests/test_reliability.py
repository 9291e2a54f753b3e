"""Rules every estimator keeps, whatever its family, on any input a user can pass.

Each test runs over the whole registry of ``conftest.py`` (every estimator and
every option with a code path of its own):

* cost follows the nonzeros: a CSR matrix of 2**31 columns with a few stored
  values costs what they cost, and the fitted state does not grow with the
  width;
* a non-canonical CSR (duplicates, unsorted indices, stored zeros, 64-bit
  indices, ``csr_array``, CSC) gives exactly the result of its canonical form;
* impossible sizes fail at once with the size they would need;
* parameters: booleans are not integers, ``n_jobs=0`` is refused at fit,
  nothing answers before fit;
* process-wide state (the BLAS thread limit) is left as it was found, even
  with concurrent transforms;
* with ``assume_finite=True`` a NaN input never produces an error that blames
  another cause;
* a pickled copy, and threads sharing one fitted estimator, give the same
  output bit for bit.
"""

import pickle
import threading
import time
import tracemalloc
import warnings
from numbers import Integral

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import ESTIMATOR_REGISTRY, make_estimator, registry_names
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import config_context
from sklearn.exceptions import NotFittedError
from threadpoolctl import threadpool_info

from sklearn_sketch.utils._validation import StrictInterval

NAMES = sorted(ESTIMATOR_REGISTRY)


def dense(result):
    return result.toarray() if sp.issparse(result) else np.asarray(result)


def assert_same_output(name, result, expected):
    """Bit for bit, except KernelJL (BLAS products round by shape)."""
    result, expected = dense(result), dense(expected)
    if name.startswith("KernelJL"):
        assert_allclose(result, expected, rtol=1e-10, atol=1e-12)
    else:
        assert_array_equal(result, expected)


# -- cost follows the nonzeros ----------------------------------------------


def _wide_csr(n_features, seed):
    """5 rows with 10 nonzeros each over ``n_features`` columns; row 4 repeats row 0."""
    rng = np.random.RandomState(seed)
    rows = np.repeat(np.arange(4), 10)
    columns = rng.randint(0, n_features, size=40)
    columns[:3] = [0, n_features - 1, n_features // 2]
    data = rng.rand(40) + 0.1
    X = sp.csr_matrix((data, (rows, columns)), shape=(4, n_features))
    return sp.vstack([X, X[0]], format="csr")


@pytest.mark.parametrize("n_features", [2**31, 2**31 + 7], ids=["2^31", "2^31+7"])
@pytest.mark.parametrize("name", NAMES)
def test_wide_sparse_input_costs_its_nonzeros(name, n_features):
    X = _wide_csr(n_features, seed=n_features % 97)
    # Once untimed and untraced: a cold compile cache compiles the kernels
    # for these index dtypes here (seconds, whatever the width), which is
    # not the cost of the width.
    make_estimator(name).fit(X).transform(X)
    estimator = make_estimator(name)
    tracemalloc.start()
    start = time.perf_counter()
    try:
        result = estimator.fit(X).transform(X)
        seconds = time.perf_counter() - start
        peak_mib = tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()
    # An O(n_features) step costs gigabytes and tens of seconds at this width;
    # the nonzeros cost milliseconds and kilobytes. The bounds are generous.
    assert peak_mib < 300, f"{peak_mib:.0f} MiB"
    assert seconds < 5, f"{seconds:.1f} s"
    # Fitted state O(n_components * degree), not O(n_features).
    assert len(pickle.dumps(estimator)) < 2**20
    if sp.issparse(result):
        result = result.tocsr()
        assert np.isfinite(result.data).all()
        assert_array_equal(result[0].indices, result[4].indices)
        assert_array_equal(result[0].data, result[4].data)
    else:
        assert np.isfinite(result).all()
        assert_same_output(name, result[4], result[0])
        assert np.abs(result[:4]).sum(axis=1).min() > 0


# -- non-canonical sparse input ---------------------------------------------


def _data(seed=3):
    rng = np.random.RandomState(seed)
    X = rng.rand(9, 11) * (rng.rand(9, 11) < 0.5)
    X[3] = 0.0  # an empty row
    X[6] = X[1]  # a duplicate row
    return X


def _duplicates(X):
    """Each entry stored as two halves (an exact sum), in shuffled order."""
    A = sp.coo_matrix(X)
    order = np.random.RandomState(0).permutation(2 * A.nnz)
    data = np.concatenate([A.data / 2, A.data / 2])[order]
    rows, columns = np.tile(A.row, 2)[order], np.tile(A.col, 2)[order]
    return sp.csr_matrix((data, (rows, columns)), shape=X.shape)


def _cancelling(X):
    """Stored values that sum to zero, and stored zeros, where ``X`` is zero."""
    A = sp.coo_matrix(X)
    zero_rows, zero_columns = np.nonzero(X == 0)
    pick = [0, 0, len(zero_rows) // 2, len(zero_rows) - 1]
    extra = np.array([5.0, -5.0, 0.0, 0.0])
    return sp.csr_matrix(
        (np.concatenate([A.data, extra]),
         (np.concatenate([A.row, zero_rows[pick]]),
          np.concatenate([A.col, zero_columns[pick]]))),
        shape=X.shape,
    )


def _unsorted(X):
    A = sp.csr_matrix(X)
    order = np.lexsort((-A.indices, np.repeat(np.arange(X.shape[0]), np.diff(A.indptr))))
    result = sp.csr_matrix((A.data[order], A.indices[order], A.indptr), shape=X.shape)
    result.has_sorted_indices = False
    return result


def _int64(X):
    A = sp.csr_matrix(X)
    return sp.csr_array(
        (A.data, A.indices.astype(np.int64), A.indptr.astype(np.int64)), shape=X.shape
    )


NON_CANONICAL = {
    "duplicates": _duplicates,
    "cancelling duplicates and stored zeros": _cancelling,
    "unsorted indices": _unsorted,
    "csr_array with int64 indices": _int64,
    "csc": sp.csc_matrix,
}


@pytest.mark.parametrize("case", sorted(NON_CANONICAL))
@pytest.mark.parametrize("name", NAMES)
def test_non_canonical_csr_is_its_canonical_form(name, case):
    X = _data()
    X_odd = NON_CANONICAL[case](X)
    X_canonical = sp.csr_matrix(X)
    assert_allclose(dense(X_odd), X, atol=1e-15)
    expected = make_estimator(name).fit(X_canonical).transform(X_canonical)
    # The same map whichever form is given to fit, and to transform.
    fitted_odd = make_estimator(name).fit(NON_CANONICAL[case](X))
    assert_same_output(name, fitted_odd.transform(X_canonical), expected)
    assert_same_output(name, fitted_odd.transform(X_odd), expected)
    # And the dense array gives the same features (to rounding: another path).
    assert_allclose(dense(fitted_odd.transform(X)), dense(expected), rtol=1e-9, atol=1e-12)


# -- impossible sizes ---------------------------------------------------------


def _huge_parameters(name):
    cases = [{"n_components": 10**9}]
    if name.startswith("KernelJL"):
        cases.append({"n_components": 10**7, "n_subsample": 10**5})
    return cases


@pytest.mark.parametrize(
    "name, params",
    [(name, params) for name in NAMES for params in _huge_parameters(name)],
)
def test_impossible_sizes_fail_at_once(name, params):
    X = np.random.RandomState(0).rand(5, 12)
    if name.startswith("KernelJL"):
        X = np.random.RandomState(0).rand(10**5 if "n_subsample" in params else 5, 12)
    start = time.perf_counter()
    with pytest.raises((ValueError, MemoryError), match=r"GiB|TiB|bytes"):
        make_estimator(name, **params).fit(X).transform(X[:5])
    assert time.perf_counter() - start < 1.0


# -- parameters -----------------------------------------------------------------


def _integer_parameters():
    cases = []
    for name in NAMES:
        cls, _ = ESTIMATOR_REGISTRY[name]
        for parameter, constraints in cls._parameter_constraints.items():
            if any(
                isinstance(c, StrictInterval) and c.type is Integral for c in constraints
            ):
                cases.append((name, parameter))
    return cases


@pytest.mark.parametrize("value", [True, np.True_], ids=["True", "np.True_"])
@pytest.mark.parametrize("name, parameter", _integer_parameters())
def test_booleans_are_not_integers(name, parameter, value):
    with pytest.raises(ValueError, match=f"'{parameter}' parameter .*not a bool"):
        make_estimator(name, **{parameter: value}).fit(_data())


def test_every_estimator_constrains_its_integers():
    # The rule above is only as good as the constraints it reads.
    constrained = {}
    for name, parameter in _integer_parameters():
        constrained.setdefault(ESTIMATOR_REGISTRY[name][0], set()).add(parameter)
    for cls, _ in ESTIMATOR_REGISTRY.values():
        assert {"n_components", "n_jobs"} <= constrained.get(cls, set()), cls


@pytest.mark.parametrize("name", NAMES)
def test_zero_jobs_refused_at_fit(name):
    with pytest.raises(ValueError, match="'n_jobs' parameter"):
        make_estimator(name, n_jobs=0).fit(_data())


@pytest.mark.parametrize("name", NAMES)
def test_nothing_answers_before_fit(name):
    estimator = make_estimator(name)
    with pytest.raises(NotFittedError):
        estimator.get_feature_names_out()
    with pytest.raises(NotFittedError):
        estimator.transform(_data())


# -- process-wide state -----------------------------------------------------------


def _blas_limits():
    return sorted(
        (module["filepath"], module["num_threads"])
        for module in threadpool_info()
        if module["user_api"] == "blas"
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "name", ["TensorSketch", "CoREHasher-core1-gaussian", "KernelJL-rbf", "TensorSRHT"]
)
def test_concurrent_parallel_transforms_restore_the_blas_limit(name):
    before = _blas_limits()
    X = np.random.RandomState(0).rand(3000, 20)
    estimator = make_estimator(name, n_jobs=2).fit(X)
    barrier = threading.Barrier(3)
    errors = []

    def work():
        try:
            barrier.wait()
            for _ in range(5):
                with config_context(working_memory=0.05):  # many chunks
                    estimator.transform(X)
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert _blas_limits() == before


# -- assume_finite -------------------------------------------------------------------


@pytest.mark.parametrize("value", [np.nan, np.inf])
@pytest.mark.parametrize("name", NAMES)
def test_assume_finite_never_blames_another_cause(name, value):
    X = _data()
    estimator = make_estimator(name).fit(X)
    X_bad = X.copy()
    X_bad[0, 0] = value
    with config_context(assume_finite=True), warnings.catch_warnings():
        # Arithmetic on NaN or infinity may warn ("invalid value"): true.
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            result = dense(estimator.transform(X_bad))
        except ValueError as error:
            message = str(error)
            assert "overflow" not in message.lower(), message
            assert "NaN" in message or "infinit" in message, message
        else:
            # The user opted out of the check: non-finite values may come
            # out, but only in the rows that had them.
            assert np.isfinite(result[1:]).all()


# -- widths beyond the hash field, overflow, chunks -------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_widths_beyond_the_hash_field_are_refused(name):
    # Feature indices are hashed modulo 2**61 - 1: beyond it two columns
    # would share their hashes. Refused at fit, never a silent collision.
    too_wide = sp.csr_matrix(
        (np.ones(3), ([0, 1, 2], [6, 2**61 + 5, 2**62])), shape=(3, 2**62 + 1)
    )
    with pytest.raises(ValueError, match=r"2\*\*61 - 2 features"):
        make_estimator(name).fit(too_wide)


@pytest.mark.parametrize(
    "name", [n for n in NAMES if not n.startswith(("KernelJL", "CoREHasher-resemblance"))]
)
def test_columns_near_the_widest_width_stay_apart(name):
    # The widest accepted input: its last column (and the constant
    # coordinate after it) hash apart from the first ones.
    n_features = 2**61 - 2
    columns = [6, n_features - 1, 2**61 - 3 - 2**40]
    X = sp.csr_matrix((np.ones(3), ([0, 1, 2], columns)), shape=(3, n_features))
    estimator = make_estimator(name, n_components=64)
    try:
        estimator.fit(X)
    except ValueError as error:
        # Or refused at fit, naming the limit: never a silent collision.
        assert "2**61 - 1" in str(error)
        return
    result = dense(estimator.transform(X))
    assert np.isfinite(result).all()
    assert not np.array_equal(result[0], result[1])
    assert not np.array_equal(result[0], result[2])


POLYNOMIAL = registry_names("polynomial")


@pytest.mark.parametrize("params", [{"gamma": 1e300}, {"coef0": 1e300}, {"gamma": 1e250}])
@pytest.mark.parametrize("name", POLYNOMIAL)
def test_overflow_is_a_clear_error(name, params):
    # Features of the order of (1e125)**3 exceed float64: an error that says
    # so, never an OverflowError from deep inside.
    with pytest.raises(ValueError, match="overflowed float64"):
        make_estimator(name, **{"degree": 3, **params}).fit(_data()).transform(_data())


@pytest.mark.slow
@pytest.mark.parametrize("n_components", [1, 2, 3])
@pytest.mark.parametrize("name", NAMES)
def test_rows_alone_give_the_whole_transform_at_tiny_sizes(name, n_components):
    X = np.random.RandomState(1).randn(40, 6)
    X[5] = 0.0
    if name.startswith(("CoREHasher", "MinMaxHasher")) or "chi2" in name:
        X = np.abs(X)
    estimator = make_estimator(name, n_components=n_components).fit(X)
    whole = estimator.transform(X)
    for X_in in (X, sp.csr_matrix(X)):
        rows = [estimator.transform(X_in[i : i + 1]) for i in range(X.shape[0])]
        stacked = sp.vstack(rows) if sp.issparse(rows[0]) else np.vstack(rows)
        assert_same_output(name, stacked, whole)


# -- pickling and threads ------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_pickle_and_threads_give_identical_results(name):
    rng = np.random.RandomState(1)
    X = rng.rand(300, 5) * (rng.rand(300, 5) < 0.6)
    estimator = make_estimator(name).fit(X)
    expected = dense(estimator.transform(X))
    restored = pickle.loads(pickle.dumps(estimator))
    assert_array_equal(dense(restored.transform(X)), expected)

    results = [None] * 4

    def work(i):
        results[i] = dense(estimator.transform(X))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for result in results:
        assert_array_equal(result, expected)
