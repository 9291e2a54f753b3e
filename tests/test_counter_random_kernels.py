"""The compiled counter-based random matrices and CoREHasher's projection
(``utils/_counter_random_kernels.py``) against the plain references of
``tests/_counter_random_reference.py``: random words bit for bit, Gaussian
entries within an ulp, products bit for bit with the same entries, for
float32 and float64, int32 and int64 indices, any column slice and n_jobs.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from _counter_random_reference import (
    gaussian_rows,
    grouped_product,
    hashed_product,
    philox_words,
    rademacher_rows,
    signed_bucket,
)

import sklearn_sketch.minwise._projection as projection
from sklearn_sketch.utils._counter_random import (
    FEATURE_BLOCK,
    _generated_rows,
    gaussian_block,
    gaussian_blocks,
    rademacher_block,
    signed_buckets,
)

SEEDS = [0, 3, 2**63 + 12345, 2**64 - 1]


def test_mixer_is_the_package_splitmix64_finalizer():
    from sklearn_sketch.utils._counter_random_kernels import _mix
    from sklearn_sketch.utils._hashing import mix64

    words = np.random.RandomState(0).randint(0, 2**63, size=200, dtype=np.int64)
    words = np.concatenate([words.astype(np.uint64) * np.uint64(2) + np.uint64(1),
                            np.array([0, 1, 2**64 - 1], dtype=np.uint64)])
    assert [int(_mix(w)) for w in words] == [int(v) for v in mix64(words.copy())]


@pytest.mark.parametrize("seed", SEEDS + [2**64 + 5, 2**128 - 1])
@pytest.mark.parametrize("block", [0, 1, 2**40 + 3])
def test_philox_is_numpys(seed, block):
    # Word w of block b is word w % 4 of Philox-4x64-10 at counter
    # (w // 4 + 1, 0, 0, b) under the 128-bit key: NumPy's stream.
    from sklearn_sketch.utils._counter_random import philox_key
    from sklearn_sketch.utils._counter_random_kernels import _philox

    k0, k1 = philox_key(seed)
    expected = philox_words(seed, block, 40)
    words = np.empty(4, dtype=np.uint64)
    got = []
    for call in range(10):
        _philox(np.uint64(call + 1), np.uint64(0), np.uint64(0), np.uint64(block), k0, k1, words)
        got.extend(words.tolist())
    assert got == expected.tolist()


@pytest.mark.parametrize("n_columns", [1, 16, 100, 257])
@pytest.mark.parametrize("seed", SEEDS)
def test_gaussian_rows_follow_box_muller_of_philox(n_columns, seed):
    blocks = np.array([5, 0, 2**33])
    rows = gaussian_blocks(seed, blocks, n_columns, np.float32)
    expected = np.vstack([gaussian_rows(seed, int(b), n_columns) for b in blocks])
    assert rows.dtype == np.float32
    # Each of logf, cosf, sinf within an ulp, then a product: a few ulps.
    np.testing.assert_array_max_ulp(rows, expected, maxulp=4)
    assert np.mean(rows == expected) > 0.9
    # float64: the same float32 values, exactly converted.
    np.testing.assert_array_equal(gaussian_blocks(seed, blocks, n_columns, np.float64), rows)


@pytest.mark.parametrize("kind", ["gaussian", "rademacher"])
@pytest.mark.parametrize("n_columns, start, stop", [(100, 0, 100), (100, 3, 70), (300, 64, 65)])
def test_column_slices_are_the_columns_of_whole_rows(kind, n_columns, start, stop):
    blocks = np.array([1, 7])
    whole = _generated_rows(kind, 11, blocks, 0, n_columns, n_columns, np.float32)
    part = _generated_rows(kind, 11, blocks, start, stop, n_columns, np.float32)
    np.testing.assert_array_equal(part, whole[:, start:stop])


@pytest.mark.parametrize("n_columns", [7, 64, 130])
def test_rademacher_rows_are_splitmix64_bits(n_columns):
    features = np.array([0, 1, 255, 256, 1000, 2**35 + 1])
    rows = rademacher_block(9, features, 0, n_columns, n_columns, np.float64)
    np.testing.assert_array_equal(rows, rademacher_rows(9, features.tolist(), n_columns))


@pytest.mark.parametrize("n_buckets", [1, 4, 8192, 2**32])
def test_signed_buckets_are_splitmix64_bits(n_buckets):
    features = np.array([0, 3, 2**31 + 7, 2**40])
    buckets, signs = signed_buckets(5, features, 2, 3, n_buckets, np.int64, np.float32)
    expected = [signed_bucket(5, int(f), 2, 3, n_buckets) for f in features]
    assert buckets.tolist() == [b for b, _ in expected]
    assert signs.tolist() == [s for _, s in expected]


def test_gaussian_entries_are_standard_normal():
    values = gaussian_blocks(1, np.arange(8), 128, np.float64).ravel()  # 262144 entries
    se = 1 / np.sqrt(values.size)
    assert abs(values.mean()) < 5 * se
    assert abs(values.var() - 1) < 5 * np.sqrt(2) * se
    assert abs(np.mean(values**4) - 3) < 5 * np.sqrt(96) * se


def _csr(n_rows, n_features, density, dtype, index_dtype, seed=0):
    X = sp.random(n_rows, n_features, density=density, format="csr", random_state=seed,
                  dtype=dtype)
    X.data -= dtype(0.3)
    X = (sp.diags((np.arange(n_rows) % 5 != 0).astype(dtype)) @ X).tocsr()  # empty rows
    X.eliminate_zeros()
    X.sort_indices()
    X.indices = X.indices.astype(index_dtype)
    X.indptr = X.indptr.astype(index_dtype)
    return X


@pytest.mark.parametrize("kind", ["gaussian", "rademacher"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("block_bytes", [1, 2**30])
def test_generated_projection_is_the_grouped_product(kind, dtype, index_dtype, block_bytes,
                                                     monkeypatch):
    # One group of feature blocks or one block per group; every n_jobs gives
    # the bits of the plain grouped product with the package's entries.
    monkeypatch.setattr(projection, "PROJECTION_BLOCK_BYTES", block_bytes)
    X = _csr(40, 1100, 0.03, dtype, index_dtype)
    k = 37
    block = gaussian_block if kind == "gaussian" else rademacher_block
    R = block(6, np.arange(X.shape[1]), 0, k, k, dtype)
    group = max(1, block_bytes // (FEATURE_BLOCK * k * X.dtype.itemsize))
    expected = grouped_product(X, R, group * FEATURE_BLOCK)
    for n_jobs in (1, 2, 3):
        got = projection.project(X, kind, 6, k, n_jobs=n_jobs)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_hashed_projection_is_the_sketched_product(dtype, monkeypatch):
    monkeypatch.setattr(projection, "HASHED_BUCKETS", 64)
    monkeypatch.setattr(projection, "HASHED_GROUP_COLUMNS", 8)
    X = _csr(30, 500, 0.04, dtype, np.int32)
    k = 21
    G = [gaussian_blocks(2, [g], min(8, k - 8 * g), dtype) for g in range(3)]
    expected = hashed_product(X, 2, k, 64, 8, G)
    for n_jobs in (1, 2, 4):
        np.testing.assert_array_equal(projection.project(X, "hashed_gaussian", 2, k, n_jobs),
                                      expected)


@pytest.mark.parametrize("kind", ["gaussian", "rademacher", "hashed_gaussian"])
def test_wide_input_touches_only_its_blocks(kind):
    # 2**40 columns with int64 indices: each row's blocks generated alone
    # give the rows of the whole product, and the cost is the entries'.
    indices = np.array([5, 2**33, 2**40 - 1, 17, 300, 2**39], dtype=np.int64)
    X = sp.csr_matrix((np.arange(1.0, 7.0), indices, np.array([0, 3, 3, 6])),
                      shape=(3, 2**40))
    whole = projection.project(X, kind, 4, 20, n_jobs=2)
    for row in range(3):
        np.testing.assert_array_equal(projection.project(X[row], kind, 4, 20)[0], whole[row])
    assert not whole[1].any() and whole[0].any()
