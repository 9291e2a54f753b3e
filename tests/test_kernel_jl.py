"""Tests of KernelJL against the closed forms of MATH.md section 3.

Notation: subsample x_1..x_n with Gram matrix K, Z (d x n) standard normal,
c = sqrt(n) / ||K||_F^2, W = c K Z^T and Phi(x) = W^T k_x. With a = K k_x and
b = K k_y, <Phi(x), Phi(y)> = c^2 sum_i (a.z_i)(b.z_i) over the d rows z_i of
Z, a sum of d i.i.d. terms with mean a.b and variance |a|^2 |b|^2 + (a.b)^2.
Hence, exactly,
    E <Phi(x), Phi(y)>   = c^2 d a.b = d n k_x^T K^2 k_y / ||K||_F^4,
    Var <Phi(x), Phi(y)> = c^4 d (|a|^2 |b|^2 + (a.b)^2).
(The paper's normalization, c = 1 / (n sqrt(n d)), gives k_x^T K^2 k_y / n^3;
the two differ by the constant d n^4 / ||K||_F^4 of the subsample.)
The statistical tolerances below are derived from these formulas.
"""

import time
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import (
    chi_square_uniform_inclusion,
    require_data,
    statistical_seed,
    statistical_seeds,
)
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import config_context
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs
from sklearn.decomposition import PCA
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score
from sklearn.metrics.pairwise import (
    PAIRWISE_KERNEL_FUNCTIONS,
    pairwise_kernels,
    rbf_kernel,
)
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline, make_pipeline

from sklearn_sketch import KernelJL


def _closed_form(X_sub, Q, d, center=False, **kernel_params):
    """Mean and variance of <Phi(q_i), Phi(q_j)> over Z, for every pair.

    With ``center``, K becomes H K H and k_q becomes H (k_q - r), r the column
    means of K, H = I - 11^T / n: the Gram matrix and kernel vectors of the
    features minus their subsample mean. The formulas are otherwise the same.
    """
    n = X_sub.shape[0]
    K = pairwise_kernels(X_sub, **kernel_params)
    k_Q = pairwise_kernels(X_sub, Q, **kernel_params)
    if center:
        H = np.eye(n) - 1.0 / n
        k_Q = H @ (k_Q - K.mean(axis=0)[:, np.newaxis])
        K = H @ K @ H
    A = K @ k_Q  # columns a = K k_q
    c_squared = n / np.sum(K * K) ** 2
    mean = c_squared * d * (A.T @ A)
    sq_norms = np.einsum("ij,ij->j", A, A)
    variance = c_squared**2 * d * (np.outer(sq_norms, sq_norms) + (A.T @ A) ** 2)
    return mean, variance


def _gram_draws(X, Q, seeds, **params):
    """<Phi(q_i), Phi(q_j)> for each seed; the subsample is all of X."""
    grams = []
    for seed in seeds:
        features = KernelJL(
            n_subsample=X.shape[0], random_state=seed, **params
        ).fit(X).transform(Q)
        grams.append(features @ features.T)
    return np.array(grams)


@pytest.mark.slow
@pytest.mark.statistical
@pytest.mark.parametrize("center", [False, True])
def test_mean_matches_closed_form(center):
    # With n_subsample == n_samples the subsample is X itself whatever the
    # seed, so the seeds draw Z only.
    rng = np.random.RandomState(0)
    X = rng.normal(size=(12, 3))
    Q = rng.normal(size=(4, 3))
    d, n_draws = 8, 2000
    grams = _gram_draws(
        X, Q, statistical_seeds(n_draws), n_components=d, gamma=0.3, center=center
    )
    mean, variance = _closed_form(X, Q, d, center=center, metric="rbf", gamma=0.3)

    # The mean of n_draws independent draws has standard error
    # sqrt(Var / n_draws) with the exact Var of the module docstring; 4 of
    # them bound each of the 10 distinct entries (two-sided normal tail
    # 6e-5 each), and the seeds are fixed.
    standard_error = np.sqrt(variance / n_draws)
    assert np.all(np.abs(grams.mean(axis=0) - mean) <= 4 * standard_error)
    # Not vacuous: on the diagonal the band is narrower than a 10% error in
    # the normalization (the diagonal's relative standard error is
    # sqrt(2 / (d n_draws)) = 1.1%), and the closed form of the other
    # centering lies outside it.
    assert np.all(4 * np.diag(standard_error) < 0.1 * np.abs(np.diag(mean)))
    other_mean, _ = _closed_form(X, Q, d, center=not center, metric="rbf", gamma=0.3)
    assert np.any(np.abs(grams.mean(axis=0) - other_mean) > 4 * standard_error)
    # Nor is the paper's normalization, k_x^T K^2 k_y / n^3 (a factor
    # d n^4 / ||K||_F^4 away).
    n = X.shape[0]
    K = rbf_kernel(X, gamma=0.3)
    if center:
        K = K - K.mean(axis=0) - K.mean(axis=1)[:, np.newaxis] + K.mean()
    other_mean = mean * np.sum(K * K) ** 2 / (d * n**4)
    assert np.any(np.abs(grams.mean(axis=0) - other_mean) > 4 * standard_error)

    # The spread matches too. On the diagonal, <Phi(x), Phi(x)> is
    # c^2 |a|^2 times a chi-square with d degrees of freedom, whose
    # kurtosis is 3 + 12 / d, so the sample variance has relative standard
    # error sqrt((2 + 12 / d) / n_draws) = 3.9%; allow 4 of them.
    diagonal = np.einsum("rii->ri", grams)
    expected_var = np.diag(variance)
    relative_se = np.sqrt((2 + 12 / d) / n_draws)
    assert_allclose(diagonal.var(axis=0, ddof=1), expected_var, rtol=4 * relative_se)


