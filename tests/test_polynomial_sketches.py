"""TensorSRHT, ComplexToRealSketch, PolynomialTreeSketch and MaclaurinSketch.

Their mathematics and contract.

Closed forms used below (MATH.md section 1, Wacker et al. 2023, Table 1),
for augmented rows x', y' with rho = <x', y'>, s = sum_i x'_i^2 y'_i^2 and
n = |x'|^2 |y'|^2:

* real Rademacher product, D features, per feature prod_j (w_j.x)(w_j.y):
  E[(w.x)^2 (w.y)^2] = n + 2 rho^2 - 2 s (pairings of four +-1 entries, the
  all-equal index counted once), so Var = ((n + 2 rho^2 - 2 s)^p - rho^(2p)) / D.
* complex Rademacher (entries 1, -1, i, -i; E w = E w^2 = 0, |w| = 1), with
  a = w.x and b = conj(w).y: E|a|^2|b|^2 = n + rho^2 - s =: A and
  E a^2 b^2 = 2 rho^2 - s =: B (only pairings of w with conj(w) survive).
  The estimate is the mean over D/2 rows of Re Z, Z = prod_j a_j b_j, and
  (Re Z)^2 = (|Z|^2 + Re Z^2) / 2, so Var = (A^p + B^p - 2 rho^(2p)) / D.
  Both need only 4-wise independent entries: every second moment involves
  at most four entries per degree.
"""

import pickle
from math import comb

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import statistical_seed, statistical_seeds
from numpy.testing import assert_allclose, assert_array_equal
from scipy.linalg import hadamard
from sklearn import config_context

from sklearn_sketch import (
    ComplexToRealSketch,
    MaclaurinSketch,
    PolynomialTreeSketch,
    TensorSketch,
    TensorSRHT,
)
from sklearn_sketch.polynomial import _common as polynomial_common
from sklearn_sketch.polynomial._common import hash_down
from sklearn_sketch.utils._hadamard import fwht
from sklearn_sketch.polynomial._maclaurin import previous_smooth_length
from sklearn_sketch.utils._hashing import (
    SIGN_HASH_INDEPENDENCE,
    draw_polynomial_hashes,
    polynomial_hash,
)

# One constructor per variant; every contract test runs on all of them.
VARIANTS = {
    "tensorsrht": lambda **kw: TensorSRHT(**kw),
    "ctr-srht": lambda **kw: ComplexToRealSketch(projection="srht", **kw),
    "ctr-rademacher": lambda **kw: ComplexToRealSketch(projection="rademacher", **kw),
    "tree-srht": lambda **kw: PolynomialTreeSketch(base="tensorsrht", **kw),
    "tree-ts": lambda **kw: PolynomialTreeSketch(base="tensorsketch", **kw),
    "tree-ts-hash": lambda **kw: PolynomialTreeSketch(
        base="tensorsketch", buckets="hash", **kw
    ),
    "maclaurin": lambda **kw: MaclaurinSketch(**kw),
    "maclaurin-ts-sketched-linear": lambda **kw: MaclaurinSketch(
        base="tensorsketch", linear="sketch", **kw
    ),
    "maclaurin-srht": lambda **kw: MaclaurinSketch(base="tensorsrht", **kw),
}


def augment(x, gamma, coef0):
    return np.append(np.sqrt(gamma) * x, np.sqrt(coef0))


def sketched_products(make, X, n_draws, **params):
    """Z(x) . Z(y) for every pair of rows of X, for n_draws random states.

    Returns an array of shape (n_draws, n_rows, n_rows).
    """
    out = np.empty((n_draws, X.shape[0], X.shape[0]))
    with config_context(assume_finite=True, skip_parameter_validation=True):
        for draw, seed in enumerate(statistical_seeds(n_draws)):
            Z = make(random_state=seed, **params).fit_transform(X)
            out[draw] = Z @ Z.T
    return out


def mean_and_variance_errors(samples):
    """Sample variance and its standard error sqrt((m4 - var^2) / N)."""
    centered = samples - samples.mean(axis=0)
    variance = np.mean(centered**2, axis=0)
    error = np.sqrt((np.mean(centered**4, axis=0) - variance**2) / samples.shape[0])
    return variance, error


