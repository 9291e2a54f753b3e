"""TensorSketch: the mathematics of MATH.md section 1 and the estimator contract."""

import itertools
from math import factorial

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import statistical_seed, statistical_seeds
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import config_context
from sklearn.kernel_approximation import PolynomialCountSketch
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer
from sklearn.svm import LinearSVC

from sklearn_sketch import TensorSketch
from sklearn_sketch.utils._hashing import (
    BUCKET_HASH_INDEPENDENCE,
    SIGN_HASH_INDEPENDENCE,
    draw_polynomial_hashes,
    hash_to_buckets,
    hash_to_signs,
    polynomial_hash,
)

# ---------------------------------------------------------------------------
# Oracles


def explicit_polynomial_features(X, degree, coef0):
    """The exact feature map of (<x, y> + coef0)^degree (seed 000, MATH.md).

    One feature per multi-index n_1 + ... + n_{d+1} = degree:
    sqrt(multinomial) * x_1^n_1 ... x_d^n_d * coef0^(n_{d+1} / 2).
    """
    n_features = X.shape[1]
    columns = []
    for exponents in itertools.product(range(degree + 1), repeat=n_features + 1):
        if sum(exponents) != degree:
            continue
        multinomial = factorial(degree) / np.prod([factorial(e) for e in exponents])
        monomial = np.prod(X ** np.array(exponents[:-1]), axis=1)
        columns.append(np.sqrt(multinomial) * monomial * coef0 ** (exponents[-1] / 2))
    return np.column_stack(columns)


def tensor_power_count_sketch(sketch, x):
    """Count Sketch of the tensor power x'^(degree) under H = sum h_j mod R and
    S = prod s_j (MATH.md), with the hashes fitted in ``sketch``: O(d^degree).
    """
    x_aug = np.append(np.sqrt(sketch.gamma) * x, np.sqrt(sketch.coef0))
    n_keys = x_aug.size
    buckets, signs = sketch._map.feature_hashes(np.arange(n_keys), np.float64)
    result = np.zeros(sketch.n_components)
    for index in itertools.product(range(n_keys), repeat=sketch.degree):
        bucket = sum(buckets[j, i] for j, i in enumerate(index)) % sketch.n_components
        sign = np.prod([signs[j, i] for j, i in enumerate(index)])
        result[bucket] += sign * np.prod(x_aug[list(index)])
    return result


def polynomial_kernel(x, y, gamma, coef0, degree):
    return (gamma * np.dot(x, y) + coef0) ** degree


def sketched_products(x, y, n_draws, **params):
    """<TS(x), TS(y)> for n_draws independent random states."""
    X = np.vstack([x, y])
    products = np.empty(n_draws)
    # Parameter validation and finiteness checks are exercised elsewhere;
    # skipping them keeps thousands of fits fast.
    with config_context(assume_finite=True, skip_parameter_validation=True):
        for draw, seed in enumerate(statistical_seeds(n_draws)):
            Z = TensorSketch(random_state=seed, **params).fit_transform(X)
            products[draw] = Z[0] @ Z[1]
    return products


def count_sketch_variance(x, y, n_components):
    """Exact variance of <Cx, Cy> (seed 000): (1/R) sum_{i!=j} x_i^2 y_j^2 + x_i y_i x_j y_j."""
    cross = np.sum(x**2) * np.sum(y**2) - np.sum(x**2 * y**2)
    paired = np.dot(x, y) ** 2 - np.sum((x * y) ** 2)
    return (cross + paired) / n_components


# ---------------------------------------------------------------------------
# Exactness of the FFT path


def test_explicit_feature_map_is_the_kernel():
    rng = np.random.RandomState(0)
    X = rng.randn(4, 3)
    for degree, coef0 in [(2, 0.0), (3, 1.5)]:
        features = explicit_polynomial_features(X, degree, coef0)
        assert features.shape[1] == factorial(degree + 3) // (factorial(degree) * 6)
        assert_allclose(features @ features.T, (X @ X.T + coef0) ** degree)


@pytest.mark.parametrize(
    "degree, gamma, coef0", [(1, 1.0, 0.0), (2, 0.5, 0.0), (3, 2.0, 1.5), (4, 1.0, 0.3)]
)
def test_sketch_is_count_sketch_of_tensor_power(degree, gamma, coef0):
    # TS(x) = C(x'^(p)) exactly, with H = sum_j h_j mod R and S = prod_j s_j.
    rng = np.random.RandomState(degree)
    X = rng.randn(3, 4)
    sketch = TensorSketch(
        n_components=16, degree=degree, gamma=gamma, coef0=coef0, random_state=1
    ).fit(X)
    Z = sketch.transform(X)
    for x, z in zip(X, Z):
        assert_allclose(z, tensor_power_count_sketch(sketch, x), atol=1e-12)