@pytest.mark.slow
@pytest.mark.statistical
def test_error_of_one_draw_falls_like_inverse_sqrt_d():
    rng = np.random.RandomState(1)
    X = rng.normal(size=(40, 4))
    Q = rng.normal(size=(15, 4))
    dims = 2 ** np.arange(4, 11)  # 16 .. 1024
    n_draws = 80
    rms_errors = []
    for d in dims:
        mean, _ = _closed_form(X, Q, d, metric="rbf", gamma=0.25)
        grams = _gram_draws(X, Q, statistical_seeds(n_draws), n_components=d,
                            gamma=0.25, center=False)
        errors = np.linalg.norm(grams - mean, axis=(1, 2)) / np.linalg.norm(mean)
        rms_errors.append(np.sqrt(np.mean(errors**2)))
    slope = np.polyfit(np.log(dims), np.log(rms_errors), 1)[0]
    # E[error^2] is exactly proportional to 1 / d (a sum of d i.i.d. terms),
    # so the slope of the log RMS error is -1/2 up to sampling noise. That
    # noise is large: the relative error is dominated by the common
    # fluctuation of the 15 x 15 Gram entries, so the squared error of one
    # draw is heavy-tailed. The band is about four standard deviations of
    # the slope over seed offsets (SKLEARN_SKETCH_TEST_SEED_OFFSET) with 80
    # draws per d; a wrong power of d (-1 or 0) is far outside.
    assert -0.62 < slope < -0.38


@pytest.mark.statistical
def test_projection_is_gram_times_standard_normal():
    # Independent of how Z is drawn: Z^T = K^{-1} W / c, c = sqrt(n) / ||K||_F^2
    # (center=False), must look like i.i.d. N(0, 1) entries (n d = 2000 of them).
    rng = np.random.RandomState(2)
    X = rng.normal(size=(500, 3))
    n, d = 40, 50
    kjl = KernelJL(
        n_components=d, n_subsample=n, gamma=1.0, center=False,
        random_state=statistical_seed(0),
    ).fit(X)
    assert kjl.n_subsample_ == n
    assert_array_equal(np.sort(kjl.component_indices_), kjl.component_indices_)
    assert_array_equal(kjl.components_, X[kjl.component_indices_])
    K = rbf_kernel(kjl.components_, gamma=1.0)
    Z = np.linalg.solve(K, kjl.projection_).T * np.sum(K * K) / np.sqrt(n)
    # Mean: SE 1 / sqrt(2000); variance: SE sqrt(2 / 2000); 4 SE each.
    assert abs(Z.mean()) < 4 / np.sqrt(Z.size)
    assert abs(Z.var() - 1) < 4 * np.sqrt(2 / Z.size)
    # Rows independent: the sample correlation of two rows has SE
    # 1 / sqrt(n); the largest of the d (d - 1) / 2 = 1225 correlations is
    # below 5 SE with probability > 0.999.
    corr = np.corrcoef(Z)[np.triu_indices(d, 1)]
    assert np.max(np.abs(corr)) < 5 / np.sqrt(n)
    # And transform is the kernel against the subsample times W.
    Xt = rng.normal(size=(7, 3))
    assert_allclose(
        kjl.transform(Xt), rbf_kernel(Xt, kjl.components_, gamma=1.0) @ kjl.projection_
    )


def test_centered_features_have_zero_mean_over_the_subsample():
    # sum_i (k_{x_i} - r) = n r - n r = 0 for the subsample's own rows, so
    # their centered features average to zero exactly (up to rounding);
    # uncentered features of positive kernel values do not.
    rng = np.random.RandomState(3)
    X = rng.normal(size=(200, 4))
    for center in (False, True):
        kjl = KernelJL(n_components=16, n_subsample=60, gamma=0.2, center=center,
                       random_state=0).fit(X)
        mean = kjl.transform(kjl.components_).mean(axis=0)
        scale = np.abs(kjl.transform(X)).mean()
        if center:
            assert_allclose(mean, 0, atol=1e-12 * scale)
            # The offset is -r^T W, with W from the double-centered Gram matrix.
            K = rbf_kernel(kjl.components_, gamma=0.2)
            assert_allclose(kjl.offset_, -K.mean(axis=0) @ kjl.projection_)
            assert_allclose(kjl.projection_.sum(axis=0), 0, atol=1e-12 * scale)
        else:
            assert np.all(np.abs(mean) > 1e-3 * scale)
            assert_array_equal(kjl.offset_, 0)
    # partial_fit re-sketches the reservoir the same way.
    kjl = KernelJL(n_components=16, n_subsample=60, gamma=0.2, center=True, random_state=0)
    kjl.partial_fit(X[:120]).partial_fit(X[120:])
    assert_allclose(kjl.transform(kjl.components_).mean(axis=0), 0, atol=1e-12 * scale)


