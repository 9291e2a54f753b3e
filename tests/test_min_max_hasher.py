"""MinMaxHasher and its consistent weighted sampling against the theory.

* DartMinHash (Christiani 2020): two rows draw the same dart with
  probability exactly ``K_MM = sum min / sum max``, for ANY pair of
  nonnegative rows; the winning dart's coordinate is ``i`` with probability
  ``x_i / |x|_1``, and two rows' coordinates agree ("0-bit") with the
  probability of the formula of :func:`_zero_bit_probability`. Checked by
  Monte Carlo within 4 standard errors (a false alarm has probability ~6e-5
  per check), over several seeds, on pairs chosen for their kernel:
  identical (1), disjoint (0), scaled (``1 / c``), single entries, short
  dense rows, long sparse rows, partly overlapping; in float32 and float64,
  at scales from subnormal to 1e300; for "gmm" on real rows.
* The estimator's default codes are the full samples: its inner products
  have mean ``K + (1 - K) 2**-b``.
* The compiled sampler gives the samples of the plain reference
  (tests/_cws_reference.py), bit for bit, whatever its rounds' rank bounds;
  a row's samples do not depend on the other rows; GMM is min-max on the split rows; zero rows give empty
  rows.
"""

import sys

import _cws_reference as reference
import numpy as np
import pytest
import scipy.sparse as sp
from conftest import require_data, statistical_seed, statistical_seeds
from numpy.testing import assert_allclose, assert_array_equal

from sklearn_sketch import MinMaxHasher
from sklearn_sketch.metrics import gmm_kernel, min_max_kernel
from sklearn_sketch.minwise._cws import dart_samples


def _rows(*rows):
    return sp.csr_matrix(np.vstack(rows))


def _full_and_zero_bit(X, seed, n_hashes):
    """Per-hash collisions of rows 0 and 1: the dart (its coordinate and key), and its coordinate."""
    positions, keys = dart_samples(X.indices, X.data, X.indptr, seed, n_hashes)
    features = X.indices[positions]
    same_i = features[0] == features[1]
    return same_i & (keys[0] == keys[1]), same_i


def _zero_bit_probability(x, y):
    """``P[i(x) = i(y)]`` of the winning darts' coordinates, exactly.

    The first dart hitting either row lies where both rows are (probability
    ``K``: the same dart), or only under ``x`` (``(x_i - y_i)+`` of
    ``M = sum max``), or only under ``y``. In the second case it is ``x``'s
    sample, while ``y``'s is its own first dart, whose coordinate is ``i``
    with probability ``y_i / |y|_1`` whatever the ranks (the coordinates of
    a Poisson process's points are independent of their ranks); and
    symmetrically.
    """
    x, y = np.asarray(x, float), np.asarray(y, float)
    M = np.maximum(x, y).sum()
    only_x, only_y = np.maximum(x - y, 0) / M, np.maximum(y - x, 0) / M
    return np.minimum(x, y).sum() / M + only_x @ (y / y.sum()) + only_y @ (x / x.sum())


def _pairs():
    """Pairs of nonnegative rows over 40 features, by what their kernel is."""
    rng = np.random.RandomState(11)
    x = rng.lognormal(0, 1, 40) * (rng.rand(40) < 0.6)
    y = x.copy()
    y[:15] = rng.lognormal(0, 1, 15) * (rng.rand(15) < 0.7)  # partly the same
    disjoint = np.where(x == 0, rng.rand(40) + 0.5, 0.0)
    return {
        "identical": (x, x.copy()),
        "disjoint": (x, disjoint),
        "scaled by 2.5": (x, 2.5 * x),
        "overlapping": (x, y),
        "one coordinate": (x, np.where(np.arange(40) == np.flatnonzero(x)[0], 7.0, x)),
    }


