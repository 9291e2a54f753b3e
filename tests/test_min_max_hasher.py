"""MinMaxHasher and its consistent weighted sampling against the theory.

* ICWS (Ioffe 2010): two rows draw the same ``(i*, t*)`` with probability
  exactly ``K_MM = sum min / sum max``, for ANY pair of nonnegative rows;
  ``i*`` alone is drawn with probability ``x_i / |x|_1``. Checked by Monte
  Carlo within 4 standard errors (a false alarm has probability ~6e-5 per
  check), over several seeds, on pairs chosen for their kernel: identical
  (1), disjoint (0), scaled (``1 / c``), single entries, short dense rows,
  long sparse rows, partly overlapping; in float32 and float64, at scales
  from denormal to 1e300; for "gmm" on real rows.
* The estimator's default codes are the full samples: its inner products
  have mean ``K + (1 - K) 2**-b``. The 0-bit scheme (``codes="0bit"``, Li
  2015) keeps ``i*``: its collision probability is not ``K_MM``; the bias
  is measured and bounded, never assumed away.
* The compiled sampler gives the samples of the formulas, bit for bit, in
  any block of rows; GMM is min-max on the split rows; zero rows give empty
  rows.
"""

import sys

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import require_data, statistical_seed, statistical_seeds
from numpy.testing import assert_allclose, assert_array_equal

from sklearn_sketch import MinMaxHasher
from sklearn_sketch.metrics import gmm_kernel, min_max_kernel
from sklearn_sketch.minwise import _cws
from sklearn_sketch.minwise._cws import icws, sample_keys
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
def test_zero_bit_bias_is_measured():
    # Li (2015): P[i*(x) = i*(y)] >= K_MM, close when the rows differ in
    # which coordinates carry the weight (at most 0.05 above K on these
    # pairs, never below it beyond the Monte-Carlo error). Rows that differ
    # only by scale share every coordinate: x and 2.5 x agree on i* far
    # more often than K = 0.4, and a single entry always agrees (K = 0.2
    # for [1, 0] and [5, 0]). Hence the full codes by default.
    rng = np.random.RandomState(5)
    pairs = _pairs()
    scaled = pairs.pop("scaled by 2.5")
    pairs = list(pairs.values()) + [(rng.rand(12), rng.rand(12)) for _ in range(3)]
    n_hashes = 20000
    se = np.sqrt(0.25 / n_hashes)
    for x, y in pairs:
        K = min_max_kernel(np.vstack([x, y]))[0, 1]
        _, zero_bit = _full_and_zero_bit(_rows(x, y), statistical_seed(9), n_hashes)
        assert -4 * se < zero_bit.mean() - K < 0.05, (zero_bit.mean(), K)
    K = min_max_kernel(np.vstack(scaled))[0, 1]
    _, zero_bit = _full_and_zero_bit(_rows(*scaled), statistical_seed(9), n_hashes)
    assert zero_bit.mean() - K > 0.05, (zero_bit.mean(), K)
    _, zero_bit = _full_and_zero_bit(_rows([1.0, 0.0], [5.0, 0.0]), 0, 100)
    assert zero_bit.all()


