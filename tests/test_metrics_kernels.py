"""The rules every exact kernel of ``sklearn_sketch.metrics`` keeps.

Each kernel equals its plain reference (``_metrics_reference``) on any
layout of the same matrix (dense, canonical or not, int32 or int64 indices,
float32 or float64), costs ``O(nnz)`` memory beyond its output whatever the
number of columns, stays finite and scale-correct from subnormal values to
the largest float, and names what is wrong with a malformed input.
"""

import tracemalloc

import _metrics_reference as reference
import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

from sklearn_sketch.metrics import (
    core_kernel,
    gmm_kernel,
    min_max_kernel,
    resemblance_kernel,
)

# name -> (kernel, its reference, whether it takes negative values)
KERNELS = {
    "min_max": (min_max_kernel, reference.min_max, False),
    "gmm": (gmm_kernel, reference.gmm, True),
    "resemblance": (resemblance_kernel, lambda X, Y: reference.pattern(X, Y, 0), True),
    "core1": (lambda X, Y=None: core_kernel(X, Y, kind=1),
              lambda X, Y: reference.pattern(X, Y, 1), True),
    "core2": (lambda X, Y=None: core_kernel(X, Y, kind=2),
              lambda X, Y: reference.pattern(X, Y, 2), True),
}
NAMES = {
    "min_max": "min_max_kernel",
    "gmm": "gmm_kernel",
    "resemblance": "resemblance_kernel",
    "core1": "core_kernel",
    "core2": "core_kernel",
}


def _dense(rng, n, d, density, signed):
    """Random rows with empty rows, a repeated row and a scaled copy."""
    X = rng.gamma(0.8, 2.0, (n, d)) * (rng.random((n, d)) < density)
    if signed:
        X *= np.where(rng.random((n, d)) < 0.4, -1.0, 1.0)
    if n >= 4:
        X[1] = 0.0
        X[2] = X[0]
        X[3] = 3.0 * X[0]
    return X