def _pair_types(n_features=300):
    """Pairs of every kind the kernel must be estimated on, padded to one width.

    Rows that differ by a factor (one row the multiple of the other, or
    mostly so), single-entry rows, short dense rows, long sparse rows,
    overlapping rows with different proportions, heavy-tailed values.
    """
    rng = np.random.RandomState(21)
    pairs = []
    for factor in (1.5, 3.0, 7.0, 10.0):
        x = rng.gamma(1.0, 1.0, 12)
        pairs.append((x, factor * x))
    x = rng.lognormal(0, 2, n_features) * (rng.rand(n_features) < 0.1)
    pairs.append((x, 4.0 * x))
    pairs.append(([3.0], [0.6]))
    pairs.append(([0.0, 2.0], [0.0, 9.0]))
    pairs.append(([0.0, 1.0, 0.0], [5.0, 0.0, 0.0]))
    for _ in range(3):
        pairs.append((rng.rand(10), rng.rand(10)))
    mask = rng.rand(n_features) < 0.05
    x = rng.lognormal(0, 1, n_features) * mask
    y = np.where(rng.rand(n_features) < 0.5, x, rng.lognormal(0, 1, n_features) * mask)
    pairs.append((x, y))
    pairs.append((x, 3.0 * y + 0.5 * (rng.rand(n_features) < 0.02)))
    pairs.append((rng.pareto(1.5, 30), rng.pareto(1.5, 30)))
    X = np.zeros((2 * len(pairs), n_features))
    for i, (x, y) in enumerate(pairs):
        X[2 * i, : len(x)] = x
        X[2 * i + 1, : len(y)] = y
    return X


def _pair_estimates(X, seeds, **params):
    """Mean over ``seeds`` of the inner products of rows 2i and 2i + 1."""
    estimates = []
    for seed in seeds:
        Z = MinMaxHasher(random_state=seed, **params).fit_transform(X)
        estimates.append(np.asarray(Z[0::2].multiply(Z[1::2]).sum(axis=1)).ravel())
    return np.mean(estimates, axis=0)


def _assert_estimates_kernel(estimate, K, n_hashes, b_bits):
    """Mean ``K + (1 - K) 2**-b`` within 4 standard errors of the hashes."""
    q = 2.0**-b_bits
    mean = K + (1 - K) * q
    se = np.sqrt(mean * (1 - mean) / n_hashes)
    assert np.all(np.abs(estimate - mean) <= 4 * se + 1e-12), np.c_[estimate, mean, se]


@pytest.mark.statistical
@pytest.mark.parametrize("pair", sorted(_pairs()))
def test_full_samples_collide_with_the_min_max_kernel(pair):
    x, y = _pairs()[pair]
    K = min_max_kernel(np.vstack([x, y]))[0, 1]
    n_hashes = 4000
    collisions = np.concatenate([
        _full_and_zero_bit(_rows(x, y), seed, n_hashes)[0]
        for seed in statistical_seeds(5)
    ])
    n = collisions.size
    if K in (0.0, 1.0):
        # Disjoint rows never share a coordinate; identical rows always do.
        assert collisions.mean() == K
    else:
        assert abs(collisions.mean() - K) < 4 * np.sqrt(K * (1 - K) / n), (collisions.mean(), K)


@pytest.mark.statistical
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_default_codes_estimate_the_min_max_kernel_on_any_pair(dtype):
    # The rule: the full samples collide with probability K_MM for any two
    # nonnegative rows, so the mean inner product is K + (1 - K) 2**-b,
    # whatever the pair (scaled, single entries, short and dense, long and
    # sparse), in float32 as in float64.
    X = _pair_types().astype(dtype)
    K = np.diag(min_max_kernel(X.astype(np.float64))[0::2, 1::2])
    k, seeds = 2048, statistical_seeds(6, start=100)
    estimate = _pair_estimates(X, seeds, n_components=k, b_bits=12)
    _assert_estimates_kernel(estimate, K, k * len(seeds), 12)


@pytest.mark.statistical
def test_gmm_codes_estimate_the_gmm_kernel_on_any_pair():
    # The same rule for kernel="gmm" on real rows: pairs of opposite signs,
    # one row a negative multiple of the other, mixed signs.
    rng = np.random.RandomState(4)
    X = _pair_types(60)
    X[::4] *= -1  # the first row of every other pair negated
    X[1::2] *= np.where(rng.rand(60) < 0.3, -1.0, 1.0)
    K = np.diag(gmm_kernel(X)[0::2, 1::2])
    k, seeds = 2048, statistical_seeds(6, start=200)
    estimate = _pair_estimates(X, seeds, n_components=k, b_bits=12, kernel="gmm")
    _assert_estimates_kernel(estimate, K, k * len(seeds), 12)


