"""The fast similarity sketch (``CoREHasher(hashing="fss")``).

* The compiled kernel (``minwise/_minwise_kernels.py``) against the plain
  definition of ``_fss_reference`` bit for bit: both index dtypes, empty and
  one-entry rows, indices up to ``2**63 - 1``, rows that fill every bin in
  the first round and rows that need the last ``k`` rounds, a piece of rows
  that does not start at position 0; its mixer is ``utils._hashing.mix64``.
* The one-pass kernel writes the b-bit codes (or locations) of those
  positions, bit for bit.
* Through the estimator: the codes are the locations of those positions
  (float32 and float64), and the output does not depend on ``n_jobs``, on
  the pieces of rows, on the rows transformed with it, or on pickling.
* Statistics (many seeds): every code of every pair collides with
  probability its resemblance ``J`` (tiny, nested, disjoint, identical sets,
  consecutive integers, huge indices), and the estimate's variance is at
  most that of ``k`` independent minwise hashes, ``J (1 - J) / k``.
"""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from _fss_reference import fss_positions as reference_positions
from _fss_reference import mix64 as reference_mix64
from conftest import statistical_seed

from sklearn_sketch import CoREHasher
from sklearn_sketch.minwise import _minwise_codes
from sklearn_sketch.minwise._positions import fss_codes, fss_positions
from sklearn_sketch.utils._hashing import bbit_codes, draw_multiply_shift, mix64

TOP_INDEX = 2**63 - 1


def test_mixer_is_the_package_splitmix64_finalizer():
    from sklearn_sketch.minwise._minwise_kernels import _mix64

    words = draw_multiply_shift(np.random.RandomState(0), 100).ravel()
    words = np.r_[words, np.array([0, 1, 2**63, 2**64 - 1], dtype=np.uint64)]
    expected = [int(v) for v in mix64(words.copy())]
    assert [int(_mix64(w)) for w in words] == expected
    assert [reference_mix64(int(w)) for w in words] == expected


def _rows(seed, n_features, index_dtype, max_length=30):
    """CSR rows of lengths 0, 1, 2, 3 and random ones, as (indices, indptr)."""
    rng = np.random.RandomState(seed)
    lengths = np.r_[0, 1, 2, 0, 3, rng.randint(1, max_length, size=8), 1, 0]
    high = min(n_features, np.iinfo(index_dtype).max)
    columns = [
        np.unique(high - 1 - rng.randint(0, min(high, 10**6), size=n, dtype=np.int64))
        for n in lengths
    ]
    indptr = np.r_[0, np.cumsum([c.size for c in columns])].astype(index_dtype)
    return np.concatenate(columns).astype(index_dtype), indptr


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("wide", [False, True])
@pytest.mark.parametrize("n_bins", [1, 7, 24])
def test_kernel_matches_the_definition(index_dtype, wide, n_bins):
    # n_features 40: many shared coordinates and rows of up to 30 entries,
    # which fill 24 bins only after many rounds (or, one-entry rows, never
    # before the last k rounds); wide: indices near the dtype's maximum.
    n_features = (TOP_INDEX if index_dtype == np.int64 else 2**31 - 1) if wide else 40
    indices, indptr = _rows(n_bins, n_features, index_dtype)
    seeds = draw_multiply_shift(np.random.RandomState(n_bins), 1)[0]
    expected = reference_positions(indices, indptr, seeds, n_bins)
    positions = fss_positions(indices, indptr, seeds, n_bins)
    np.testing.assert_array_equal(positions, expected)
    # A piece of rows starting at position indptr[4], into an int32 array.
    piece = indptr[4:]
    out = np.empty((expected.shape[0] - 2, n_bins), dtype=np.int32)
    fss_positions(indices[piece[0] :], piece, seeds, n_bins, out=out)
    np.testing.assert_array_equal(out, expected[2:])


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("n_bins, b_bits", [(7, 1), (24, 17), (24, None)])
def test_one_pass_codes_are_the_codes_of_the_positions(index_dtype, n_bins, b_bits):
    # The one-pass kernel gives, bit for bit, the b-bit codes (32-bit word)
    # or the locations of the sketch's positions, on any slice of the rows,
    # in the codes' dtype (that of the indices here, as in the estimator).
    n_features = 5000
    indices, indptr = _rows(n_bins, n_features, index_dtype)
    rng = np.random.RandomState(n_bins)
    seeds = draw_multiply_shift(rng, 1)[0]
    coefficients = draw_multiply_shift(rng, n_bins)
    width = 2**b_bits if b_bits else n_features
    offsets = np.arange(n_bins, dtype=np.uint64) * np.uint64(width)
    for start, stop in [(0, len(indptr) - 1), (3, 9)]:
        part = indptr[start : stop + 1]
        rows = indices[part[0] : part[-1]]
        positions = fss_positions(rows, part, seeds, n_bins)
        expected = bbit_codes(
            coefficients, indices, b_bits, out=np.empty(positions.shape, index_dtype),
            offsets=offsets, n_keys=n_features, positions=positions,
        )
        out = np.full(positions.shape, -1, dtype=index_dtype)
        fss_codes(rows, part, seeds, coefficients, b_bits, n_features, offsets, out)
        np.testing.assert_array_equal(out, expected)


