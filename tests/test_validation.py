"""The input rules (``utils/_validation.py``): every estimator of the registry
and every kernel function under every input a user can send.

Each case ends either in the result of an oracle (the same data given in the
canonical form: a C-contiguous float64 array) or in a ValueError/TypeError
whose message names the problem. RuntimeWarnings are errors in this suite
(pyproject.toml), so an overflow or invalid-value warning fails a case too.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import ESTIMATOR_REGISTRY, make_estimator
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import config_context

from sklearn_sketch.metrics import core_kernel, resemblance_kernel

NAMES = sorted(ESTIMATOR_REGISTRY)
KERNEL_FUNCTIONS = {
    "core_kernel-1": lambda X, Y=None: core_kernel(X, Y, kind=1),
    "core_kernel-2": lambda X, Y=None: core_kernel(X, Y, kind=2),
    "resemblance_kernel": resemblance_kernel,
}


def dense(result):
    return result.toarray() if sp.issparse(result) else np.asarray(result)


@pytest.fixture
def X_int():
    """Small non-negative integers with zeros: exact in every numeric dtype."""
    rng = np.random.RandomState(0)
    X = rng.randint(0, 4, size=(7, 5))
    X[2] = 0  # an all-zero row
    X[:, 3] = 0  # an all-zero column
    X[5] = X[1]  # duplicate rows
    return X


def oracle(name, X_int):
    estimator = make_estimator(name).fit(X_int.astype(np.float64))
    return estimator, dense(estimator.transform(X_int.astype(np.float64)))


def _unsorted_csr(X):
    """CSR with each row's indices reversed (valid but not canonical)."""
    A = sp.csr_matrix(X)
    indices, data = A.indices.copy(), A.data.copy()
    for start, stop in zip(A.indptr[:-1], A.indptr[1:]):  # test data: 7 rows
        indices[start:stop] = indices[start:stop][::-1]
        data[start:stop] = data[start:stop][::-1]
    result = sp.csr_matrix((data, indices, A.indptr), shape=A.shape)
    result.has_sorted_indices = False
    return result


def _with_explicit_zeros(X):
    A = sp.coo_matrix(X)
    rows = np.concatenate([A.row, [0, 3]])
    cols = np.concatenate([A.col, [3, 3]])
    data = np.concatenate([A.data, [0.0, 0.0]]).astype(np.float64)
    return sp.csr_matrix((data, (rows, cols)), shape=X.shape)  # zeros stay stored


def _with_duplicates(X):
    """Every entry split into two stored halves (CSR sums duplicates)."""
    A = sp.coo_matrix(X.astype(np.float64))
    halves = np.concatenate([A.data / 2, A.data / 2])
    result = sp.csr_matrix(
        (halves, (np.tile(A.row, 2), np.tile(A.col, 2))), shape=X.shape
    )
    return result


def _int64_indices(X):
    A = sp.csr_matrix(X.astype(np.float64))
    return sp.csr_matrix(
        (A.data, A.indices.astype(np.int64), A.indptr.astype(np.int64)), shape=A.shape
    )


def _pandas(X):
    pd = pytest.importorskip("pandas")
    return pd.DataFrame(X.astype(np.float64), columns=[f"c{i}" for i in range(X.shape[1])])


EQUIVALENT_INPUTS = {
    "int64": lambda X: X.astype(np.int64),
    "int8": lambda X: X.astype(np.int8),
    "uint16": lambda X: X.astype(np.uint16),
    "float16": lambda X: X.astype(np.float16),
    "object": lambda X: X.astype(object),
    "list": lambda X: X.tolist(),
    "fortran": lambda X: np.asfortranarray(X.astype(np.float64)),
    "non-contiguous": lambda X: np.repeat(X.astype(np.float64), 2, axis=1)[:, ::2],
    "pandas": _pandas,
    "csr_matrix": lambda X: sp.csr_matrix(X.astype(np.float64)),
    "csr_array": lambda X: sp.csr_array(X.astype(np.float64)),
    "csc_matrix": lambda X: sp.csc_matrix(X.astype(np.float64)),
    "coo_matrix": lambda X: sp.coo_matrix(X.astype(np.float64)),
    "unsorted indices": lambda X: _unsorted_csr(X.astype(np.float64)),
    "explicit zeros": _with_explicit_zeros,
    "duplicate entries": _with_duplicates,
    "64-bit indices": _int64_indices,
}