@pytest.mark.slow
@pytest.mark.statistical
def test_centering_recovers_digit_clusters():
    # Uncentered, the features' mean is the leading direction of Sigma_n and
    # cubing its eigenvalue buries the classes; centered, KMeans finds them
    # (Nystroem, which keeps the covariance's spectrum, does a little
    # better). The margins below are several times the seed spread.
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    X = X / 16.0

    def nmi(center, seed):
        model = make_pipeline(
            KernelJL(n_components=100, n_subsample=300, gamma=0.02, center=center,
                     random_state=seed),
            KMeans(n_clusters=10, n_init=3, random_state=seed),
        )
        return normalized_mutual_info_score(y, model.fit_predict(X))

    centered = [nmi(True, seed) for seed in statistical_seeds(3)]
    uncentered = [nmi(False, seed) for seed in statistical_seeds(3)]
    assert np.mean(centered) > 0.55
    assert np.mean(uncentered) < 0.3


@pytest.mark.slow
@pytest.mark.statistical
def test_subsample_is_uniform():
    # Each index is in the subsample with probability n / N = 0.25; over 400
    # seeds a count has mean 100 and sd sqrt(400 * 0.25 * 0.75) = 8.7.
    X = np.arange(20.0).reshape(-1, 1)
    counts = np.zeros(20)
    for seed in statistical_seeds(400):
        kjl = KernelJL(n_components=2, n_subsample=5, random_state=seed).fit(X)
        counts[kjl.component_indices_] += 1
        assert len(set(kjl.component_indices_)) == 5  # without replacement
    assert np.all(np.abs(counts - 100) < 4.5 * np.sqrt(400 * 0.25 * 0.75))


# ---------------------------------------------------------------- pipelines


def _blobs():
    return make_blobs(
        n_samples=600, centers=4, n_features=5, cluster_std=1.0, random_state=0
    )


def test_pipeline_kmeans_recovers_clusters():
    X, y = _blobs()
    model = make_pipeline(
        KernelJL(n_components=20, n_subsample=100, gamma=0.05, random_state=0),
        KMeans(n_clusters=4, n_init=10, random_state=0),
    )
    labels = model.fit(X).predict(X)
    assert adjusted_rand_score(y, labels) > 0.95


def test_pipeline_pca_matches_kernel_pca_directions():
    # The features approximate <k(.,x), Sigma^3 k(.,y)>, so PCA on them finds
    # the leading kernel principal directions: its first component separates
    # the two blobs as well as the blobs' own label does.
    X, y = make_blobs(n_samples=400, centers=2, n_features=3, random_state=1)
    model = make_pipeline(
        KernelJL(n_components=30, n_subsample=100, gamma=0.05, random_state=0),
        PCA(n_components=2),
    )
    scores = model.fit_transform(X)
    first = scores[:, 0]
    assert abs(np.corrcoef(first, y)[0, 1]) > 0.9


@pytest.mark.slow
def test_grid_search_over_n_components():
    X, y = _blobs()
    pipe = Pipeline(
        [
            ("kjl", KernelJL(n_subsample=100, gamma=0.05, random_state=0)),
            ("kmeans", KMeans(n_clusters=4, n_init=5, random_state=0)),
        ]
    )
    search = GridSearchCV(
        pipe, {"kjl__n_components": [1, 10, 40]}, scoring="adjusted_rand_score", cv=3
    ).fit(X, y)
    scores = search.cv_results_["mean_test_score"]
    # One Gaussian direction cannot separate 4 clusters; 10 or 40 can.
    assert search.best_params_["kjl__n_components"] in (10, 40)
    assert scores[0] < max(scores) - 0.1


# ------------------------------------------------------------ consistency


def test_deterministic_and_chunked():
    rng = np.random.RandomState(3)
    X = rng.normal(size=(300, 6))
    kjl = KernelJL(n_components=16, n_subsample=50, random_state=0).fit(X)
    whole = kjl.transform(X)
    again = KernelJL(n_components=16, n_subsample=50, random_state=0).fit(X)
    assert_array_equal(again.transform(X), whole)
    # A 1 KiB budget holds only one row's kernel block: 300 chunks.
    with config_context(working_memory=2**-10):
        chunked = kjl.transform(X)
    assert_allclose(chunked, whole, rtol=1e-12, atol=1e-15)
    assert_allclose(
        np.vstack([kjl.transform(X[:7]), kjl.transform(X[7:])]),
        whole, rtol=1e-12, atol=1e-15,
    )
    different = KernelJL(n_components=16, n_subsample=50, random_state=1).fit(X)
    assert not np.allclose(different.transform(X), whole)


@pytest.mark.parametrize("kernel", ["rbf", "poly", "laplacian", "cosine", "linear"])
def test_float32_and_sparse_input(kernel):
    rng = np.random.RandomState(4)
    X = rng.uniform(size=(80, 10))
    X[X < 0.6] = 0
    kjl64 = KernelJL(n_components=8, n_subsample=20, kernel=kernel, random_state=0)
    out64 = kjl64.fit_transform(X)
    kjl32 = KernelJL(n_components=8, n_subsample=20, kernel=kernel, random_state=0)
    out32 = kjl32.fit_transform(X.astype(np.float32))
    assert out32.dtype == np.float32 and kjl32.projection_.dtype == np.float32
    assert_allclose(out32, out64, rtol=1e-4, atol=1e-5 * np.abs(out64).max())
    out_sparse = kjl64.transform(sp.csr_matrix(X))
    assert_allclose(out_sparse, out64, rtol=1e-10, atol=1e-12)
    fit_sparse = KernelJL(n_components=8, n_subsample=20, kernel=kernel, random_state=0)
    assert_allclose(
        fit_sparse.fit_transform(sp.csc_matrix(X)), out64, rtol=1e-10, atol=1e-12
    )