@pytest.mark.statistical
@pytest.mark.parametrize(
    "dtype, scales",
    [
        (np.float64, [1e-310, 1e-300, 1e-150, 1e150, 1e300]),
        (np.float32, [1e-41, 1e-30, 1e30, 1e36]),
    ],
)
def test_rows_scaled_together_keep_their_estimate(dtype, scales):
    # K_MM(c x, c y) = K_MM(x, y): the samples of rows scaled together by c
    # (denormals included: 1e-310 in float64, 1e-41 in float32) collide at
    # the kernel of the values stored, as the unscaled rows do.
    rng = np.random.RandomState(9)
    X = np.vstack([rng.uniform(0.5, 2.0, (2, 20)), rng.uniform(0.5, 2.0, (2, 20))])
    X[2:, 10:] = 0.0
    X[1] *= 3.0
    k, seeds = 2048, statistical_seeds(4, start=300)
    for scale in scales:
        X_scaled = (X * scale).astype(dtype)
        assert np.all(X_scaled[X > 0] > 0) and np.isfinite(X_scaled).all()
        K = np.diag(min_max_kernel(X_scaled.astype(np.float64) / scale)[0::2, 1::2])
        estimate = _pair_estimates(X_scaled, seeds, n_components=k, b_bits=16)
        _assert_estimates_kernel(estimate, K, k * len(seeds), 16)


@pytest.mark.statistical
def test_a_row_scaled_alone_estimates_one_over_the_factor():
    # K_MM(x, c x) = 1 / c for c >= 1: the estimator hashes rows as given.
    rng = np.random.RandomState(2)
    factors = np.array([1.25, 2.0, 5.0, 40.0, 1e6])
    x = rng.lognormal(0, 1, 25) * (rng.rand(25) < 0.7)
    X = np.vstack([np.vstack([x, c * x]) for c in factors])
    k, seeds = 2048, statistical_seeds(4, start=400)
    for dtype in (np.float64, np.float32):
        estimate = _pair_estimates(X.astype(dtype), seeds, n_components=k, b_bits=16)
        _assert_estimates_kernel(estimate, 1 / factors, k * len(seeds), 16)


@pytest.mark.statistical
def test_darts_pick_each_coordinate_in_proportion_to_its_weight():
    # Weights spanning 300 orders of magnitude in one row (float64): the
    # sample must follow x_i / |x|_1 exactly, the tiny ones never chosen.
    x = np.array([3e150, 1e150, 0.0, 6e150, 1e-150, 2e-150])
    X = _rows(x, x)
    n_hashes = 20000
    positions, _ = dart_samples(X.indices, X.data, X.indptr, statistical_seed(3), n_hashes)
    chosen = X.indices[positions[0]]
    p = x / x.sum()
    counts = np.bincount(chosen, minlength=x.size) / n_hashes
    assert_allclose(counts, p, atol=4 * np.sqrt(0.25 / n_hashes))
    assert counts[[2, 4, 5]].sum() == 0


@pytest.mark.statistical
def test_zero_bit_collisions_follow_their_formula():
    # "0-bit" codes keep the winning dart's coordinate. Their collision
    # probability is above K_MM by the formula of _zero_bit_probability, on
    # every kind of pair: a row and its multiple agree at 1 / c + (1 - 1 / c)
    # sum p_i**2, a single entry always.
    rng = np.random.RandomState(5)
    pairs = list(_pairs().values()) + [(rng.rand(12), rng.rand(12)) for _ in range(3)]
    pairs += [(np.r_[1.0, 0.0], np.r_[5.0, 0.0]), (np.r_[1.0, 3.0], np.r_[4.0, 0.5])]
    n_hashes = 20000
    for x, y in pairs:
        P = _zero_bit_probability(x, y)
        _, zero_bit = _full_and_zero_bit(_rows(x, y), statistical_seed(9), n_hashes)
        assert abs(zero_bit.mean() - P) <= 4 * np.sqrt(P * (1 - P) / n_hashes) + 1e-12, (
            zero_bit.mean(), P)
    x, y = _pairs()["scaled by 2.5"]
    assert _zero_bit_probability(x, y) - min_max_kernel(np.vstack([x, y]))[0, 1] > 0.01


