"""Exact CoRE and resemblance kernels against a brute-force double loop."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import config_context
from sklearn.svm import SVC

from sklearn_sketch.metrics import core_kernel, resemblance_kernel


def _brute(X, Y, kind):
    K = np.zeros((X.shape[0], Y.shape[0]))
    for p, u in enumerate(X):
        for q, v in enumerate(Y):
            S_u, S_v = set(np.flatnonzero(u)), set(np.flatnonzero(v))
            union = len(S_u | S_v)
            if not S_u or not S_v:
                continue
            R = len(S_u & S_v) / union
            rho = u @ v / np.linalg.norm(u) / np.linalg.norm(v)
            K[p, q] = {
                0: R,
                1: rho * R,
                2: rho * np.sqrt(len(S_u) * len(S_v)) / union,
            }[kind]
    return K


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
    expected = _brute(X, Y, kind)
    expected_xx = _brute(X, X, kind)
    wrap = sp.csr_matrix if sparse else np.asarray

    def kernel(A, B=None):
        if kind == 0:
            return resemblance_kernel(A, B)
        return core_kernel(A, B, kind=kind)

    np.testing.assert_allclose(kernel(wrap(X), wrap(Y)), expected, atol=1e-12)
    np.testing.assert_allclose(kernel(wrap(X)), expected_xx, atol=1e-12)
    # Chunked in memory: a tiny working memory gives one row per block.
    with config_context(working_memory=1e-6):
        np.testing.assert_allclose(kernel(wrap(X), wrap(Y)), expected, atol=1e-12)


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