def test_precomputed_and_callable_match_named_kernel():
    rng = np.random.RandomState(5)
    X, X_new = rng.normal(size=(60, 3)), rng.normal(size=(9, 3))
    params = dict(n_components=10, n_subsample=25, random_state=0)
    expected = KernelJL(gamma=0.7, **params).fit(X).transform(X_new)
    pre = KernelJL(kernel="precomputed", **params).fit(rbf_kernel(X, gamma=0.7))
    assert_allclose(pre.transform(rbf_kernel(X_new, X, gamma=0.7)), expected)

    def rbf(x, y, gamma):
        return np.exp(-gamma * np.sum((x - y) ** 2))

    call = KernelJL(kernel=rbf, kernel_params={"gamma": 0.7}, **params)
    assert_allclose(call.fit(X).transform(X_new), expected)


@pytest.mark.parametrize(
    "X",
    [
        np.ones((1, 3)),  # one sample
        np.arange(10.0).reshape(-1, 1),  # one feature
        np.repeat([[1.0, 2.0]], 8, axis=0),  # duplicate rows
        np.zeros((6, 4)),  # all-zero rows
    ],
    ids=["one-sample", "one-feature", "duplicates", "zeros"],
)
@pytest.mark.parametrize("kernel", ["rbf", "cosine", "poly"])
def test_degenerate_input_is_exact(X, kernel):
    kjl = KernelJL(n_components=5, n_subsample=X.shape[0], kernel=kernel, random_state=0)
    out = kjl.fit_transform(X)
    assert np.all(np.isfinite(out))
    # The map must still be kernel(X, subsample) @ W + offset (the
    # statistics of W are tested above), with no division that could produce
    # NaN: a constant (centered) Gram matrix gives zero features.
    gamma = {} if kjl.gamma_ is None else {"gamma": kjl.gamma_}
    block = pairwise_kernels(X, kjl.components_, metric=kernel, **gamma)
    assert_allclose(out, block @ kjl.projection_ + kjl.offset_, atol=1e-12)


def test_n_subsample_larger_than_n_samples_is_clipped_with_warning():
    X = np.random.RandomState(6).normal(size=(10, 2))
    with pytest.warns(UserWarning, match="n_subsample=50 is larger than n_samples=10"):
        kjl = KernelJL(n_components=4, n_subsample=50, random_state=0).fit(X)
    assert kjl.n_subsample_ == 10
    assert kjl.projection_.shape == (10, 4)
    assert_array_equal(kjl.component_indices_, np.arange(10))


# ------------------------------------------------------------- bad input


def test_other_errors_are_clear():
    X = np.random.RandomState(7).normal(size=(8, 3))
    kjl = KernelJL(n_components=2, n_subsample=4).fit(X)
    with pytest.raises(ValueError, match="3 features"):
        kjl.transform(X[:, :2])
    with pytest.raises(ValueError, match="gamma cannot be set with a callable"):
        KernelJL(kernel=lambda x, y: x @ y, gamma=1.0).fit(X)
    with pytest.raises(ValueError, match="square Gram matrix"):
        KernelJL(kernel="precomputed").fit(X)
    with pytest.raises(ValueError, match="0 sample"):
        KernelJL().fit(np.empty((0, 3)))


# ------------------------------------------------- every kernel, every input

KERNELS = sorted(PAIRWISE_KERNEL_FUNCTIONS)


def _nonnegative_sparse_data(n_samples=40, n_features=9, seed=8):
    # Non-negative, as the chi2 kernels require; about half the entries zero.
    X = np.random.RandomState(seed).uniform(size=(n_samples, n_features))
    X[X < 0.5] = 0
    return X


def _duplicates(X):
    # Every stored entry split in two halves: scipy sums duplicates.
    X = sp.csr_matrix(X)
    counts = np.diff(X.indptr)
    indptr = np.concatenate([[0], np.cumsum(2 * counts)])
    indices = np.repeat(X.indices, 2)
    data = np.repeat(X.data / 2, 2)
    return sp.csr_matrix((data, indices, indptr), shape=X.shape)


def _unsorted(X):
    X = sp.csr_matrix(X)
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    order = np.lexsort((-X.indices, rows))  # columns decreasing within a row
    unsorted = sp.csr_matrix((X.data[order], X.indices[order], X.indptr), shape=X.shape)
    assert not unsorted.has_sorted_indices
    return unsorted


def _explicit_zeros(X):
    X = sp.csr_matrix(X)
    X.data[::3] = 0  # stored zeros: compare with the same zeros in dense form
    return X


def _int64_csr(X):
    X = sp.csr_matrix(X)
    return sp.csr_matrix(
        (X.data, X.indices.astype(np.int64), X.indptr.astype(np.int64)), shape=X.shape
    )


def _int64_csr_array(X):
    X = _int64_csr(X)
    return sp.csr_array((X.data, X.indices, X.indptr), shape=X.shape)


INPUT_FORMS = {
    "dense": np.asarray,
    "csr": sp.csr_matrix,
    "csr int64 indices": _int64_csr,
    "csr_array int64 indices": _int64_csr_array,
    "csc": sp.csc_matrix,
    "coo": sp.coo_matrix,
    "duplicates": _duplicates,
    "unsorted indices": _unsorted,
    "explicit zeros": _explicit_zeros,
}


def _dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X)