def _csr(rows, width, dtype, index_dtype):
    X = sp.vstack([sp.csr_matrix(np.asarray(v, dtype=dtype)[None, :], shape=(1, width))
                   for v in rows]).tocsr()
    X.sort_indices()
    X.indices = X.indices.astype(index_dtype)
    X.indptr = X.indptr.astype(index_dtype)
    return X


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_compiled_samples_are_the_reference_samples(dtype, index_dtype):
    # Rows of equal values, of a few distinct values, of values spanning 60
    # orders of magnitude (300 in float64), a one-entry row, an empty row,
    # subnormals, huge values; several k (a bucket per dart up to many).
    rng = np.random.RandomState(5)
    span = 150 if dtype == np.float64 else 30
    tiny = 1e-310 if dtype == np.float64 else 1e-42
    huge = 1e300 if dtype == np.float64 else 1e36
    rows = [
        np.ones(60),
        rng.choice([1.0, 2.0, 3.0], 50),
        10.0 ** rng.uniform(-30, 30, 40),
        10.0 ** rng.uniform(-span, span, 30),
        [4.5],
        [],
        rng.gamma(0.3, 1.0, 40) + 1e-3,
        tiny * rng.uniform(1, 100, 10),
        huge * rng.uniform(0.1, 3, 10),
    ]
    X = _csr(rows, 100, dtype, index_dtype)
    for k in (1, 7, 60):
        positions, keys = dart_samples(X.indices, X.data, X.indptr, 77, k)
        expected_positions, expected_keys = reference.dart_samples(X, 77, k)
        assert_array_equal(positions, expected_positions)
        assert_array_equal(keys, np.array(expected_keys, dtype=np.uint64))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_samples_do_not_depend_on_the_rounds(dtype):
    # A row's samples are the minima over all darts below its last rank
    # bound: throwing only the darts between successive bounds (many rounds
    # from a first round of one dart, a few, or a single large round) gives
    # the reference's samples bit for bit, at every scale and k.
    rng = np.random.RandomState(12)
    tiny = 1e-310 if dtype == np.float64 else 1e-42
    rows = [rng.lognormal(0, 2, 40), [2.5], rng.rand(15) * tiny * 1e3,
            rng.gamma(0.2, 1.0, 60) + 1e-6, 10.0 ** rng.uniform(-20, 20, 25)]
    X = _csr(rows, 80, dtype, np.int32)
    for k in (1, 16, 200):
        expected_positions, expected_keys = reference.dart_samples(X, 31, k)
        for first_round in (1.0, 0.3 * k, None, 20.0 * k * np.log(k + 1)):
            positions, keys = dart_samples(X.indices, X.data, X.indptr, 31, k, first_round)
            assert_array_equal(positions, expected_positions)
            assert_array_equal(keys, np.array(expected_keys, dtype=np.uint64))


def test_samples_do_not_depend_on_the_other_rows():
    rng = np.random.RandomState(3)
    X = sp.random(40, 500, density=0.1, format="csr", random_state=rng)
    X.data += 0.01
    X = sp.csr_matrix(X.toarray() * (np.arange(40) != 7)[:, None])  # row 7 empty
    positions, keys = dart_samples(X.indices, X.data, X.indptr, 5, 30)
    rows = np.flatnonzero(np.diff(X.indptr))
    for start, stop in [(0, 1), (3, 11), (11, 40)]:
        part = X[start:stop]
        part_positions, part_keys = dart_samples(part.indices, part.data, part.indptr, 5, 30)
        mine = (rows >= start) & (rows < stop)
        assert_array_equal(part_positions + X.indptr[start], positions[mine])
        assert_array_equal(part_keys, keys[mine])