@pytest.mark.parametrize("degree, coef0", [(1, 0.0), (2, 0.0), (3, 2.0)])
def test_equals_scikit_learn_polynomial_count_sketch_with_same_hashes(degree, coef0):
    # scikit-learn's transform reads its hashes from per-feature tables:
    # give it ours and both must produce the same sketch.
    rng = np.random.RandomState(0)
    X = rng.rand(30, 9)
    ours = TensorSketch(64, degree=degree, gamma=0.7, coef0=coef0, random_state=0).fit(X)
    theirs = PolynomialCountSketch(
        n_components=64, degree=degree, gamma=0.7, coef0=coef0, random_state=0
    ).fit(X)
    n_keys = X.shape[1] + (1 if coef0 else 0)
    theirs.indexHash_, theirs.bitHash_ = ours._map.feature_hashes(np.arange(n_keys), np.float64)
    assert_allclose(ours.transform(X), theirs.transform(X), atol=1e-12)
    assert_allclose(ours.transform(sp.csr_matrix(X)), theirs.transform(X), atol=1e-12)


# ---------------------------------------------------------------------------
# Statistics: unbiasedness and variance


def tensor_sketch_variance(x, y, degree, n_components):
    """Variance of <TS(x), TS(y)> up to terms in 1/R^2, for the augmented rows.

    With rho = <x, y>, N = |x|^2 |y|^2 and s = sum_i x_i^2 y_i^2:
    ((N + rho^2 - s)^p + (2 rho^2 - s)^p - 2 rho^(2p)) / R. Each degree's
    coordinates of the two tensor indices are either equal (no collision
    needed) or differ (a collision of that degree's hash, probability 1/R).
    """
    rho, norms, s = np.dot(x, y), np.dot(x, x) * np.dot(y, y), np.sum(x**2 * y**2)
    a, b = norms + rho**2 - s, 2 * rho**2 - s
    return (a**degree + b**degree - 2 * rho ** (2 * degree)) / n_components


@pytest.mark.slow
@pytest.mark.statistical
@pytest.mark.parametrize(
    "degree, gamma, coef0", [(2, 1.0, 0.0), (3, 0.5, 1.0), (4, 1.0, 0.5)]
)
@pytest.mark.parametrize("pair", ["unrelated", "same"])
def test_unbiased_and_variance_is_the_formula(degree, gamma, coef0, pair):
    # The variance of one kernel value, for two unrelated rows and for a row
    # with itself (where it is largest: Pham & Pagh's Lemma 6 bound,
    # (rho^(2p) + N^p) / R, is below it there).
    rng = np.random.RandomState(degree)
    x, y = rng.randn(2, 20) / np.sqrt(20)
    if pair == "same":
        y = x
    n_components, n_draws = 256, 2000
    products = sketched_products(
        x, y, n_draws, n_components=n_components, degree=degree, gamma=gamma, coef0=coef0
    )
    # Unbiased (the kernel is the exact feature map's inner product, see
    # test_explicit_feature_map_is_the_kernel): the sample mean is within 4
    # standard errors (a two-sided 4-sigma band is exceeded with probability
    # 6e-5 under the CLT).
    exact = polynomial_kernel(x, y, gamma, coef0, degree)
    standard_error = products.std(ddof=1) / np.sqrt(n_draws)
    assert abs(products.mean() - exact) < 4 * standard_error

    # The variance: the sample variance has standard error
    # sqrt((m4 - var^2) / N); 4 of them, and 3% for the 1/R^2 terms.
    x_aug = np.append(np.sqrt(gamma) * x, np.sqrt(coef0))
    y_aug = np.append(np.sqrt(gamma) * y, np.sqrt(coef0))
    expected = tensor_sketch_variance(x_aug, y_aug, degree, n_components)
    centered = products - products.mean()
    variance = np.mean(centered**2)
    variance_error = np.sqrt((np.mean(centered**4) - variance**2) / n_draws)
    assert abs(variance - expected) < 4 * variance_error + 0.03 * expected, (
        variance, expected, variance_error)
    if pair == "same":
        # The variance just checked exceeds Pham & Pagh's bound here.
        pham_pagh = (x_aug @ y_aug) ** (2 * degree) + (x_aug @ x_aug) ** degree * (
            y_aug @ y_aug) ** degree
        assert expected > 1.5 * pham_pagh / n_components


