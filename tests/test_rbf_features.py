"""Tests of OrthogonalRBFSampler against the theory of random Fourier features.

Notation: k(x, y) = exp(-gamma |x - y|^2), r = sqrt(2 gamma) |x - y|, so
k = exp(-r^2 / 2). With m frequencies w_i (each N(0, 2 gamma I) marginally)
the cos/sin features estimate K = (1/m) sum_i cos(w_i . (x - y)):

* E K = k for ORF and Fastfood exactly, for SORF with chi row norms (the
  direction of a SORF row is close to uniform);
* i.i.d. frequencies: Var K = (1 - k^2)^2 / (2 m);
* ORF, m <= d frequencies in one block of width d (Yu et al. 2016, exact
  form): Var K = (1 - k^2)^2 / (2 m) + (m - 1) / m (E[cos(a) cos(b)] - k^2),
  a, b the projections of two orthogonal rows. With w_i = s_i q_i (s_i
  chi(d), q_i orthonormal) and (v1, v2) two coordinates of a uniform unit
  vector of R^d (density proportional to (1 - rho^2)^((d - 4) / 2) on the
  unit disc), E[cos(a) cos(b)] = E[phi(r v1) phi(r v2)] with
  phi(t) = E cos(t s) = 1F1(d / 2; 1 / 2; -t^2 / 2).
"""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import statistical_seed, statistical_seeds
from numpy.polynomial.legendre import leggauss
from numpy.testing import assert_allclose, assert_array_equal
from scipy import special
from sklearn.kernel_approximation import RBFSampler
from sklearn.metrics.pairwise import rbf_kernel

from sklearn_sketch import OrthogonalRBFSampler
from sklearn_sketch.rbf import _fourier_features as fourier_features
from sklearn_sketch.rbf._fourier_features import (
    MAX_DENSE_WIDTH,
    cos_sin_in_place,
    draw_orf,
    fastfood_projections,
    place_angles,
    sorf_projections,
)

METHODS = ["orf", "sorf", "fastfood"]


def _orf_pair_term(r, d, n_nodes=200):
    """E[cos(a) cos(b)] for two rows of one ORF block (module docstring)."""
    nodes, weights = leggauss(n_nodes)
    rho, w_rho = (nodes + 1) / 2, weights / 2
    theta, w_theta = np.pi * (nodes + 1), np.pi * weights
    R, T = np.meshgrid(rho, theta, indexing="ij")
    density = np.outer(w_rho, w_theta) * R * (1 - R**2) ** ((d - 4) / 2)

    def phi(t):
        return special.hyp1f1(d / 2, 0.5, -(t**2) / 2)

    values = phi(r * R * np.cos(T)) * phi(r * R * np.sin(T))
    return (density * values).sum() / density.sum()


def _orf_variance(r, d, m):
    k = np.exp(-(r**2) / 2)
    return (1 - k**2) ** 2 / (2 * m) + (m - 1) / m * (_orf_pair_term(r, d) - k**2)


def test_orf_pair_term_reduces_to_the_kernel_marginal():
    # The quadrature's own check: E phi(r v1) = E cos(r g) = exp(-r^2 / 2).
    nodes, weights = leggauss(200)
    for d, r in [(6, 0.7), (12, 2.0)]:
        v = nodes  # one coordinate: density proportional to (1 - v^2)^((d - 3) / 2)
        density = weights * (1 - v**2) ** ((d - 3) / 2)
        phi = special.hyp1f1(d / 2, 0.5, -((r * v) ** 2) / 2)
        assert_allclose((density * phi).sum() / density.sum(), np.exp(-(r**2) / 2), rtol=1e-9)


