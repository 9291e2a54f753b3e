"""The exact min-max and GMM kernels against their definitions, pair by pair."""

import _metrics_reference as reference
import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.svm import SVC

from sklearn_sketch.metrics import gmm_kernel, min_max_kernel


def _data(seed, n, signed=False):
    rng = np.random.RandomState(seed)
    X = rng.gamma(0.7, 3.0, (n, 13)) * (rng.rand(n, 13) < 0.45)
    if signed:
        X *= np.where(rng.rand(n, 13) < 0.4, -1.0, 1.0)
    X[1] = 0.0
    X[2] = 4.0 * X[0]  # a scaled copy: kernel 1/4 with row 0
    return X


@pytest.mark.parametrize("form", [np.asarray, sp.csr_matrix, sp.csc_matrix])
def test_min_max_kernel_is_its_definition(form):
    X, Y = _data(0, 9), _data(1, 5)
    expected = reference.min_max(X, Y)
    assert_allclose(min_max_kernel(form(X), form(Y)), expected, rtol=1e-12, atol=1e-15)
    K = min_max_kernel(form(X))
    assert_allclose(K, reference.min_max(X, X), rtol=1e-12, atol=1e-15)
    assert K[0, 2] == pytest.approx(0.25)
    # Identical rows give 1, disjoint rows 0, a zero row 0 with anything.
    assert K[0, 0] == 1.0 and K[1].max() == 0.0


@pytest.mark.parametrize("form", [np.asarray, sp.csr_matrix])
def test_gmm_kernel_is_min_max_of_the_split_rows(form):
    X, Y = _data(2, 8, signed=True), _data(3, 6, signed=True)
    assert_allclose(gmm_kernel(form(X), form(Y)), reference.gmm(X, Y), atol=1e-14)
    # On nonnegative data it is the min-max kernel.
    P = np.abs(X)
    assert_allclose(gmm_kernel(form(P)), min_max_kernel(form(P)), atol=1e-15)
    # Opposite rows share no part: kernel 0.
    assert gmm_kernel(np.vstack([X[0], -X[0]]))[0, 1] == 0.0


def test_disjoint_rows_give_exactly_zero_and_dtype_follows_input():
    X = np.array([[0.1, 0.0, 0.7], [0.0, 0.3, 0.0]], dtype=np.float32)
    K = min_max_kernel(X)
    assert K.dtype == np.float32 and K[0, 1] == 0.0
    assert min_max_kernel(X, X.astype(np.float64)).dtype == np.float64


def test_rows_give_the_same_kernel_alone_as_in_the_whole():
    X, Y = _data(4, 40), _data(5, 30)
    for kernel in (min_max_kernel, gmm_kernel):
        whole = kernel(sp.csr_matrix(X), Y)
        assert_array_equal(kernel(sp.csr_matrix(X[7:8]), Y), whole[7:8])
        assert_array_equal(kernel(X[10:25], Y[3:9]), whole[10:25, 3:9])
        # The rows of X against themselves: the same numbers as against a copy.
        assert_array_equal(kernel(X), kernel(X, X.copy()))


def test_negative_values_are_refused_by_min_max_only():
    X = np.array([[1.0, -2.0]])
    for bad in (X, sp.csr_matrix(X)):
        with pytest.raises(ValueError, match="Negative values.*gmm_kernel"):
            min_max_kernel(bad)
        with pytest.raises(ValueError, match="Negative values"):
            min_max_kernel(np.ones((1, 2)), bad)
    with pytest.raises(ValueError, match="NaN|infinity"):
        gmm_kernel(np.array([[np.nan, 1.0]]))


def test_precomputed_svc_uses_them():
    rng = np.random.RandomState(0)
    X = rng.rand(60, 5)
    y = (X[:, 0] > X[:, 1]).astype(int)
    for kernel in (min_max_kernel, gmm_kernel):
        model = SVC(kernel="precomputed", C=10).fit(kernel(X[:40]), y[:40])
        assert model.score(kernel(X[40:], X[:40]), y[40:]) > 0.7
