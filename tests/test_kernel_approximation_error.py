"""``kernel_approximation_error``: a fitted sketch's Gram matrix against its kernel.

* On every estimator of the registry that estimates a kernel, the error is
  ``||Z Z^T - K||_F / ||K||_F`` of the features ``Z`` of all rows, ``K``
  written here from the definitions: the polynomial and RBF kernels, the
  CoRE kernels and the resemblance (``_metrics_reference``) with the b-bit
  offset ``(1 - R) 2**-b`` (type 1: times ``rho``; type 2: the terms of
  the other row's uniform location), the min-max and GMM kernels with it,
  and the 0-bit collision probability (pair by pair, below).
* More rows than ``n_samples``: the sampled rows' entries, weighed as in the
  whole Gram matrix, estimate the error of all the rows; the memory bound
  (features by blocks of rows) gives the same Gram matrix.
* The compiled 0-bit collision probability against its formula, at any
  scale, zero rows included.
"""

from types import SimpleNamespace

import _metrics_reference as reference
import numpy as np
import pytest
import scipy.sparse as sp
from conftest import ESTIMATOR_REGISTRY, legal_input, make_estimator, statistical_seed
from sklearn.metrics.pairwise import rbf_kernel

from sklearn_sketch._sizing import feature_gram, product_gram
from sklearn_sketch.metrics import _zero_bit_probability, kernel_approximation_error

SKETCHES = sorted(name for name in ESTIMATOR_REGISTRY if not name.startswith("KernelJL"))


def _zero_bit(x, y):
    """``P[i(x) = i(y)]`` of the split rows (see tests/test_min_max_hasher.py)."""
    x = np.r_[np.maximum(x, 0), np.maximum(-x, 0)]
    y = np.r_[np.maximum(y, 0), np.maximum(-y, 0)]
    if not (x.any() and y.any()):
        return 0.0
    M = np.maximum(x, y).sum()
    only_x, only_y = np.maximum(x - y, 0) / M, np.maximum(y - x, 0) / M
    return np.minimum(x, y).sum() / M + only_x @ (y / y.sum()) + only_y @ (x / x.sum())


def _core2_apart(X):
    """Type 2's term of two different locations: ``sqrt(f_u f_v) / |S_u | S_v|`` times
    ``mean_{S_u - S_v} u~ * mean_{S_v} v~`` weighted by the sets' shares, both ways."""
    U = X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-300)
    out = np.zeros((X.shape[0], X.shape[0]))
    for i, u in enumerate(U):
        for j, v in enumerate(U):
            S_u, S_v = u != 0, v != 0
            if not (S_u.any() and S_v.any()):
                continue
            union = (S_u | S_v).sum()
            f_u, f_v = S_u.sum(), S_v.sum()
            apart = u[S_u & ~S_v].sum() * v[S_v].sum() / f_v
            apart += v[S_v & ~S_u].sum() * u[S_u].sum() / f_u
            out[i, j] = np.sqrt(f_u * f_v) / union * apart
    return out


def _estimated(estimator, X):
    """What the features of the fitted ``estimator`` estimate, from the definitions."""
    p = estimator.get_params()
    name = type(estimator).__name__
    if name == "OrthogonalRBFSampler":
        return rbf_kernel(X, gamma=estimator.gamma_)
    if "degree" in p:
        return (p["gamma"] * X @ X.T + p["coef0"]) ** p["degree"]
    offset = 0.0 if p["b_bits"] is None else 2.0 ** -p["b_bits"]
    nonempty = np.outer(X.any(axis=1), X.any(axis=1))
    if name == "MinMaxHasher":
        P = (np.array([[_zero_bit(x, y) for y in X] for x in X]) if p["codes"] == "0bit"
             else reference.gmm(X, X))
        return np.where(nonempty, P + (1 - P) * offset, 0.0)
    R = reference.pattern(X, X, 0)
    collide = np.where(nonempty, R + (1 - R) * offset, 0.0)
    if p["kernel"] == "resemblance":
        return collide
    if p["kernel"] == "core1":
        return reference.pattern(X, X, 1) / np.where(R > 0, R, 1) * collide
    return reference.pattern(X, X, 2) + offset * _core2_apart(X)