def test_float32_data_give_the_samples_of_their_float64_values():
    # Weights are read as float64: a float32 row is hashed as its exact
    # float64 values are, only the output dtype differs.
    rng = np.random.RandomState(6)
    X = (rng.rand(20, 30) * (rng.rand(20, 30) < 0.5)).astype(np.float32)
    X[3, :5] = np.float32(1e-41)  # float32 subnormals
    for codes in ("full", "0bit"):
        hasher = MinMaxHasher(200, codes=codes, random_state=0).fit(X)
        Z32, Z64 = hasher.transform(X), hasher.transform(X.astype(np.float64))
        assert Z32.dtype == np.float32 and Z64.dtype == np.float64
        assert_array_equal(Z32.indices, Z64.indices)


def test_rows_scaled_by_powers_of_two_draw_the_same_darts():
    # The grid is read in each row's frame (its values over a power of two):
    # multiplying a row by 2**m (m from -1000 to 1000) rescales the darts
    # exactly, so x and 2**m x agree where their regions overlap, and the
    # row x alone draws the darts it draws in any frame.
    rng = np.random.RandomState(7)
    x = rng.lognormal(0, 1, 30) * (rng.rand(30) < 0.7)
    for m in (-1000, -3, 5, 990):
        X = sp.csr_matrix(np.vstack([x, np.ldexp(x, m)]))
        positions, keys = dart_samples(X.indices, X.data, X.indptr, 11, 300)
        assert np.all(X.data > 0)
        both = np.vstack([x, np.ldexp(x, m)])
        K = min_max_kernel(both / both.max())[0, 1]
        agree = np.mean(keys[0] == keys[1])
        assert abs(agree - K) < 4 * np.sqrt(max(K * (1 - K), 1e-4) / 300) + 0.01, (m, agree, K)


def test_dart_keys_are_32_bits_and_distinct():
    # A row's buckets hold different darts: their 32-bit keys differ but for
    # about n**2 / 2**33 pairs; equal rows give equal keys.
    rng = np.random.RandomState(0)
    X = sp.csr_matrix(rng.rand(3, 50))
    X[2] = X[0]
    positions, keys = dart_samples(X.indices, X.data, X.indptr, 123, 4000)
    assert keys.dtype == np.uint64 and keys.max() < 2**32
    assert_array_equal(keys[0], keys[2])
    assert_array_equal(positions[0], positions[2] - X.indptr[2])
    assert 4000 - np.unique(keys[0]).size < 5


def test_zero_bit_features_are_the_one_hot_codes_of_the_darts():
    rng = np.random.RandomState(2)
    X = rng.gamma(0.5, 2.0, (7, 25)) * (rng.rand(7, 25) < 0.4)
    X[3] = 0.0
    k = 300
    hasher = MinMaxHasher(k, b_bits=None, codes="0bit", random_state=4).fit(X)
    Z = hasher.transform(sp.csr_matrix(X))
    assert_array_equal(np.diff(Z.indptr), [k, k, k, 0, k, k, k])
    assert_allclose(Z.data, 1 / np.sqrt(k))
    columns = Z.indices.reshape(-1, k) - np.arange(k) * X.shape[1]
    Xc = sp.csr_matrix(X)
    positions, _ = reference.dart_samples(Xc, hasher.hash_seed_, k)
    expected = Xc.indices[np.array(positions)]
    assert_array_equal(columns, expected)
    # And the inner products count the agreeing hashes.
    agree = (expected[:, None, :] == expected[None, :, :]).mean(axis=2)
    assert_allclose(
        (Z @ Z.T).toarray()[np.ix_([0, 1, 2, 4, 5, 6], [0, 1, 2, 4, 5, 6])], agree
    )


