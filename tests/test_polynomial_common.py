"""What the polynomial sketches share: the Hadamard transform, the hash-down of
wide input (``polynomial/_hadamard_blocks.py``) and the rules every polynomial sketch
keeps (unbiasedness, the SRHT variances, invariance to sparse input, chunks,
dtype and degenerate rows).

The estimator-specific oracles live in ``test_tensor_sketch.py``,
``test_tensor_srht.py``, ``test_complex_to_real.py``, ``test_tree_sketch.py``
and ``test_maclaurin.py``; the closed forms in ``_polynomial_helpers.py``.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from _hadamard_reference import fwht_row
from _polynomial_helpers import (
    VARIANTS,
    augment,
    ctr_rademacher_closed_form,
    ctr_srht_closed_form,
    ctr_srht_moment_form,
    mean_and_variance_errors,
    real_rademacher_closed_form,
    sketched_products,
    tensor_srht_closed_form,
    tensor_srht_moment_form,
)
from conftest import make_estimator, registry_names
from numpy.testing import assert_allclose, assert_array_equal
from scipy.linalg import hadamard
from sklearn import config_context

from sklearn_sketch import ComplexToRealSketch, TensorSRHT
from sklearn_sketch.polynomial import _hadamard_blocks
from sklearn_sketch.utils._count_sketch import hash_down
from sklearn_sketch.utils._hadamard import fwht

# ---------------------------------------------------------------------------
# The Hadamard transform

@pytest.mark.parametrize("d", [1, 2, 8, 32, 64, 128, 1024, 8192])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fwht_equals_hadamard_matrix(d, dtype):
    rng = np.random.RandomState(d)
    U = rng.randn(3, 2, d).astype(dtype)
    if d <= 1024:
        expected = U.astype(np.float64) @ hadamard(d)
    else:
        # A dense 8192-point matrix is 512 MiB: there the float64 butterfly of
        # the reference (itself the Sylvester product up to 4096 points, see
        # test_hadamard_kernels) stands in for it.
        expected = np.array([fwht_row(u) for u in U.astype(np.float64).reshape(-1, d)])
        expected = expected.reshape(U.shape)
    result = fwht(U.copy())
    assert result.dtype == dtype and result.shape == U.shape
    # float32: d additions of O(1) values, relative error ~ d * 6e-8.
    assert_allclose(result, expected, atol=(1e-4 if dtype == np.float32 else 1e-10) * d)


@pytest.mark.parametrize("d", [64, 1024, 8192])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fwht_rows_are_bitwise_independent_of_their_batch(d, dtype):
    # The transform goes through BLAS products batched over rows: a row's
    # result must not depend on how many rows share its call, where it sits,
    # or what the other rows hold (values spread over many binades, so any
    # change in the order of the additions would show in the last bits).
    rng = np.random.RandomState(d)
    U = (rng.randn(67, d) * np.exp(4 * rng.randn(67, d))).astype(dtype)
    whole = fwht(U.copy())
    for start, stop in [(0, 1), (5, 6), (3, 20), (30, 67), (1, 66)]:
        assert_array_equal(fwht(U[start:stop].copy()), whole[start:stop])
    repeated = fwht(np.repeat(U[7:8], 45, axis=0))
    assert_array_equal(repeated, np.repeat(whole[7:8], 45, axis=0))
    # A 3-d batch (rows, blocks, d) is the same rows.
    assert_array_equal(fwht(U[:66].reshape(22, 3, d).copy()).reshape(66, d), whole[:66])


@pytest.mark.parametrize("d", [8, 2048])
def test_fwht_of_non_contiguous_input(d):
    # Gathered columns come out F-ordered, and so does an elementwise product
    # of them: the transform must not write into a discarded reshaped copy.
    rng = np.random.RandomState(0)
    U = np.asfortranarray(rng.randn(5, d))[:, None, :] * np.ones((1, d))
    assert not U.flags.c_contiguous
    assert_allclose(fwht(U.copy(order="K")), U @ hadamard(d), atol=1e-9 * d)


def test_fwht_rejects_non_power_of_two():
    with pytest.raises(ValueError, match="power-of-two"):
        fwht(np.ones((2, 6)))



@pytest.mark.parametrize("name", ["tensorsrht", "tree-srht", "ctr-srht"])
def test_degree_one_with_a_whole_hadamard_block_is_exact(name):
    # H^T H = d I: sampling every coordinate of one block once (6 features
    # padded to 8; CtR: 8 complex features) reproduces <x, y> exactly.
    X = np.random.RandomState(0).rand(5, 6)
    n_components = 16 if name == "ctr-srht" else 8
    Z = VARIANTS[name](n_components=n_components, degree=1, random_state=0).fit_transform(X)
    assert_allclose(Z @ Z.T, X @ X.T, atol=1e-12)


# ---------------------------------------------------------------------------
# Statistics


@pytest.mark.slow
@pytest.mark.statistical
@pytest.mark.parametrize(
    "name, degree, coef0, n_components",
    [
        ("tensorsrht", 3, 0.5, 12),
        ("ctr-srht", 2, 0.0, 7),  # odd D: the real part alone
        ("ctr-rademacher", 3, 0.5, 11),
        ("tree-srht", 5, 0.2, 16),  # degree padded to 8: an (x, e) and an (e, e) node
        ("tree-ts", 2, 0.5, 12),
        ("tree-ts", 5, 0.2, 16),  # (x, e) and (e, e) nodes take the FFT-free path
        ("tree-ts-hash", 3, 0.5, 12),
        ("maclaurin", 3, 0.5, 12),  # constant, exact linear, degrees 2 and 3
        ("maclaurin-ts-sketched-linear", 4, 0.5, 12),
        ("maclaurin-srht", 2, 0.5, 9),
        ("maclaurin", 5, 0.5, 4),  # fewer features than terms: padded tree
    ],
)
def test_unbiased(name, degree, coef0, n_components):
    rng = np.random.RandomState(degree)
    X = rng.randn(3, 5) / np.sqrt(5)
    X[2] = np.abs(X[2])
    gamma, n_draws = 0.8, 1000
    products = sketched_products(
        VARIANTS[name], X, n_draws, n_components=n_components, degree=degree,
        gamma=gamma, coef0=coef0,
    )
    exact = (gamma * X @ X.T + coef0) ** degree
    # Every pair, diagonal included, within 4 standard errors of the mean:
    # a 4-sigma band fails with probability 6e-5 per entry under the CLT.
    standard_error = products.std(axis=0, ddof=1) / np.sqrt(n_draws)
    assert np.all(np.abs(products.mean(axis=0) - exact) < 4 * standard_error)
    # ... and the estimates are noisy, so the band is not vacuous.
    assert np.all(standard_error[~np.eye(3, dtype=bool)] > 1e-3)


@pytest.mark.slow
@pytest.mark.statistical
@pytest.mark.parametrize(
    "name, closed_form, unstructured, n_components",
    [
        # d = 8 (7 features + the constant); 12 = one whole block and a half one.
        ("tensorsrht", tensor_srht_closed_form, real_rademacher_closed_form, 12),
        ("ctr-srht", ctr_srht_closed_form, ctr_rademacher_closed_form, 24),
    ],
)
def test_srht_variance_matches_closed_form(name, closed_form, unstructured, n_components):
    # The exact variance of the block construction (independent signs per
    # block, coordinates without replacement within a block), against the
    # estimator's empirical variance. The check can fail: the formula is
    # more than 4 standard errors away from the i.i.d. Rademacher one that
    # sampling with replacement or shared blocks would tend towards.
    rng = np.random.RandomState(5)
    x, y = rng.rand(2, 6)
    y += 0.5 * x  # correlated non-negative rows, as images
    x, y = x / np.linalg.norm(x), y / np.linalg.norm(y)
    degree, coef0 = 2, 0.5
    estimates = sketched_products(
        VARIANTS[name], np.vstack([x, y]), 2000, n_components=n_components,
        degree=degree, coef0=coef0,
    )[:, 0, 1]
    xa, ya = augment(x, 1.0, coef0), augment(y, 1.0, coef0)
    expected = closed_form(xa, ya, degree, n_components, 8)
    variance, variance_error = mean_and_variance_errors(estimates)
    assert abs(variance - expected) < 4 * variance_error
    assert unstructured(xa, ya, degree, n_components) - expected > 4 * variance_error


@pytest.mark.slow
@pytest.mark.statistical
@pytest.mark.parametrize(
    "name, closed_form",
    [("tensorsrht", real_rademacher_closed_form), ("ctr-srht", ctr_rademacher_closed_form)],
)
def test_srht_variance_below_its_unstructured_counterpart(name, closed_form):
    # The Hadamard rows of one block are orthogonal and sampled without
    # replacement, which removes part of the variance of i.i.d. Rademacher
    # rows (Wacker et al.): with a whole block (D = 2 * 8 for CtR's 8
    # complex features, D = 8 for TensorSRHT) the reduction is large.
    rng = np.random.RandomState(2)
    x, y = rng.rand(2, 7)
    x, y = x / np.linalg.norm(x), y / np.linalg.norm(y)
    degree = 2
    n_components = 16 if name == "ctr-srht" else 8
    products = sketched_products(
        VARIANTS[name], np.vstack([x, y]), 1500, n_components=n_components, degree=degree
    )[:, 0, 1]
    standard_error = products.std(ddof=1) / np.sqrt(products.size)
    assert abs(products.mean() - (x @ y) ** degree) < 4 * standard_error
    variance, variance_error = mean_and_variance_errors(products)
    bound = closed_form(x, y, degree, n_components)
    assert variance + 4 * variance_error < bound


# ---------------------------------------------------------------------------
# Wide input: the SRHTs hash their input down first
#
# Beyond max(MIN_HASHED_WIDTH, next_power_of_two(n_samples)) coordinates, each
# SRHT input x' is replaced by C x', C an independent Count Sketch of width w
# (pairwise independent buckets, 4-wise independent signs). Over C, with
# n = |x|^2 |y|^2, s = sum_i x_i^2 y_i^2 and the off-diagonal sums
# sq = sum_{i != j} x_i^2 y_j^2 = n - s and cr = sum_{i != j} x_i y_i x_j y_j
# = rho^2 - s (pairings of four signs; only pairs of keys share a bucket):
#   E <Cx, Cy>^2          = rho^2 + V,  V = (sq + cr) / w
#   E |Cx|^2 |Cy|^2       = n + 2 cr / w
#   E sum_k (Cx)_k^2 (Cy)_k^2 = s + (sq + 2 cr) / w
# The SRHT closed forms are linear in these per degree, and the degrees are
# independent, so the variance of the wide path is the closed form at these
# means plus Var_C(prod_j <C_j x, C_j y>) = (rho^2 + V)^p - rho^(2p).
# The tests shrink MIN_HASHED_WIDTH so that a 40-feature row is "wide" and V
# is large enough to measure.


def hashed_moments(x, y, w):
    """Means over a width-w Count Sketch of (n, rho^2, s), and V."""
    rho2, s, n = (x @ y) ** 2, np.sum(x**2 * y**2), (x @ x) * (y @ y)
    sq, cr = n - s, rho2 - s
    V = (sq + cr) / w
    return n + 2 * cr / w, rho2 + V, s + (sq + 2 * cr) / w, V


@pytest.fixture
def small_hash_cap(monkeypatch):
    monkeypatch.setattr(_hadamard_blocks, "MIN_HASHED_WIDTH", 8)


@pytest.mark.parametrize("name", ["tensorsrht", "tree-srht", "ctr-srht"])
def test_hashed_degree_one_whole_block_is_the_count_sketch_product(name, small_hash_cap):
    # 40 features + the constant (padded 64) exceed the cap 16: the SRHT
    # reads C x', and a whole block of it reproduces <C x', C y'> exactly.
    X = np.random.RandomState(0).rand(5, 40)
    X[0, :30] = 0.0
    n_components = 32 if name == "ctr-srht" else 16
    sketch = VARIANTS[name](n_components=n_components, degree=1, coef0=0.3, gamma=0.7, random_state=0)
    Z = sketch.fit_transform(X)
    assert sketch.hash_down_.shape == (1, 6)
    CX = hash_down(X, sketch.hash_down_[0], 16, 0.7, 0.3, np.float64)
    assert_allclose(Z @ Z.T, CX @ CX.T, atol=1e-12)
    # ... which is not <x', y'>: the hash-down is really there.
    assert not np.allclose(CX @ CX.T, 0.7 * X @ X.T + 0.3)
    # Sparse input hashes only its present columns, to the same bits.
    assert_array_equal(sketch.transform(sp.csr_matrix(X)), Z)


@pytest.mark.slow
@pytest.mark.statistical
@pytest.mark.parametrize(
    "name, moment_form, n_components, degree",
    [
        ("tensorsrht", tensor_srht_moment_form, 16, 1),  # whole block: Var = V
        ("tensorsrht", tensor_srht_moment_form, 12, 2),
        ("ctr-srht", ctr_srht_moment_form, 32, 1),
        ("ctr-srht", ctr_srht_moment_form, 24, 2),
    ],
)
def test_hashed_variance_is_the_narrow_one_plus_the_count_sketch_term(
    name, moment_form, n_components, degree, small_hash_cap
):
    rng = np.random.RandomState(6)
    x, y = rng.rand(2, 40)
    y += 0.5 * x
    x, y = x / np.linalg.norm(x), y / np.linalg.norm(y)
    coef0, n_draws, w = 0.5, 3000, 16
    estimates = sketched_products(
        VARIANTS[name], np.vstack([x, y]), n_draws, n_components=n_components,
        degree=degree, coef0=coef0,
    )[:, 0, 1]
    xa, ya = augment(x, 1.0, coef0), augment(y, 1.0, coef0)
    rho = xa @ ya
    n, r2, s, V = hashed_moments(xa, ya, w)
    expected = moment_form(n, r2, s, degree, n_components, w) + r2**degree - rho ** (2 * degree)
    narrow = moment_form((xa @ xa) * (ya @ ya), rho**2, np.sum(xa**2 * ya**2), degree,
                         n_components, 64)
    # Unbiased for <x', y'>^p; one hash shared by the degrees would be
    # biased by about V at degree 2, which this band would see.
    standard_error = estimates.std(ddof=1) / np.sqrt(n_draws)
    assert abs(estimates.mean() - rho**degree) < 4 * standard_error
    if degree == 2:
        assert V > 4 * standard_error
    variance, variance_error = mean_and_variance_errors(estimates)
    assert abs(variance - expected) < 4 * variance_error
    # At degree 1 a whole block of C x' is exact: the variance is V alone,
    # and the check tells it from the narrow path's (d = 64, not exact).
    if degree == 1:
        assert abs(expected - V) <= 1e-9 * V
        assert abs(expected - narrow) > 4 * variance_error
    else:
        assert expected > narrow


@pytest.mark.slow
@pytest.mark.statistical
@pytest.mark.parametrize("name", ["tree-srht", "tree-ts", "maclaurin-srht", "maclaurin"])
def test_hashed_leaves_are_unbiased(name, small_hash_cap):
    # Wide leaves: hashed down (tensorsrht) or hashed buckets (tensorsketch,
    # whose permutations would grow with n_features); degree 3 pads the
    # tree with an e leaf, also hashed down.
    rng = np.random.RandomState(1)
    X = rng.rand(3, 40) / np.sqrt(40 / 3)
    gamma, coef0, degree, n_draws = 0.8, 0.4, 3, 1000
    products = sketched_products(
        VARIANTS[name], X, n_draws, n_components=12, degree=degree, gamma=gamma, coef0=coef0
    )
    exact = (gamma * X @ X.T + coef0) ** degree
    standard_error = products.std(axis=0, ddof=1) / np.sqrt(n_draws)
    assert np.all(np.abs(products.mean(axis=0) - exact) < 4 * standard_error)
    assert np.all(standard_error > 1e-3)


def test_narrow_input_keeps_the_exact_path():
    # Up to the cap, no hash-down: the state and the features are those of
    # the padded SRHT (whose formula is tested above), bit for bit.
    X = np.random.RandomState(0).rand(4, 4095)  # + the constant: 4096 keys
    for name in ("tensorsrht", "ctr-srht", "tree-srht"):
        sketch = VARIANTS[name](n_components=8, degree=2, coef0=1.0, random_state=0).fit(X)
        assert sketch.hash_down_ is None
    wide = VARIANTS["tensorsrht"](n_components=8, degree=2, coef0=1.0, random_state=0)
    assert wide.fit(np.ones((1, 4096))).hash_down_.shape == (2, 6)
    assert wide.hadamard_size_ == 4096
    # The cap grows with n_components.
    big = VARIANTS["tensorsrht"](n_components=5000, random_state=0).fit(np.ones((1, 5000)))
    assert big.hash_down_ is None and big.hadamard_size_ == 8192



# ---------------------------------------------------------------------------
# Invariances of every polynomial sketch of the registry: sparse, chunks,
# dtype, random_state (pickling in another process: test_properties.py)

POLYNOMIAL = registry_names("polynomial")
ALL = pytest.mark.parametrize("name", POLYNOMIAL)


@pytest.fixture
def data():
    rng = np.random.RandomState(0)
    X = rng.randn(300, 40)
    X[rng.rand(*X.shape) < 0.7] = 0.0
    return X


@ALL
@pytest.mark.parametrize("degree, coef0", [(2, 0.0), (3, 1.0)])
def test_sparse_equals_dense(data, name, degree, coef0):
    sketch = make_estimator(name, n_components=96, degree=degree, coef0=coef0).fit(data)
    dense = sketch.transform(data)
    for sparse in (sp.csr_matrix(data), sp.csc_matrix(data), sp.csr_array(data)):
        assert_allclose(sketch.transform(sparse), dense, atol=1e-10)


@pytest.mark.slow
@ALL
@pytest.mark.parametrize("sparse", [False, True])
def test_chunked_equals_whole(data, name, sparse):
    X = sp.csr_matrix(data) if sparse else data
    sketch = make_estimator(name, n_components=128, degree=3, coef0=1.0).fit(X)
    whole = sketch.transform(X)
    with config_context(working_memory=0.02):  # a few rows per chunk
        assert_array_equal(sketch.transform(X), whole)
    pieces = [sketch.transform(X[i : i + 7]) for i in range(0, X.shape[0], 7)]
    assert_array_equal(np.vstack(pieces), whole)


@ALL
def test_float32_preserved_and_close_to_float64(data, name):
    sketch = make_estimator(name, n_components=128, degree=3, coef0=1.0).fit(data)
    Z64 = sketch.transform(data)
    for X32 in (data.astype(np.float32), sp.csr_matrix(data.astype(np.float32))):
        Z32 = sketch.transform(X32)
        assert Z32.dtype == np.float32
        # float32 keeps 24 bits: relative error ~1e-7 per operation, a few
        # hundred operations per feature.
        assert_allclose(Z32, Z64, rtol=0, atol=1e-4 * np.abs(Z64).max())
    assert sketch.transform(data.astype(np.int64)).dtype == np.float64


@ALL
def test_random_state_determines_the_map(data, name):
    sketch = make_estimator(name, n_components=64, degree=2, random_state=7).fit(data)
    again = make_estimator(name, n_components=64, degree=2, random_state=7).fit_transform(data)
    other = make_estimator(name, n_components=64, degree=2, random_state=8).fit_transform(data)
    assert_array_equal(again, sketch.transform(data))
    assert not np.allclose(again, other)


def test_fitted_state_does_not_grow_with_features():
    small = ComplexToRealSketch(64, degree=3, projection="rademacher", random_state=0)
    large = ComplexToRealSketch(64, degree=3, projection="rademacher", random_state=0)
    small.fit(np.ones((2, 3)))
    large.fit(sp.csr_matrix((2, 10**6)))
    assert small.entry_hashes_.shape == large.entry_hashes_.shape == (3, 4)
    srht = TensorSRHT(64, degree=3, random_state=0).fit(sp.csr_matrix((2, 10**6)))
    assert srht.sign_hashes_.shape == (3, 4) and srht.coordinates_.shape == (3, 64)


# ---------------------------------------------------------------------------
# Degenerate input


@ALL
def test_zero_row_single_feature_duplicates(name):
    X = np.zeros((3, 4))
    X[1] = 1.0
    X[2] = 1.0
    Z = make_estimator(name, n_components=32, degree=3, coef0=0.0).fit_transform(X)
    assert np.all(np.isfinite(Z))
    assert_allclose(Z[0], 0.0, atol=1e-12)
    assert_array_equal(Z[1], Z[2])
    # With coef0 the zero row keeps the kernel value coef0^degree on average;
    # each draw is finite and the degree-1 SRHT of a constant is exact.
    Z = make_estimator(name, n_components=32, degree=3, coef0=0.7).fit_transform(X)
    assert np.all(np.isfinite(Z)) and np.any(Z[0] != 0)
    Z = make_estimator(name, n_components=8, degree=2, coef0=0.0).fit_transform([[3.0]])
    assert Z.shape == (1, 8) and np.all(np.isfinite(Z))


# ---------------------------------------------------------------------------
# A degree whose features exceed the dtype's range fails before any work


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", registry_names("polynomial"))
def test_features_beyond_the_range_fail_before_any_work_naming_the_degree(name, dtype):
    # Rule: a transform that cannot succeed fails at once, naming the size:
    # rows whose features' norm sqrt(K(x, x)) = |x'|**degree is beyond the
    # dtype are refused before the work of every degree (degree=10**6 worked
    # for minutes before its overflow). Here |x'| is about 120 and
    # 120**200 is beyond float64.
    X = (100 * np.random.RandomState(0).rand(6, 5)).astype(dtype)
    estimator = make_estimator(name, degree=200, n_components=16).fit(X)

    def prepare(*args, **kwargs):
        raise AssertionError("the transform started its work before refusing")

    estimator._map.prepare = prepare
    with pytest.raises(ValueError, match=f"overflowed {np.dtype(dtype).name}: .*degree=200"):
        estimator.transform(X)


@pytest.mark.parametrize("name", registry_names("polynomial"))
def test_features_within_the_range_are_not_refused(name):
    # Wide rows of one large value each: the bound n_features * max**2 on
    # |x|**2 is beyond float32 at degree 3, the rows' norms are not, and
    # their features are finite.
    X = np.zeros((4, 1000), dtype=np.float32)
    X[np.arange(4), [3, 10, 500, 999]] = [1e12, -1e12, 5e11, 1e11]
    estimator = make_estimator(name, degree=3, coef0=0.0, n_components=16).fit(X)
    assert np.isfinite(estimator.transform(X)).all()
