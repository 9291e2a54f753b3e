"""Very wide sparse input and impossible sizes, for every polynomial sketch;
the fitted state on very wide input, for every estimator.

The rules (issue 14): a sketch's cost and fitted state follow the input's
nonzeros and ``n_components * degree``, never ``n_features``, so a CSR of
4 rows x 2**31 columns with 40 nonzeros (hashed text features are that
wide) is fitted and transformed in well under 5 s and 300 MiB; and a size
that could not transform a single row on this machine is refused by
``fit`` at once, with a message naming the size, before anything is drawn.
"""

import pickle
import time
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import (
    ESTIMATOR_REGISTRY,
    legal_input,
    make_estimator,
    registry_names,
    statistical_seeds,
)
from numpy.testing import assert_array_equal
from sklearn import config_context
from sklearn.preprocessing import normalize

from sklearn_sketch.utils import _chunking

WIDE = 2**31
MIB = 2**20

# Every polynomial sketch of the registry (each option with a code path).
POLYNOMIAL = registry_names("polynomial")
# A homogeneous kernel (the zero row maps to zero) and an inhomogeneous one.
KERNELS = pytest.mark.parametrize(
    "params", [{"degree": 2, "coef0": 0.0}, {"degree": 3, "coef0": 1.0}], ids=["p2c0", "p3c1"]
)
ALL = pytest.mark.parametrize("name", POLYNOMIAL)


def wide_rows(n_features=WIDE, seed=0, pool=None):
    """4 x n_features CSR, 10 nonzeros a row; rows 0 and 2 equal, row 3 zero.

    With ``pool``, the columns are drawn from that many wide columns, so
    that rows overlap (a kernel worth estimating); else from all of them.
    """
    rng = np.random.RandomState(seed)
    # (choice without replacement would permute all n_features columns)
    columns = np.unique(rng.randint(0, n_features, 2 * pool))[:pool] if pool else None
    indices, data = [], []
    for _ in range(3):
        row = rng.choice(columns, 10, replace=False) if pool else rng.randint(0, n_features, 10)
        indices.append(np.unique(row))
        data.append(rng.rand(indices[-1].size) + 0.1)
    indices[2], data[2] = indices[0], data[0]
    indptr = np.cumsum([0] + [i.size for i in indices] + [0])
    return sp.csr_matrix(
        (np.concatenate(data), np.concatenate(indices), indptr), shape=(4, n_features)
    )


def _measured(work):
    """``work()``'s result, its seconds and its peak of traced memory (bytes)."""
    tracemalloc.start()
    try:
        start = time.perf_counter()
        result = work()
        seconds = time.perf_counter() - start
        return result, seconds, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@ALL
@KERNELS
def test_wide_sparse_input_costs_what_its_nonzeros_cost(name, params):
    X = wide_rows()
    estimator = make_estimator(name, **params)
    Z, seconds, peak = _measured(lambda: estimator.fit(X).transform(X))
    # A dense vector of the input's width alone would be 8 GiB (16 GiB
    # float64): anything O(n_features) fails both bounds by far.
    assert seconds < 5, seconds
    assert peak < 300 * MIB, peak / MIB
    # Fitted state O(n_components * degree): a few KiB, never the width.
    assert len(pickle.dumps(estimator)) < 64 * 1024
    # Oracles: identical rows give identical features, bit for bit; the
    # zero row is x' = [0, sqrt(coef0)], whose features carry coef0 alone.
    assert Z.shape == (4, estimator.n_components) and np.all(np.isfinite(Z))
    assert_array_equal(Z[0], Z[2])
    assert not np.array_equal(Z[0], Z[1])
    if params["coef0"] == 0:
        assert_array_equal(Z[3], 0.0)
    else:
        assert np.any(Z[3] != 0)