def _sparse_rows(dtype, n_rows=90, n_features=700):
    X = sp.random(
        n_rows, n_features, density=0.03, format="csr", random_state=0, dtype=dtype
    )
    X = (sp.diags((np.arange(n_rows) % 7 != 0).astype(dtype)) @ X).tocsr()  # empty rows
    X.eliminate_zeros()
    X.data -= dtype(0.5)  # negative values too
    return X


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_codes_are_the_locations_of_the_sketch(dtype):
    X = _sparse_rows(dtype)
    k, n_features = 20, X.shape[1]
    params = dict(b_bits=None, hashing="fss", random_state=0)
    hasher = CoREHasher(k, kernel="resemblance", **params)
    Z = hasher.fit_transform(X)
    assert Z.dtype == dtype and Z.shape == (X.shape[0], k * n_features)
    seeds = hasher.hash_coefficients_[0]
    positions = reference_positions(X.indices, X.indptr, seeds, k)
    expected = X.indices[positions] + n_features * np.arange(k)
    np.testing.assert_array_equal(Z.indices.reshape(-1, k), expected)
    np.testing.assert_array_equal(Z.data, np.full(Z.nnz, 1 / np.sqrt(k), dtype=dtype))
    # core2 reads the values at the same positions.
    Z2 = CoREHasher(k, kernel="core2", **params).fit_transform(X)
    np.testing.assert_array_equal(Z2.indices, Z.indices)
    signs = np.sign(Z2.data.reshape(-1, k))
    np.testing.assert_array_equal(signs, np.sign(X.data[positions]))


@pytest.mark.parametrize(
    "params",
    [
        dict(kernel="resemblance", b_bits=None),
        dict(kernel="core2", b_bits=8),
        dict(kernel="core1", b_bits=4),
    ],
)
def test_same_bits_whatever_jobs_pieces_rows_or_pickling(params, monkeypatch):
    X = _sparse_rows(np.float64, n_rows=150, n_features=3000)
    hasher = CoREHasher(300, hashing="fss", random_state=0, **params).fit(X)
    reference = hasher.transform(X)
    copy = pickle.loads(pickle.dumps(hasher))
    monkeypatch.setattr(_minwise_codes, "_MAX_PIECE_WORK", 97)
    outputs = [
        hasher.set_params(n_jobs=2).transform(X),
        copy.transform(X),
        sp.vstack([copy.transform(X[:41]), copy.transform(X[41:])]).tocsr(),
    ]
    for Z in outputs:
        np.testing.assert_array_equal(Z.indices, reference.indices)
        np.testing.assert_array_equal(Z.indptr, reference.indptr)
        np.testing.assert_array_equal(Z.data, reference.data)


HUGE = 2**63 - 64
ADVERSARIAL_PAIRS = {
    "one in two": ([0], [0, 1]),
    "two overlapping pairs": ([1, 2], [2, 3]),
    "disjoint singletons": ([5], [7]),
    "identical": ([3, 9, 11], [3, 9, 11]),
    "nested": (list(range(10)), list(range(40))),
    "consecutive integers": (list(range(100, 160)), list(range(130, 200))),
    "huge indices": ([HUGE + i for i in range(20)], [HUGE + i for i in range(10, 30)]),
}


def _collisions(n_bins, n_draws, seed):
    """Per draw, pair and bin: whether the pair's two codes are equal."""
    rows = [row for pair in ADVERSARIAL_PAIRS.values() for row in pair]
    indptr = np.r_[0, np.cumsum([len(row) for row in rows])]
    indices = np.concatenate([np.array(row, dtype=np.int64) for row in rows])
    draws = draw_multiply_shift(np.random.RandomState(seed), n_draws)
    equal = np.empty((n_draws, len(ADVERSARIAL_PAIRS), n_bins), dtype=bool)
    for draw, seeds in enumerate(draws):
        locations = indices[fss_positions(indices, indptr, seeds, n_bins)]
        equal[draw] = locations[0::2] == locations[1::2]
    return equal


@pytest.mark.statistical
@pytest.mark.parametrize("n_bins", [8, 64])
def test_codes_collide_with_probability_the_resemblance(n_bins):
    n_draws = 2000
    equal = _collisions(n_bins, n_draws, statistical_seed(n_bins))
    for (name, pair), collide in zip(ADVERSARIAL_PAIRS.items(), equal.swapaxes(0, 1)):
        a, b = set(pair[0]), set(pair[1])
        J = len(a & b) / len(a | b)
        if J in (0, 1):
            assert (collide == bool(J)).all(), name
            continue
        # Every bin alone: a binomial rate (Bonferroni over the bins).
        rates = collide.mean(axis=0)
        assert np.abs(rates - J).max() < 4.5 * np.sqrt(J * (1 - J) / n_draws), name
        # The estimate: mean J, variance at most MinHash's J (1 - J) / k, up
        # to the standard errors of the mean and of a sample variance.
        estimates = collide.mean(axis=1)
        spread = estimates.std(ddof=1)
        assert abs(estimates.mean() - J) < 4 * spread / np.sqrt(n_draws), name
        bound = J * (1 - J) / n_bins
        assert spread**2 < bound * (1 + 4 * np.sqrt(2 / (n_draws - 1))), name