@pytest.mark.parametrize("form", sorted(INPUT_FORMS))
@pytest.mark.parametrize("kernel", KERNELS)
def test_every_kernel_accepts_every_input_form(kernel, form):
    # Whatever form fit and transform get, the map is the one of the dense
    # array holding the same values: for every kernel scikit-learn names
    # (chi2 and additive chi2 included, which scikit-learn evaluates on
    # dense data only), in fit, partial_fit and transform.
    X_form = INPUT_FORMS[form](_nonnegative_sparse_data())
    X = _dense(X_form)
    params = {"n_components": 6, "n_subsample": 15, "kernel": kernel, "random_state": 0}
    reference = KernelJL(**params).fit(X)
    expected = reference.transform(X)
    fitted = KernelJL(**params).fit(X_form)
    assert_allclose(_dense(fitted.components_), reference.components_, atol=0)
    assert_allclose(fitted.transform(X_form), expected, rtol=1e-10, atol=1e-12)
    assert_allclose(reference.transform(X_form), expected, rtol=1e-10, atol=1e-12)
    assert_allclose(fitted.transform(X), expected, rtol=1e-10, atol=1e-12)
    if sp.issparse(X_form):
        # The subsample is stored as a canonical CSR matrix with int32
        # indices: no duplicate or zero entry left to misread.
        components = fitted.components_
        assert isinstance(components, sp.csr_matrix)
        assert components.has_canonical_format and np.all(components.data != 0)
        assert components.indices.dtype == np.int32
    data = _nonnegative_sparse_data()
    batches = [INPUT_FORMS[form](data[:25]), INPUT_FORMS[form](data[25:])]
    streamed, streamed_dense = KernelJL(**params), KernelJL(**params)
    for batch in batches:
        streamed.partial_fit(batch)
        streamed_dense.partial_fit(_dense(batch))
    assert_allclose(
        streamed.transform(X_form), streamed_dense.transform(X), rtol=1e-10, atol=1e-12
    )


@pytest.mark.parametrize("form", ["dense", "csr", "duplicates", "csc"])
def test_precomputed_kernel_reads_any_input_form(form):
    X = _nonnegative_sparse_data()
    K, K_new = rbf_kernel(X, gamma=0.5), rbf_kernel(X[:7], X, gamma=0.5)
    K[K < 0.3] = 0  # a sparse Gram matrix
    K_new[K_new < 0.3] = 0
    params = {"n_components": 5, "n_subsample": 12, "kernel": "precomputed"}
    expected = KernelJL(random_state=0, **params).fit(K).transform(K_new)
    fitted = KernelJL(random_state=0, **params).fit(INPUT_FORMS[form](K))
    out = fitted.transform(INPUT_FORMS[form](K_new))
    assert_allclose(out, expected, rtol=1e-12, atol=1e-14)


@pytest.mark.slow
@pytest.mark.parametrize("kernel", ["chi2", "additive_chi2"])
def test_dense_only_kernels_on_sparse_input_are_exact_in_small_blocks(kernel):
    # Sparse rows are densified in row blocks that fit working_memory; the
    # kernel is evaluated pair by pair, so tiny blocks give the same values
    # as one dense call, bit for bit.
    X = _nonnegative_sparse_data(n_samples=60, n_features=30)
    params = {"n_components": 5, "n_subsample": 20, "kernel": kernel, "random_state": 0}
    expected = KernelJL(**params).fit(X).transform(X)
    with config_context(working_memory=2**-12):  # one row per dense block
        blocked = KernelJL(**params).fit(sp.csr_matrix(X))
        assert_array_equal(blocked.projection_, KernelJL(**params).fit(X).projection_)
        out = blocked.transform(sp.csr_matrix(X))
    assert_allclose(out, expected, rtol=1e-12, atol=1e-14)
    with pytest.raises(ValueError, match="negative"):
        KernelJL(**params).fit(sp.csr_matrix(-X))


def _wide_sparse(n_features, seed=0):
    """4 rows x n_features with 40 nonzeros, and the same values on 40 columns."""
    rng = np.random.RandomState(seed)
    rows = np.repeat(np.arange(4), 10)
    # 40 distinct columns spread over the whole width.
    columns = np.arange(40) * 2**25 + rng.randint(0, 2**25, 40)
    columns *= n_features // 2**31
    values = rng.uniform(0.1, 1.1, size=40)
    wide = sp.csr_matrix((values, (rows, columns)), shape=(4, n_features))
    _, narrow_columns = np.unique(columns, return_inverse=True)
    narrow = sp.csr_matrix((values, (rows, narrow_columns)), shape=(4, 40)).toarray()
    return wide, narrow


