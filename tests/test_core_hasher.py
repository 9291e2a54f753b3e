"""CoREHasher: output structure, exactness of the linearization, reliability."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.svm import SVC

import sklearn_sketch.minwise._projection as core_projection
from sklearn_sketch import CoREHasher
from sklearn_sketch.metrics import core_kernel, resemblance_kernel
from sklearn_sketch.utils._counter_random import (
    gaussian_block,
    hashed_gaussian_block,
    rademacher_block,
)
from sklearn_sketch.utils._hashing import fmix32

KERNELS = ["core1", "core2", "resemblance"]


def _data(n_samples=20, n_features=50, density=0.3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_samples, n_features))
    X *= rng.random((n_samples, n_features)) < density
    X[3] = 0.0  # an all-zero row
    X[5] = X[4]  # duplicate rows
    return X


def _projection_matrix(hasher, n_features):
    """The ``n_features x k`` matrix R of a fitted hasher, explicitly."""
    k, seed = hasher.n_components, hasher.projection_seed_
    features = np.arange(n_features)
    if hasher.projection == "rademacher":
        return rademacher_block(seed, features, 0, k, k, np.float64)
    m = core_projection.HASHED_BUCKETS
    if hasher.projection == "hashed_gaussian" and n_features > m:
        group = core_projection.HASHED_GROUP_COLUMNS
        return hashed_gaussian_block(seed, features, k, m, group, np.float64)
    return gaussian_block(seed, features, 0, k, k, np.float64)


@pytest.fixture
def small_hashed_projection(monkeypatch):
    """Sketches small enough for the test data (4 buckets, groups of 2 columns)."""
    monkeypatch.setattr(core_projection, "HASHED_BUCKETS", 4)
    monkeypatch.setattr(core_projection, "HASHED_GROUP_COLUMNS", 2)


def _brute_force_estimator(hasher, X):
    """Li's estimators from the definitions, one hash and one pair at a time."""
    k = hasher.n_components
    n = X.shape[0]
    n_features = X.shape[1]
    coefficients = hasher.hash_coefficients_
    # Hash j of coordinate i: high 32 bits of a_j * fmix32(i) + b_j mod 2**64,
    # ties to the smaller coordinate.
    mixed = [int(m) for m in fmix32(np.arange(n_features))]
    R = _projection_matrix(hasher, n_features)
    K = np.zeros((n, n))
    for p in range(n):
        for q in range(n):
            u, v = X[p], X[q]
            S_u, S_v = np.flatnonzero(u), np.flatnonzero(v)
            if S_u.size == 0 or S_v.size == 0:
                continue
            un, vn = u / np.linalg.norm(u), v / np.linalg.norm(v)
            total = 0.0
            for j in range(k):
                a, b = int(coefficients[j, 0]), int(coefficients[j, 1])

                def order(i):
                    return (((a * mixed[i] + b) % 2**64) >> 32, i)

                L_u, L_v = min(S_u, key=order), min(S_v, key=order)
                if L_u != L_v:
                    continue
                if hasher.kernel == "core1":
                    total += (un @ R[:, j]) * (vn @ R[:, j])
                elif hasher.kernel == "core2":
                    total += np.sqrt(S_u.size * S_v.size) * un[L_u] * vn[L_v]
                else:
                    total += 1.0
            K[p, q] = total / k
    return K