@pytest.mark.slow
@pytest.mark.statistical
@pytest.mark.parametrize(
    "name",
    [
        "TensorSRHT",
        "ComplexToRealSketch-srht",
        "PolynomialTreeSketch-tensorsrht",
        "PolynomialTreeSketch-tensorsketch",
        "MaclaurinSketch-tree",
        "MaclaurinSketch-tensorsrht",
    ],
)
def test_wide_input_estimate_is_unbiased(name):
    # Rows of 2**31 columns that overlap: the hashed-down SRHTs (and the
    # tree's hashed leaf buckets) must estimate their kernel without bias.
    X = wide_rows(pool=14, seed=3)[:3]
    X = normalize(X)
    degree, coef0, n_draws = 3, 0.5, 300
    # The kernel on the columns used (X @ X.T would transpose 2**31 columns).
    _, used = np.unique(X.indices, return_inverse=True)
    X_used = sp.csr_matrix((X.data, used.reshape(-1), X.indptr)).toarray()
    exact = (X_used @ X_used.T + coef0) ** degree
    products = np.empty((n_draws, 3, 3))
    with config_context(assume_finite=True):
        for draw, seed in enumerate(statistical_seeds(n_draws)):
            Z = make_estimator(
                name, n_components=16, degree=degree, coef0=coef0, random_state=seed
            ).fit_transform(X)
            products[draw] = Z @ Z.T
    standard_error = products.std(axis=0, ddof=1) / np.sqrt(n_draws)
    # Every pair within 4 standard errors (fails with probability 6e-5 per
    # entry under the CLT), and the band is not vacuous.
    assert np.all(np.abs(products.mean(axis=0) - exact) < 4 * standard_error)
    assert np.all(standard_error > 1e-3)


# ---------------------------------------------------------------------------
# Impossible sizes


@pytest.fixture
def machine_of_16_gib(monkeypatch):
    """The refusals below must not depend on the host's memory."""
    monkeypatch.setattr(_chunking, "_physical_memory_bytes", lambda: 16 * 2**30)


@ALL
@KERNELS
def test_impossible_size_fails_at_once_naming_it(name, params, machine_of_16_gib):
    X = np.random.RandomState(0).rand(5, 12)
    estimator = make_estimator(name, n_components=10**9, **params)
    start = time.perf_counter()
    with pytest.raises((ValueError, MemoryError), match="n_components=1000000000"):
        estimator.fit(X)
    assert time.perf_counter() - start < 1


@ALL
def test_large_but_possible_size_is_not_refused(name, machine_of_16_gib):
    X = np.random.RandomState(0).rand(3, 12)
    Z = make_estimator(name, n_components=2**17, degree=3, coef0=1.0).fit_transform(X)
    assert Z.shape == (3, 2**17) and np.all(np.isfinite(Z))


# -- every estimator: the fitted state on wide input ---------------------------------

# The README's bound on the fitted state (pickled) of every estimator on a CSR
# of 2**31 columns, but OrthogonalRBFSampler(method="orf"), whose dense
# frequencies are its model.
STATE_BOUND = 9 * 1024
EVERY = sorted(ESTIMATOR_REGISTRY)


def _default_params(name):
    """The registry's options (kernel, method, base...), at default sizes."""
    sizes = ("n_components", "n_subsample", "degree", "b_bits", "gamma", "coef0")
    return {k: v for k, v in ESTIMATOR_REGISTRY[name][1].items() if k not in sizes}