def test_full_codes_are_the_codes_of_the_dart_keys():
    rng = np.random.RandomState(3)
    X = rng.gamma(0.5, 2.0, (5, 25)) * (rng.rand(5, 25) < 0.5)
    k = 64
    hasher = MinMaxHasher(k, b_bits=32, random_state=1).fit(X)
    Z = sp.csr_matrix(hasher.transform(X))
    _, keys = reference.dart_samples(sp.csr_matrix(X), hasher.hash_seed_, k)
    keys = np.array(keys, dtype=np.uint64)
    a, b = hasher.bucket_coefficients_[:, 0], hasher.bucket_coefficients_[:, 1]
    expected = (keys * a + b) >> np.uint64(32)
    columns = Z.indices.reshape(-1, k).astype(np.uint64) - np.arange(k, dtype=np.uint64) * 2**32
    assert_array_equal(columns, expected)


def test_full_codes_need_a_b_bit_code():
    X = np.array([[1.0, 2.0]])
    with pytest.raises(ValueError, match="b_bits=None.*codes='0bit'"):
        MinMaxHasher(8, b_bits=None).fit(X)
    MinMaxHasher(8, b_bits=None, codes="0bit").fit(X).transform(X)
    with pytest.raises(ValueError, match="codes"):
        MinMaxHasher(8, codes="1bit").fit(X)


@pytest.mark.statistical
@pytest.mark.parametrize("codes, b_bits", [("full", 32), ("0bit", None)])
def test_b_bit_codes_add_the_known_offset(codes, b_bits):
    # Mean inner product P + (1 - P) 2**-b: measured against the wide codes
    # (b_bits=32 or None: the collisions P) of the same hashes.
    x, y = _pairs()["overlapping"]
    X = np.vstack([x, y])
    k, b = 20000, 2
    seed = statistical_seed(13)
    wide = MinMaxHasher(k, b_bits=b_bits, codes=codes, random_state=seed).fit_transform(X)
    # Read off the codes: a product would transpose 2**32 k columns.
    wide_codes = wide.indices.reshape(2, k)
    P = np.mean(wide_codes[0] == wide_codes[1])
    Z = MinMaxHasher(k, b_bits=b, codes=codes, random_state=seed).fit_transform(X)
    estimate = (Z[0] @ Z[1].T)[0, 0]
    # Given the wide collisions, each of the (1 - P) k others agrees with
    # probability 2**-b, independently.
    q = 2.0**-b
    se = np.sqrt((1 - P) * q * (1 - q) / k)
    assert abs(estimate - (P + (1 - P) * q)) < 4 * se


def _split(X):
    """``[max(x, 0), max(-x, 0)]`` interleaved: column 2 i and 2 i + 1."""
    split = np.zeros((X.shape[0], 2 * X.shape[1]))
    split[:, 0::2] = np.maximum(X, 0)
    split[:, 1::2] = np.maximum(-X, 0)
    return split


@pytest.mark.parametrize("codes, b_bits", [("0bit", None), ("0bit", 6), ("full", 6)])
def test_gmm_is_min_max_on_the_split_rows(codes, b_bits):
    rng = np.random.RandomState(8)
    X = rng.randn(6, 9) * (rng.rand(6, 9) < 0.7)
    X[2] = 0.0
    params = dict(b_bits=b_bits, codes=codes, random_state=1)
    gmm = MinMaxHasher(40, kernel="gmm", **params).fit(X)
    minmax = MinMaxHasher(40, **params).fit(_split(X))
    for form in (np.asarray, sp.csr_matrix):
        result = gmm.transform(form(X))
        expected = minmax.transform(sp.csr_matrix(_split(X)))
        assert_array_equal(result.indptr, expected.indptr)
        assert_array_equal(result.indices, expected.indices)
        assert_array_equal(result.data, expected.data)
    assert_allclose(gmm_kernel(X), min_max_kernel(_split(X)), atol=1e-14)