def _messy_csr(X, index_dtype, rng):
    """``X`` as a non-canonical CSR: shuffled indices, split duplicates, stored zeros.

    A stored zero and a pair of entries that cancel are added where ``X`` is
    zero; each other value is stored as two entries that sum to it.
    """
    indptr, indices, data = [0], [], []
    for x in X:
        row = []
        for j in np.flatnonzero(x):
            part = np.float64(x[j]) * 0.25
            row += [(j, part), (j, x[j] - part)]
        zero_columns = np.flatnonzero(x == 0)
        if zero_columns.size:
            j = rng.choice(zero_columns)
            row += [(j, 0.0), (j, 1.5), (j, -1.5)]
        rng.shuffle(row)
        indices += [j for j, _ in row]
        data += [v for _, v in row]
        indptr.append(len(indices))
    matrix = sp.csr_matrix((np.array(data, X.dtype), indices, indptr), shape=X.shape)
    # The constructor keeps the smallest index dtype that fits; set it after.
    matrix.indices = matrix.indices.astype(index_dtype)
    matrix.indptr = matrix.indptr.astype(index_dtype)
    return matrix


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("shape", [(1, 1, 1), (7, 5, 3), (25, 18, 40)])
@pytest.mark.parametrize("density", [0.1, 0.5, 1.0])
def test_kernels_equal_their_reference_on_every_layout(name, shape, density):
    kernel, oracle, signed = KERNELS[name]
    rng = np.random.default_rng(sum(shape) + int(10 * density))
    n_X, n_Y, d = shape
    X, Y = _dense(rng, n_X, d, density, signed), _dense(rng, n_Y, d, density, signed)
    expected, expected_XX = oracle(X, Y), oracle(X, X)
    for dtype, rtol in ((np.float64, 1e-12), (np.float32, 2e-6)):
        X_t, Y_t = X.astype(dtype), Y.astype(dtype)
        exp, exp_XX = (expected, expected_XX) if dtype == np.float64 else (
            oracle(X_t, Y_t), oracle(X_t, X_t))
        layouts = [(X_t, Y_t), (sp.csr_matrix(X_t), Y_t),
                   (sp.csc_matrix(X_t), sp.coo_matrix(Y_t)),
                   (sp.csr_array(X_t), sp.csr_array(Y_t))]
        layouts += [
            (_messy_csr(X_t, index_dtype, rng), _messy_csr(Y_t, index_dtype, rng))
            for index_dtype in (np.int32, np.int64)
        ]
        for A, B in layouts:
            K = kernel(A, B)
            assert K.dtype == dtype and K.shape == (n_X, n_Y)
            assert_allclose(K, exp, rtol=rtol, atol=rtol)
            assert_allclose(kernel(A), exp_XX, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("name", KERNELS)
def test_gram_matrix_is_exactly_symmetric_with_the_right_diagonal(name):
    kernel, _, signed = KERNELS[name]
    X = _dense(np.random.default_rng(3), 30, 50, 0.2, signed)
    K = kernel(sp.csr_matrix(X))
    # Y = X computes half the pairs; the other half must be the same numbers.
    assert_array_equal(K, K.T)
    assert_array_equal(K, kernel(X, X))
    nonzero = X.any(axis=1)
    assert_allclose(np.diag(K)[nonzero], 1.0, rtol=1e-15)
    assert np.all(np.diag(K)[~nonzero] == 0.0)
    assert np.all((K >= -1.0) & (K <= 1.0))
    if name in ("min_max", "gmm"):
        assert np.all(np.diag(K)[nonzero] == 1.0)  # exactly, as the tests of SVC expect


@pytest.mark.parametrize("name", KERNELS)
def test_all_zero_input_gives_zeros(name):
    kernel = KERNELS[name][0]
    for zeros in (np.zeros((3, 4)), sp.csr_matrix((3, 4)), sp.csr_matrix((3, 2**40))):
        assert_array_equal(kernel(zeros), np.zeros((3, 3)))
        assert_array_equal(kernel(zeros[:2], zeros), np.zeros((2, 3)))
    assert_array_equal(kernel(np.zeros((2, 4)), np.ones((3, 4))), np.zeros((2, 3)))


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("n_features", [2**31 + 7, 2**62])
def test_wide_input_costs_memory_of_its_nonzeros(name, n_features):
    kernel, oracle, signed = KERNELS[name]
    rng = np.random.default_rng(5)
    values = _dense(rng, 9, 6, 0.6, signed)
    # Six columns spread over the whole width, the last at n_features - 1.
    columns = np.array([0, 5, 2**31 - 1, 2**31, n_features - 2, n_features - 1])
    coo = sp.coo_matrix(values)
    wide = sp.csr_matrix((coo.data, (coo.row, columns[coo.col])), shape=(9, n_features))
    assert wide.indices.dtype == np.int64
    tracemalloc.start()
    try:
        K_XY = kernel(wide[:5], wide[5:])
        K_XX = kernel(wide)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert_allclose(K_XY, oracle(values[:5], values[5:]), rtol=1e-12, atol=1e-15)
    assert_allclose(K_XX, oracle(values, values), rtol=1e-12, atol=1e-15)
    assert peak < 2**20, f"peak {peak} bytes for 9 rows of 2**31 or more columns"


@pytest.mark.parametrize("name", KERNELS)
def test_kernels_keep_their_value_from_subnormal_to_the_largest_floats(name):
    kernel, oracle, signed = KERNELS[name]
    X = _dense(np.random.default_rng(7), 8, 12, 0.5, signed)
    Y = _dense(np.random.default_rng(8), 6, 12, 0.5, signed)
    expected = oracle(X, Y)
    peak = max(np.abs(X).max(), np.abs(Y).max())
    # Up to the largest floats, where sums of max overflow; down to values
    # just above the subnormal range, and to 2**-1000 (scale by a power of
    # two: exact).
    for c in (1.7e308 / peak, 1e300, 2.0**1000, 1e-300, 2.0**-1000 / peak):
        for A, B in ((c * X, c * Y), (sp.csr_matrix(c * X), sp.csr_matrix(c * Y))):
            K = kernel(A, B)
            assert np.all(np.isfinite(K)), c
            assert_allclose(K, expected, rtol=1e-12, atol=1e-15, err_msg=f"c={c}")
    # Small integers times 2**-1072 are exact subnormal numbers.
    S = np.round(4 * X)
    assert_allclose(kernel(S * 2.0**-1072), oracle(S, S), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", KERNELS)
def test_rows_of_very_different_scales(name):
    kernel, oracle, signed = KERNELS[name]
    X0 = _dense(np.random.default_rng(9), 6, 10, 0.6, signed)
    Y0 = _dense(np.random.default_rng(10), 5, 10, 0.6, signed)
    X, Y = X0 * 2.0**600, Y0 * 2.0**-400
    # Kernels of rows 2**1000 apart are tiny for min-max, where the reference
    # sums stay finite; the resemblance and CoRE kernels do not see the scale
    # of a row, and their reference would overflow in the norms.
    rows, unit_rows = np.vstack([X, Y]), np.vstack([X0, Y0])
    if name in ("min_max", "gmm"):
        expected, expected_rows = oracle(X, Y), oracle(rows, rows)
    else:
        expected, expected_rows = oracle(X0, Y0), oracle(unit_rows, unit_rows)
    assert_allclose(kernel(X, Y), expected, rtol=1e-12, atol=0)
    assert_allclose(kernel(rows), expected_rows, rtol=1e-12, atol=0)
    # Rows holding both the largest and tiny values: the reference takes
    # them at unit scale, the tiny ones still nonzero and still negligible.
    x = np.array([[1.5e308, 1e-300, 1.5e308, 0.0]])
    y = np.array([[1.5e308, 1e-300, 0.0, 1e-300]])

    def unit(r):
        return np.where(r == 1e-300, 1e-200, r / 1e308)

    assert_allclose(kernel(x, y), oracle(unit(x), unit(y)), rtol=1e-12, atol=0)


def test_huge_values_give_the_kernel_of_the_same_rows_at_unit_scale():
    x, y = np.array([[1.5e308, 1.5e308, 1e308]]), np.array([[1.5e308, 0.0, 1e308]])
    assert min_max_kernel(x, y)[0, 0] == pytest.approx(2.5 / 4.0, rel=1e-15)
    assert gmm_kernel(x, -y)[0, 0] == 0.0
    assert gmm_kernel(np.vstack([x, y]))[0, 1] == pytest.approx(2.5 / 4.0, rel=1e-15)
    rho = (1.5**2 + 1.0) / np.sqrt(1.5**2 * 2 + 1.0) / np.sqrt(1.5**2 + 1.0)
    assert core_kernel(x, y, kind=1)[0, 0] == pytest.approx(rho * 2 / 3, rel=1e-14)
    K_C2 = rho * np.sqrt(6) / 3
    assert core_kernel(x, y, kind=2)[0, 0] == pytest.approx(K_C2, rel=1e-14)


def _malformed(name):
    """(X, Y, the message) for every input every kernel refuses."""
    function = NAMES[name]
    cases = [
        (np.zeros((0, 3)), None, rf"0 sample\(s\) \(shape=\(0, 3\)\).*{function}"),
        (np.zeros((2, 0)), None, rf"0 feature\(s\) \(shape=\(2, 0\)\).*{function}"),
        (sp.csr_matrix((0, 3)), None, f"0 sample.*{function}"),
        (sp.csr_matrix((2, 0)), None, f"0 feature.*{function}"),
        (np.ones((2, 3)), np.zeros((0, 3)), f"0 sample.*{function}"),
        (np.ones((2, 3)), sp.csr_matrix((1, 0)), f"0 feature.*{function}"),
        (np.ones((2, 3)), np.ones((2, 4)),
         f"Incompatible dimension.*{function}: X has 3 features, Y has 4"),
        (sp.csr_matrix(np.ones((2, 4))), np.ones((2, 3)), "X has 4 features, Y has 3"),
        (np.array([[np.nan, 1.0]]), None, "Input X contains NaN"),
        (np.ones((1, 2)), np.array([[np.inf, 1.0]]), "Input Y contains infinity"),
        (sp.csr_matrix(np.array([[np.nan, 1.0]])), None, "Input X contains NaN"),
        (np.ones(3), None, "Expected 2D array, got 1D array"),
        (np.ones((2, 2, 2)), None, "Found array with dim 3"),
    ]
    if name == "min_max":
        negative = np.array([[1.0, -2.0]])
        cases += [
            (negative, None, "Negative values.*gmm_kernel"),
            (np.ones((1, 2)), sp.csr_matrix(negative), "Negative values.*gmm_kernel"),
        ]
    return cases


@pytest.mark.parametrize("name", KERNELS)
def test_malformed_input_is_refused_by_name(name):
    kernel = KERNELS[name][0]
    for X, Y, message in _malformed(name):
        with pytest.raises(ValueError, match=message):
            kernel(X, Y)