def _reference_icws(X, seed, n_hashes):
    """Ioffe's formulas, row by row, with the variables of ``icws_variables``.

    In the arithmetic the module documents: float64 ``ln x``, ``ln a = ((ln
    c - r) - ln x) + r f`` with ``y = ln x (1 / r) + beta``, first entry on
    a tie. Returns the positions of ``i*`` and ``t*``.
    """
    positions, ts = [], []
    for row in range(X.shape[0]):
        first, last = X.indptr[row], X.indptr[row + 1]
        if first == last:
            continue
        features = X.indices[first:last]
        r, ln_c, beta = icws_variables(seed, features[:, None], np.arange(n_hashes), np.float64)
        log_x = np.log(X.data[first:last].astype(np.float64))[:, None]
        y = log_x * (1.0 / r) + beta
        t = np.floor(y)
        ln_a = ((ln_c - r) - log_x) + r * (y - t)
        best = np.argmin(ln_a, axis=0)
        positions.append(first + best)
        ts.append(t[best, np.arange(n_hashes)].astype(np.int64))
    return np.array(positions), np.array(ts)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_compiled_samples_are_the_reference_samples(dtype, monkeypatch):
    # Rows of equal values, of a few distinct
    # values, of values spanning 60 orders of magnitude (300 in float64), a
    # one-entry row, an empty row, denormals; with blocks of a few entries,
    # so that rows are drawn in many blocks, and a row longer than a block.
    monkeypatch.setattr(_cws, "BLOCK_NNZ", 150)
    rng = np.random.RandomState(5)
    span = 150 if dtype == np.float64 else 30
    tiny = 1e-310 if dtype == np.float64 else 1e-42
    rows = [
        np.ones(300),
        rng.choice([1.0, 2.0, 3.0], 200),
        10.0 ** rng.uniform(-30, 30, 150),
        10.0 ** rng.uniform(-span, span, 120),
        [4.5],
        [],
        rng.gamma(0.3, 1.0, 90) + 1e-3,
        tiny * rng.uniform(1, 100, 40),
    ]
    X = sp.vstack([sp.csr_matrix(np.asarray(v, dtype=dtype)[None, :], shape=(1, 400))
                   for v in rows]).tocsr()
    X.sort_indices()
    n_hashes = 60
    positions, t = icws(X.indices, X.data, X.indptr, 77, n_hashes, return_t=True)
    expected_positions, expected_t = _reference_icws(X, 77, n_hashes)
    assert_array_equal(positions, expected_positions)
    assert_array_equal(t, expected_t)


def test_samples_do_not_depend_on_the_other_rows_or_the_blocks(monkeypatch):
    rng = np.random.RandomState(3)
    X = sp.random(40, 500, density=0.1, format="csr", random_state=rng)
    X.data += 0.01
    whole = icws(X.indices, X.data, X.indptr, 5, 30, return_t=True)
    monkeypatch.setattr(_cws, "BLOCK_NNZ", 7)
    blocks = icws(X.indices, X.data, X.indptr, 5, 30, return_t=True)
    for a, b in zip(whole, blocks):
        assert_array_equal(a, b)


def test_float32_data_give_the_samples_of_their_float64_values():
    # ln x is taken in float64: a float32 row is hashed as its exact
    # float64 values are, only the output dtype differs.
    rng = np.random.RandomState(6)
    X = (rng.rand(20, 30) * (rng.rand(20, 30) < 0.5)).astype(np.float32)
    for codes in ("full", "0bit"):
        hasher = MinMaxHasher(200, codes=codes, random_state=0).fit(X)
        Z32, Z64 = hasher.transform(X), hasher.transform(X.astype(np.float64))
        assert Z32.dtype == np.float32 and Z64.dtype == np.float64
        assert_array_equal(Z32.indices, Z64.indices)


def test_sample_keys_separate_samples():
    # Equal samples give equal keys; different samples (same feature and
    # another t, or another feature) different 32-bit keys, t of any sign
    # and size included.
    rng = np.random.RandomState(0)
    features = rng.randint(0, 50, 200000)
    t = rng.randint(-(2**40), 2**40, 200000)
    t[:1000] = np.arange(-500, 500)
    keys = sample_keys(features, t, 123)
    assert keys.dtype == np.uint64 and keys.max() < 2**32
    assert_array_equal(keys, sample_keys(features.copy(), t.copy(), 123))
    pairs = np.unique(np.c_[features, t], axis=0)
    n_keys = np.unique(sample_keys(pairs[:, 0], pairs[:, 1], 123)).size
    # Distinct samples sharing a key: about n**2 / 2**33 of 200000 (5).
    assert len(pairs) - n_keys < 30
    assert np.unique(sample_keys(np.zeros(1000, int), np.arange(1000), 1)).size == 1000
    # The high bits are uniform: the b-bit codes rely on it only through
    # their own hash, but a skewed key would show here.
    top = sample_keys(np.arange(100000), np.zeros(100000, int), 7) >> np.uint64(28)
    counts = np.bincount(top.astype(np.int64), minlength=16)
    assert np.abs(counts - 100000 / 16).max() < 5 * np.sqrt(100000 / 16)


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


