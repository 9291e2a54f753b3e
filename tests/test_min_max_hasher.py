"""MinMaxHasher and its consistent weighted sampling against the theory.

* ICWS (Ioffe 2010): two rows draw the same ``(i*, t*)`` with probability
  exactly ``K_MM = sum min / sum max``; ``i*`` alone is drawn with
  probability ``x_i / |x|_1``. Checked by Monte Carlo within 4 standard
  errors (a false alarm has probability ~6e-5 per check), over several
  seeds, on pairs chosen for their kernel: identical (1), disjoint (0),
  scaled (``1 / c``), partly overlapping.
* 0-bit CWS (Li 2015) keeps ``i*``: its collision probability is not
  ``K_MM``; the bias is measured and bounded, never assumed away.
* The estimator's inner products are the fraction of hashes whose codes
  agree, ``P + (1 - P) 2**-b`` in mean; GMM is min-max on the split rows;
  huge and tiny scales give valid samples; zero rows give empty rows.
"""

import sys

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import require_data, statistical_seed, statistical_seeds
from numpy.testing import assert_allclose, assert_array_equal

from sklearn_sketch import MinMaxHasher
from sklearn_sketch.metrics import gmm_kernel, min_max_kernel
from sklearn_sketch.minwise._cws import icws
from sklearn_sketch.utils._counter_random import icws_variables


def _rows(*rows):
    return sp.csr_matrix(np.vstack(rows))


def _full_and_zero_bit(X, seed, n_hashes):
    """Per-hash collisions of rows 0 and 1: full ``(i*, t*)`` and ``i*`` only."""
    positions, t = icws(X.indices, X.data, X.indptr, seed, n_hashes, return_t=True)
    features = X.indices[positions]
    same_i = features[0] == features[1]
    return same_i & (t[0] == t[1]), same_i


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


@pytest.mark.statistical
@pytest.mark.parametrize("pair", sorted(_pairs()))
def test_full_icws_collides_with_the_min_max_kernel(pair):
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
def test_icws_picks_each_coordinate_in_proportion_to_its_weight():
    # Weights spanning 300 orders of magnitude in one row (float64): the
    # sample must follow x_i / |x|_1 exactly, the tiny ones never chosen.
    x = np.array([3e150, 1e150, 0.0, 6e150, 1e-150, 2e-150])
    X = _rows(x, x)
    n_hashes = 20000
    positions = icws(X.indices, X.data, X.indptr, statistical_seed(3), n_hashes)
    chosen = X.indices[positions[0]]
    p = x / x.sum()
    counts = np.bincount(chosen, minlength=x.size) / n_hashes
    assert_allclose(counts, p, atol=4 * np.sqrt(0.25 / n_hashes))
    assert counts[[2, 4, 5]].sum() == 0


@pytest.mark.statistical
@pytest.mark.parametrize("scale", [1e150, 1e-150])
def test_joint_scaling_keeps_the_collision_rate(scale):
    # K_MM(c x, c y) = K_MM(x, y): at extreme c the full samples still
    # collide at the kernel's rate (no overflow, underflow or lost
    # fractions in ln(x) / r). One row alone scaled is another kernel
    # (K_MM(x, c x) = 1 / c), so codes of scaled rows are not compared.
    x, y = _pairs()["overlapping"]
    K = min_max_kernel(np.vstack([x, y]))[0, 1]
    full, _ = _full_and_zero_bit(_rows(scale * x, scale * y), statistical_seed(7), 20000)
    assert abs(full.mean() - K) < 4 * np.sqrt(K * (1 - K) / full.size)
    Z = MinMaxHasher(64, random_state=0).fit_transform(np.vstack([scale * x, scale * y]))
    assert np.isfinite(Z.data).all() and np.diff(Z.indptr).tolist() == [64, 64]


@pytest.mark.statistical
def test_zero_bit_bias_is_small_and_measured():
    # Li (2015): P[i*(x) = i*(y)] >= K_MM, close when the rows differ in
    # which coordinates carry the weight. Measured here on the pairs above
    # and on short dense rows (where it is larger): never below K (beyond
    # the Monte-Carlo error), at most 0.05 above it. Rows that differ only
    # by scale are the worst case: x and 2.5 x share every coordinate, and
    # i* agrees about as often as for 0.49 against K = 0.4; bounded apart.
    rng = np.random.RandomState(5)
    pairs = _pairs()
    scaled = pairs.pop("scaled by 2.5")
    pairs = list(pairs.values()) + [(rng.rand(12), rng.rand(12)) for _ in range(3)]
    n_hashes = 20000
    se = np.sqrt(0.25 / n_hashes)
    for (x, y), bound in [(pair, 0.05) for pair in pairs] + [(scaled, 0.15)]:
        K = min_max_kernel(np.vstack([x, y]))[0, 1]
        _, zero_bit = _full_and_zero_bit(_rows(x, y), statistical_seed(9), n_hashes)
        assert -4 * se < zero_bit.mean() - K < bound, (zero_bit.mean(), K)