# ---------------------------------------------------------------------------
# The Hadamard transform


@pytest.mark.parametrize("d", [1, 2, 8, 32, 64, 128, 1024, 8192])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fwht_equals_hadamard_matrix(d, dtype):
    rng = np.random.RandomState(d)
    U = rng.randn(3, 2, d).astype(dtype)
    expected = U.astype(np.float64) @ hadamard(d)
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


def test_tree_with_three_factor_hadamard_nodes():
    # Node inputs of length 2048 take the three-factor Kronecker path
    # (regression: the node sketches once came out as zeros there).
    X = np.random.RandomState(0).rand(20, 30)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    Z = PolynomialTreeSketch(n_components=2048, degree=3, random_state=0).fit_transform(X)
    assert_allclose(Z @ Z.T, (X @ X.T) ** 3, atol=0.3)


def test_fwht_rejects_non_power_of_two():
    with pytest.raises(ValueError, match="power-of-two"):
        fwht(np.ones((2, 6)))


# ---------------------------------------------------------------------------
# Exact oracles: the transforms are the formulas of MATH.md


def test_tensor_srht_equals_explicit_formula():
    rng = np.random.RandomState(0)
    X = rng.randn(4, 5)
    gamma, coef0, D = 0.7, 1.3, 20  # d' = 6 -> Hadamard size 8, three blocks
    sketch = TensorSRHT(D, degree=3, gamma=gamma, coef0=coef0, random_state=0).fit(X)
    assert sketch.hadamard_size_ == 8
    signs = sketch._prepare_transform(X)  # per-call state: the block signs
    H = hadamard(8)
    expected = np.ones((4, D))
    for j in range(3):
        for r in range(D):
            block, coordinate = divmod(sketch.coordinates_[j, r], 8)
            for row, x in enumerate(X):
                x_pad = np.zeros(8)
                x_pad[:6] = augment(x, gamma, coef0)
                expected[row, r] *= (H @ (signs[j][block] * x_pad))[coordinate]
    assert_allclose(sketch.transform(X), expected / np.sqrt(D), atol=1e-12)
    # Within a block the coordinates are distinct (sampling without replacement).
    for j in range(3):
        for start in range(0, D, 8):
            block = sketch.coordinates_[j, start : start + 8]
            assert np.unique(block).size == block.size


def test_ctr_rademacher_equals_explicit_complex_projection():
    rng = np.random.RandomState(1)
    X = rng.randn(3, 4)
    gamma, coef0, D = 1.5, 0.4, 7  # odd D: 4 complex features, 7 outputs
    sketch = ComplexToRealSketch(
        D, degree=2, gamma=gamma, coef0=coef0, projection="rademacher", random_state=0
    ).fit(X)
    m, width = 4, 5
    units = np.array([1, 1j, -1, -1j])
    keys = np.arange(m)[:, None] * width + np.arange(width)
    Phi = np.ones((3, m), dtype=complex)
    for j in range(2):
        W = units[(polynomial_hash(sketch.entry_hashes_[j], keys) & np.uint64(3)).astype(int)]
        Phi *= np.array([augment(x, gamma, coef0) for x in X]) @ W.T
    Phi *= np.sqrt(2 / D)
    expected = np.hstack([Phi.real, Phi.imag[:, : D - m]])
    assert_allclose(sketch.transform(X), expected, atol=1e-12)


def explicit_count_sketch(buckets, signs, width, D):
    """The dense (width, D) matrix of a Count Sketch."""
    C = np.zeros((width, D))
    C[np.arange(width), buckets] = signs
    return C


def cyclic_convolution(a, b):
    D = a.shape[1]
    return np.real(np.fft.ifft(np.fft.fft(a, axis=1) * np.fft.fft(b, axis=1), n=D, axis=1))