@pytest.mark.statistical
@pytest.mark.parametrize("r", [0.8, 2.2])
def test_orf_variance_matches_the_exact_formula(r):
    # m = d = 6 frequencies: one whole orthogonal block.
    d = m = 6
    delta = np.zeros(d)
    delta[[1, 4]] = r / np.sqrt(2)  # unit bandwidth: gamma = 1/2
    n_draws = 3000
    estimates = np.empty(n_draws)
    for i, seed in enumerate(statistical_seeds(n_draws, start=100)):
        W = draw_orf(np.random.RandomState(seed), d, m)
        estimates[i] = np.cos(delta @ W).mean()
    k = np.exp(-(r**2) / 2)
    expected = _orf_variance(r, d, m)
    centered = estimates - estimates.mean()
    variance = centered.var(ddof=1)
    # Standard error of a sample variance: sqrt((mu4 - sigma^4) / n).
    standard_error = np.sqrt(((centered**4).mean() - variance**2) / n_draws)
    assert abs(variance - expected) < 4 * standard_error
    assert abs(estimates.mean() - k) < 4 * np.sqrt(variance / n_draws)
    # And the orthogonal block beats independent frequencies.
    assert expected < (1 - k**2) ** 2 / (2 * m)


@pytest.mark.statistical
@pytest.mark.parametrize("method, n_components", [("orf", 33), ("sorf", 32), ("fastfood", 31)])
def test_kernel_estimates_are_unbiased(method, n_components):
    rng = np.random.RandomState(7)
    X = rng.randn(5, 9)
    X *= np.array([0.2, 0.5, 0.9, 1.3, 1.7])[:, None] / np.linalg.norm(X, axis=1)[:, None]
    gamma = 0.7
    upper = np.triu_indices(5, 1)
    K = rbf_kernel(X, gamma=gamma)[upper]
    draws = []
    for seed in statistical_seeds(500, start=200):
        sampler = OrthogonalRBFSampler(n_components, gamma=gamma, method=method,
                                       random_state=seed)
        Z = sampler.fit_transform(X)
        draws.append((Z @ Z.T)[upper])
    draws = np.array(draws)
    z = (draws.mean(axis=0) - K) / (draws.std(axis=0, ddof=1) / np.sqrt(len(draws)))
    assert np.abs(z).max() < 4, z


def test_orf_features_are_cos_and_sin_of_the_frequencies():
    X = np.random.RandomState(0).rand(4, 5)
    for n_components in (6, 7):
        est = OrthogonalRBFSampler(n_components, method="orf", random_state=1).fit(X)
        P = X @ est.random_weights_
        pairs = n_components // 2
        expected = np.hstack([np.cos(P[:, :pairs]), np.sin(P[:, :pairs])])
        if n_components % 2:
            expected = np.hstack([expected, np.cos(P[:, pairs:] + est.random_offset_)])
        assert_allclose(est.transform(X), expected * np.sqrt(2 / n_components), atol=1e-12)


@pytest.mark.parametrize("d", [5, 16])
def test_orf_blocks_are_orthogonal_with_chi_norms(d):
    gamma = 0.3
    est = OrthogonalRBFSampler(2 * (2 * d + 3), gamma=gamma, method="orf", random_state=0)
    W = est.fit(np.ones((2, d))).random_weights_  # 2 whole blocks and 3 rows
    assert W.shape == (d, 2 * d + 3)
    for start in range(0, W.shape[1], d):
        block = W[:, start : start + d]
        gram = block.T @ block
        assert_allclose(gram - np.diag(np.diag(gram)), 0, atol=1e-12)
    # The norms are chi(d) * sqrt(2 gamma): their squares average 2 gamma d.
    norms = np.linalg.norm(W, axis=0)
    assert 0.3 < np.mean(norms**2) / (2 * gamma * d) < 3