@pytest.mark.parametrize("default_gamma", [None, "scale"])
@pytest.mark.parametrize("n_features", [2**31, 2**40], ids=["2**31", "2**40"])
@pytest.mark.parametrize("kernel", KERNELS)
def test_wide_sparse_input_costs_its_nonzeros(kernel, n_features, default_gamma):
    # A kernel between sparse rows depends only on the columns where one of
    # them is nonzero: the same 40 values spread over 2**31 columns (int32
    # indices) or 2**40 columns (int64 indices) give the features of the
    # dense 4 x 40 array, except for a gamma that depends on the width
    # (scikit-learn's 1 / n_features, or "scale", whose variance counts the
    # implicit zeros): the estimator's own gamma_ is given to the dense fit.
    # The fitted state and the work are those of the 40 nonzeros:
    # scikit-learn's sparse product alone would allocate a row pointer per
    # column (16 GiB).
    wide, narrow = _wide_sparse(n_features)
    params = {"n_components": 6, "n_subsample": 4, "kernel": kernel, "random_state": 0}
    tracemalloc.start()
    try:
        kjl = KernelJL(gamma=default_gamma, **params).fit(wide)
        out = kjl.transform(wide)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**20
    assert kjl.components_.nnz == 40 and kjl.components_.indptr.size == 5
    if kernel in ("rbf", "poly", "polynomial", "sigmoid") and default_gamma == "scale":
        assert 0 < kjl.gamma_ < np.inf
    elif kernel in ("rbf", "laplacian", "poly", "polynomial", "sigmoid"):
        assert kjl.gamma_ == 1.0 / n_features  # scikit-learn's default
    elif kernel == "chi2":
        assert kjl.gamma_ == 1.0
    else:
        assert kjl.gamma_ is None
    gamma = {} if kjl.gamma_ is None else {"gamma": kjl.gamma_}
    expected = KernelJL(**params, **gamma).fit(narrow).transform(narrow)
    assert_allclose(out, expected, rtol=1e-12, atol=1e-14 * np.abs(expected).max())


@pytest.mark.parametrize(
    "batches",
    [
        ["csr", "dense"],
        ["dense", "csr"],
        ["csr", "dense", "csc", "dense", "csr"],
        ["dense", "csr", "dense", "duplicates", "dense"],
    ],
    ids=lambda b: "-".join(b),
)
@pytest.mark.parametrize("kernel", ["rbf", "laplacian", "chi2"])
def test_partial_fit_mixes_dense_and_sparse_batches(kernel, batches):
    # The subsample keeps the format of the first batch, later batches are
    # converted: the same rows in any mix of formats give the model of the
    # same batches all dense (the reservoir's draws depend only on the batch
    # sizes). 100 rows into 12 slots: later batches replace rows.
    X = _nonnegative_sparse_data(n_samples=100, n_features=7)
    bounds = np.linspace(0, 100, len(batches) + 1).astype(int)
    params = {"n_components": 5, "n_subsample": 12, "kernel": kernel, "random_state": 0}
    mixed, dense = KernelJL(**params), KernelJL(**params)
    for form, start, stop in zip(batches, bounds[:-1], bounds[1:]):
        mixed.partial_fit(INPUT_FORMS[form](X[start:stop]))
        dense.partial_fit(X[start:stop])
    assert_array_equal(mixed.component_indices_, dense.component_indices_)
    assert np.any(mixed.component_indices_ >= bounds[1])  # replaced rows
    assert_array_equal(_dense(mixed.components_), X[mixed.component_indices_])
    assert sp.issparse(mixed.components_) == (batches[0] != "dense")
    if sp.issparse(mixed.components_):
        assert mixed.components_.has_canonical_format
        assert np.all(mixed.components_.data != 0)
    assert_allclose(mixed.projection_, dense.projection_, rtol=1e-10, atol=1e-14)
    assert_allclose(mixed.transform(X), dense.transform(X), rtol=1e-10, atol=1e-14)


# ---------------------------------------------------------- kernel_params


@pytest.mark.parametrize(
    "kernel, key",
    [("rbf", "gama"), ("rbf", "degree"), ("linear", "gamma"), ("cosine", "coef0"),
     ("laplacian", "coef0"), ("chi2", "degree"), ("additive_chi2", "gamma"),
     ("sigmoid", "degree"), ("poly", "dgree")],
)
def test_unknown_kernel_params_are_refused(kernel, key):
    # scikit-learn's filter_params would drop the key silently: the user's
    # setting would have no effect.
    X = _nonnegative_sparse_data()
    with pytest.raises(ValueError, match=f"'{key}'.*kernel='{kernel}'"):
        KernelJL(kernel=kernel, kernel_params={key: 1}).fit(X)
    with pytest.raises(ValueError, match=f"'{key}'.*kernel='{kernel}'"):
        KernelJL(kernel=kernel, kernel_params={key: 1}).partial_fit(X)


def test_kernel_params_of_a_named_kernel_are_its_parameters_given_once():
    X = _nonnegative_sparse_data()
    params = {"n_components": 5, "n_subsample": 10, "random_state": 0}
    # A kernel's own parameter in kernel_params acts as the parameter itself.
    expected = KernelJL(kernel="poly", gamma=0.3, degree=2, **params).fit(X)
    via_dict = KernelJL(kernel="poly", kernel_params={"gamma": 0.3, "degree": 2},
                        **params).fit(X)
    assert_array_equal(via_dict.transform(X), expected.transform(X))
    # Given twice, which one wins would be a guess: refused, even if equal.
    with pytest.raises(ValueError, match="gamma is given twice"):
        KernelJL(kernel="rbf", gamma=0.3, kernel_params={"gamma": 0.3}).fit(X)
    # And checked as the parameter is.
    with pytest.raises(ValueError, match=r"kernel_params\['gamma'\].*rbf"):
        KernelJL(kernel="rbf", kernel_params={"gamma": -1.0}).fit(X)
    with pytest.raises(ValueError, match=r"kernel_params\['degree'\].*poly"):
        KernelJL(kernel="poly", kernel_params={"degree": True}).fit(X)
    # A precomputed kernel takes none; a callable takes whatever it takes.
    with pytest.raises(ValueError, match="precomputed' takes no kernel_params"):
        KernelJL(kernel="precomputed", kernel_params={"gamma": 1}).fit(X @ X.T)

    def rbf(x, y, width, scale=1.0):
        return scale * np.exp(-np.sum((x - y) ** 2) / width)

    rbf_params = {"width": 1 / 0.3, "scale": 1.0}
    call = KernelJL(kernel=rbf, kernel_params=rbf_params, **params)
    named = KernelJL(gamma=0.3, **params).fit(X)
    assert_allclose(call.fit(X).transform(X), named.transform(X))