@pytest.mark.parametrize("kernel", ["minmax", "gmm"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_zero_rows_give_empty_rows(kernel, dtype):
    X = np.zeros((4, 6), dtype=dtype)
    X[1, 2] = 3.0
    for form in (np.asarray, sp.csr_matrix):
        Z = MinMaxHasher(8, kernel=kernel, random_state=0).fit(form(X)).transform(form(X))
        assert Z.dtype == dtype
        assert_array_equal(np.diff(Z.indptr), [0, 8, 0, 0])
    Z = MinMaxHasher(8, kernel=kernel, random_state=0).fit_transform(np.zeros((3, 5)))
    assert Z.shape == (3, 8 * 256) and Z.nnz == 0


def test_negative_values_need_the_gmm_kernel():
    X = np.array([[1.0, 0.0], [0.5, 2.0]])
    hasher = MinMaxHasher(8).fit(X)
    for bad in (np.array([[1.0, -0.5]]), sp.csr_matrix(np.array([[0.0, -1e-300]]))):
        with pytest.raises(ValueError, match="Negative values.*gmm"):
            hasher.transform(bad)
        with pytest.raises(ValueError, match="Negative values.*gmm"):
            MinMaxHasher(8).fit(bad)
        MinMaxHasher(8, kernel="gmm").fit(bad).transform(bad)


@pytest.mark.statistical
def test_sector_tfidf_estimates_the_exact_kernel(data_home):
    # Real sparse rows (tf-idf of text): the full samples estimate the exact
    # kernel within Monte-Carlo error; the 0-bit samples of the same hashes
    # their own formula, whose bias is small on such rows: below 0.01 on
    # average.
    from sklearn_sketch.datasets import fetch_sector

    require_data(data_home, "sector", "sector_tfidf.npz")
    X, _ = fetch_sector(
        data_home,
        subset="train",
        values="tfidf",
        download_if_missing=False,
        return_X_y=True,
    )
    X = X[:300:20]
    k = 4096
    K = min_max_kernel(X)
    off = ~np.eye(X.shape[0], dtype=bool)
    seed = statistical_seed(2)
    positions, keys = dart_samples(X.indices, X.data, X.indptr, seed, k)
    features = X.indices[positions]
    same_i = features[:, None, :] == features[None, :, :]
    full = (same_i & (keys[:, None, :] == keys[None, :, :])).mean(axis=2)
    zero_bit = same_i.mean(axis=2)
    se = np.sqrt(K * (1 - K) / k)[off]
    assert np.all(np.abs(full - K)[off] <= 4 * se + 1e-12)
    dense = X.toarray()
    P = np.array([[_zero_bit_probability(x, y) for y in dense] for x in dense])
    assert np.all(np.abs(zero_bit - P)[off] <= 4 * np.sqrt(P * (1 - P) / k)[off] + 1e-12)
    bias = (zero_bit - K)[off]
    assert np.abs(bias).max() < 4 * np.sqrt(0.25 / k) + 0.02
    assert abs(bias.mean()) < 0.01


def test_bin_wise_cws_of_the_benchmarks_tends_to_the_resemblance():
    # benchmarks/bin_wise_cws.py shows why MinMaxHasher does not offer
    # bin-wise CWS: once k exceeds a row's nonzeros most bins hold one
    # feature, whose sample is that feature whatever its weight. Two rows on
    # the same 20 features with unrelated weights then agree on nearly every
    # bin, as their resemblance (1) would, while MinMaxHasher's darts agree
    # at about their min-max kernel (their 0-bit formula). With a single bin,
    # bin-wise CWS is one ICWS sample, near the kernel too. Both are 0-bit
    # schemes (the coordinate is compared).
    from _checkout import repository_path

    sys.path.insert(0, str(repository_path("benchmarks", "bin_wise_cws.py").parent))
    from bin_wise_cws import BinWiseMinMaxHasher

    rng = np.random.RandomState(3)
    X = rng.lognormal(0, 1, (2, 20))
    K = min_max_kernel(X)[0, 1]

    def agreement(cls, k, seed=0):
        codes = cls(k, b_bits=None, codes="0bit", random_state=seed).fit_transform(X).indices
        codes = codes.reshape(2, k)
        return np.mean(codes[0] == codes[1])

    assert K < 0.5
    assert agreement(BinWiseMinMaxHasher, 2048) > 0.95
    P = _zero_bit_probability(X[0], X[1])
    assert abs(agreement(MinMaxHasher, 4000) - P) < 4 * np.sqrt(0.25 / 4000)
    assert P - K < 0.1
    single_bin = np.mean([agreement(BinWiseMinMaxHasher, 1, seed) for seed in range(400)])
    assert abs(single_bin - K) < 0.1
