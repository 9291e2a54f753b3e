"""The hash families (``utils/_hashing.py``): exact arithmetic, independence
and the b-bit codes of multiply-add-shift."""

import numpy as np
import pytest
from conftest import statistical_seed
from scipy import stats

from sklearn_sketch.utils._hashing import (
    MERSENNE_PRIME,
    draw_polynomial_hashes,
    hash_to_buckets,
    hash_to_signs,
    polynomial_hash,
)

P = int(MERSENNE_PRIME)


def _python_polynomial(coefficients, key):
    value = 0
    for coefficient in coefficients:
        value = (value * key + int(coefficient)) % P
    return value


def test_mulmod_matches_python_integers():
    # The compiled primitive, called on scalars: the partly reduced product.
    from sklearn_sketch.utils._hash_kernels import _mulmod

    rng = np.random.RandomState(0)
    a = rng.randint(0, P, size=2000, dtype=np.int64).astype(np.uint64)
    b = rng.randint(0, P, size=2000, dtype=np.int64).astype(np.uint64)
    # Extremes, including the partly reduced value P itself, and small keys.
    a[:4] = [0, P - 1, P - 1, P]
    b[:4] = [P - 1, P - 1, 1, P]
    b[1000:] >>= np.uint64(30)  # < 2**31
    for x, y in zip(a, b):
        z = _mulmod(x, y)
        assert int(z) <= P and int(z) % P == int(x) * int(y) % P


@pytest.mark.parametrize("independence", [1, 2, 4, 5])
def test_polynomial_hash_matches_python_integers(independence):
    rng = np.random.RandomState(independence)
    coefficients = draw_polynomial_hashes(rng, 3, independence)
    assert coefficients.shape == (3, independence)
    keys = np.array([0, 1, 2, 2**31 - 1, 2**31, 2**40 + 3, P - 1], dtype=np.uint64)
    for row in coefficients:
        values = polynomial_hash(row, keys)
        assert values.dtype == np.uint64
        assert [int(v) for v in values] == [_python_polynomial(row, int(k)) for k in keys]
        # Keys of any integer dtype and shape give the same values.
        assert np.array_equal(polynomial_hash(row, keys[:4].astype(np.int32)), values[:4])
        assert np.array_equal(polynomial_hash(row, keys.reshape(7, 1)).ravel(), values)


def _hash_many(coefficients, key):
    """Values of ``key`` under every hash in ``coefficients`` (n_hashes, k)."""
    keys = np.full(coefficients.shape[0], key, dtype=np.uint64)
    return polynomial_hash(coefficients.T, keys)


@pytest.mark.statistical
def test_bucket_hash_is_pairwise_independent():
    # Two structured keys (neighbouring feature indices); over many draws of
    # a 2-wise independent hash the pair of buckets must be uniform on
    # R x R. A chi-square test at level 1e-4 flakes once in 10,000 seeds.
    n_draws, n_buckets = 40000, 8
    coefficients = draw_polynomial_hashes(np.random.RandomState(statistical_seed(0)), n_draws, 2)
    first = hash_to_buckets(_hash_many(coefficients, 1000), n_buckets)
    second = hash_to_buckets(_hash_many(coefficients, 1001), n_buckets)
    counts = np.bincount(first * n_buckets + second, minlength=n_buckets**2)
    assert stats.chisquare(counts).pvalue > 1e-4
    # The collision rate is 1/R within 4 standard errors.
    rate = np.mean(first == second)
    standard_error = np.sqrt((1 / n_buckets) * (1 - 1 / n_buckets) / n_draws)
    assert abs(rate - 1 / n_buckets) < 4 * standard_error