# ------------------------------------------------- parameters and sizes


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_subsample": True}, "n_subsample"),
        ({"n_components": True}, "n_components"),
        ({"n_components": np.True_}, "n_components"),
        ({"n_jobs": 0}, "n_jobs"),
    ],
)
@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_booleans_and_zero_jobs_are_refused(params, match, method):
    with pytest.raises(ValueError, match=match):
        getattr(KernelJL(**params), method)(np.ones((5, 2)))


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("kernel", KERNELS)
def test_non_finite_input_under_assume_finite_gives_nan_not_an_error(kernel, sparse):
    # The user opted out of the finiteness check: a NaN propagates to the
    # features of its own row, with no misleading error (and no
    # RuntimeWarning, an error under this test suite's settings).
    X = _nonnegative_sparse_data(n_samples=12, n_features=5)
    X_nan = X.copy()
    X_nan[3, 1] = np.nan
    as_input = sp.csr_matrix if sparse else np.asarray
    params = {"n_components": 4, "n_subsample": 8, "kernel": kernel, "random_state": 0}
    with config_context(assume_finite=True):
        out = KernelJL(**params).fit(as_input(X)).transform(as_input(X_nan))
        assert np.all(np.isnan(out[3]))
        assert np.all(np.isfinite(np.delete(out, 3, axis=0)))
        KernelJL(**params).fit(as_input(X_nan)).transform(as_input(X_nan))
        KernelJL(**params).partial_fit(as_input(X_nan)).transform(as_input(X))


@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_impossible_sizes_fail_at_once_naming_the_size(method):
    # n_components=10**9 needs Z and W of n_subsample x 10**9 (37 GiB each
    # on 5 rows): refused before anything is drawn.
    X = np.random.RandomState(9).rand(5, 12)
    start = time.perf_counter()
    match = r"n_components=1000000000.*GiB"
    with pytest.raises((ValueError, MemoryError), match=match):
        getattr(KernelJL(n_components=10**9, n_subsample=5), method)(X)
    assert time.perf_counter() - start < 1.0


def test_huge_n_subsample_is_clipped_by_fit_and_refused_by_partial_fit():
    X = np.random.RandomState(10).rand(5, 12)
    start = time.perf_counter()
    with pytest.warns(UserWarning, match="n_subsample=1000000000 is larger"):
        kjl = KernelJL(n_subsample=10**9, random_state=0).fit(X)
    assert kjl.n_subsample_ == 5
    assert time.perf_counter() - start < 1.0
    # partial_fit cannot know the stream's length: Z is drawn at once for
    # the n_subsample slots of the reservoir, 100 x 10**9 here.
    start = time.perf_counter()
    with pytest.raises(MemoryError, match=r"subsample of 1000000000 rows.*GiB"):
        KernelJL(n_subsample=10**9).partial_fit(X)
    assert time.perf_counter() - start < 1.0


# ------------------------------------------------------------- real data


@pytest.mark.slow
@pytest.mark.statistical
def test_pendigits_clustering_is_close_to_nystroem(data_home):
    from sklearn.kernel_approximation import Nystroem

    from sklearn_sketch.datasets import fetch_pendigits

    require_data(data_home, "pendigits", "pendigits.npz")
    X, y = fetch_pendigits(
        data_home, subset="train", download_if_missing=False, return_X_y=True
    )
    X, y = X[:3000], y[:3000]
    gamma = 2e-4  # coordinates are 0..100; about 1 / (median squared distance)

    def nmi(transformer, seed):
        features = transformer.set_params(random_state=seed).fit_transform(X)
        labels = KMeans(n_clusters=10, n_init=3, random_state=seed).fit_predict(features)
        return normalized_mutual_info_score(y, labels)

    seeds = statistical_seeds(3)
    kjl = [nmi(KernelJL(n_components=50, n_subsample=300, gamma=gamma), s) for s in seeds]
    nys = [nmi(Nystroem(n_components=300, gamma=gamma), s) for s in seeds]
    # K-JL keeps 50 of the 300 dimensions Nystroem keeps, and clusters a
    # little worse. The margin is the mean gap of the 3-seed means over seed
    # offsets (SKLEARN_SKETCH_TEST_SEED_OFFSET) plus four of its standard
    # deviations, rounded up for the uncertainty of a deviation taken from
    # few reruns; a broken sketch (wrong Gram matrix or Z) gives features
    # that cluster far worse.
    assert np.mean(kjl) > np.mean(nys) - 0.11


# ------------------------------------------------------------ partial_fit


def _gaussian_data(n_samples, n_features=40, density=0.3, seed=0, dtype=np.float64):
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n_samples, n_features)).astype(dtype)
    X[rng.rand(n_samples, n_features) > density] = 0
    X[3] = 0  # an all-zero row
    return X


