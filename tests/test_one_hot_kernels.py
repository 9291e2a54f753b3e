"""The compiled Gram matrix of one-hot block output (``minwise._one_hot_kernels``).

Its oracle is the product of the sparse matrices, ``Z @ Z.T`` (of their
patterns for the counts of agreeing columns): on
hand-written block rows whose codes agree often and seldom (b-bit codes of
few values, locations of many), with empty rows, float32 and float64
values and int32 and int64 indices; and on the output of every hasher of
the registry (``OneHotCodesMap.gram``), on dense and sparse input with
all-zero rows.
"""

from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import ESTIMATOR_REGISTRY, legal_input, make_estimator

from sklearn_sketch.minwise._one_hot import OneHotCodesMap
from sklearn_sketch.minwise._one_hot_kernels import one_hot_agreements, one_hot_gram

HASHERS = sorted(
    name for name, (cls, _) in ESTIMATOR_REGISTRY.items()
    if name.startswith(("CoREHasher", "MinMaxHasher"))
)


def _block_rows(rng, n_rows, k, width, dtype, index_dtype, empty):
    """CSR rows with one entry per block of ``width`` columns, or none."""
    nonempty = rng.rand(n_rows) > empty
    codes = rng.randint(0, width, size=(int(nonempty.sum()), k))
    indices = (codes + width * np.arange(k)).astype(index_dtype).ravel()
    data = rng.standard_normal(indices.size).astype(dtype)
    indptr = np.r_[0, np.cumsum(nonempty * k)].astype(index_dtype)
    return sp.csr_matrix((data, indices, indptr), shape=(n_rows, k * width))


@pytest.mark.parametrize("width", [1, 2, 16, 100_000])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_the_gram_matrix_is_the_product(width, dtype, index_dtype):
    rng = np.random.RandomState(width)
    for n_rows, k in [(0, 3), (1, 1), (9, 1), (40, 7), (33, 64)]:
        Z = _block_rows(rng, n_rows, k, width, dtype, index_dtype, empty=0)
        out = np.full((n_rows, n_rows), np.nan)
        columns = Z.indices.reshape(n_rows, k)
        one_hot_gram(columns, Z.data.astype(np.float64).reshape(n_rows, k), out)
        expected = (Z.astype(np.float64) @ Z.astype(np.float64).T).toarray()
        np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)
        agreements = np.full((n_rows, n_rows), -1.0)
        one_hot_agreements(columns, agreements)
        pattern = Z.astype(bool).astype(np.float64)
        np.testing.assert_array_equal(agreements, (pattern @ pattern.T).toarray())


@pytest.mark.parametrize("name", HASHERS)
@pytest.mark.parametrize("sparse", [False, True])
def test_every_hasher_gram_is_the_product_of_its_features(name, sparse):
    rng = np.random.RandomState(1)
    X = rng.rand(30, 12) * (rng.rand(30, 12) < 0.4)
    X[[0, 7]] = 0
    X = legal_input(name, X)
    X = sp.csr_matrix(X) if sparse else X
    estimator = make_estimator(name).fit(X)
    assert isinstance(estimator._map, OneHotCodesMap)
    Z = estimator.transform(X)
    gram = estimator._map.gram(Z)
    assert gram.dtype == np.float64
    np.testing.assert_allclose(gram, (Z @ Z.T).toarray(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_the_map_gram_of_rows_with_empty_ones(index_dtype):
    # Empty rows give zero rows and columns of the Gram matrix.
    rng = np.random.RandomState(5)
    k, width = 9, 4
    Z = _block_rows(rng, 50, k, width, np.float32, index_dtype, empty=0.3)
    sketch_map = SimpleNamespace(n_components=k)
    expected = (Z.astype(np.float64) @ Z.astype(np.float64).T).toarray()
    np.testing.assert_allclose(OneHotCodesMap.gram(sketch_map, Z), expected, rtol=1e-12, atol=1e-12)


def test_rows_without_one_entry_per_block_take_the_product():
    # Values that are exactly 0 (a Rademacher projection of a row can sum to
    # 0) leave a row fewer than k stored entries: its entries no longer sit
    # at their block's position, and the Gram matrix is the product's.
    rng = np.random.RandomState(7)
    k, width = 6, 3
    Z = _block_rows(rng, 20, k, width, np.float64, np.int32, empty=0.2)
    Z.data[rng.rand(Z.data.size) < 0.2] = 0.0
    Z.eliminate_zeros()
    sketch_map = SimpleNamespace(n_components=k)
    expected = (Z @ Z.T).toarray()
    gram = OneHotCodesMap.gram(sketch_map, Z)
    np.testing.assert_allclose(gram, expected, rtol=1e-12, atol=1e-12)
