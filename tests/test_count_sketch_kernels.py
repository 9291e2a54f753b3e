"""The compiled Count Sketch scatter against its plain reference, bit for bit.

Rules: each stored entry ``(i, j, v)`` adds ``sign_s(j) * v`` (rounded to the
output's dtype) to bucket ``h_s(j)`` of row ``i``, in stored order, then the
constant; the hashed kernels evaluate the polynomial hashes of
``utils._hashing`` per entry (the same buckets and signs as its NumPy
evaluation), for keys of any width below ``2**61 - 1``; int32 and int64
indices, dense and CSR input, float32 and float64 outputs, empty rows;
the estimators built on it give the same bits whichever kernel runs.
"""

import _count_sketch_reference as reference
import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal as _assert_array_equal

from sklearn_sketch import PolynomialTreeSketch, TensorSketch
from sklearn_sketch.utils._count_sketch import (
    count_sketch_hashed,
    count_sketch_rows,
    draw_hash_down,
    hash_down,
)
from sklearn_sketch.utils._hashing import (
    draw_polynomial_hashes,
    hash_to_buckets,
    hash_to_signs,
    polynomial_hash,
)

DTYPES = [np.float32, np.float64]


def assert_array_equal(actual, expected):
    """Equal values, shapes and dtypes (``strict=True`` of NumPy 1.24 and later)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape and actual.dtype == expected.dtype
    _assert_array_equal(actual, expected)


def _rows(n_rows, n_features, dtype, seed, index_dtype=np.int32, canonical=True):
    """CSR rows whose sums depend on the order of their entries (wide magnitudes),
    an empty row, and for ``canonical=False`` unsorted, duplicated indices."""
    rng = np.random.RandomState(seed)
    lengths = rng.randint(0, 12, n_rows)
    lengths[1] = 0
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(index_dtype)
    indices = rng.randint(0, n_features, indptr[-1]).astype(index_dtype)
    if canonical:
        X = sp.csr_matrix((np.ones(indptr[-1]), indices, indptr), shape=(n_rows, n_features))
        X.sum_duplicates()
        indptr, indices = X.indptr.astype(index_dtype), X.indices.astype(index_dtype)
    data = rng.randn(indptr[-1]) * 10.0 ** rng.randint(-6, 7, indptr[-1])
    X = sp.csr_matrix((data.astype(dtype), indices, indptr), shape=(n_rows, n_features))
    return _with_index_dtype(X, index_dtype)


def _with_index_dtype(X, index_dtype):
    """``X`` with indices of ``index_dtype`` (SciPy narrows them where they fit)."""
    X.indices, X.indptr = X.indices.astype(index_dtype), X.indptr.astype(index_dtype)
    assert X.indices.dtype == index_dtype
    return X


def _tables(n_sketches, n_keys, width, dtype, seed):
    rng = np.random.RandomState(seed)
    buckets = rng.randint(0, width, (n_sketches, n_keys))
    signs = (rng.choice([-1.0, 1.0], (n_sketches, n_keys)) * 0.7).astype(dtype)
    return buckets, signs


def _constants(n_sketches, width, dtype):
    buckets = np.arange(n_sketches) % width
    buckets[0] = -1  # sketch 0 has none
    return buckets, (np.arange(n_sketches) + 1.3).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("canonical", [True, False])
def test_tables_kernel_is_the_reference_bit_for_bit(dtype, index_dtype, canonical):
    width, n_sketches = 5, 3  # few buckets: many entries share one
    X = _rows(9, 40, dtype, 0, index_dtype, canonical)
    buckets, signs = _tables(n_sketches, 40, width, dtype, 1)
    constants = _constants(n_sketches, width, dtype)
    out = np.full((n_sketches, 9, width), np.nan, dtype=dtype)  # overwritten
    count_sketch_rows(X, buckets, signs, out, constants)
    expected = reference.count_sketch_reference(
        X, lambda s, j: buckets[s, j], lambda s, j: signs[s, j], n_sketches, width, dtype,
        constants,
    )
    assert_array_equal(out, expected)
    if canonical:
        out_dense = np.empty_like(out)
        count_sketch_rows(X.toarray(), buckets, signs, out_dense, constants)
        assert_array_equal(out_dense, expected)



def test_products_are_rounded_to_the_output_dtype_before_the_sum():
    # float64 values into float32 sketches: each product rounded to float32,
    # then added in float32 (not summed in float64 and rounded once).
    width, n_sketches = 3, 2
    X = _rows(9, 40, np.float64, 4)
    X.data *= 1 + 1e-9 * np.arange(X.nnz)  # bits beyond float32's precision
    buckets, signs = _tables(n_sketches, 40, width, np.float32, 5)
    expected = reference.count_sketch_reference(
        X, lambda s, j: buckets[s, j], lambda s, j: signs[s, j], n_sketches, width,
        np.float32,
    )
    for rows in (X, X.toarray()):
        out = np.empty((n_sketches, 9, width), dtype=np.float32)
        count_sketch_rows(rows, buckets, signs, out)
        assert_array_equal(out, expected)
    summed_once = np.zeros_like(expected, dtype=np.float64)
    for s in range(n_sketches):
        for i in range(X.shape[0]):
            for j, v in reference.stored_entries(X, i):
                summed_once[s, i, buckets[s, j]] += v * np.float64(signs[s, j])
    assert not np.array_equal(summed_once.astype(np.float32), expected)

def test_the_reference_order_is_not_vacuous():
    # Summing a row's entries in another order gives other bits: the
    # comparisons above do check the order.
    X = _rows(9, 40, np.float32, 0)
    buckets, signs = _tables(1, 40, 2, np.float32, 1)
    reversed_rows = X.copy()
    for i in range(X.shape[0]):
        part = slice(X.indptr[i], X.indptr[i + 1])
        reversed_rows.indices[part] = X.indices[part][::-1]
        reversed_rows.data[part] = X.data[part][::-1]
    functions = (lambda s, j: buckets[s, j], lambda s, j: signs[s, j])
    forward = reference.count_sketch_reference(X, *functions, 1, 2, np.float32)
    backward = reference.count_sketch_reference(reversed_rows, *functions, 1, 2, np.float32)
    assert not np.array_equal(forward, backward)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n_features", [40, 2**31 + 5, 2**61 - 2])
def test_hashed_kernel_is_the_reference_bit_for_bit(dtype, n_features):
    rng = np.random.RandomState(2)
    width, n_sketches = 7, 3
    narrow = _rows(8, 40, dtype, 3)
    # The widest keys the input allows (int64 indices).
    indices = narrow.indices.astype(np.int64) + np.int64(n_features - 40)
    X = _with_index_dtype(
        sp.csr_matrix((narrow.data, indices, narrow.indptr), shape=(8, n_features)), np.int64
    )
    bucket_hashes = draw_polynomial_hashes(rng, n_sketches, 2)
    sign_hashes = draw_polynomial_hashes(rng, n_sketches, 4)
    scales = np.array([0.5, -1.0, 1.7], dtype=dtype)
    shifts = np.array([0, 3, 6])
    constants = _constants(n_sketches, width, dtype)
    out = np.full((n_sketches, 8, width), np.nan, dtype=dtype)
    count_sketch_hashed(X, bucket_hashes, sign_hashes, scales, out, shifts, constants)
    functions = reference.hashed_functions(bucket_hashes, sign_hashes, scales, shifts, width)
    expected = reference.count_sketch_reference(
        X, *functions, n_sketches, width, dtype, constants
    )
    assert_array_equal(out, expected)


@pytest.mark.parametrize("dtype", DTYPES)
def test_hashed_kernel_on_dense_rows_is_the_tables_of_numpy_hashes(dtype):
    # The per-entry hash is _hashing's polynomial hash, to the bit.
    rng = np.random.RandomState(4)
    width, n_sketches = 11, 2
    X = _rows(10, 300, dtype, 5).toarray()
    bucket_hashes = draw_polynomial_hashes(rng, n_sketches, 2)
    sign_hashes = draw_polynomial_hashes(rng, n_sketches, 4)
    scales = np.array([1.0, np.sqrt(0.3)], dtype=dtype)
    keys = np.arange(300)
    buckets = np.stack([hash_to_buckets(polynomial_hash(h, keys), width) for h in bucket_hashes])
    signs = np.stack(
        [hash_to_signs(polynomial_hash(h, keys), dtype) * c for h, c in zip(sign_hashes, scales)]
    )
    hashed = count_sketch_hashed(
        X, bucket_hashes, sign_hashes, scales, np.empty((n_sketches, 10, width), dtype)
    )
    tables = count_sketch_rows(X, buckets, signs, np.empty((n_sketches, 10, width), dtype))
    assert_array_equal(hashed, tables)


def test_products_are_rounded_to_the_output_dtype_before_the_sum():
    # float64 values into float32 buckets: each product is rounded, then summed
    # in float32, as converting a float32 CSR matrix of the products would.
    X = _rows(6, 30, np.float64, 6)
    buckets, signs = _tables(1, 30, 2, np.float32, 7)
    out = count_sketch_rows(X, buckets, signs, np.empty((1, 6, 2), np.float32))
    products = sp.csr_matrix(
        ((X.data * signs[0, X.indices]).astype(np.float32), buckets[0, X.indices], X.indptr),
        shape=(6, 2),
    )
    assert_array_equal(out[0], products.toarray())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("coef0", [0.0, 0.8])
def test_hash_down_is_the_reference_of_the_augmented_rows(dtype, coef0):
    X = _rows(7, 2**33, dtype, 8, np.int64)
    assert X.indices.dtype == np.int64 and X.indices.max() > 2**31
    hashes = draw_hash_down(np.random.RandomState(9), 1)[0]
    U = hash_down(X, hashes, 16, 0.3, coef0, dtype)
    scale = np.array([np.sqrt(0.3)], dtype=dtype)
    functions = reference.hashed_functions([hashes[:2]], [hashes[2:]], scale, [0], 16)
    constants = None
    if coef0:
        bucket = reference.polynomial_hash_reference(hashes[:2], 2**33) % 16
        odd = reference.polynomial_hash_reference(hashes[2:], 2**33) & 1
        constants = ([bucket], [np.dtype(dtype).type(np.sqrt(coef0)) * (-1 if odd else 1)])
    expected = reference.count_sketch_reference(X, *functions, 1, 16, dtype, constants)[0]
    assert_array_equal(U, expected)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "make",
    [
        lambda: TensorSketch(16, degree=3, gamma=0.6, coef0=0.9, random_state=0),
        lambda: PolynomialTreeSketch(16, degree=3, gamma=0.6, coef0=0.9, random_state=0),
        lambda: PolynomialTreeSketch(
            16, degree=5, gamma=0.6, buckets="hash", random_state=0
        ),
    ],
)
def test_tabulated_and_hashed_paths_give_the_same_bits(make, dtype):
    # Sparse input with fewer stored entries than (wide) features is hashed
    # per entry; the same rows dense, or sparse with the hashes tabulated
    # (more stored entries than features), take the tables.
    X = _rows(40, 5000, dtype, 10)
    sketch = make().fit(X)
    hashed = sketch.transform(X[:3])  # nnz < n_features: per-entry hashes
    assert X[:3].nnz < X.shape[1]
    tabulated = sketch.transform(X[:3].toarray())
    assert_array_equal(hashed, tabulated)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n_features", [30, 2**40])
def test_unit_entries_are_the_reference(dtype, n_features):
    # ComplexToRealSketch(projection="rademacher"): entry (k, column) of W is
    # the unit complex number of the hash of key k * (n_features + 1) + column.
    from sklearn_sketch.polynomial._complex_projection import unit_entries

    coefficients = draw_polynomial_hashes(np.random.RandomState(11), 1, 4)[0]
    columns = np.array([0, 3, 29, n_features - 1, n_features], dtype=np.int64)
    scale = np.dtype(dtype).type(0.7)
    real = np.array([1.0, 0.0, -1.0, 0.0], dtype=dtype) * scale
    imag = np.array([0.0, 1.0, 0.0, -1.0], dtype=dtype) * scale
    m = 6
    out = np.full((columns.size, 2 * m), np.nan, dtype=dtype)
    row_keys = np.arange(m, dtype=np.uint64) * np.uint64(n_features + 1)
    unit_entries(coefficients, columns, row_keys, real, imag, out)
    for c, column in enumerate(columns):
        for k in range(m):
            key = k * (n_features + 1) + int(column)
            code = reference.polynomial_hash_reference(coefficients, key) & 3
            assert out[c, k] == real[code] and out[c, m + k] == imag[code]