def count_sketch_products_vectorized(x, y, n_components, n_draws, seed):
    """<Cx, Cy> for n_draws Count Sketches drawn from the estimator's families.

    ``test_sketch_is_count_sketch_of_tensor_power`` proves that the fitted
    transform is exactly the Count Sketch of its hashes, so the statistics of
    the estimator are those of the hash families; drawing them in bulk makes
    the precise variance check affordable.
    """
    rng = np.random.RandomState(seed)
    bucket_coefficients = draw_polynomial_hashes(rng, n_draws, BUCKET_HASH_INDEPENDENCE)
    sign_coefficients = draw_polynomial_hashes(rng, n_draws, SIGN_HASH_INDEPENDENCE)
    keys = np.broadcast_to(np.arange(x.size, dtype=np.uint64), (n_draws, x.size))
    buckets = hash_to_buckets(polynomial_hash(bucket_coefficients.T[..., None], keys), n_components)
    signs = hash_to_signs(polynomial_hash(sign_coefficients.T[..., None], keys), np.float64)
    # One bincount over (draw, bucket) pairs builds every sketch at once.
    cells = (np.arange(n_draws)[:, None] * n_components + buckets).ravel()
    size = n_draws * n_components
    Cx = np.bincount(cells, weights=(signs * x).ravel(), minlength=size)
    Cy = np.bincount(cells, weights=(signs * y).ravel(), minlength=size)
    return (Cx * Cy).reshape(n_draws, n_components).sum(axis=1)


@pytest.mark.slow
@pytest.mark.statistical
def test_degree_one_variance_matches_exact_count_sketch_variance():
    rng = np.random.RandomState(3)
    x, y = rng.uniform(0.5, 1.5, size=(2, 48)) * rng.choice([-1, 1], size=(2, 48))
    y += 0.5 * x  # correlated rows make the second term of the formula matter
    n_components, n_draws = 4, 40000
    products = count_sketch_products_vectorized(
        x, y, n_components, n_draws, seed=statistical_seed(0)
    )
    expected = count_sketch_variance(x, y, n_components)
    standard_error = products.std(ddof=1) / np.sqrt(n_draws)
    assert abs(products.mean() - np.dot(x, y)) < 4 * standard_error
    centered = products - products.mean()
    variance = np.mean(centered**2)
    variance_error = np.sqrt((np.mean(centered**4) - variance**2) / n_draws)
    # The 10% tolerance of the issue must exceed 4 standard errors of the
    # estimate (kurtosis is about 5 here), otherwise the check is a coin flip.
    assert 4 * variance_error < 0.1 * expected
    assert abs(variance - expected) < 0.1 * expected

    # The same check through the estimator itself, with fewer draws and the
    # correspondingly wider band of 4 standard errors.
    products = sketched_products(x, y, 1500, n_components=n_components, degree=1)
    centered = products - products.mean()
    variance = np.mean(centered**2)
    variance_error = np.sqrt((np.mean(centered**4) - variance**2) / products.size)
    assert abs(variance - expected) < 4 * variance_error


@pytest.mark.slow
@pytest.mark.statistical
def test_unbiased_for_feature_indices_beyond_32_bits():
    # Feature indices near 2**33 use the general 61-bit arithmetic; the
    # estimate must stay unbiased.
    n_features = 2**33
    columns = np.array([5, 2**31 + 9, 2**33 - 1])
    rows = sp.csr_matrix(
        (np.array([1.0, -2.0, 0.5, 1.5, 1.0, 2.0]), np.tile(columns, 2), [0, 3, 6]),
        shape=(2, n_features),
    )
    x, y = rows.data.reshape(2, 3)  # the values at ``columns``, row by row
    exact = np.dot(x, y) ** 2
    products = np.empty(1500)
    with config_context(assume_finite=True, skip_parameter_validation=True):
        for draw, seed in enumerate(statistical_seeds(products.size)):
            Z = TensorSketch(n_components=8, degree=2, random_state=seed).fit_transform(rows)
            products[draw] = Z[0] @ Z[1]
    standard_error = products.std(ddof=1) / np.sqrt(products.size)
    assert abs(products.mean() - exact) < 4 * standard_error


# ---------------------------------------------------------------------------
# Sparse input and fitted state (sparse = dense, chunks, dtype and
# random_state for every polynomial sketch: test_polynomial_common.py)


