"""The compiled Walsh-Hadamard kernels against their plain references, bit for bit.

Rule: the transform is the radix-2 butterfly network, levels ``half = 1, 2,
..., d / 2`` in that order, and the SORF, Fastfood and TensorSRHT products
are fixed sequences of its sums and of diagonal products; the kernels must
give exactly the bits of the references in ``_hadamard_reference.py``
(every dtype, length, block count and input, signed zeros included),
whatever rows share their call (they transform groups of rows together).
"""

import numpy as np
import pytest
import scipy.sparse as sp
from _hadamard_reference import fastfood, fwht_row, sorf, srht, sylvester
from numpy.testing import assert_allclose, assert_array_equal

from sklearn_sketch import OrthogonalRBFSampler, TensorSRHT
from sklearn_sketch.polynomial._hadamard_blocks import srht_inputs
from sklearn_sketch.rbf._fourier_features import (
    fastfood_projections,
    place_angles,
    sorf_projections,
)
from sklearn_sketch.utils._hadamard import fwht

DTYPES = [np.float32, np.float64]
LENGTHS = [2**k for k in range(13)]


def _rows(n, d, dtype, seed=0):
    """Values over many binades (so any other order of the sums changes bits),
    an all-zero row, and negative zeros."""
    rng = np.random.RandomState(seed)
    U = rng.randn(n, d) * np.exp(3 * rng.randn(n, d))
    U[0] = 0.0
    if n > 1:
        U[1, ::3] = -0.0
    return U.astype(dtype)


def _same_bits(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    # Bytes, not values: +0.0 and -0.0 differ.
    assert a.tobytes() == b.tobytes(), np.argwhere(a.view(np.uint8) != b.view(np.uint8))[:5]


def test_reference_sylvester_is_scipys():
    from scipy.linalg import hadamard

    assert_array_equal(sylvester(32, np.float64), hadamard(32))


@pytest.mark.parametrize("d", LENGTHS)
def test_reference_is_the_sylvester_product(d):
    # The oracle itself: integer rows (exact sums) give the product with
    # the Sylvester matrix exactly, and real rows within float64 rounding
    # of the log2(d) levels, relative to the row's norm.
    rng = np.random.RandomState(d)
    H = sylvester(d, np.float64)
    integers = rng.randint(-1000, 1000, size=(3, d)).astype(np.float64)
    assert_array_equal(np.array([fwht_row(u) for u in integers]), integers @ H)
    reals = rng.randn(3, d)
    exact = reals @ H
    bound = 4 * max(np.log2(d), 1) * np.finfo(np.float64).eps * np.sqrt(d)
    for u, expected in zip(reals, exact):
        assert np.abs(fwht_row(u) - expected).max() <= bound * np.linalg.norm(u)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("d", LENGTHS)
def test_fwht_is_the_reference_bit_for_bit(d, dtype):
    # 19 rows: two whole groups of the kernel and a partial one.
    U = _rows(19, d, dtype, seed=d)
    expected = np.array([fwht_row(u) for u in U])
    result = fwht(U.copy())
    _same_bits(result, expected)
    # Each row alone, every prefix of the rows, and a 3-d batch get the same bits.
    _same_bits(fwht(U[3:4].copy()), expected[3:4])
    for n in (1, 5, 8, 9, 16):
        _same_bits(fwht(U[-n:].copy()), expected[-n:])
    batch = np.repeat(U[2:3], 6, axis=0).reshape(2, 3, d)
    _same_bits(fwht(batch).reshape(6, d), np.repeat(expected[2:3], 6, axis=0))


@pytest.mark.parametrize("dtype", DTYPES)
def test_fwht_in_place_and_of_other_layouts(dtype):
    U = _rows(6, 256, dtype)
    expected = fwht(U.copy())
    V = U.copy()
    assert fwht(V) is V
    _same_bits(V, expected)
    # F-ordered, read-only and integer input: a transformed copy.
    F = np.asfortranarray(U)
    _same_bits(np.ascontiguousarray(fwht(F)), expected)
    _same_bits(F, np.asfortranarray(U))
    R = U.copy()
    R.setflags(write=False)
    _same_bits(fwht(R), expected)
    assert fwht(np.ones((2, 8), dtype=np.int64)).dtype == np.float64
    assert fwht(np.ones((0, 16), dtype=dtype)).shape == (0, 16)
    with pytest.raises(ValueError, match="power-of-two"):
        fwht(np.ones((2, 6), dtype=dtype))


def _diagonals(rng, n_blocks, width, dtype):
    signs = (1 - 2 * rng.randint(0, 2, size=(3, n_blocks, width))).astype(dtype)
    permutations = np.argsort(rng.rand(n_blocks, width), axis=1).astype(np.intp)
    gaussian = rng.randn(n_blocks, width).astype(dtype)
    scales = rng.rand(n_blocks, width).astype(dtype)
    return signs, permutations, gaussian, scales


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n_columns, width, n_blocks", [(5, 16, 1), (20, 32, 3), (100, 128, 2),
                                                        (784, 1024, 2), (3000, 4096, 1)])
