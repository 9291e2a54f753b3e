"""The compiled minwise kernels against their plain references, bit for bit.

``utils/_hash_kernels.py`` (fmix32, multiply-add-shift, b-bit codes, the
polynomial hash) and ``minwise/_minwise_kernels.py`` (one-permutation hashing
with optimal densification, k independent minima), through their wrappers,
on random CSR rows of several shapes (empty rows, one-entry rows that
exhaust the probes, long rows), both index dtypes, indices beyond 2**32, and
k below and above the number of probes per bin.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from _minwise_reference import (
    P,
    bbit_code,
    fmix32,
    invert_probes,
    minwise_hash,
    minwise_positions,
    oph_positions,
    polynomial,
    probes,
)

from sklearn_sketch import CoREHasher
from sklearn_sketch.minwise import _positions
from sklearn_sketch.utils._hashing import (
    bbit_codes,
    draw_multiply_shift,
    draw_polynomial_hashes,
)
from sklearn_sketch.utils._hashing import fmix32 as fmix32_kernel
from sklearn_sketch.utils._hashing import minwise_hashes, polynomial_hash


def _rows(seed, n_features, index_dtype, max_length=300):
    """Canonical CSR rows of lengths 0, 1, 2 and random up to ``max_length``."""
    rng = np.random.RandomState(seed)
    lengths = np.r_[0, 1, 1, 2, 0, 5, rng.randint(1, max_length, size=8), 0]
    columns = [
        np.unique(rng.randint(0, n_features, size=n, dtype=np.int64)) for n in lengths
    ]
    lengths = [c.size for c in columns]
    indptr = np.r_[0, np.cumsum(lengths)].astype(index_dtype)
    indices = np.concatenate(columns).astype(index_dtype)
    return indices, indptr


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_hash_primitives_match_python_integers(index_dtype):
    rng = np.random.RandomState(0)
    top = np.iinfo(index_dtype).max
    keys = np.r_[0, 1, 2**31 - 1, rng.randint(0, top, size=200, dtype=np.int64)]
    keys = keys.astype(index_dtype)
    assert [int(m) for m in fmix32_kernel(keys)] == [fmix32(int(k)) for k in keys]
    coefficients = draw_multiply_shift(rng, 3)
    values = minwise_hashes(coefficients, keys)
    assert values.dtype == np.uint32 and values.shape == (3, keys.size)
    for j, (a, b) in enumerate(coefficients):
        assert [int(v) for v in values[j]] == [minwise_hash(a, b, k) for k in keys]
    polynomial_coefficients = draw_polynomial_hashes(rng, 1, 2)[0]
    hashed = polynomial_hash(polynomial_coefficients, keys)
    expected = [polynomial(polynomial_coefficients, k) for k in keys]
    assert [int(v) for v in hashed] == expected


@pytest.mark.parametrize("b_bits", [1, 8, 17, 32, None])
@pytest.mark.parametrize("n_keys", [2**10, 2**25, 2**32, 2**35 + 3, None])
@pytest.mark.parametrize("through_positions", [False, True])
def test_bbit_codes_match_the_reference(b_bits, n_keys, through_positions):
    rng = np.random.RandomState(1)
    k = 5
    coefficients = draw_multiply_shift(rng, k)
    top = 2**40 if n_keys is None else n_keys
    locations = rng.randint(0, top, size=(40, k), dtype=np.int64)
    locations[0] = top - 1
    locations[1] = np.minimum(top - 1, [0, 1, 2**32 - 1, 2**32, 7])
    width = 2**b_bits if b_bits else top
    offsets = np.arange(k, dtype=np.uint64) * np.uint64(width)
    out = np.empty(locations.shape, dtype=np.int64)
    if through_positions:
        flat = locations.ravel()[::-1].copy()
        positions = (flat.size - 1 - np.arange(flat.size)).reshape(locations.shape)
        bbit_codes(coefficients, flat, b_bits, out=out, offsets=offsets, n_keys=n_keys,
                   positions=positions.astype(np.int32))
    else:
        bbit_codes(
            coefficients, locations, b_bits, out=out, offsets=offsets, n_keys=n_keys
        )
    for r, row in enumerate(locations):
        for j, location in enumerate(row):
            code = int(location)
            if b_bits:
                code = bbit_code(*coefficients[j], location, b_bits, n_keys)
            assert int(out[r, j]) == code + j * width


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("n_components", [1, 7, 64, 300])
@pytest.mark.parametrize(
    "sparse_fill", [None, 0.0, 1e9], ids=["auto", "by-bin", "inverse"]
)
def test_oph_positions_match_the_reference(
    index_dtype, n_components, sparse_fill, monkeypatch
):
    # One-entry rows exhaust the probes (the circular fallback); k = 300
    # has fewer attempts (256) than bins. Densification bin by bin, from the
    # filled bins, or each where it is cheaper, gives the same positions.
    if sparse_fill is not None:
        monkeypatch.setattr(_positions, "SPARSE_FILL_FRACTION", sparse_fill)
    n_features = 2**35 if index_dtype is np.int64 else 5000
    indices, indptr = _rows(n_components, n_features, index_dtype)
    rng = np.random.RandomState(n_components)
    permutation = draw_multiply_shift(rng, 1)[0]
    probe_hash = draw_polynomial_hashes(rng, 1, 2)[0]
    tables = _positions.densification_tables(probe_hash, n_components)
    n_attempts = min(n_components, _positions.MAX_PROBES)
    table = probes(probe_hash, n_components, n_attempts)
    np.testing.assert_array_equal(tables[0], np.array(table).T)
    expected = oph_positions(indices, indptr, permutation, table)
    out = np.empty(expected.shape, dtype=index_dtype)
    _positions.oph_positions(indices, indptr, permutation, tables, out=out)
    np.testing.assert_array_equal(out, expected)
    # A slice of the rows (positions counted like its indptr) gives the same.
    start, stop = 3, 9
    part = indptr[start : stop + 1]
    positions = _positions.oph_positions(
        indices[part[0] : part[-1]], part, permutation, tables
    )
    first = np.count_nonzero(np.diff(indptr[: start + 1]))
    np.testing.assert_array_equal(positions, expected[first : first + len(positions)])


@pytest.mark.parametrize("n_bins, n_attempts", [(1, 1), (5, 1), (1, 4), (13, 6), (300, 256)])
@pytest.mark.parametrize(
    "coefficients",
    [None, (0, 0), (P - 1, P - 1), (1, P - 1), (P - 1, 0), (2**60 + 12345, 2**61 - 3)],
    ids=["drawn", "zero", "largest", "wrap-each-key", "negative-slope", "large"],
)
def test_probe_tables_match_the_reference(n_bins, n_attempts, coefficients):
    # The kernel steps the linear hash from key to key by additions modulo
    # P: slopes and intercepts at the edges of [0, P) wrap at every step.
    if coefficients is None:
        coefficients = draw_polynomial_hashes(np.random.RandomState(n_bins), 1, 2)[0]
    expected = np.array(probes(coefficients, n_bins, n_attempts))
    got = _positions.densification_probes(np.array(coefficients, dtype=np.uint64),
                                          n_bins, n_attempts)
    assert got.dtype == np.uint32
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(
    "n_bins, n_attempts", [(1, 1), (5, 1), (1, 4), (7, 7), (13, 6)]
)
def test_inverse_probe_lists_match_the_reference(n_bins, n_attempts):
    # The inverse lists the densification from the filled bins reads, on
    # mixed probe tables and on tables whose bins hit one bin, or few.
    rng = np.random.RandomState(n_bins * 100 + n_attempts)
    tables = [
        _positions.densification_probes(draw_polynomial_hashes(rng, 1, 2)[0],
                                        n_bins, n_attempts),
        np.zeros((n_bins, n_attempts), dtype=np.intp),
        rng.randint(0, min(n_bins, 2), size=(n_bins, n_attempts)),
    ]
    for table in tables:
        expected = invert_probes(table.tolist())
        result = _positions.invert_probes(np.ascontiguousarray(table.T, dtype=np.uint32))
        for got, want, dtype in zip(result, expected, (np.uint64, np.int64)):
            assert got.dtype == dtype
            np.testing.assert_array_equal(got, np.array(want, dtype=dtype))


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("code_dtype", [np.int32, np.int64])
@pytest.mark.parametrize(
    "n_components, b_bits", [(1, 8), (7, 1), (64, 17), (300, None)]
)
def test_oph_codes_are_the_codes_of_the_oph_positions(
    index_dtype, code_dtype, n_components, b_bits
):
    # The one-pass kernel gives, bit for bit, the b-bit codes (32-bit word)
    # or the locations of the positions of one-permutation hashing, on any
    # slice of the rows.
    n_features = 5000
    indices, indptr = _rows(n_components + 1, n_features, index_dtype)
    rng = np.random.RandomState(n_components)
    permutation = draw_multiply_shift(rng, 1)[0]
    probe_hash = draw_polynomial_hashes(rng, 1, 2)[0]
    tables = _positions.densification_tables(probe_hash, n_components)
    coefficients = draw_multiply_shift(rng, n_components)
    width = 2**b_bits if b_bits else n_features
    offsets = np.arange(n_components, dtype=np.uint64) * np.uint64(width)
    for start, stop in [(0, len(indptr) - 1), (3, 9)]:
        part = indptr[start : stop + 1]
        rows = indices[part[0] : part[-1]]
        positions = _positions.oph_positions(rows, part, permutation, tables)
        expected = bbit_codes(
            coefficients, indices, b_bits, out=np.empty(positions.shape, code_dtype),
            offsets=offsets, n_keys=n_features, positions=positions,
        )
        out = np.full(positions.shape, -1, dtype=code_dtype)
        _positions.oph_codes(
            rows, part, permutation, tables, coefficients, b_bits, n_features, offsets,
            out,
        )
        np.testing.assert_array_equal(out, expected)
    if b_bits is not None:
        # Keys too wide for the 32-bit word: refused (the positions path
        # serves them).
        with pytest.raises(ValueError, match="64-bit word"):
            _positions.oph_codes(
                indices, indptr, permutation, tables, coefficients, b_bits, 2**33,
                offsets, out,
            )


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("n_components", [1, 9])
def test_minwise_positions_match_the_reference(index_dtype, n_components, monkeypatch):
    n_features = 2**33 if index_dtype is np.int64 else 3000
    indices, indptr = _rows(5, n_features, index_dtype, 60)
    coefficients = draw_multiply_shift(np.random.RandomState(2), n_components)
    expected = minwise_positions(indices, indptr, coefficients)
    np.testing.assert_array_equal(
        _positions.minwise_positions(indices, indptr, coefficients), expected
    )
    # Blocks of hashes of any size give the same positions.
    monkeypatch.setattr(_positions, "MAX_CHUNK_NNZ", 1)
    out = np.empty(expected.shape, dtype=np.int32)
    _positions.minwise_positions(indices, indptr, coefficients, out=out)
    np.testing.assert_array_equal(out, expected)


def test_ties_go_to_the_smallest_coordinate(monkeypatch):
    # Two coordinates sharing a 32-bit hash value: the smaller one wins in
    # its bin (oph) and as the minimum (minwise), whatever the order.
    from sklearn_sketch.minwise import _minwise_kernels

    hashes = np.array([7, 3, 3, 9], dtype=np.uint32)
    indptr = np.array([0, 4])
    out = np.empty((1, 1), dtype=np.int64)
    _minwise_kernels._minwise_positions(hashes[None], indptr, 0, out)
    assert out[0, 0] == 1
    tables = _positions.densification_tables(np.array([1, 2], dtype=np.uint64), 1)
    positions = _positions.binned_positions(hashes, hashes, indptr, tables)
    assert positions[0, 0] == 1


@pytest.mark.parametrize("hashing", ["oph", "minwise"])
def test_codes_of_wide_locations_do_not_depend_on_other_rows(hashing):
    # 2**35 columns: a row's codes are the same hashed alone or next to rows
    # with locations beyond 32 bits (every location is folded alike).
    n_features = 2**35
    small = sp.csr_matrix(
        (np.ones(3), ([0, 0, 0], [1, 5, 2**20])), shape=(1, n_features)
    )
    wide = sp.csr_matrix((np.ones(2), ([0, 0], [3, 2**34 + 9])), shape=(1, n_features))
    X = sp.vstack([small, wide]).tocsr()
    hasher = CoREHasher(
        16, kernel="resemblance", hashing=hashing, b_bits=8, random_state=0
    )
    hasher.fit(X)
    together = hasher.transform(X).toarray()
    np.testing.assert_array_equal(together[0], hasher.transform(small).toarray()[0])
    np.testing.assert_array_equal(together[1], hasher.transform(wide).toarray()[0])


def test_wrappers_import_no_kernel_module():
    # The kernel modules (and numba) are imported when a transform first
    # calls them, never by importing the modules that wrap them.
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import sklearn_sketch.minwise._core_hasher\n"
        "import sklearn_sketch.minwise._positions\n"
        "import sklearn_sketch.utils._hashing\n"
        "kernels = ('sklearn_sketch.minwise._minwise_kernels',\n"
        "           'sklearn_sketch.utils._hash_kernels')\n"
        "loaded = [m for m in kernels if m in sys.modules]\n"
        "print(loaded)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "params",
    [
        dict(kernel="core1", projection="gaussian"),
        dict(kernel="core1", projection="rademacher", hashing="minwise"),
        dict(kernel="core1", projection="hashed_gaussian"),
        dict(kernel="core2"),
        dict(kernel="resemblance", b_bits=None),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_jobs_sharing_a_chunk_give_the_same_bits(params, dtype, monkeypatch):
    # The jobs share the hashing (pieces of rows), the projection's feature
    # groups (several groups: tiny generated blocks), its column groups
    # ("hashed_gaussian") or the row slices of a single product.
    from sklearn_sketch.minwise import _minwise_codes, _projection

    monkeypatch.setattr(_projection, "HASHED_BUCKETS", 64)
    monkeypatch.setattr(_minwise_codes, "_MAX_PIECE_WORK", 97)
    X = sp.random(120, 3000, density=0.02, format="csr", random_state=0, dtype=dtype)
    X = (sp.diags((np.arange(120) % 9 != 0).astype(dtype)) @ X).tocsr()  # empty rows
    X.eliminate_zeros()
    for block_bytes in (2**30, 1):
        monkeypatch.setattr(_projection, "PROJECTION_BLOCK_BYTES", block_bytes)
        outputs = [
            CoREHasher(300, random_state=0, n_jobs=n_jobs, **params).fit_transform(X)
            for n_jobs in (1, 2, 3)
        ]
        for Z in outputs[1:]:
            assert Z.dtype == dtype
            np.testing.assert_array_equal(Z.indices, outputs[0].indices)
            np.testing.assert_array_equal(Z.indptr, outputs[0].indptr)
            np.testing.assert_array_equal(Z.data, outputs[0].data)


def test_a_failing_projection_group_raises_without_hanging_the_jobs(monkeypatch):
    # The jobs add their groups' products in group order: when one group
    # fails, the jobs waiting for its turn stop and the error reaches the
    # caller.
    from sklearn_sketch.minwise import _projection
    from sklearn_sketch.utils._counter_random import FEATURE_BLOCK

    original = _projection._times_generated_rows

    def failing(part, generate, seed, first_row, n_columns, **options):
        if first_row == FEATURE_BLOCK:  # the second group (one block each)
            raise ValueError("group 1 failed")
        return original(part, generate, seed, first_row, n_columns, **options)

    monkeypatch.setattr(_projection, "_times_generated_rows", failing)
    monkeypatch.setattr(_projection, "PROJECTION_BLOCK_BYTES", 1)
    X = sp.random(50, 3000, density=0.05, format="csr", random_state=0)
    with pytest.raises(ValueError, match="group 1 failed"):
        _projection.project(X, "gaussian", 3, 16, n_jobs=2)