@pytest.mark.parametrize("projection", ["gaussian", "rademacher", "hashed_gaussian"])
@pytest.mark.parametrize("kernel", KERNELS)
def test_inner_products_equal_the_estimator(kernel, projection, small_hashed_projection):
    X = _data(n_samples=8, n_features=12, density=0.5)
    X[2, :] = np.abs(X[2, :])  # a row of one sign, next to mixed ones
    hasher = CoREHasher(
        n_components=5, kernel=kernel, b_bits=None, projection=projection,
        hashing="minwise", random_state=0,
    ).fit(X)
    Z = hasher.transform(X)
    expected = _brute_force_estimator(hasher, X)
    np.testing.assert_allclose((Z @ Z.T).toarray(), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("hashing", ["minwise", "oph"])
@pytest.mark.parametrize("kernel", KERNELS)
def test_output_structure(kernel, hashing):
    X = _data()
    k = 16
    Z = CoREHasher(k, kernel=kernel, hashing=hashing, b_bits=4, random_state=0).fit_transform(X)
    assert sp.issparse(Z) and Z.format == "csr"
    assert Z.shape == (X.shape[0], k * 2**4)
    row_nnz = np.diff(Z.indptr)
    nonempty = np.any(X != 0, axis=1)
    assert np.all(row_nnz[nonempty] == k) and np.all(row_nnz[~nonempty] == 0)
    # One nonzero in each block of width 2**b.
    blocks = Z.indices.reshape(-1, k) // 2**4
    assert np.all(blocks == np.arange(k))
    # Duplicate rows hash identically; no NaN anywhere.
    np.testing.assert_array_equal(Z[4].toarray(), Z[5].toarray())
    assert np.all(np.isfinite(Z.data))
    if kernel == "core2" and hashing == "minwise":
        # K2_hat(u, u) = (1/k) sum_j f_u u~[L_j]^2 > 0.
        assert np.all(np.asarray(Z.multiply(Z).sum(axis=1)).ravel()[nonempty] > 0)
    if kernel == "resemblance":
        np.testing.assert_allclose(Z.data, 1 / np.sqrt(k))


def test_width_without_b_bits_and_64_bit_indices():
    X = _data()
    Z = CoREHasher(8, b_bits=None, random_state=0).fit_transform(X)
    assert Z.shape == (X.shape[0], 8 * X.shape[1])
    Z = CoREHasher(8, b_bits=32, random_state=0).fit_transform(X)
    assert Z.shape[1] == 8 * 2**32
    assert Z.indices.dtype == np.int64
    assert Z.indices.max() >= 0


@pytest.mark.parametrize("kernel", KERNELS)
def test_dtype_preserved(kernel):
    X = _data()
    for dtype in (np.float32, np.float64):
        hasher = CoREHasher(32, kernel=kernel, random_state=0)
        assert hasher.fit_transform(X.astype(dtype)).dtype == dtype
        assert hasher.transform(sp.csr_matrix(X.astype(dtype))).dtype == dtype
    assert hasher.transform(X.astype(np.int64)).dtype == np.float64


@pytest.mark.parametrize("projection", ["gaussian", "rademacher", "hashed_gaussian"])
def test_float32_and_float64_give_the_same_features(projection, small_hashed_projection):
    # The projection entries are the same values in both precisions, so the
    # two outputs differ by float32 rounding of the arithmetic only.
    X = sp.random(60, 700, density=0.05, random_state=1, format="csr")
    hasher = CoREHasher(64, projection=projection, random_state=0).fit(X)
    Z64 = hasher.transform(X)
    Z32 = hasher.transform(X.astype(np.float32))
    np.testing.assert_array_equal(Z32.indices, Z64.indices)
    np.testing.assert_allclose(Z32.data, Z64.data, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("hashing", ["minwise", "oph"])
@pytest.mark.parametrize("kernel", KERNELS)
def test_deterministic_chunks_formats(kernel, hashing):
    X = _data(n_samples=40)
    hasher = CoREHasher(32, kernel=kernel, hashing=hashing, random_state=7).fit(X)
    whole = hasher.transform(X).toarray()
    pieces = np.vstack([hasher.transform(X[i : i + 7]).toarray() for i in range(0, 40, 7)])
    np.testing.assert_array_equal(whole, pieces)
    for other in (sp.csr_matrix(X), sp.csc_matrix(X), sp.coo_matrix(X)):
        np.testing.assert_array_equal(whole, hasher.transform(other).toarray())
    refit = CoREHasher(32, kernel=kernel, hashing=hashing, random_state=7).fit(X)
    np.testing.assert_array_equal(whole, refit.transform(X).toarray())
    # Stored zeros and unsorted indices do not change the sets.
    X_csr = sp.csr_matrix(X)
    X_csr.indices = X_csr.indices.copy()
    messy = sp.csr_matrix((np.r_[X_csr.data, 0.0], np.r_[X_csr.indices, 0],
                           np.r_[X_csr.indptr[:-1], X_csr.indptr[-1] + 1]), shape=X.shape)
    np.testing.assert_array_equal(whole, hasher.transform(messy).toarray())


@pytest.mark.slow
def test_chunked_inner_loops_match_small_chunks(monkeypatch):
    # Force many tiny chunks and hash blocks in both schemes: the same output.
    import sklearn_sketch.minwise._minwise_codes as codes
    import sklearn_sketch.minwise._positions as minhash

    X = sp.random(300, 1500, density=0.05, random_state=0, format="csr")
    for hashing in ("minwise", "oph"):
        hasher = CoREHasher(64, hashing=hashing, random_state=0).fit(X)
        whole = hasher.transform(X).toarray()
        monkeypatch.setattr(minhash, "MAX_CHUNK_NNZ", 50)
        orig = minhash.nnz_chunks
        monkeypatch.setattr(codes, "nnz_chunks", lambda indptr, max_nnz=None, max_rows=None: orig(indptr, 50, 3))
        np.testing.assert_array_equal(whole, hasher.transform(X).toarray())
        # The projection as a sum over groups of feature blocks (one block
        # per group) changes the order of the sums only.
        monkeypatch.setattr(core_projection, "PROJECTION_BLOCK_BYTES", 1)
        grouped = hasher.transform(X).toarray()
        np.testing.assert_allclose(grouped, whole, rtol=1e-12, atol=1e-15)
        # ... and, the groups depending on n_features only, row chunks
        # still give exactly the same rows.
        pieces = sp.vstack([hasher.transform(X[i : i + 7]) for i in range(0, 300, 7)])
        np.testing.assert_array_equal(grouped, pieces.toarray())
        monkeypatch.undo()


@pytest.mark.slow
def test_hashed_gaussian_chunks_and_fallback(monkeypatch):
    monkeypatch.setattr(core_projection, "HASHED_BUCKETS", 64)
    X = sp.random(300, 1500, density=0.05, random_state=0, format="csr")
    hasher = CoREHasher(100, projection="hashed_gaussian", random_state=0).fit(X)
    whole = hasher.transform(X).toarray()
    # Chunks of 7 rows generate only the Gaussian rows they touch; the
    # whole input generates them all: the same rows, bit for bit.
    pieces = sp.vstack([hasher.transform(X[i : i + 7]) for i in range(0, 300, 7)])
    np.testing.assert_array_equal(whole, pieces.toarray())
    # The sketches change the features ...
    gaussian = CoREHasher(100, random_state=0).fit(X).transform(X).toarray()
    assert not np.allclose(whole, gaussian)
    # ... unless there are no more features than buckets: then it is the
    # Gaussian projection exactly.
    X = X[:, :64]
    hasher = CoREHasher(100, projection="hashed_gaussian", random_state=0).fit(X)
    gaussian = CoREHasher(100, random_state=0).fit(X).transform(X).toarray()
    np.testing.assert_array_equal(hasher.transform(X).toarray(), gaussian)


def test_degenerate_inputs():
    # One sample, one feature, negative values, all-zero rows: no NaN.
    for X in (np.array([[-2.0]]), np.array([[0.0], [3.0]]), np.zeros((3, 4)),
              np.array([[1.0, -1.0, 0.0]])):
        for kernel in KERNELS:
            Z = CoREHasher(8, kernel=kernel, random_state=0).fit_transform(X)
            assert np.all(np.isfinite(Z.data))
            assert Z.nnz == 8 * np.count_nonzero(np.any(X != 0, axis=1))
    # One feature: every nonzero row has the same set, R = 1, rho = sign.
    X = np.array([[2.0], [-3.0]])
    Z = CoREHasher(8, kernel="core2", random_state=0).fit_transform(X)
    np.testing.assert_allclose((Z @ Z.T).toarray(), [[1, -1], [-1, 1]])


def test_fitted_state_does_not_grow_with_n_features():
    small = CoREHasher(16, random_state=0).fit(np.ones((2, 3)))
    large = CoREHasher(16, random_state=0).fit(sp.csr_matrix((2, 10**7)))
    for name in ("hash_coefficients_", "bucket_coefficients_", "probe_coefficients_"):
        assert getattr(small, name).shape == getattr(large, name).shape
    X = sp.csr_matrix(([1.0, 2.0], ([0, 1], [5, 9_999_999])), shape=(2, 10**7))
    assert large.transform(X).nnz == 32
    hashed = CoREHasher(16, projection="hashed_gaussian", random_state=0).fit(X)
    assert np.all(np.isfinite(hashed.transform(X).data))


def test_linear_svm_on_hashed_features_matches_kernel_svm():
    # End to end: hashed type 1 features in a linear SVM behave like the
    # exact kernel; on this separable toy problem both fit perfectly.
    rng = np.random.default_rng(0)
    X = np.abs(rng.standard_normal((60, 30))) * (rng.random((60, 30)) < 0.3)
    y = (X[:, :15].sum(axis=1) > X[:, 15:].sum(axis=1)).astype(int)
    K = core_kernel(X, kind=1)
    assert SVC(kernel="precomputed", C=10).fit(K, y).score(K, y) == 1.0
    Z = CoREHasher(1024, random_state=0).fit_transform(X)
    np.testing.assert_allclose((Z @ Z.T).toarray(), K, atol=0.25)
    assert resemblance_kernel(X).shape == (60, 60)


@pytest.mark.parametrize("sparse_fill", [None, 0.0, 1e9], ids=["auto", "by-bin", "inverse"])
@pytest.mark.parametrize(
    "n_components", [1, 7, 64, pytest.param(1024, marks=pytest.mark.slow)]
)
def test_oph_positions_match_the_definition(n_components, sparse_fill, monkeypatch):
    # Rows from 1 to 400 entries: the one-entry rows exhaust the probes (the
    # circular fallback). Densification bin by bin, from the filled bins, or
    # each where it is cheaper, gives the same; with k = 1024 there are
    # fewer probes per bin (256) than bins.
    from _minwise_reference import oph_positions as reference_oph
    from _minwise_reference import probes as reference_probes

    import sklearn_sketch.minwise._positions as minhash
    from sklearn_sketch.minwise._positions import densification_tables, oph_positions
    from sklearn_sketch.utils._hashing import (
        draw_multiply_shift,
        draw_polynomial_hashes,
    )

    if sparse_fill is not None:
        monkeypatch.setattr(minhash, "SPARSE_FILL_FRACTION", sparse_fill)
    rng = np.random.RandomState(0)
    lengths = np.r_[1, 1, 2, 5, 30, rng.randint(1, 400, size=15), 0]
    X = sp.vstack(
        [
            sp.csr_matrix(
                (np.ones(n), (np.zeros(n, int), rng.choice(5000, n, replace=False))),
                shape=(1, 5000),
            )
            for n in lengths
        ]
    ).tocsr()
    X.sort_indices()
    permutation = draw_multiply_shift(rng, 1)[0]
    probe_hash = draw_polynomial_hashes(rng, 1, 2)[0]
    tables = densification_tables(probe_hash, n_components)
    positions = oph_positions(X.indices, X.indptr, permutation, tables)
    probes = reference_probes(probe_hash, n_components, min(n_components, 256))
    expected = reference_oph(X.indices, X.indptr, permutation, probes)
    np.testing.assert_array_equal(positions, expected)


# --- Reliability: every option on degenerate shapes, wide input, sizes. ---

PROJECTIONS = ["gaussian", "rademacher", "hashed_gaussian"]
OPTIONS = [
    dict(kernel=kernel, hashing=hashing, projection=projection)
    for kernel in KERNELS
    for hashing in ["minwise", "oph"]
    for projection in (PROJECTIONS if kernel == "core1" else ["gaussian"])
]


def _option_id(options):
    return "-".join(options.values())


def _degenerate_inputs():
    """Empty rows, one row, rows touching only some of 4 column blocks, zeros."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((6, 1000)) * (rng.random((6, 1000)) < 0.05)
    X[1] = 0.0
    X[2, 256:] = 0.0  # block 0 only
    X[4, :768] = 0.0  # block 3 only
    X[5] = 0.0
    X[5, [17, 900]] = [-2.0, 0.5]  # blocks 0 and 3, none between
    return {
        "mixed": X,
        "one row": X[2:3],
        "one entry": np.eye(1, 1000, 600),
        "all zero": np.zeros((3, 1000)),
        "one empty row": np.zeros((1, 1000)),
    }


def _check_against_definition(hasher, X, Z):
    """Rows empty exactly for empty inputs, k finite nonzeros, one per block,
    and for "core1" the values ``(u / |u|) @ R[:, j] / sqrt(k)``."""
    k, width = hasher.n_components, hasher._map.block_width
    nonempty = np.any(X != 0, axis=1)
    assert Z.shape == (X.shape[0], k * width)
    np.testing.assert_array_equal(np.diff(Z.indptr), k * nonempty)
    assert np.isfinite(Z.data).all()
    assert np.all(Z.indices.reshape(-1, k) // width == np.arange(k))
    if hasher.kernel == "core1" and nonempty.any():
        U = X[nonempty] / np.linalg.norm(X[nonempty], axis=1, keepdims=True)
        expected = U @ _projection_matrix(hasher, X.shape[1]) / np.sqrt(k)
        np.testing.assert_allclose(
            Z.data.reshape(-1, k), expected, rtol=1e-9, atol=1e-12
        )


@pytest.mark.parametrize("group_blocks", ["whole", "one block"])
@pytest.mark.parametrize("options", OPTIONS, ids=_option_id)
def test_every_option_on_empty_and_partial_rows(options, group_blocks, monkeypatch):
    # The projection is summed by groups of feature blocks; an input (or a
    # group) without entries must give zeros, not a crash, and an empty row
    # an empty output row, whatever the projection, kernel and hashing.
    if group_blocks == "one block":
        monkeypatch.setattr(core_projection, "PROJECTION_BLOCK_BYTES", 1)
    monkeypatch.setattr(core_projection, "HASHED_BUCKETS", 4)  # explicit R stays small
    monkeypatch.setattr(core_projection, "HASHED_GROUP_COLUMNS", 2)
    for name, X in _degenerate_inputs().items():
        hasher = CoREHasher(5, b_bits=None, random_state=0, **options).fit(X)
        Z = hasher.transform(X)
        _check_against_definition(hasher, X, Z)
        for other in (sp.csr_matrix(X), X.astype(np.float32)):
            np.testing.assert_allclose(hasher.transform(other).toarray(), Z.toarray(),
                                       rtol=1e-5, atol=1e-6, err_msg=name)
        # Rows are transformed independently: each row alone gives its row.
        for i in range(X.shape[0]):
            np.testing.assert_array_equal(hasher.transform(X[i : i + 1]).toarray(),
                                          Z[i].toarray(), err_msg=name)


def _wide_csr(n_rows=4, nnz_per_row=10, n_features=2**31, seed=0):
    rng = np.random.RandomState(seed)
    n = n_rows * nnz_per_row
    return sp.csr_matrix(
        (rng.rand(n) + 0.1, (np.repeat(np.arange(n_rows), nnz_per_row),
                             rng.randint(0, n_features, n))),
        shape=(n_rows, n_features),
    )


def _state_bytes(hasher):
    """Bytes of the fitted attributes."""
    return sum(
        np.asarray(value).nbytes
        for key, value in vars(hasher).items()
        if key.endswith("_") and not key.startswith("_")
    )


def test_cost_and_state_do_not_grow_with_n_features():
    # 4 rows, 40 nonzeros, 2**31 columns: fit + transform costs what the
    # nonzeros cost (a few MiB, a fraction of a second) for every option,
    # the fitted state is O(n_components), and b_bits=None gives a sparse
    # output k * n_features wide.
    import tracemalloc

    X = _wide_csr()
    ranks = np.argsort(np.argsort(X.indices))  # the same rows on 40 columns
    narrow = sp.csr_matrix((X.data, ranks, X.indptr), shape=(4, 40))
    for options in OPTIONS:
        for b_bits, dtype in [(8, np.float64), (None, np.float32), (32, np.float64)]:
            Xd = X.astype(dtype)
            params = dict(b_bits=b_bits, random_state=0, **options)
            # Compile the kernels first: numba's one-time compilation
            # allocates Python objects that tracemalloc would count.
            CoREHasher(64, **params).fit(Xd).transform(Xd)
            tracemalloc.start()
            try:
                hasher = CoREHasher(64, **params).fit(Xd)
                Z = hasher.transform(Xd)
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
            assert peak < 64 * 2**20, (options, b_bits, peak)
            assert sp.issparse(Z) and Z.nnz == 4 * 64 and np.isfinite(Z.data).all()
            width = 2**31 if b_bits is None else 2**b_bits
            assert Z.shape == (4, 64 * width)
            small = CoREHasher(64, **params).fit(narrow)
            assert _state_bytes(hasher) == _state_bytes(small) < 64 * 64


@pytest.mark.parametrize("b_bits", [8, None])
def test_feature_names_need_fit(b_bits):
    from sklearn.exceptions import NotFittedError

    hasher = CoREHasher(4, b_bits=b_bits, random_state=0)
    with pytest.raises(NotFittedError):
        hasher.get_feature_names_out()
    names = hasher.fit(np.ones((2, 3))).get_feature_names_out()
    assert len(names) == 4 * (3 if b_bits is None else 2**8)
    assert names[0] == "corehasher0"


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_components": True}, "n_components"),
        ({"b_bits": True}, "b_bits"),
        ({"b_bits": False}, "b_bits"),
        ({"n_jobs": 0}, "n_jobs"),
        ({"n_components": 2.0}, "n_components"),
    ],
)
def test_booleans_and_meaningless_values_are_refused(params, match):
    with pytest.raises(ValueError, match=match):
        CoREHasher(**params).fit(np.ones((2, 3)))


@pytest.mark.parametrize("options", OPTIONS[::2] + OPTIONS[1::4], ids=_option_id)
def test_impossible_sizes_fail_fast(options):
    import time

    start = time.perf_counter()
    with pytest.raises(MemoryError, match=r"n_components=1000000000.*GiB"):
        CoREHasher(n_components=10**9, **options).fit(np.ones((5, 12)))
    assert time.perf_counter() - start < 1.0
    # A large but possible model is accepted.
    CoREHasher(n_components=2**14, **options).fit(np.ones((1, 2)))


def _non_canonical_forms(X):
    """The same matrix as non-canonical CSR inputs and other formats."""
    A = sp.csr_matrix(X)
    rows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    half = A.data / 2
    duplicates = sp.csr_matrix(
        (
            np.r_[half, half, 0.0, 0.0],
            (np.r_[rows, rows, 0, 3], np.r_[A.indices, A.indices, 1, 2]),
        ),
        shape=A.shape,
    )  # duplicates summed to the values, explicit zeros (also in an empty row)
    order = np.lexsort((-A.indices, rows))  # each row's indices reversed
    unsorted = sp.csr_matrix((A.data[order], A.indices[order], A.indptr), shape=A.shape)
    wide = sp.csr_matrix(A)
    wide.indices, wide.indptr = A.indices.astype(np.int64), A.indptr.astype(np.int64)
    return {
        "duplicates and zeros": duplicates,
        "unsorted": unsorted,
        "int64 indices": wide,
        "csr_array": sp.csr_array(A),
        "csc": sp.csc_matrix(A),
        "coo": sp.coo_matrix(A),
    }


@pytest.mark.parametrize("options", OPTIONS, ids=_option_id)
def test_non_canonical_sparse_input_gives_the_canonical_result(options):
    X = _data(n_samples=12, n_features=40)
    X[0, 1] = X[3, 2] = 0.0
    hasher = CoREHasher(16, random_state=0, **options).fit(sp.csr_matrix(X))
    expected = hasher.transform(sp.csr_matrix(X))
    for name, other in _non_canonical_forms(X).items():
        Z = hasher.transform(other)
        np.testing.assert_array_equal(Z.indptr, expected.indptr, err_msg=name)
        np.testing.assert_array_equal(Z.indices, expected.indices, err_msg=name)
        np.testing.assert_allclose(Z.data, expected.data, rtol=1e-15, err_msg=name)
        assert hasher.fit(other).transform(other).nnz == expected.nnz


@pytest.mark.parametrize("options", OPTIONS, ids=_option_id)
def test_huge_and_tiny_finite_values_give_the_same_features(options):
    # Each output value depends on u / |u| only: scaling a row by any
    # positive factor leaves its features unchanged, even where the sum of
    # squares (or the float32 projection) of the raw values would overflow
    # or underflow.
    X = _data(n_samples=8, n_features=30)
    hasher = CoREHasher(32, random_state=0, **options).fit(X)
    # (Scales that keep the values normal numbers: subnormal input has lost
    # precision before the transform sees it.)
    for dtype, scales in [(np.float64, [1e300, 1e-300, 2.0**-1000, 1e200]),
                          (np.float32, [1e30, 1e-30, 1e-36])]:
        expected = hasher.transform(X.astype(dtype))
        for scale in scales:
            Z = hasher.transform((X * scale).astype(dtype))
            np.testing.assert_array_equal(Z.indices, expected.indices)
            rtol = 1e-5 if dtype == np.float32 else 1e-12
            np.testing.assert_allclose(Z.data, expected.data, rtol=rtol, atol=rtol,
                                       err_msg=str(scale))


@pytest.mark.parametrize("options", OPTIONS, ids=_option_id)
def test_non_finite_input_under_assume_finite(options):
    # With assume_finite=True the user opted out of the check: rows holding
    # NaN or infinity may give NaN features (documented), but nothing
    # raises or warns (RuntimeWarnings are errors here) and the finite rows
    # are unaffected.
    import sklearn

    X = _data(n_samples=8, n_features=30)
    X[0, 0], X[6, 1] = np.nan, -np.inf
    finite = np.isfinite(X).all(axis=1)
    hasher = CoREHasher(16, random_state=0, **options).fit(X[finite])
    with sklearn.config_context(assume_finite=True):
        for Xi in (X, sp.csr_matrix(X), X.astype(np.float32)):
            Z = hasher.transform(Xi)
            assert np.all(np.diff(Z.indptr)[~finite] == 16)
            rows = np.flatnonzero(finite)
            expected = hasher.transform(Xi[rows]).toarray()
            np.testing.assert_array_equal(Z[rows].toarray(), expected)


@pytest.mark.parametrize("hashing", ["oph", "minwise"])
@pytest.mark.parametrize("kernel", ["core1", "core2", "resemblance"])
def test_positions_beyond_the_codes_dtype_give_the_same_output(
    kernel, hashing, monkeypatch
):
    # The positions of the minima are written where the codes go and coded
    # in place when the codes' dtype holds them; otherwise (more than
    # 2**31 - 1 input entries with int32 output indices) each piece codes
    # them from a separate int64 array: the same output.
    from sklearn_sketch.minwise import _core_features, _minwise_codes

    X = sp.random(80, 700, density=0.03, format="csr", random_state=1)
    X = (sp.diags((np.arange(80) % 5 != 0).astype(float)) @ X).tocsr()  # empty rows
    X.eliminate_zeros()
    hasher = CoREHasher(40, kernel=kernel, hashing=hashing, random_state=0).fit(X)
    expected = hasher.transform(X)
    for module in (_core_features, _minwise_codes):
        monkeypatch.setattr(module, "holds_positions", lambda dtype, nnz: False)
    monkeypatch.setattr(_minwise_codes, "_MAX_PIECE_WORK", 97)
    for n_jobs in (1, 2):
        Z = hasher.set_params(n_jobs=n_jobs).transform(X)
        np.testing.assert_array_equal(Z.indptr, expected.indptr)
        np.testing.assert_array_equal(Z.indices, expected.indices)
        np.testing.assert_array_equal(Z.data, expected.data)


@pytest.mark.parametrize("b_bits", [1, 8, None])
@pytest.mark.parametrize("hashing", ["oph", "minwise"])
def test_output_declared_canonical_is_canonical(b_bits, hashing):
    # The output says it is canonical (sorted indices, no duplicates) without
    # scipy checking it: a copy whose flags scipy computes agrees.
    X = sp.random(60, 500, density=0.05, format="csr", random_state=2)
    X = (sp.diags((np.arange(60) != 7).astype(float)) @ X).tocsr()  # an empty row
    X.eliminate_zeros()
    Z = CoREHasher(
        33, kernel="resemblance", b_bits=b_bits, hashing=hashing, random_state=0
    ).fit_transform(X)
    assert Z.has_canonical_format and Z.has_sorted_indices
    fresh = sp.csr_matrix((Z.data, Z.indices, Z.indptr), shape=Z.shape)
    assert fresh.has_canonical_format


# Every kernel and hashing, and core1's other projections (with more features
# than the hashed projection's buckets).
MEMORY_OPTIONS = [
    dict(kernel=kernel, hashing=hashing)
    for kernel in KERNELS
    for hashing in ("fss", "oph", "minwise")
] + [
    dict(kernel="core1", hashing="oph", projection=projection)
    for projection in ("rademacher", "hashed_gaussian")
] + [dict(kernel="resemblance", hashing="minwise", b_bits=None)]


@pytest.fixture(scope="module")
def wide_rows():
    """1500 canonical CSR rows of 20000 columns, 100 random entries each
    (one in each band of 200 columns)."""
    rng = np.random.default_rng(0)
    indices = np.arange(0, 20000, 200) + rng.integers(0, 200, size=(1500, 100))
    indptr = np.arange(0, indices.size + 1, 100)
    return sp.csr_matrix((rng.random(indices.size), indices.ravel(), indptr), shape=(1500, 20000))


@pytest.mark.parametrize("options", MEMORY_OPTIONS, ids=lambda o: "-".join(map(str, o.values())))
def test_a_transform_allocates_little_beyond_its_output(options, wide_rows):
    # Rule: a transform's time does not depend on the allocator's state: its
    # temporaries come from scratch buffers the map keeps across calls (the
    # allocator would return fresh temporaries to the system and fault them
    # in again at every call), so that the output is the only fresh memory.
    # Measured on NumPy's allocations (tracemalloc), at the third call: at
    # most a quarter of the output beyond it, and half a MiB of temporaries of
    # bounded size (blocks of gathers and flags, a group's generated rows'
    # indices): the projection's groups alone took several times the output.
    import tracemalloc

    X = wide_rows
    hasher = CoREHasher(n_components=256, random_state=0, **options).fit(X)
    hasher.transform(X)
    hasher.transform(X)
    tracemalloc.start()
    try:
        Z = hasher.transform(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    output = Z.data.nbytes + Z.indices.nbytes + Z.indptr.nbytes
    assert peak - output <= output / 4 + 2**19, (peak - output) / output