def _rows(name):
    rng = np.random.RandomState(1)
    X = rng.standard_normal((25, 9)) * (rng.rand(25, 9) < 0.6)
    X[3] = 0.0
    return legal_input(name, X)


@pytest.mark.parametrize("name", SKETCHES)
def test_the_error_of_all_rows_from_the_definitions(name):
    X = _rows(name)
    estimator = make_estimator(name).fit(X)
    Z = estimator.transform(X)
    Z = Z.toarray() if sp.issparse(Z) else Z
    K = _estimated(estimator, X)
    expected = np.linalg.norm(Z @ Z.T - K) / np.linalg.norm(K)
    assert kernel_approximation_error(estimator, X) == pytest.approx(expected, rel=1e-6)


def test_sampled_rows_estimate_the_error_of_all_rows():
    rng = np.random.RandomState(2)
    X = rng.rand(1500, 12)
    estimator = make_estimator("OrthogonalRBFSampler-sorf", n_components=256).fit(X)
    whole = kernel_approximation_error(estimator, X, n_samples=None)
    assert kernel_approximation_error(estimator, X, n_samples=1500) == whole
    seed = statistical_seed(5)
    sampled = [kernel_approximation_error(estimator, X, n_samples=300, random_state=seed + i)
               for i in range(5)]
    # The sampled rows weigh the diagonal as 1 / 1500 of the whole: without
    # that weight the error of 300 rows would differ by their diagonal's share.
    assert abs(np.mean(sampled) - whole) < 0.05 * whole


def test_the_gram_matrix_by_blocks_is_the_whole_one():
    rng = np.random.RandomState(3)
    rows = rng.rand(37, 6)
    W = rng.standard_normal((6, 50))

    def features(R):
        return R @ W

    sketch_map = SimpleNamespace(n_output=50, sparse_output=False, gram=product_gram)
    whole = feature_gram(features, rows, sketch_map)
    blocks = feature_gram(features, rows, sketch_map, max_bytes=16 * 50 * 7)
    np.testing.assert_allclose(blocks, whole, rtol=1e-12)
    np.testing.assert_allclose(whole, features(rows) @ features(rows).T, rtol=1e-12)


def test_a_kernel_that_is_zero_on_the_rows_is_refused():
    estimator = make_estimator("TensorSketch", coef0=0.0).fit(np.random.RandomState(0).rand(10, 4))
    with pytest.raises(ValueError, match="kernel is 0 on every pair"):
        kernel_approximation_error(estimator, np.zeros((5, 4)))


@pytest.mark.parametrize("scale", [1.0, 1e-300, 1e300])
@pytest.mark.parametrize("signed", [False, True])
def test_the_zero_bit_probability_is_its_formula(scale, signed):
    rng = np.random.RandomState(4)
    X = rng.lognormal(0, 1, (7, 15)) * (rng.rand(7, 15) < 0.5)
    if signed:
        X *= np.where(rng.rand(7, 15) < 0.5, -1.0, 1.0)
    X[2] = 2.5 * X[0]
    X[5] = 0.0
    expected = np.array([[_zero_bit(x, y) for y in X] for x in X])
    inputs = [X * scale, sp.csr_matrix(X * scale)]
    if scale == 1.0:
        inputs.append(X.astype(np.float32))
    for data in inputs:
        P = _zero_bit_probability(data)
        np.testing.assert_allclose(P, expected, rtol=1e-5, atol=1e-12)
        np.testing.assert_allclose(_zero_bit_probability(data[:3], data), expected[:3],
                                   rtol=1e-5, atol=1e-12)