# Fitting on a DataFrame and transforming an array (or the reverse) warns
# about feature names, as scikit-learn does; the values must still agree.
@pytest.mark.filterwarnings("ignore:X (has|does not have valid) feature names")
@pytest.mark.parametrize("case", sorted(EQUIVALENT_INPUTS))
@pytest.mark.parametrize("name", NAMES)
def test_equivalent_inputs_give_the_oracle(name, case, X_int):
    estimator, expected = oracle(name, X_int)
    X = EQUIVALENT_INPUTS[case](X_int)
    result = dense(estimator.transform(X))
    assert np.isfinite(result).all()
    assert_allclose(result, expected, rtol=1e-10, atol=1e-12)
    # Fitting on the variant gives the same fitted map.
    refit = dense(make_estimator(name).fit(X).transform(X_int.astype(np.float64)))
    assert_allclose(refit, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", ["bool"])
@pytest.mark.parametrize("name", NAMES)
def test_boolean_input_is_binary_float(name, case, X_int):
    binary = (X_int > 0).astype(np.float64)
    estimator = make_estimator(name).fit(binary)
    assert_allclose(dense(estimator.transform(X_int > 0)), dense(estimator.transform(binary)))


@pytest.mark.parametrize("case", sorted(EQUIVALENT_INPUTS))
@pytest.mark.parametrize("name", sorted(KERNEL_FUNCTIONS))
def test_kernel_functions_equivalent_inputs(name, case, X_int):
    kernel = KERNEL_FUNCTIONS[name]
    expected = kernel(X_int.astype(np.float64))
    X = EQUIVALENT_INPUTS[case](X_int)
    result = kernel(X)
    assert np.isfinite(result).all()
    assert_allclose(result, expected, rtol=1e-10, atol=1e-12)


BAD_INPUTS = {
    "nan": (lambda X: np.where(X == X.max(), np.nan, X), ValueError, "NaN"),
    "inf": (lambda X: np.where(X == X.max(), np.inf, X), ValueError, "infinity"),
    "-inf": (lambda X: np.where(X == X.max(), -np.inf, X), ValueError, "infinity"),
    "sparse nan": (
        lambda X: sp.csr_matrix(np.where(X == X.max(), np.nan, X)),
        ValueError,
        "NaN",
    ),
    "sparse inf": (
        lambda X: sp.csr_matrix(np.where(X == X.max(), np.inf, X)),
        ValueError,
        "infinity",
    ),
    "no rows": (lambda X: np.empty((0, X.shape[1])), ValueError, "0 sample"),
    "no columns": (lambda X: np.empty((X.shape[0], 0)), ValueError, "0 feature"),
    "strings": (
        lambda X: np.where(X > 0, "word", "other").astype(object),
        ValueError,
        "could not convert|string",
    ),
    "complex": (lambda X: X.astype(np.complex128), ValueError, "[Cc]omplex"),
    "1-D": (lambda X: X[0].astype(np.float64), ValueError, "2D array"),
    "3-D": (lambda X: X.astype(np.float64)[None], ValueError, "dim"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
@pytest.mark.parametrize("name", NAMES)
def test_bad_input_is_a_clear_error(name, case, X_int):
    make_bad, error, match = BAD_INPUTS[case]
    with pytest.raises(error, match=match):
        make_estimator(name).fit(make_bad(X_int))
    fitted = make_estimator(name).fit(X_int.astype(np.float64))
    with pytest.raises(error, match=match):
        fitted.transform(make_bad(X_int))


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
@pytest.mark.parametrize("name", sorted(KERNEL_FUNCTIONS))
def test_kernel_functions_bad_input(name, case, X_int):
    make_bad, error, match = BAD_INPUTS[case]
    with pytest.raises(error, match=match):
        KERNEL_FUNCTIONS[name](make_bad(X_int))


@pytest.mark.parametrize("name", NAMES)
def test_wrong_number_of_features(name, X_int):
    fitted = make_estimator(name).fit(X_int.astype(np.float64))
    with pytest.raises(ValueError, match="features"):
        fitted.transform(np.ones((2, X_int.shape[1] + 1)))
    with pytest.raises(ValueError, match="features"):
        fitted.transform(sp.csr_matrix(np.ones((2, X_int.shape[1] - 1))))


def test_kernel_functions_mismatched_features(X_int):
    for kernel in KERNEL_FUNCTIONS.values():
        with pytest.raises(ValueError, match="features|shape|dimension"):
            kernel(X_int, np.ones((2, X_int.shape[1] + 1)))


@pytest.mark.parametrize(
    "name", ["TensorSketch", "CoREHasher-core1-gaussian", "CoREHasher-resemblance-full"]
)
def test_column_indices_near_2_31(name):
    # A sparse matrix wider than 2**31 columns: 64-bit indices, hashing of
    # large feature indices. The oracle: the same rows with their columns
    # stored in another order and index dtype give the same output, rows that
    # repeat give identical outputs, and nothing overflows.
    n_features = 2**31 + 10
    columns = np.array([3, 2**31 - 1, 2**31, 2**31 + 9])
    data = np.array([1.0, 2.0, 0.5, 3.0])
    rows = np.array([0, 0, 1, 1])
    X = sp.csr_matrix((data, (rows, columns)), shape=(3, n_features))
    X = sp.vstack([X, X[0]]).tocsr()
    estimator = make_estimator(name).fit(X)
    result = estimator.transform(X)
    reordered = estimator.transform(_unsorted_csr(X))
    if sp.issparse(result):
        # CoREHasher's output is k * n_features wide with b_bits=None: compare
        # the stored entries, never densify.
        result, reordered = result.tocsr(), reordered.tocsr()
        assert np.isfinite(result.data).all()
        assert_array_equal(result[0].indices, result[3].indices)
        assert_array_equal(result[0].data, result[3].data)
        assert result[2].nnz == 0  # an empty row maps to an empty row
        assert abs(result - reordered).max() < 1e-12
    else:
        assert np.isfinite(result).all()
        assert_array_equal(result[0], result[3])
        assert_allclose(reordered, result, rtol=1e-12)


@pytest.mark.parametrize("value, match", [(np.nan, "NaN"), (np.inf, "infinity"), (-np.inf, "infinity")])
@pytest.mark.parametrize("name", NAMES)
def test_non_finite_value_in_any_chunk_is_an_error(name, value, match, X_int):
    """NaN or infinity in any row of a transform split in chunks and threads."""
    X = np.abs(np.vstack([X_int] * 4).astype(np.float32))
    fitted = make_estimator(name, n_jobs=2).fit(X)
    for row in (0, X.shape[0] // 2, X.shape[0] - 1):
        X_bad = X.copy()
        X_bad[row, -1] = value
        for bad in (X_bad, sp.csr_matrix(X_bad)):
            # A working memory of a few bytes: one row per chunk.
            with config_context(working_memory=1e-6), pytest.raises(ValueError, match=match):
                fitted.transform(bad)


@pytest.mark.parametrize("name", NAMES)
def test_non_finite_value_is_named_before_a_wrong_number_of_features(name, X_int):
    # As in scikit-learn's validation, whose check_estimators_nan_inf relies
    # on it (a transform that looks for NaN chunk by chunk must keep it).
    fitted = make_estimator(name).fit(np.abs(X_int.astype(np.float64)))
    X_bad = np.abs(X_int[:, :-1].astype(np.float64))
    X_bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        fitted.transform(X_bad)
    with pytest.raises(ValueError, match="features"):
        fitted.transform(np.abs(X_int[:, :-1].astype(np.float64)))


@pytest.mark.parametrize("name", NAMES)
def test_csr_matrix_input_gets_the_errors_and_warnings_of_any_sparse_input(name, X_int):
    # A fitted estimator checks a float csr_matrix itself (the common input,
    # without scikit-learn's per-call overhead); csr_array input takes
    # scikit-learn's path. The two must raise and warn alike.
    X = np.abs(X_int.astype(np.float32))
    fitted = make_estimator(name).fit(X)
    for value in (np.nan, np.inf):
        X_bad = X.copy()
        X_bad[1, 0] = value
        messages = []
        for kind in (sp.csr_matrix, sp.csr_array):
            with pytest.raises(ValueError) as error:
                fitted.transform(kind(X_bad))
            messages.append(str(error.value))
        assert messages[0] == messages[1]
    with pytest.raises(ValueError, match="features"):
        fitted.transform(sp.csr_matrix(X[:, 1:]))
    with pytest.raises(ValueError, match="0 sample"):
        fitted.transform(sp.csr_matrix((0, X.shape[1]), dtype=np.float32))
    named = make_estimator(name).fit(_pandas(X_int))
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        named.transform(sp.csr_matrix(X.astype(np.float64)))