def test_sorf_and_fastfood_products_are_the_reference_bit_for_bit(n_columns, width, n_blocks,
                                                                   dtype):
    rng = np.random.RandomState(width + n_blocks)
    # 11 rows: a whole group of the kernels and a partial one.
    X = _rows(11, n_columns, dtype, seed=width)
    signs, permutations, gaussian, scales = _diagonals(rng, n_blocks, width, dtype)
    _same_bits(sorf_projections(X, signs, scales), sorf(X, signs, scales))
    _same_bits(
        fastfood_projections(X, signs[0], permutations, gaussian, scales),
        fastfood(X, signs[0], permutations, gaussian, scales),
    )
    # Sparse and F-ordered rows are the same rows.
    _same_bits(sorf_projections(sp.csr_matrix(X), signs, scales), sorf(X, signs, scales))
    _same_bits(sorf_projections(np.asfortranarray(X), signs, scales), sorf(X, signs, scales))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n_components", [1, 2, 31, 32, 33, 64, 95, 96, 97])
def test_projections_placed_as_features_are_the_reference_bit_for_bit(n_components, dtype):
    # Rule: with n_pairs, the kernels write each projection where its
    # features go (columns c and n_pairs + c, the last one alone for an odd
    # width): the reference's projections placed by place_angles, bit for
    # bit, for any number of blocks (width 32 here), a partial last block
    # and whole and partial groups of rows.
    width, n_blocks = 32, -(-((n_components + 1) // 2) // 32)
    rng = np.random.RandomState(n_components)
    X = _rows(11, 20, dtype, seed=n_components)
    signs, permutations, gaussian, scales = _diagonals(rng, n_blocks, width, dtype)
    n_pairs = n_components // 2
    for rows in (X, X[:8], X[3:4]):
        for project, reference in (
            (lambda *a, **k: sorf_projections(*a, signs, scales, **k), sorf(rows, signs, scales)),
            (lambda *a, **k: fastfood_projections(*a, signs[0], permutations, gaussian, scales,
                                                  **k),
             fastfood(rows, signs[0], permutations, gaussian, scales)),
        ):
            expected = np.full((rows.shape[0], n_components), np.nan, dtype)
            place_angles(reference, expected)
            out = np.full((rows.shape[0], n_components), np.nan, dtype)
            project(rows, out=out, n_pairs=n_pairs)
            _same_bits(out, expected)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n_features, n_components, degree, coef0",
                         [(5, 20, 3, 1.3), (30, 100, 2, 0.0), (100, 700, 1, 0.5),
                          (6000, 300, 2, 0.5)])
def test_tensor_srht_is_the_reference_bit_for_bit(n_features, n_components, degree, coef0,
                                                   dtype):
    rng = np.random.RandomState(n_features)
    X = rng.randn(11, n_features) * (rng.rand(11, n_features) < 0.3)
    X[2] = 0.0
    X = X.astype(dtype)
    if n_features > 4096:
        X = sp.csr_matrix(X)
    sketch = TensorSRHT(n_components, degree=degree, gamma=0.7, coef0=coef0,
                        random_state=0).fit(X)
    inputs = list(srht_inputs(X, sketch.gamma, sketch.coef0, sketch.hadamard_size_,
                              sketch.hash_down_, degree, dtype))
    expected = srht(inputs, sketch._map.prepare(X, 1, 1), sketch.coordinates_, n_components)
    _same_bits(sketch.transform(X), expected)


@pytest.mark.parametrize("method", ["orf", "sorf", "fastfood"])
def test_float32_input_is_computed_in_float32(method):
    # Rule: float32 in, float32 computed (the frequencies cast once per call)
    # and out, within float32 rounding of the float64 features.
    rng = np.random.RandomState(0)
    X = rng.rand(40, 50)
    est = OrthogonalRBFSampler(64, gamma=0.05, method=method, random_state=0).fit(X)
    state = est._map.prepare(X.astype(np.float32), 1, 1)
    assert all(part.dtype in (np.float32, np.intp) for part in state)
    Z32 = est.transform(X.astype(np.float32))
    assert Z32.dtype == np.float32
    assert_allclose(Z32, est.transform(X), atol=2e-5)


@pytest.mark.parametrize("module", ["utils/_hadamard.py", "rbf/_fourier_features.py",
                                    "polynomial/_tensor_srht.py",
                                    "polynomial/_srht_product.py"])
def test_hadamard_users_import_numba_only_inside_functions(module):
    # Rule: importing the package compiles nothing and imports no numba, so
    # the modules around the kernels import them in the functions that call
    # them, never at module level.
    import ast
    from pathlib import Path

    import sklearn_sketch

    path = Path(sklearn_sketch.__file__).parent / module
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [alias.name for alias in node.names] + [getattr(node, "module", "") or ""]
            assert not any("numba" in n or n.endswith("_kernels") for n in names), names