@pytest.mark.parametrize("method", ["sorf", "fastfood"])
def test_hadamard_blocks_have_their_stated_rows(method):
    d_in, gamma = 20, 0.4
    est = OrthogonalRBFSampler(2 * 80, gamma=gamma, method=method, random_state=3)
    est.fit(np.zeros((1, d_in)))
    d = est.input_width_
    assert d == 32
    signs, *rest = est._map.prepare(np.zeros((1, 1)), 1, 1)
    if method == "sorf":
        rows = sorf_projections(np.eye(d), signs, *rest)
    else:
        rows = fastfood_projections(np.eye(d), signs, *rest)
    # Column j of each block is frequency j.
    for b in range(rows.shape[1] // d):
        block = rows[:, b * d : (b + 1) * d].T
        norms = np.linalg.norm(block, axis=1)
        # Each frequency has its drawn norm: scale times the Hadamard norm.
        hadamard_norm = d**1.5 if method == "sorf" else np.linalg.norm(est.gaussian_[b]) * d**0.5
        assert_allclose(norms, est.scales_[b] * hadamard_norm, rtol=1e-10)
        if method == "sorf":  # orthogonal rows
            gram = block @ block.T
            assert_allclose(gram - np.diag(np.diag(gram)), 0, atol=1e-9)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_chunks_threads_and_wide_input_give_the_same_bits(method, dtype):
    rng = np.random.RandomState(5)
    X = sp.random(57, MAX_DENSE_WIDTH + 300, density=0.01, random_state=rng, format="csr")
    X = X.astype(dtype)
    est = OrthogonalRBFSampler(45, gamma=0.2, method=method, random_state=0).fit(X)
    assert est.hash_down_ is not None and est.input_width_ == MAX_DENSE_WIDTH
    whole = est.transform(X)
    assert whole.dtype == dtype
    pieces = np.vstack([est.transform(X[a:b]) for a, b in [(0, 1), (1, 20), (20, 21), (21, 57)]])
    assert_array_equal(pieces, whole)
    assert_array_equal(est.set_params(n_jobs=2).transform(X), whole)
    assert_array_equal(est.transform(X.toarray()), whole)
    small = est.transform(X[[3, 3, 9]])
    assert_array_equal(small, whole[[3, 3, 9]])


def test_hashed_wide_input_estimates_the_kernel():
    # The Count Sketch keeps distances in expectation: the estimate stays
    # within its Monte-Carlo error of the exact kernel on wide sparse rows.
    rng = np.random.RandomState(11)
    X = sp.random(6, 50_000, density=0.002, random_state=rng, format="csr")
    gamma = 0.5 / np.mean(X.multiply(X).sum(axis=1))
    K = rbf_kernel(X, gamma=gamma)
    est = OrthogonalRBFSampler(4096, gamma=gamma, random_state=statistical_seed(3))
    Z = est.fit_transform(X)
    assert_allclose(Z @ Z.T, K, atol=0.08)


def test_gamma_scale_is_rbfsamplers():
    X = np.random.RandomState(2).rand(30, 7) * 3
    for X_in in (X, sp.csr_matrix(X)):
        ours = OrthogonalRBFSampler(gamma="scale").fit(X_in).gamma_
        assert_allclose(ours, 1.0 / (X.shape[1] * X.var()), rtol=1e-12)
    assert OrthogonalRBFSampler(gamma="scale").fit(np.ones((3, 4))).gamma_ == 1.0
    reference = RBFSampler(gamma="scale", random_state=0).fit(X)
    assert_allclose(OrthogonalRBFSampler(gamma="scale").fit(X).gamma_, reference._gamma)


@pytest.mark.parametrize("method", METHODS)
def test_degenerate_inputs(method):
    # One feature, one sample, all-zero rows: finite, and a row with itself
    # has kernel sqrt(2/D)^2 * (D / 2) * 1 = 1 for even D.
    for X in (np.zeros((1, 1)), np.zeros((3, 4)), np.array([[2.0], [2.0], [-1.0]])):
        Z = OrthogonalRBFSampler(16, method=method, random_state=0).fit_transform(X)
        assert np.isfinite(Z).all()
        assert_allclose((Z * Z).sum(axis=1), 1.0, rtol=1e-12)
    with pytest.raises(ValueError, match="method"):
        OrthogonalRBFSampler(method="gaussian").fit(np.ones((2, 2)))
    with pytest.raises(ValueError, match="gamma"):
        OrthogonalRBFSampler(gamma=0.0).fit(np.ones((2, 2)))


def test_dask_and_partial_fit_give_the_same_features():
    da = pytest.importorskip("dask.array", reason="dask not installed (pip install '.[dask]')")
    X = np.random.RandomState(4).rand(40, 10).astype(np.float32)
    est = OrthogonalRBFSampler(20, gamma=0.3, random_state=0).fit(X)
    lazy = est.transform(da.from_array(X, chunks=(13, 10)))
    assert_array_equal(lazy.compute(), est.transform(X))
    batches = OrthogonalRBFSampler(20, gamma=0.3, random_state=0)
    batches.partial_fit(X[:15]).partial_fit(X[15:])
    assert_array_equal(batches.transform(X), est.transform(X))


@pytest.mark.parametrize("method", ["sorf", "fastfood"])
def test_hadamard_rows_are_the_same_bits_in_chunks_of_any_size(method):
    # Rule: a row's features depend on that row alone, bit for bit. MNIST's
    # width, 784, pads to 1024. The kernels transform groups of 8 rows
    # together: chunks of 1, 7, 13, 128 and 1000 rows put a row in other
    # groups, with other neighbours and padding rows.
    rng = np.random.RandomState(8)
    X = (rng.rand(1003, 784) * (rng.rand(1003, 784) < 0.2)).astype(np.float32)
    est = OrthogonalRBFSampler(2050, gamma=0.01, method=method, random_state=4).fit(X)
    whole = est.transform(X)
    for size in (1, 7, 13, 128, 1000):
        chunked = np.vstack([est.transform(X[a : a + size]) for a in range(0, len(X), size)])
        assert_array_equal(chunked, whole)
    assert_array_equal(est.set_params(n_jobs=2).transform(X), whole)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n_components", [1, 2, 3, 7, 64])
@pytest.mark.parametrize("exact_width", [False, True])
def test_cos_sin_features_give_a_row_the_same_bits_alone(n_components, dtype, exact_width):
    # NumPy may pick its vectorized or its scalar cosine by the layout of a
    # call, and they differ in the last bit on some angles: a row alone (the
    # smallest arrays) must get the bits it gets among 300 rows, where the
    # projections are wider than the frequencies (Hadamard blocks) or
    # exactly as wide.
    width = (n_components + 1) // 2 if exact_width else n_components
    P = np.random.RandomState(0).uniform(-50, 50, (300, width)).astype(dtype)
    angles = P[:, : (n_components + 1) // 2].astype(np.float64)

    def features(rows):
        Z = np.empty((rows.shape[0], n_components), dtype)
        place_angles(rows, Z)
        assert cos_sin_in_place(Z, 0.7)
        return Z

    whole = features(P)
    for i in range(300):
        # Fresh small arrays, as a one-row chunk has: they may sit close
        # together in memory.
        assert_array_equal(features(P[i : i + 1].copy())[0], whole[i])
    # The features themselves, within the dtype's rounding.
    n_pairs = n_components // 2
    expected = np.hstack([np.cos(angles[:, :n_pairs]), np.sin(angles[:, :n_pairs])])
    if n_components % 2:
        expected = np.hstack([expected, np.cos(angles[:, n_pairs:] + 0.7)])
    tolerance = 50 * np.finfo(dtype).eps
    assert_allclose(whole, expected * np.sqrt(2.0 / n_components), atol=tolerance)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cos_sin_in_place_says_whether_every_angle_was_finite(dtype):
    # Rule: a non-finite angle (an overflowed projection, or a NaN input)
    # makes its features NaN, and the call reports it, wherever it is.
    for n_components in (1, 2, 7, 64):
        for position in (0, n_components - 1, n_components // 2):
            for value in (np.inf, -np.inf, np.nan):
                P = np.random.RandomState(1).randn(5, (n_components + 1) // 2).astype(dtype)
                P[3, min(position, P.shape[1] - 1)] = value
                Z = np.empty((5, n_components), dtype)
                place_angles(P, Z)
                with np.errstate(invalid="ignore"):
                    assert not cos_sin_in_place(Z, 0.3)
                assert np.isnan(Z[3]).any() and np.isfinite(np.delete(Z, 3, axis=0)).all()
    assert cos_sin_in_place(np.zeros((0, 4), dtype), 0.3)




# -- the array API transform (the map called directly: no dispatch needed) --


def _array_namespaces():
    """array_api_strict and torch (CPU), each skipped with the reason where missing."""
    return [
        pytest.param("array_api_strict", id="array_api_strict"),
        pytest.param("torch", id="torch"),
    ]


def _namespace(name):
    module = pytest.importorskip(name, reason=f"{name} is not installed (optional)")
    if name == "torch":
        # The namespace as scikit-learn's get_namespace gives it to the map:
        # array_api_compat's wrapper of torch.
        from sklearn.externals.array_api_compat import torch as xp

        return xp, module.device("cpu"), lambda Z: Z.numpy()
    cpu = module.Device("CPU_DEVICE")
    return module, cpu, lambda Z: np.asarray(Z)


@pytest.mark.parametrize("namespace", _array_namespaces())
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("d", [1, 2, 4, 8, 16, 32, 64, 128, 1024, 8192, 2**14])
def test_hadamard_array_is_the_compiled_transform(namespace, dtype, d):
    from sklearn_sketch.rbf._fourier_features import hadamard_array
    from sklearn_sketch.utils._hadamard import fwht

    xp, device, to_numpy = _namespace(namespace)
    U = np.random.RandomState(d).standard_normal((5, 3, d)).astype(dtype)
    expected = fwht(U.copy())
    # Products with the Kronecker factors of H (one to three of them here):
    # the same transform, summed in another order: each output, a sum of d
    # terms of at most max|U|, within a few ulps of d max|U| of fwht's.
    H_U = hadamard_array(xp.asarray(U, device=device), xp)
    assert tuple(H_U.shape) == U.shape and H_U.dtype == xp.asarray(U).dtype
    atol = 8 * np.finfo(dtype).eps * d * np.abs(U).max()
    assert_allclose(to_numpy(H_U), expected, rtol=0, atol=atol)
    # Exact where the arithmetic is: integers small enough for the dtype.
    V = np.random.RandomState(d).randint(-3, 4, size=(2, d)).astype(dtype)
    assert_array_equal(to_numpy(hadamard_array(xp.asarray(V, device=device), xp)), fwht(V.copy()))


@pytest.mark.parametrize("namespace", _array_namespaces())
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dense_limit", [2**28, 0], ids=["dense", "structured"])
def test_transform_array_is_the_numpy_transform(namespace, dtype, method, dense_limit,
                                                monkeypatch):
    # SORF's and Fastfood's frequencies as one dense matrix (up to a size),
    # or the structured transform: the same features.
    monkeypatch.setattr(fourier_features, "_MAX_DEVICE_FREQUENCY_BYTES", dense_limit)
    xp, device, to_numpy = _namespace(namespace)
    rng = np.random.RandomState(0)
    # Narrow input, and input wide enough to be hashed down (on the device too).
    for n_features in (11, MAX_DENSE_WIDTH + 300):
        X = rng.rand(30, n_features).astype(dtype)
        X[rng.rand(*X.shape) < 0.9] = 0.0
        for n_components in (40, 33):
            sampler = OrthogonalRBFSampler(n_components, method=method, random_state=0).fit(X)
            assert (sampler.hash_down_ is not None) == (n_features > MAX_DENSE_WIDTH)
            assert sampler._map.dense_on_device(dtype) == (method != "orf" and dense_limit > 0)
            Z = sampler._map.transform_array(xp.asarray(X, device=device), xp, device)
            assert Z.dtype == (xp.float32 if dtype == np.float32 else xp.float64)
            atol = 2e-5 if dtype == np.float32 else 1e-12
            assert_allclose(to_numpy(Z), sampler.transform(X), rtol=0, atol=atol)
    # The moved state is cached per namespace, device and dtype, and not pickled.
    assert len(sampler._map._moved) == 1
    assert "_moved" not in vars(pickle.loads(pickle.dumps(sampler))._map)


def test_dense_frequencies_on_a_device_are_bounded():
    # The dense frequencies a device holds: at most 256 MiB, else structured.
    def fitted(n_features, n_components, method="sorf"):
        X = np.zeros((2, n_features))
        return OrthogonalRBFSampler(
            n_components, method=method, gamma=1.0, random_state=0
        ).fit(X)._map

    assert fitted(784, 4096).dense_on_device(np.float32)
    assert fitted(4096, 2 * 2**14, "fastfood").dense_on_device(np.float32)
    assert not fitted(4096, 2 * 2**14 + 2).dense_on_device(np.float32)
    assert not fitted(4096, 2 * 2**14, "sorf").dense_on_device(np.float64)
    # Hashed-down input counts its 4096 coordinates, not its features.
    assert fitted(10**6, 2 * 2**14).dense_on_device(np.float32)