@pytest.mark.parametrize("defaults", [False, True], ids=["registry", "defaults"])
@pytest.mark.parametrize("name", EVERY)
def test_fitted_state_on_wide_input_is_small(name, defaults):
    X = legal_input(name, wide_rows())
    if defaults:
        cls = ESTIMATOR_REGISTRY[name][0]
        estimator = cls(**_default_params(name), random_state=0)
        if name.startswith("KernelJL"):
            estimator.set_params(n_subsample=4)
    else:
        estimator = make_estimator(name)
    Z = estimator.fit(X).transform(X)
    state = len(pickle.dumps(estimator))
    if name == "OrthogonalRBFSampler-orf":
        # Its frequencies, input_width_ x ceil(n_components / 2) float64, and
        # a few KiB: never the input's width.
        weights = 8 * estimator.input_width_ * ((estimator.n_components + 1) // 2)
        assert estimator.input_width_ == 2**12
        assert state < weights + 4096, state
    else:
        assert state <= STATE_BOUND, state
    if sp.issparse(Z):  # (of up to 2**35 columns: not densified)
        Z = Z.tocsr()
        assert np.isfinite(Z.data).all()
        assert_array_equal(Z[0].indices, Z[2].indices)
        assert_array_equal(Z[0].data, Z[2].data)
    else:
        assert np.isfinite(Z).all()
        assert_array_equal(Z[0], Z[2])


@pytest.mark.parametrize("method", ["sorf", "fastfood"])
def test_structured_diagonals_drawn_again_are_the_fitted_ones(method):
    # They are not stored: drawn again from the seed drawn at fit, the
    # numbers must be those of the fit, at every access and after pickling.
    from sklearn_sketch import OrthogonalRBFSampler

    X = wide_rows()
    estimator = OrthogonalRBFSampler(method=method, gamma=0.3, random_state=5).fit(X)
    first = [estimator.signs_, estimator.scales_]
    restored = pickle.loads(pickle.dumps(estimator))
    for again in (estimator, restored):
        assert_array_equal(again.signs_, first[0])
        assert_array_equal(again.scales_, first[1])
    assert_array_equal(restored.transform(X), estimator.transform(X))
    # The draw of the fit, by hand: the same generator, the same order, then
    # the diagonals from a seed drawn from it.
    rng = np.random.RandomState(5)
    from sklearn_sketch.rbf._fourier_features import draw_fastfood, draw_sorf
    from sklearn_sketch.utils._count_sketch import draw_hash_down

    draw_hash_down(rng, 1)
    seed = rng.randint(np.iinfo(np.int32).max)
    draw = draw_sorf if method == "sorf" else draw_fastfood
    expected = draw(
        np.random.RandomState(seed), estimator.input_width_, estimator._map.n_blocks()
    )
    assert_array_equal(first[0], expected[0])
    assert_array_equal(first[1], expected[-1] * np.sqrt(2 * 0.3))
    if method == "fastfood":
        assert_array_equal(estimator.permutations_, expected[1])
        assert_array_equal(estimator.gaussian_, expected[2])
    else:
        assert not hasattr(estimator, "permutations_")


# Every estimator that sizes itself (all but KernelJL), each option.
AUTO = [name for name in EVERY if not name.startswith("KernelJL")]


@pytest.mark.parametrize("name", AUTO)
def test_auto_size_on_wide_input_costs_what_its_nonzeros_cost(name):
    # n_components="auto" evaluates products of the sampled rows: they must
    # follow the rows' nonzeros (a product or a column index of scipy sized
    # by the width alone takes 8 GiB at 2**31 columns).
    X = legal_input(name, wide_rows(pool=20))
    estimator = make_estimator(name).set_params(n_components="auto", eps=0.5)
    _, seconds, peak = _measured(lambda: estimator.fit(X))
    assert seconds < 5, seconds
    assert peak < 300 * MIB, peak / MIB
    assert np.isfinite(estimator.expected_error_)


def test_products_of_wide_rows_are_those_of_their_columns():
    # The columns a product uses, counted (narrow) or sorted (wide), are
    # sorted and unique; the products renumbered to them are the plain ones.
    from sklearn_sketch._sizing import (
        MAX_COUNTED_COLUMNS,
        _used_column_indices,
        compact_columns,
        dense_product,
    )

    narrow = wide_rows(n_features=1000, pool=30)
    for width in (1000, MAX_COUNTED_COLUMNS + 1, WIDE):
        X = sp.csr_matrix((narrow.data, narrow.indices * (width // 1000), narrow.indptr),
                          shape=(4, width))
        Y = X[[1, 0, 3]]
        used = _used_column_indices(X)
        assert_array_equal(used, np.unique(X.indices))
        assert_array_equal(_used_column_indices(X, Y), np.unique(X.indices))
        expected = (narrow @ narrow[[1, 0, 3]].T).toarray()
        np.testing.assert_allclose(dense_product(X, Y), expected, rtol=1e-12)
        compact = compact_columns(X)
        product = compact @ compact.T
        product = product.toarray() if sp.issparse(product) else product
        np.testing.assert_allclose(product, (narrow @ narrow.T).toarray(), rtol=1e-12)
