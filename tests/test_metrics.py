"""Exact CoRE and resemblance kernels against a brute-force double loop."""

import _metrics_reference as reference
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.svm import SVC

from sklearn_sketch.metrics import core_kernel, resemblance_kernel


def _data(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 15)) * (rng.random((n, 15)) < 0.4)
    X[0] = 0.0
    X[1, 0] = 0.0
    X[1, 1] = -5.0
    return X


@pytest.mark.parametrize("kind", [0, 1, 2])
@pytest.mark.parametrize("sparse", [False, True])
def test_against_double_loop(kind, sparse):
    X, Y = _data(12, 0), _data(9, 1)
    expected = reference.pattern(X, Y, kind)
    expected_xx = reference.pattern(X, X, kind)
    wrap = sp.csr_matrix if sparse else np.asarray

    def kernel(A, B=None):
        if kind == 0:
            return resemblance_kernel(A, B)
        return core_kernel(A, B, kind=kind)

    np.testing.assert_allclose(kernel(wrap(X), wrap(Y)), expected, atol=1e-12)
    np.testing.assert_allclose(kernel(wrap(X)), expected_xx, atol=1e-12)
    # Row-independent: a slice of rows gets the same numbers as in the whole.
    whole = kernel(wrap(X), wrap(Y))
    np.testing.assert_array_equal(kernel(wrap(X[3:7]), wrap(Y)), whole[3:7])
    np.testing.assert_array_equal(kernel(wrap(X[5:6]), wrap(Y[2:8])), whole[5:6, 2:8])


def test_binary_and_dense_special_cases():
    # Binary data: K_C2 = R. Fully dense data: K_C1 = K_C2 = rho.
    rng = np.random.default_rng(0)
    B = (rng.random((10, 20)) < 0.3) * 1.0
    np.testing.assert_allclose(core_kernel(B, kind=2), resemblance_kernel(B))
    D = rng.random((10, 20)) + 0.1
    Dn = D / np.linalg.norm(D, axis=1, keepdims=True)
    np.testing.assert_allclose(core_kernel(D, kind=1), Dn @ Dn.T)
    np.testing.assert_allclose(core_kernel(D, kind=2), Dn @ Dn.T)


def test_dtype_errors_and_precomputed_svc():
    X = _data(12, 0).astype(np.float32)
    assert core_kernel(X).dtype == np.float32
    assert core_kernel(X.astype(np.float64)).dtype == np.float64
    with pytest.raises(ValueError, match="kind"):
        core_kernel(X, kind=3)
    with pytest.raises(ValueError, match="NaN"):
        resemblance_kernel(np.array([[np.nan, 1.0]]))
    with pytest.raises(ValueError, match="dimension"):
        core_kernel(X, X[:, :3])
    y = np.arange(12) % 2
    K = core_kernel(X, kind=1)
    SVC(kernel="precomputed").fit(K, y).predict(core_kernel(X[:3], X, kind=1))