@pytest.mark.parametrize("buckets", ["permutation", "hash"])
@pytest.mark.parametrize("degree", [2, 3])
def test_tree_tensorsketch_equals_explicit_formula(buckets, degree):
    # The tree from its fitted hashes, leaf by leaf and node by node, with
    # dense Count Sketch matrices and FFT convolutions; degree 3 pads one e
    # leaf, whose FFT-free shortcut must give the same map.
    rng = np.random.RandomState(degree)
    X = rng.randn(4, 5)
    gamma, coef0, D = 0.7, 1.3, 16
    sketch = PolynomialTreeSketch(
        D, degree=degree, gamma=gamma, coef0=coef0, buckets=buckets, random_state=0
    ).fit(X)
    width = 6 + (sketch.n_leaves_ > degree)  # x', plus the key of e
    Xa = np.zeros((4, width))
    Xa[:, :6] = [augment(x, gamma, coef0) for x in X]
    e = np.zeros((1, width))
    e[0, -1] = 1.0

    def sketch_matrix(t, w):
        keys = np.arange(w)
        if buckets == "hash":
            b = polynomial_hash(sketch.bucket_hashes_[t], keys) % np.uint64(D)
        else:
            b = sketch.bucket_permutations_[t]
        signs = 1.0 - 2.0 * (polynomial_hash(sketch.sign_hashes_[t], keys) & np.uint64(1))
        return explicit_count_sketch(b.astype(int), signs, w, D)

    leaves = [Xa] * degree + [e] * (sketch.n_leaves_ - degree)
    nodes = [
        cyclic_convolution(leaves[2 * k] @ sketch_matrix(2 * k, width),
                           leaves[2 * k + 1] @ sketch_matrix(2 * k + 1, width))
        for k in range(sketch.n_leaves_ // 2)
    ]
    t = sketch.n_leaves_
    while len(nodes) > 1:
        nodes = [
            cyclic_convolution(nodes[2 * k] @ sketch_matrix(t + 2 * k, D),
                               nodes[2 * k + 1] @ sketch_matrix(t + 2 * k + 1, D))
            for k in range(len(nodes) // 2)
        ]
    assert_allclose(sketch.transform(X), np.broadcast_to(nodes[0], (4, D)), atol=1e-10)


def test_tree_permutation_buckets_never_collide_within_n_components():
    X = np.zeros((2, 30))
    tree = PolynomialTreeSketch(64, degree=3, base="tensorsketch", random_state=0).fit(X)
    for buckets in tree.bucket_permutations_:
        assert np.unique(buckets).size == buckets.size  # 31 leaf keys, 64 node keys
    # Wider than n_components: loads differ by at most one.
    wide = PolynomialTreeSketch(8, degree=2, base="tensorsketch", random_state=0).fit(X)
    for buckets in wide.bucket_permutations_:
        loads = np.bincount(buckets, minlength=8)
        assert loads.max() - loads.min() <= 1


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


def ctr_rademacher_closed_form(x, y, degree, n_components):
    rho = x @ y
    s = np.sum(x**2 * y**2)
    A = (x @ x) * (y @ y) + rho**2 - s
    B = 2 * rho**2 - s
    return (A**degree + B**degree - 2 * rho ** (2 * degree)) / n_components


def real_rademacher_closed_form(x, y, degree, n_components):
    rho = x @ y
    s = np.sum(x**2 * y**2)
    return (((x @ x) * (y @ y) + 2 * rho**2 - 2 * s) ** degree - rho ** (2 * degree)) / n_components


def ctr_rademacher_products_vectorized(x, y, degree, n_components, n_draws, seed):
    """Z(x).Z(y) of ComplexToRealSketch(projection="rademacher") for x, y
    already augmented, with the estimator's hash family drawn in bulk
    (``test_ctr_rademacher_equals_explicit_complex_projection`` proves the
    transform is exactly this projection of its hashes)."""
    rng = np.random.RandomState(seed)
    m, width = n_components // 2, x.size
    keys = (np.arange(m)[:, None] * width + np.arange(width)).astype(np.uint64)
    units = np.array([1, 1j, -1, -1j])
    Zx = np.ones((n_draws, m), dtype=complex)
    Zy = np.ones((n_draws, m), dtype=complex)
    for _ in range(degree):
        coefficients = draw_polynomial_hashes(rng, n_draws, SIGN_HASH_INDEPENDENCE)
        all_keys = np.broadcast_to(keys, (n_draws,) + keys.shape)
        codes = polynomial_hash(coefficients.T[..., None, None], all_keys) & np.uint64(3)
        W = units[codes.astype(int)]  # (n_draws, m, width)
        Zx *= W @ x
        Zy *= W @ y
    return (2 / n_components) * np.sum((Zx * np.conj(Zy)).real, axis=1)


@pytest.mark.statistical
def test_ctr_rademacher_variance_matches_closed_form():
    rng = np.random.RandomState(0)
    x, y = rng.rand(2, 6)
    y += 0.5 * x  # correlated non-negative rows, the case CtR is made for
    x, y = x / np.linalg.norm(x), y / np.linalg.norm(y)
    degree, n_components, n_draws = 3, 16, 40000
    products = ctr_rademacher_products_vectorized(x, y, degree, n_components, n_draws, seed=statistical_seed(1))
    expected = ctr_rademacher_closed_form(x, y, degree, n_components)
    standard_error = products.std(ddof=1) / np.sqrt(n_draws)
    assert abs(products.mean() - (x @ y) ** degree) < 4 * standard_error
    variance, variance_error = mean_and_variance_errors(products)
    # The 10% tolerance must exceed 4 standard errors of the
    # variance estimate, or the check would be a coin flip.
    assert 4 * variance_error < 0.1 * expected
    assert abs(variance - expected) < 0.1 * expected
    # The complex map beats the real Rademacher product (factor 2 vs 3).
    assert expected < 0.8 * real_rademacher_closed_form(x, y, degree, n_components)

    # The same law through the estimator itself (x, y augmented with
    # gamma = 1, coef0 = c), fewer draws and a band of 4 standard errors.
    c = 0.3
    raw = np.vstack([x, y])
    estimates = sketched_products(
        VARIANTS["ctr-rademacher"], raw, 1500, n_components=n_components,
        degree=degree, coef0=c,
    )[:, 0, 1]
    xa, ya = augment(x, 1.0, c), augment(y, 1.0, c)
    expected = ctr_rademacher_closed_form(xa, ya, degree, n_components)
    variance, variance_error = mean_and_variance_errors(estimates)
    assert abs(variance - expected) < 4 * variance_error


def ordered_pairs_within_blocks(n_features, block_size):
    """Number of ordered pairs of distinct features that share a block."""
    full, rest = divmod(n_features, block_size)
    return full * block_size * (block_size - 1) + rest * (rest - 1)


def tensor_srht_closed_form(x, y, degree, n_components, d):
    """Var of TensorSRHT for augmented x, y and Hadamard length d.

    A feature is prod_j u_j with u = (H D x)_i (H D y)_i; per coordinate
    E u^2 = n + 2 rho^2 - 2 s (a Rademacher row of H D), so a feature has
    variance V1 = (n + 2 rho^2 - 2 s)^p - rho^(2p). Two features of one block
    read distinct coordinates i != i' in every degree, and sum_i u_i = d rho
    exactly (H^T H = d I), so the mean of u_i u_i' over distinct pairs is
    (d^2 rho^2 - d E u^2) / (d (d - 1)): their covariance is
    C = (rho^2 - (n + rho^2 - 2 s) / (d - 1))^p - rho^(2p). Blocks and
    degrees are independent. Var = (D V1 + M C) / D^2, M the ordered pairs
    of distinct features within blocks.
    """
    return tensor_srht_moment_form(
        (x @ x) * (y @ y), (x @ y) ** 2, np.sum(x**2 * y**2), degree, n_components, d
    )


def tensor_srht_moment_form(n, r2, s, degree, n_components, d):
    """``tensor_srht_closed_form`` from the moments n, r2 = rho^2 and s.

    Each is linear in the per-degree moments, so with a hash-down the
    same form taken at their means over the Count Sketch (``hashed_moments``)
    is the mean over the hashes of the conditional variance.
    """
    V1 = (n + 2 * r2 - 2 * s) ** degree - r2**degree
    C = (r2 - (n + r2 - 2 * s) / (d - 1)) ** degree - r2**degree
    M = ordered_pairs_within_blocks(n_components, d)
    return (n_components * V1 + M * C) / n_components**2


def ctr_srht_closed_form(x, y, degree, n_components, d):
    """Var of ComplexToRealSketch(projection="srht"), even n_components.

    m = D / 2 complex features Z_r = prod_j u_j, u = a conj(b) with
    a = (H D x)_i, b = (H D y)_i for a complex Rademacher diagonal D:
    E|u|^2 = A = n + rho^2 - s, E u^2 = B = 2 rho^2 - s (as for complex
    Rademacher rows), and sum_i u_i = d rho exactly. Within a block the
    distinct-coordinate means are C1 = rho^2 - (n - s) / (d - 1) for
    u_i conj(u_i') and C2 = rho^2 - (rho^2 - s) / (d - 1) for u_i u_i'. The
    estimate is Re of the mean of Z_r, and (Re W)^2 = (|W|^2 + Re W^2) / 2:
    Var = (m (A^p + B^p - 2 rho^(2p)) + M (C1^p + C2^p - 2 rho^(2p))) / (2 m^2).
    """
    return ctr_srht_moment_form(
        (x @ x) * (y @ y), (x @ y) ** 2, np.sum(x**2 * y**2), degree, n_components, d
    )


def ctr_srht_moment_form(n, r2, s, degree, n_components, d):
    """``ctr_srht_closed_form`` from the moments (see ``tensor_srht_moment_form``)."""
    m = n_components // 2
    A, B = n + r2 - s, 2 * r2 - s
    C1, C2 = r2 - (n - s) / (d - 1), r2 - (r2 - s) / (d - 1)
    M = ordered_pairs_within_blocks(m, d)
    twice = 2 * r2**degree
    return (m * (A**degree + B**degree - twice) + M * (C1**degree + C2**degree - twice)) / (
        2 * m**2
    )


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
    monkeypatch.setattr(polynomial_common, "MIN_HASHED_WIDTH", 8)


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


def image_like_rows(seed, n_rows):
    """Non-negative, half-sparse unit rows of 30 features (like images)."""
    rng = np.random.RandomState(seed)
    X = rng.rand(n_rows, 30) * (rng.rand(n_rows, 30) < 0.5)
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def log_error_gap(make_better, X, n_draws, **params):
    """Mean log squared Frobenius error of TensorSketch minus ``make_better``'s.

    Returns the gap and its standard error; both use ``gamma = coef0 = 0.5``.
    """
    exact = (0.5 * X @ X.T + 0.5) ** params["degree"]
    log_errors = [
        np.log(np.sum((sketched_products(make, X, n_draws, **params) - exact) ** 2, axis=(1, 2)))
        for make in (TensorSketch, make_better)
    ]
    standard_error = np.sqrt(sum(e.var(ddof=1) / e.size for e in log_errors))
    return log_errors[0].mean() - log_errors[1].mean(), standard_error


@pytest.mark.statistical
def test_tree_has_lower_kernel_error_than_tensor_sketch_at_high_degree():
    # Squared Frobenius error over all pairs of 12 non-negative unit rows
    # (image-like data) at degree 8, i.e. the sum of the pairwise squared
    # errors, at equal D. TensorSketch's error is heavy-tailed (rare draws
    # put much of the mass of x^(8) in one bucket): its mean over 500 draws
    # swings with those draws, and so does the estimate of its standard
    # error; the gap of the means was only 2.7 to 3.5 such standard errors
    # over seed offsets, a check that failed one rerun in three. The log of
    # the error is light-tailed, so compare the means of log errors (the
    # logs of the geometric mean errors), whose CLT standard error holds:
    # the gap must exceed 4 of them (a one-sided 3e-5 false alarm were the
    # errors alike). Measured: medians 10.6 vs 5.2, gap 16 to 17 standard
    # errors over seed offsets 0, 1 and 6.
    X = image_like_rows(3, 12)
    params = dict(n_components=64, degree=8, gamma=0.5, coef0=0.5)
    for tree in ["tree-srht", "tree-ts"]:
        gap, standard_error = log_error_gap(VARIANTS[tree], X, 500, **params)
        assert gap > 4 * standard_error


# ---------------------------------------------------------------------------
# MaclaurinSketch: the kernel's expansion, one block per degree


def test_maclaurin_blocks_are_the_expansion():
    rng = np.random.RandomState(0)
    X = rng.rand(20, 6)
    gamma, coef0 = 0.7, 0.4
    sketch = MaclaurinSketch(40, degree=3, gamma=gamma, coef0=coef0, random_state=0).fit(X)
    a = [comb(3, i) * coef0 ** (3 - i) * gamma**i for i in range(4)]
    assert_allclose(sketch.coefficients_, a)
    assert sketch.expanded_ and sketch.linear_exact_
    assert sketch.allocation_[1] == 6 and sketch.allocation_.sum() == 40
    Z = sketch.transform(X)
    m = sketch.allocation_[0]
    # The constant block contributes a_0 exactly, the linear one a_1 <x, y>.
    assert_allclose(Z[:, :m] @ Z[:, :m].T, a[0])
    assert_allclose(Z[:, m : m + 6], np.sqrt(a[1]) * X)
    # Each other block is sqrt(a_i) times a degree-i sketch of <x, y>^i.
    start = m + 6
    for i in (2, 3):
        stop = start + sketch.allocation_[i]
        assert sketch.sketches_[i].degree == i and sketch.sketches_[i].coef0 == 0
        assert_allclose(Z[:, start:stop], np.sqrt(a[i]) * sketch.sketches_[i].transform(X))
        start = stop


def test_maclaurin_sizes_follow_the_predicted_variances():
    # D_i proportional to a_i sqrt(v_i), v_i the mean over pairs of
    # (|x|^2 |y|^2)^i + <x, y>^(2i); one feature at least per term, the
    # rest by largest remainders (TensorSRHT: no rounding to FFT lengths).
    X = np.random.RandomState(1).rand(50, 30) / 5
    sketch = MaclaurinSketch(
        2000, degree=3, gamma=0.5, coef0=0.5, base="tensorsrht", linear="sketch"
    ).fit(X)
    gram = X @ X.T
    norms = np.multiply.outer(np.diag(gram), np.diag(gram))
    v = np.array([np.mean(norms**i + gram ** (2 * i)) for i in (1, 2, 3)])
    weights = sketch.coefficients_[1:] * np.sqrt(v)
    expected = 1999 * weights / weights.sum()
    assert sketch.allocation_[0] == 1 and sketch.allocation_.sum() == 2000
    assert np.all(np.abs(sketch.allocation_[1:] - expected) <= 2)
    # The FFT bases round each size down to a 7-smooth length and give the
    # difference to the constant block.
    tree = MaclaurinSketch(2000, degree=3, gamma=0.5, coef0=0.5, linear="sketch").fit(X)
    for size in tree.allocation_[1:]:
        assert previous_smooth_length(size) == size
    assert tree.allocation_.sum() == 2000 and tree.allocation_[0] > 1


@pytest.mark.parametrize("base", ["tree", "tensorsrht"])
def test_maclaurin_blocks_fill_the_output_exactly(base):
    # Every setting either lays out blocks that add up to n_components or
    # falls back to the padded sketch; a gap would leave garbage columns.
    X = np.random.RandomState(6).rand(4, 5)
    for n_components in range(1, 30):
        for degree in (1, 2, 3):
            for coef0 in (0.0, 0.5):
                for linear in ("auto", "sketch"):
                    sketch = MaclaurinSketch(
                        n_components, degree=degree, coef0=coef0, base=base,
                        linear=linear, random_state=0,
                    ).fit(X)
                    if sketch.expanded_:
                        assert sketch.allocation_.sum() == n_components
                        assert sketch._blocks()[-1][1].stop == n_components
                    assert sketch.transform(X).shape == (4, n_components)


def test_previous_smooth_length():
    def smooth(m):
        for f in (2, 3, 5, 7):
            while m % f == 0:
                m //= f
        return m == 1

    for n in range(1, 400):
        m = previous_smooth_length(n)
        assert m <= n and smooth(m) and not any(smooth(k) for k in range(m + 1, n + 1))


def test_maclaurin_linear_term_exact_only_when_it_pays():
    X = np.random.RandomState(2).rand(30, 50)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    # 50 exact columns of 60 would leave 9 features to degrees 2 and 3:
    # predicted variance (w_2 + w_3)^2 / 9 against (w_1 + w_2 + w_3)^2 / 59.
    assert not MaclaurinSketch(60, degree=3, coef0=1.0, random_state=0).fit(X).linear_exact_
    assert MaclaurinSketch(1000, degree=3, coef0=1.0, random_state=0).fit(X).linear_exact_
    with pytest.raises(ValueError, match="linear='exact'"):
        MaclaurinSketch(40, degree=3, coef0=1.0, linear="exact").fit(X)
    # Degree 1 with room for x: the kernel itself, no variance at all.
    Z = MaclaurinSketch(52, degree=1, gamma=2.0, coef0=1.0).fit_transform(X)
    assert_allclose(Z @ Z.T, 2.0 * X @ X.T + 1.0)


def test_maclaurin_with_fewer_features_than_terms_sketches_the_kernel_whole():
    X = np.random.RandomState(3).rand(10, 4)
    sketch = MaclaurinSketch(3, degree=3, coef0=1.0, random_state=0).fit(X)
    assert not sketch.expanded_ and sketch.allocation_ is None
    padded = sketch.padded_sketch_
    assert isinstance(padded, PolynomialTreeSketch)
    assert (padded.n_components, padded.degree, padded.coef0) == (3, 3, 1.0)
    assert_array_equal(sketch.transform(X), padded.transform(X))


@pytest.mark.statistical
def test_maclaurin_variance_is_the_sum_of_its_blocks_closed_forms():
    # The blocks are independent, so Var = sum_i a_i^2 Var_i(D_i), each Var_i
    # the TensorSRHT closed form of degree i (6 features, no constant
    # coordinate: Hadamard length 8). The padded TensorSRHT of the same
    # size has a closed form more than 4 standard errors above it, so the
    # check tells the two apart.
    rng = np.random.RandomState(5)
    x, y = rng.rand(2, 6)
    y += 0.5 * x
    x, y = x / np.linalg.norm(x), y / np.linalg.norm(y)
    degree, coef0, n_components = 2, 0.5, 24
    X = np.vstack([x, y])
    params = dict(n_components=n_components, degree=degree, coef0=coef0)

    def make(**kw):
        return MaclaurinSketch(base="tensorsrht", linear="sketch", **kw)

    fitted = make(**params).fit(X)
    estimates = sketched_products(make, X, 2000, **params)[:, 0, 1]
    expected = sum(
        fitted.coefficients_[i] ** 2
        * tensor_srht_closed_form(x, y, i, fitted.allocation_[i], 8)
        for i in (1, 2)
    )
    variance, variance_error = mean_and_variance_errors(estimates)
    assert abs(variance - expected) < 4 * variance_error
    xa, ya = augment(x, 1.0, coef0), augment(y, 1.0, coef0)
    assert tensor_srht_closed_form(xa, ya, degree, n_components, 8) - expected > (
        4 * variance_error
    )


@pytest.mark.statistical
def test_maclaurin_has_lower_kernel_error_than_tensor_sketch():
    # The setting of benchmarks/bench_polynomial_sketches.py in small:
    # non-negative unit rows (image-like), (0.5 + 0.5 <x, y>)^3, equal D.
    # Compared on the means of log errors (light-tailed; see the tree test
    # above): the gap must exceed 4 standard errors.
    X = image_like_rows(4, 40)
    params = dict(n_components=128, degree=3, gamma=0.5, coef0=0.5)
    gap, standard_error = log_error_gap(MaclaurinSketch, X, 200, **params)
    assert gap > 4 * standard_error


# ---------------------------------------------------------------------------
# Invariances: sparse, chunks, dtype, pickling, determinism


@pytest.fixture
def data():
    rng = np.random.RandomState(0)
    X = rng.randn(300, 40)
    X[rng.rand(*X.shape) < 0.7] = 0.0
    return X


ALL = pytest.mark.parametrize("name", sorted(VARIANTS))


@ALL
def test_sparse_equals_dense(data, name):
    sketch = VARIANTS[name](n_components=96, degree=3, coef0=1.0, random_state=0).fit(data)
    dense = sketch.transform(data)
    for sparse in (sp.csr_matrix(data), sp.csc_matrix(data), sp.csr_array(data)):
        assert_allclose(sketch.transform(sparse), dense, atol=1e-10)


@ALL
@pytest.mark.parametrize("sparse", [False, True])
def test_chunked_equals_whole(data, name, sparse):
    X = sp.csr_matrix(data) if sparse else data
    sketch = VARIANTS[name](n_components=128, degree=3, coef0=1.0, random_state=0).fit(X)
    whole = sketch.transform(X)
    with config_context(working_memory=0.02):  # a few rows per chunk
        assert_array_equal(sketch.transform(X), whole)
    pieces = [sketch.transform(X[i : i + 7]) for i in range(0, X.shape[0], 7)]
    assert_array_equal(np.vstack(pieces), whole)


@ALL
def test_float32_preserved_and_close_to_float64(data, name):
    sketch = VARIANTS[name](n_components=128, degree=3, coef0=1.0, random_state=0).fit(data)
    Z64 = sketch.transform(data)
    for X32 in (data.astype(np.float32), sp.csr_matrix(data.astype(np.float32))):
        Z32 = sketch.transform(X32)
        assert Z32.dtype == np.float32
        # float32 keeps 24 bits: relative error ~1e-7 per operation, a few
        # hundred operations per feature.
        assert_allclose(Z32, Z64, rtol=0, atol=1e-4 * np.abs(Z64).max())
    assert sketch.transform(data.astype(np.int64)).dtype == np.float64


@ALL
def test_pickle_and_determinism(data, name):
    sketch = VARIANTS[name](n_components=64, degree=2, random_state=7).fit(data)
    restored = pickle.loads(pickle.dumps(sketch))
    assert_array_equal(restored.transform(data), sketch.transform(data))
    again = VARIANTS[name](n_components=64, degree=2, random_state=7).fit_transform(data)
    other = VARIANTS[name](n_components=64, degree=2, random_state=8).fit_transform(data)
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


def test_very_sparse_rademacher_hashes_only_present_columns():
    X = sp.random(20, 50000, density=2e-4, random_state=0, format="csr")
    sketch = ComplexToRealSketch(32, degree=2, coef0=0.5, projection="rademacher", random_state=0)
    sketch.fit(X)
    assert_allclose(sketch.transform(X), sketch.transform(X.toarray()), atol=1e-10)


# ---------------------------------------------------------------------------
# Degenerate input


@ALL
def test_zero_row_single_feature_duplicates(name):
    make = VARIANTS[name]
    X = np.zeros((3, 4))
    X[1] = 1.0
    X[2] = 1.0
    Z = make(n_components=32, degree=3, random_state=0).fit_transform(X)
    assert np.all(np.isfinite(Z))
    assert_allclose(Z[0], 0.0, atol=1e-12)
    assert_array_equal(Z[1], Z[2])
    # With coef0 the zero row keeps the kernel value coef0^degree on average;
    # each draw is finite and the degree-1 SRHT of a constant is exact.
    Z = make(n_components=32, degree=3, coef0=0.7, random_state=0).fit_transform(X)
    assert np.all(np.isfinite(Z)) and np.any(Z[0] != 0)
    Z = make(n_components=8, degree=2, random_state=0).fit_transform([[3.0]])
    assert Z.shape == (1, 8) and np.all(np.isfinite(Z))


# ---------------------------------------------------------------------------
# Errors


@ALL
@pytest.mark.parametrize(
    "params, match",
    [
        ({"degree": 0}, "degree"),
        ({"n_components": 0}, "n_components"),
        ({"gamma": 0.0}, "gamma"),
        ({"coef0": -0.5}, "coef0"),
    ],
)
def test_invalid_parameters(name, params, match):
    with pytest.raises(ValueError, match=match):
        VARIANTS[name](**params).fit(np.ones((2, 2)))


def test_invalid_options():
    with pytest.raises(ValueError, match="projection"):
        ComplexToRealSketch(projection="gaussian").fit(np.ones((2, 2)))
    with pytest.raises(ValueError, match="base"):
        PolynomialTreeSketch(base="fft").fit(np.ones((2, 2)))


@ALL
def test_non_finite_and_wrong_width(name):
    X = np.ones((3, 2))
    X[1, 1] = np.nan
    sketch = VARIANTS[name]().fit(np.ones((3, 2)))
    with pytest.raises(ValueError, match="NaN"):
        sketch.transform(X)
    with pytest.raises(ValueError, match="features"):
        sketch.transform(np.ones((3, 5)))