def _brute_force_icws(X, seed, n_hashes):
    """Ioffe's formulas as written, one row at a time, float64: ``i*`` per hash."""
    samples = []
    for row in X:
        features = np.flatnonzero(row)
        r, ln_c, beta = icws_variables(
            seed, features[:, None], np.arange(n_hashes), np.float64
        )
        t = np.floor(np.log(row[features])[:, None] / r + beta)
        ln_y = r * (t - beta)
        ln_a = ln_c - ln_y - r
        samples.append(features[np.argmin(ln_a, axis=0)])
    return np.array(samples)


def test_features_are_the_one_hot_codes_of_icws():
    rng = np.random.RandomState(2)
    X = rng.gamma(0.5, 2.0, (7, 25)) * (rng.rand(7, 25) < 0.4)
    X[3] = 0.0
    k = 300
    hasher = MinMaxHasher(k, b_bits=None, random_state=4).fit(X)
    Z = hasher.transform(sp.csr_matrix(X))
    assert_array_equal(np.diff(Z.indptr), [k, k, k, 0, k, k, k])
    assert_allclose(Z.data, 1 / np.sqrt(k))
    columns = Z.indices.reshape(-1, k) - np.arange(k) * X.shape[1]
    expected = _brute_force_icws(np.delete(X, 3, axis=0), hasher.hash_seed_, k)
    # float32-rounded keys may break a near-tie differently: rarely.
    assert np.mean(columns == expected) > 0.998
    # And the inner products count the agreeing hashes.
    agree = (expected[:, None, :] == expected[None, :, :]).mean(axis=2)
    assert_allclose(
        (Z @ Z.T).toarray()[np.ix_([0, 1, 2, 4, 5, 6], [0, 1, 2, 4, 5, 6])], agree, atol=0.01
    )


@pytest.mark.statistical
def test_b_bit_codes_add_the_known_offset():
    # Mean inner product P + (1 - P) 2**-b: measured against the full
    # codes (b_bits=None, the 0-bit collisions P) of the same hashes.
    x, y = _pairs()["overlapping"]
    X = np.vstack([x, y])
    k, b = 20000, 2
    seed = statistical_seed(13)
    P = (MinMaxHasher(k, b_bits=None, random_state=seed).fit_transform(X)[0]
         @ MinMaxHasher(k, b_bits=None, random_state=seed).fit_transform(X)[1].T)[0, 0]
    Z = MinMaxHasher(k, b_bits=b, random_state=seed).fit_transform(X)
    estimate = (Z[0] @ Z[1].T)[0, 0]
    # Given the full collisions, each of the (1 - P) k others agrees with
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


@pytest.mark.parametrize("b_bits", [None, 6])
def test_gmm_is_min_max_on_the_split_rows(b_bits):
    rng = np.random.RandomState(8)
    X = rng.randn(6, 9) * (rng.rand(6, 9) < 0.7)
    X[2] = 0.0
    gmm = MinMaxHasher(40, kernel="gmm", b_bits=b_bits, random_state=1).fit(X)
    minmax = MinMaxHasher(40, b_bits=b_bits, random_state=1).fit(_split(X))
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


def test_float32_and_float64_agree_on_most_codes():
    # The same variables (drawn in float64, rounded for float32 data), the
    # same samples but where float32 rounding breaks a near-tie.
    rng = np.random.RandomState(6)
    X = rng.rand(20, 30) * (rng.rand(20, 30) < 0.5)
    hasher = MinMaxHasher(200, random_state=0).fit(X)
    Z64, Z32 = hasher.transform(X), hasher.transform(X.astype(np.float32))
    assert Z32.dtype == np.float32
    assert np.mean(Z64.indices == Z32.indices) > 0.99


@pytest.mark.statistical
def test_sector_tfidf_estimates_the_exact_kernel(data_home):
    # Real sparse rows (tf-idf of text): the 0-bit estimate with b = 8 is
    # within Monte-Carlo error plus the known offset of the exact kernel,
    # and Li's "small bias on real data" holds: below 0.01 on average.
    from sklearn_sketch.datasets import load_sector

    require_data(data_home, "sector", "sector_tfidf.npz")
    X, _ = load_sector(data_home, subset="train", values="tfidf")
    X = X[:300:20]
    k = 4096
    Z = MinMaxHasher(k, b_bits=None, random_state=statistical_seed(2)).fit_transform(X)
    # The fraction of agreeing hashes, read off the codes (Z @ Z.T would
    # transpose a matrix of k * 55197 columns).
    codes = Z.indices.reshape(X.shape[0], k)
    estimated = (codes[:, None, :] == codes[None, :, :]).mean(axis=2)
    K = min_max_kernel(X)
    off = ~np.eye(X.shape[0], dtype=bool)
    bias = (estimated - K)[off]
    assert np.abs(bias).max() < 4 * np.sqrt(0.25 / k) + 0.02
    assert abs(bias.mean()) < 0.01