@pytest.mark.statistical
def test_sign_hash_is_four_wise_independent():
    # Four keys, 4-wise independent signs: the 16 joint sign patterns are
    # uniform, so every product of 2, 3 or 4 distinct signs has mean 0.
    n_draws = 40000
    coefficients = draw_polynomial_hashes(np.random.RandomState(statistical_seed(1)), n_draws, 4)
    keys = [7, 8, 9, 2**35 + 1]
    signs = np.array([hash_to_signs(_hash_many(coefficients, k), np.float64) for k in keys])
    patterns = ((signs > 0).astype(int) * (1 << np.arange(4))[:, None]).sum(axis=0)
    assert stats.chisquare(np.bincount(patterns, minlength=16)).pvalue > 1e-4
    standard_error = 1 / np.sqrt(n_draws)  # each product is +-1 with mean 0
    for subset in [(0, 1), (1, 2), (0, 1, 2), (0, 1, 2, 3), (0, 3)]:
        product = np.prod(signs[list(subset)], axis=0)
        assert abs(product.mean()) < 4 * standard_error


@pytest.mark.statistical
def test_linear_hash_signs_fail_the_four_wise_check():
    # Negative control for the test above: a linear (2-wise) family is
    # pairwise but not 4-wise independent. For keys in arithmetic progression
    # h(7) + h(10) = h(8) + h(9) (mod P), which ties the four parities
    # together: the mean of the 4-fold sign product is about 1/3, not 0.
    n_draws = 40000
    coefficients = draw_polynomial_hashes(np.random.RandomState(statistical_seed(2)), n_draws, 2)
    signs = np.array(
        [hash_to_signs(_hash_many(coefficients, k), np.float64) for k in (7, 8, 9, 10)]
    )
    standard_error = 1 / np.sqrt(n_draws)
    assert abs((signs[0] * signs[1]).mean()) < 4 * standard_error
    assert np.prod(signs, axis=0).mean() > 20 * standard_error


def test_hash_to_buckets_and_signs_ranges():
    values = np.array([0, 1, 2, 3, P - 1], dtype=np.uint64)
    assert hash_to_buckets(values, 3).tolist() == [0, 1, 2, 0, (P - 1) % 3]
    signs = hash_to_signs(values, np.float32)
    assert signs.dtype == np.float32
    assert signs.tolist() == [1, -1, 1, -1, 1 - 2 * ((P - 1) & 1)]


@pytest.mark.parametrize("n_columns, start", [(100, 0), (100, 64), (7, 0)])
def test_counter_generated_blocks_of_no_features_are_empty(n_columns, start):
    # A chunk whose rows touch no feature asks for zero rows of the matrix.
    from sklearn_sketch.utils._counter_random import gaussian_block, rademacher_block

    for block in (gaussian_block, rademacher_block):
        result = block(3, np.array([], dtype=np.int64), start, n_columns, n_columns, np.float32)
        assert result.shape == (0, n_columns - start)
        assert result.dtype == np.float32


@pytest.mark.parametrize(
    "n_keys, b_bits, word_bits",
    [(2**17, 8, 32), (2**25, 8, 32), (2**25 + 1, 8, 64), (None, 8, 64), (64, 32, 64)],
)
def test_bbit_codes_follow_multiply_add_shift(n_keys, b_bits, word_bits):
    # ((a * key + b) mod 2**w) >> (w - b) with w = 32 (the low halves of a
    # and b) exactly when keys below n_keys allow it (w >= u + b - 1), with
    # Python integers as the reference; offsets are added per column.
    from sklearn_sketch.utils._hashing import bbit_codes, draw_multiply_shift

    rng = np.random.RandomState(0)
    coefficients = draw_multiply_shift(rng, 3)
    top = 2**25 if n_keys is None else n_keys
    locations = rng.randint(0, top, size=(50, 3)).astype(np.int32)
    locations[0] = top - 1
    offsets = np.array([0, 1000, 2000], dtype=np.uint64)
    # (A caller gives a 32-bit output only when the codes fit.)
    for dtype in (np.int32, np.int64) if b_bits < 31 else (np.int64,):
        out = np.empty(locations.shape, dtype=dtype)
        bbit_codes(coefficients, locations, b_bits, out=out, offsets=offsets, n_keys=n_keys)
        mod = 2**word_bits
        expected = [
            [
                ((int(coefficients[j, 0]) % mod * int(x) + int(coefficients[j, 1]) % mod) % mod)
                >> (word_bits - b_bits)
                for j, x in enumerate(row)
            ]
            for row in locations
        ]
        np.testing.assert_array_equal(out, np.array(expected) + offsets.astype(np.int64))