def test_zero_bit_features_are_the_one_hot_codes_of_icws():
    rng = np.random.RandomState(2)
    X = rng.gamma(0.5, 2.0, (7, 25)) * (rng.rand(7, 25) < 0.4)
    X[3] = 0.0
    k = 300
    hasher = MinMaxHasher(k, b_bits=None, codes="0bit", random_state=4).fit(X)
    Z = hasher.transform(sp.csr_matrix(X))
    assert_array_equal(np.diff(Z.indptr), [k, k, k, 0, k, k, k])
    assert_allclose(Z.data, 1 / np.sqrt(k))
    columns = Z.indices.reshape(-1, k) - np.arange(k) * X.shape[1]
    expected = _brute_force_icws(np.delete(X, 3, axis=0), hasher.hash_seed_, k)
    assert_array_equal(columns, expected)
    # And the inner products count the agreeing hashes.
    agree = (expected[:, None, :] == expected[None, :, :]).mean(axis=2)
    assert_allclose(
        (Z @ Z.T).toarray()[np.ix_([0, 1, 2, 4, 5, 6], [0, 1, 2, 4, 5, 6])], agree
    )


def test_full_codes_are_the_codes_of_the_sample_keys():
    rng = np.random.RandomState(3)
    X = rng.gamma(0.5, 2.0, (5, 25)) * (rng.rand(5, 25) < 0.5)
    k = 64
    hasher = MinMaxHasher(k, b_bits=32, random_state=1).fit(X)
    Z = sp.csr_matrix(hasher.transform(X))
    Xc = sp.csr_matrix(X)
    positions, t = icws(Xc.indices, Xc.data, Xc.indptr, hasher.hash_seed_, k, return_t=True)
    keys = sample_keys(Xc.indices[positions], t, hasher.hash_seed_)
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
    # with Li's "small bias on real data": below 0.01 on average.
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
    positions, t = icws(X.indices, X.data, X.indptr, seed, k, return_t=True)
    features = X.indices[positions]
    same_i = features[:, None, :] == features[None, :, :]
    full = (same_i & (t[:, None, :] == t[None, :, :])).mean(axis=2)
    zero_bit = same_i.mean(axis=2)
    se = np.sqrt(K * (1 - K) / k)[off]
    assert np.all(np.abs(full - K)[off] <= 4 * se + 1e-12)
    bias = (zero_bit - K)[off]
    assert np.abs(bias).max() < 4 * np.sqrt(0.25 / k) + 0.02
    assert abs(bias.mean()) < 0.01


def test_bin_wise_cws_of_the_benchmarks_tends_to_the_resemblance():
    # benchmarks/bin_wise_cws.py shows why MinMaxHasher does not offer
    # bin-wise CWS: once k exceeds a row's nonzeros most bins hold one
    # feature, whose sample is that feature whatever its weight. Two rows on
    # the same 20 features with unrelated weights then agree on nearly every
    # bin, as their resemblance (1) would, while ICWS agrees at about their
    # min-max kernel. With a single bin, bin-wise CWS is one ICWS sample.
    # Both are 0-bit schemes (the coordinate is compared).
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
    assert abs(agreement(MinMaxHasher, 2048) - K) < 0.1
    single_bin = np.mean([agreement(BinWiseMinMaxHasher, 1, seed) for seed in range(400)])
    assert abs(single_bin - agreement(MinMaxHasher, 4000)) < 4 * np.sqrt(0.25 / 400)