def _exhaustive_icws(X, seed, n_hashes):
    """Positions of the smallest float32 key over every entry, as documented.

    The module's arithmetic (shifted ``ln a = r f + (ln c - r) + shift``, in
    the data's dtype, then ``exp`` in float32, ties to the smaller index),
    on all the entries of each row: no candidates, no tables, no blocks.
    """
    positions = []
    for row in range(X.shape[0]):
        first, last = X.indptr[row], X.indptr[row + 1]
        if first == last:
            continue
        x, features = X.data[first:last], X.indices[first:last]
        r, ln_c, beta = icws_variables(seed, features[:, None], np.arange(n_hashes), x.dtype)
        log_x = np.log(x)[:, None]
        y = log_x * np.reciprocal(r) + beta
        y = (y - np.floor(y)) * r + (ln_c - r) + (log_x.max() - log_x)
        with np.errstate(over="ignore"):
            keys = np.exp(y.astype(np.float32))
        positions.append(first + np.argmin(keys, axis=0))
    return np.array(positions)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_icws_minimum_over_candidates_is_the_minimum_over_all_entries(dtype):
    # The bounds that skip most entries must never skip the minimum, tie
    # breaks included: rows of equal values (every entry's bounds overlap),
    # of a few distinct values (near-ties of ln a), of values spanning 60
    # orders of magnitude (300 in float64, where the float32 bounds of the
    # screening hold shifts of several hundred), a one-entry row, an empty
    # row, and rows longer than a block of entries.
    rng = np.random.RandomState(5)
    span = 150 if dtype == np.float64 else 30
    rows = [
        np.ones(300),
        rng.choice([1.0, 2.0, 3.0], 200),
        10.0 ** rng.uniform(-30, 30, 150),
        10.0 ** rng.uniform(-span, span, 120),
        [4.5],
        [],
        rng.gamma(0.3, 1.0, 90) + 1e-3,
    ]
    X = sp.vstack([sp.csr_matrix(np.asarray(v, dtype=dtype)[None, :], shape=(1, 400))
                   for v in rows]).tocsr()
    X.sort_indices()
    n_hashes = 60
    positions = icws(X.indices, X.data, X.indptr, 77, n_hashes)
    assert_array_equal(positions, _exhaustive_icws(X, 77, n_hashes))
    long_row = sp.csr_matrix(rng.gamma(2.0, 1.0, (1, 70000)).astype(dtype))
    assert_array_equal(
        icws(long_row.indices, long_row.data, long_row.indptr, 3, 2),
        _exhaustive_icws(long_row, 3, 2),
    )


def test_screening_keeps_entries_within_the_margin_of_their_rows_ceiling():
    # The bounds are rounded (float32) and so are the keys: an entry whose
    # rounded lower bound exceeds its row's smallest upper bound by less
    # than a few rounding steps may still hold the smallest key, and must
    # stay a candidate; one clearly above it is dropped. Rows are screened
    # apart.
    from sklearn_sketch.minwise._cws import _candidates

    shifted = np.array([0.0, 0.0, 0.0, 2.0, 0.0], dtype=np.float32)
    bounds = np.array(
        [[0.0, 1.0], [1.0 + 2**-20, 3.0], [1.5, 2.0], [-3.0, -1.0], [0.5, 0.75]],
        dtype=np.float32,
    )
    kept = _candidates(shifted, bounds, np.array([0, 3]), np.array([3, 2]))
    assert kept.tolist() == [0, 1, 3, 4]


def test_bin_wise_cws_of_the_benchmarks_tends_to_the_resemblance():
    # benchmarks/bin_wise_cws.py shows why MinMaxHasher does not offer
    # bin-wise CWS: once k exceeds a row's nonzeros most bins hold one
    # feature, whose sample is that feature whatever its weight. Two rows on
    # the same 20 features with unrelated weights then agree on nearly every
    # bin, as their resemblance (1) would, while ICWS agrees at about their
    # min-max kernel. With a single bin, bin-wise CWS is one ICWS sample.
    from _checkout import repository_path

    sys.path.insert(0, str(repository_path("benchmarks", "bin_wise_cws.py").parent))
    from bin_wise_cws import BinWiseMinMaxHasher

    rng = np.random.RandomState(3)
    X = rng.lognormal(0, 1, (2, 20))
    K = min_max_kernel(X)[0, 1]

    def agreement(cls, k, seed=0):
        codes = cls(k, b_bits=None, random_state=seed).fit_transform(X).indices
        codes = codes.reshape(2, k)
        return np.mean(codes[0] == codes[1])

    assert K < 0.5
    assert agreement(BinWiseMinMaxHasher, 2048) > 0.95
    assert abs(agreement(MinMaxHasher, 2048) - K) < 0.1
    single_bin = np.mean([agreement(BinWiseMinMaxHasher, 1, seed) for seed in range(400)])
    assert abs(single_bin - agreement(MinMaxHasher, 4000)) < 4 * np.sqrt(0.25 / 400)