@pytest.fixture
def data():
    rng = np.random.RandomState(0)
    X = rng.randn(500, 40)
    X[rng.rand(*X.shape) < 0.7] = 0.0
    return X


def test_very_sparse_input_hashes_only_present_features():
    # Fewer stored entries than features: each chunk hashes its own columns.
    rng = np.random.RandomState(0)
    X = sp.random(50, 100000, density=1e-4, random_state=rng, format="csr")
    assert X.nnz < X.shape[1]
    sketch = TensorSketch(64, degree=2, coef0=0.5, random_state=0).fit(X)
    reference = sketch.transform(X[:, :].toarray())  # dense path hashes all features
    assert_allclose(sketch.transform(X), reference, atol=1e-12)


def test_fitted_state_does_not_grow_with_features():
    small = TensorSketch(64, degree=3, random_state=0).fit(np.ones((2, 3)))
    large = TensorSketch(64, degree=3, random_state=0).fit(sp.csr_matrix((2, 10**9)))
    assert small.bucket_hashes_.shape == large.bucket_hashes_.shape == (3, 2)
    assert small.sign_hashes_.shape == large.sign_hashes_.shape == (3, 4)


# ---------------------------------------------------------------------------
# Degenerate input


def test_zero_row():
    X = np.zeros((2, 5))
    X[1] = 1.0
    Z = TensorSketch(64, degree=3, random_state=0).fit_transform(X)
    assert_array_equal(Z[0], 0.0)
    for degree, coef0 in [(1, 2.0), (3, 0.7), (4, 3.0)]:
        Z = TensorSketch(64, degree=degree, coef0=coef0, random_state=0).fit_transform(X)
        # The sketch of the constant coordinate alone: one bucket of
        # magnitude coef0^(degree/2), squared norm exactly coef0^degree.
        assert np.count_nonzero(np.abs(Z[0]) > 1e-12) == 1
        assert_allclose(Z[0] @ Z[0], coef0**degree, rtol=1e-12)


def test_single_sample_single_feature():
    Z = TensorSketch(32, degree=2, random_state=0).fit_transform([[3.0]])
    # One feature: the sketch has a single nonzero of magnitude x^degree
    # (the other buckets hold FFT round-off).
    magnitudes = np.sort(np.abs(Z[0]))
    assert_allclose(magnitudes[-1], 9.0)
    assert magnitudes[-2] < 1e-12


def test_duplicate_rows_map_to_identical_rows(data):
    X = np.vstack([data[:3], data[:3]])
    Z = TensorSketch(64, random_state=0).fit_transform(X)
    assert_array_equal(Z[:3], Z[3:])


# ---------------------------------------------------------------------------
# Errors


@pytest.mark.parametrize("dtype, huge", [(np.float64, 1e200), (np.float32, 1e25)])
def test_overflow_is_an_error_not_inf(dtype, huge):
    X = np.array([[huge, 1.0], [1.0, 2.0]], dtype=dtype)
    sketch = TensorSketch(8, degree=2, random_state=0).fit(X)
    with pytest.raises(ValueError, match="overflowed"):
        sketch.transform(X)
    # Large but representable values are fine.
    assert np.isfinite(sketch.transform(np.sqrt(np.sqrt(X)))).all()


# ---------------------------------------------------------------------------
# scikit-learn integration


def test_feature_names_and_pandas_output(data):
    pd = pytest.importorskip("pandas")
    sketch = TensorSketch(8, random_state=0).fit(data)
    names = sketch.get_feature_names_out()
    assert list(names) == [f"tensorsketch{i}" for i in range(8)]
    frame = pd.DataFrame(data, columns=[f"f{i}" for i in range(data.shape[1])])
    output = TensorSketch(8, random_state=0).set_output(transform="pandas").fit_transform(frame)
    assert list(output.columns) == list(names)


@pytest.mark.slow
def test_pipeline_grid_search_over_n_components():
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    X, y = X[:600], y[:600]
    pipeline = make_pipeline(
        Normalizer(), TensorSketch(degree=2, random_state=0), LinearSVC()
    )
    search = GridSearchCV(
        pipeline, {"tensorsketch__n_components": [32, 512]}, cv=3, n_jobs=2
    ).fit(X, y)
    scores = search.cv_results_["mean_test_score"]
    # More components approximate the kernel better: the larger sketch wins
    # and reaches the accuracy of a degree-2 polynomial SVM on digits.
    assert search.best_params_ == {"tensorsketch__n_components": 512}
    assert scores[1] > scores[0] + 0.02 and scores[1] > 0.85