@pytest.mark.slow
@pytest.mark.statistical
def test_kernel_jl_partial_fit_subsample_is_uniform():
    X = np.arange(30.0)[:, None] * np.ones((1, 2))  # row i identifies item i
    batches = np.split(np.arange(30), [4, 5, 17])
    n_subsample, n_trials = 5, 300
    counts = np.zeros(30)
    for seed in statistical_seeds(n_trials):
        kjl = KernelJL(n_components=3, n_subsample=n_subsample, gamma=0.1, random_state=seed)
        for rows in batches:
            kjl.partial_fit(X[rows])
        assert_array_equal(kjl.components_[:, 0], kjl.component_indices_)
        counts[kjl.component_indices_] += 1
    assert chi_square_uniform_inclusion(counts, n_trials, n_subsample / 30) > 1e-3


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_kernel_jl_partial_fit_state_and_transform(sparse, dtype):
    X = _gaussian_data(n_samples=300, dtype=dtype)
    X_in = sp.csr_matrix(X) if sparse else X
    params = dict(n_components=8, n_subsample=50, gamma=0.05, center=False, random_state=0)
    kjl = KernelJL(**params)
    seen = 0
    for rows in np.array_split(np.arange(300), [30, 31, 120]):
        kjl.partial_fit(X_in[rows])
        seen += rows.size
        n = min(50, seen)
        assert kjl.n_samples_seen_ == seen and kjl.n_subsample_ == n
        indices = kjl.component_indices_
        assert indices.size == n and np.all(np.diff(indices) > 0) and indices[-1] < seen
        assert_array_equal(_dense(kjl.components_), X[indices])
        # W = sqrt(n) K Z^T / ||K||_F^2 for the current subsample and the
        # first n columns of the Z drawn by the first call.
        Z = np.random.RandomState(0).standard_normal((8, 50))[:, :n]
        K = pairwise_kernels(X[indices].astype(np.float64), metric="rbf", gamma=0.05)
        tol = 1e-5 if dtype == np.float32 else 1e-12
        W = np.sqrt(n) * K @ Z.T / np.sum(K * K)
        assert_allclose(kjl.projection_, W, rtol=tol, atol=tol * np.abs(W).max())
        assert kjl.projection_.dtype == dtype
        X_new = kjl.transform(X_in)
        assert X_new.dtype == dtype
        expected = pairwise_kernels(X, X[indices], metric="rbf", gamma=0.05) @ kjl.projection_
        assert_allclose(X_new, expected, rtol=10 * tol, atol=10 * tol)
    # Deterministic given random_state.
    again = KernelJL(**params)
    for rows in np.array_split(np.arange(300), [30, 31, 120]):
        again.partial_fit(X_in[rows])
    assert_array_equal(again.component_indices_, kjl.component_indices_)
    assert_array_equal(again.transform(X_in), kjl.transform(X_in))


def test_kernel_jl_partial_fit_after_fit_starts_afresh_and_precomputed_has_none():
    X = _gaussian_data(n_samples=100)
    kjl = KernelJL(n_components=4, n_subsample=10, random_state=0).fit(X)
    kjl.partial_fit(X[:6])
    assert kjl.n_samples_seen_ == 6 and kjl.n_subsample_ == 6
    assert_array_equal(kjl.component_indices_, np.arange(6))
    precomputed = KernelJL(kernel="precomputed")
    assert not hasattr(precomputed, "partial_fit")
    with pytest.raises(AttributeError, match="partial_fit") as excinfo:
        precomputed.partial_fit(np.eye(3))
    # scikit-learn's available_if keeps the reason as the cause.
    assert "precomputed" in str(excinfo.value.__cause__)


@pytest.mark.parametrize("kernel", ["laplacian", "rbf", "poly"])
@pytest.mark.parametrize("tiny", [2.2e-13, 1e-300, 0.0])
def test_centered_gram_equal_to_rounding_gives_zero_features(kernel, tiny):
    # Rows whose kernel values are all equal to float64 precision have a
    # centered Gram matrix of rounding alone: their centered features are 0
    # (the covariance is 0), not that rounding divided by its own norm.
    X = np.zeros((4, 5))
    X[0, 0] = tiny
    estimator = KernelJL(
        n_components=6, n_subsample=4, kernel=kernel, gamma=0.2, center=True,
        random_state=0,
    ).fit(X)
    whole = estimator.transform(X)
    assert_array_equal(whole, np.zeros_like(whole))
    assert_array_equal(np.vstack([estimator.transform(X[:1]), estimator.transform(X[1:])]), whole)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("tiny", [1.6e-22, 1e-300, 1e-17])
def test_cosine_subsample_of_zero_norm_rows_gives_zero_features(dtype, tiny):
    # scikit-learn's cosine treats rows of norm below 10 eps as zero; a
    # subsample of only such rows spans nothing: every feature is 0, for
    # rows of any size, in any split (not their kernel values' rounding
    # blown up by the inverse of the tiny Gram matrix).
    tiny = max(tiny, float(np.finfo(dtype).tiny))
    X_fit = np.full((4, 5), tiny, dtype=dtype)
    X_fit[0, 0] = 0
    X = np.vstack([np.eye(5, dtype=dtype)[:2], X_fit, np.full((1, 5), 3, dtype=dtype)])
    estimator = KernelJL(kernel="cosine", n_subsample=4, n_components=6, random_state=0)
    whole = estimator.fit(X_fit).transform(X)
    assert whole.dtype == dtype
    assert_array_equal(whole, np.zeros_like(whole))
    assert_array_equal(np.vstack([estimator.transform(X[i : i + 1]) for i in range(len(X))]), whole)
