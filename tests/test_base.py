"""What the base class (``_base.py``) gives every estimator of the registry:
partial_fit (incremental fitting) and n_jobs (parallel row chunks).

KernelJL's partial_fit (a reservoir subsample) is tested in
``test_kernel_jl.py``, the dask integration in ``test_dask.py``.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import ESTIMATOR_REGISTRY, legal_input, make_estimator
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import config_context

from sklearn_sketch import TensorSketch

NAMES = sorted(ESTIMATOR_REGISTRY)
# The sketches whose random map does not depend on the data.
# Estimators whose fit reads only the width of X: not KernelJL (a subsample),
# MaclaurinSketch (its allocation) or gamma="scale" (the variance of X).
OBLIVIOUS = [
    name
    for name in NAMES
    if not name.startswith(("KernelJL", "MaclaurinSketch"))
    and ESTIMATOR_REGISTRY[name][1].get("gamma") != "scale"
]


def _data(n_samples=600, n_features=40, density=0.3, seed=0, dtype=np.float64):
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n_samples, n_features)).astype(dtype)
    X[rng.rand(n_samples, n_features) > density] = 0
    X[3] = 0  # an all-zero row
    return X


def _dense(X):
    return X.toarray() if sp.issparse(X) else X


# ---------------------------------------------------------------------------
# partial_fit of the oblivious sketches
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", OBLIVIOUS)
def test_oblivious_partial_fit_draws_once_and_matches_fit(name):
    X = legal_input(name, _data())
    fitted = make_estimator(name).fit(X)
    incremental = make_estimator(name)
    for batch in np.array_split(X, 4):
        assert incremental.partial_fit(batch) is incremental
        state = {k: v.copy() for k, v in vars(incremental).items() if k.endswith("_") and isinstance(v, np.ndarray)}
    # Later batches changed nothing that was drawn by the first one.
    for attribute, value in state.items():
        assert_array_equal(getattr(incremental, attribute), value)
        assert_array_equal(getattr(fitted, attribute), value)
    assert_array_equal(_dense(incremental.transform(X)), _dense(fitted.transform(X)))


@pytest.mark.parametrize("name", NAMES)
def test_partial_fit_rejects_other_number_of_features(name):
    X = legal_input(name, _data(n_samples=50))
    estimator = make_estimator(name).partial_fit(X)
    with pytest.raises(ValueError, match="X has 39 features, but .* is expecting 40"):
        estimator.partial_fit(X[:, :-1])
    with pytest.raises(ValueError, match="NaN"):
        estimator.partial_fit(np.full((2, 40), np.nan))


# ---------------------------------------------------------------------------
# n_jobs: parallel row chunks, identical output
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("working_memory", [None, 0.05])
def test_n_jobs_output_identical_to_one_job(name, sparse, dtype, working_memory):
    X = legal_input(name, _data(n_samples=700, dtype=dtype))
    if sparse:
        X = sp.csr_matrix(X)
    # KernelJL: a subsample large enough for several kernel blocks.
    kernel_jl = name.startswith("KernelJL")
    params = {"n_subsample": 64, "n_components": 16} if kernel_jl else {}
    one = make_estimator(name, n_jobs=1, **params).fit(X)
    two = make_estimator(name, n_jobs=2, **params).fit(X)
    with config_context(working_memory=working_memory or 1024):
        expected, result = one.transform(X), two.transform(X)
    assert type(result) is type(expected) and result.dtype == expected.dtype == dtype
    if not one._map.exact_rows:
        # BLAS products (KernelJL, ORF) round differently with other thread
        # counts and shapes in some BLAS releases (NumPy 1.23's OpenBLAS),
        # so they are equal up to rounding, not bit for bit.
        tol = 1e-5 if dtype == np.float32 else 1e-12
        assert_allclose(result, expected, rtol=tol, atol=tol * np.abs(expected).max())
    elif sp.issparse(expected):
        assert result.indices.dtype == expected.indices.dtype
        assert result.indptr.dtype == expected.indptr.dtype
        for part in ("data", "indices", "indptr"):
            assert_array_equal(getattr(result, part), getattr(expected, part))
    else:
        assert_array_equal(result, expected)


def test_n_jobs_errors_surface_from_threads():
    X = np.full((40, 3), 1e30, dtype=np.float32)
    sketch = TensorSketch(n_components=16, degree=3, random_state=0, n_jobs=2).fit(X)
    with pytest.raises(ValueError, match="overflowed float32"):
        sketch.transform(X)


@pytest.mark.parametrize("name", sorted(ESTIMATOR_REGISTRY))
def test_a_failed_refit_leaves_an_unfitted_estimator(name):
    # Rule: a fit that raises (here an impossible size, refused before any
    # draw) never leaves the former model behind under the new input's
    # width: transform then says the estimator is not fitted.
    from sklearn.exceptions import NotFittedError

    rng = np.random.RandomState(0)
    narrow, wide = np.abs(rng.rand(20, 5)), np.abs(rng.rand(20, 40))
    estimator = make_estimator(name).fit(narrow)
    estimator.set_params(n_components=10**15)
    with pytest.raises((MemoryError, ValueError)):
        estimator.fit(wide)
    with pytest.raises(NotFittedError):
        estimator.transform(wide)
    with pytest.raises(NotFittedError):
        estimator.get_feature_names_out()


def _fitted_says(estimator, X):
    """``(check_is_fitted, the same of a Pipeline ending in it, transform)``: each True if fitted."""
    from sklearn.exceptions import NotFittedError
    from sklearn.pipeline import make_pipeline
    from sklearn.utils.validation import check_is_fitted

    says = []
    for check in (
        lambda: check_is_fitted(estimator),
        lambda: check_is_fitted(make_pipeline(estimator)),
        lambda: estimator.transform(X),
    ):
        try:
            check()
        except NotFittedError:
            says.append(False)
        else:
            says.append(True)
    return says


def _failing_draw(estimator):
    """Make the next fit of ``estimator`` fail in its map's draw (after validation)."""

    def draw(random_state, X):
        raise ValueError("a draw that fails")

    def failing(make_map):
        def failing_map(*args):
            sketch_map = make_map(*args)
            sketch_map.draw = draw
            return sketch_map

        return failing_map

    estimator._make_map = failing(estimator._make_map)
    if estimator._make_stream_map is not None:
        estimator._make_stream_map = failing(estimator._make_stream_map)


# How a fit fails: a size refused before the draw, a value rejected by the
# input's validation (after the feature names are read), empty input, an
# error in the draw itself, and a parameter refused before anything.
FAILURES = {
    "size": lambda estimator, X: (estimator.set_params(n_components=10**15), X),
    "nan": lambda estimator, X: (None, X.mask(X == X.iloc[3, 2])),
    "empty": lambda estimator, X: (None, X.iloc[:0]),
    "draw": lambda estimator, X: (_failing_draw(estimator), X),
    "parameter": lambda estimator, X: (estimator.set_params(n_components=0), X),
}


@pytest.mark.parametrize("method", ["fit", "partial_fit", "fit_transform"])
@pytest.mark.parametrize("failure", sorted(FAILURES))
@pytest.mark.parametrize("name", NAMES)
def test_after_a_failed_fit_check_is_fitted_and_transform_agree(name, failure, method):
    # Rule: after any failed fit, scikit-learn's check_is_fitted (of the
    # estimator, and of a Pipeline ending in it) and transform agree, and
    # a fit refused no longer shows the refused input's width or names.
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(0)
    former = pd.DataFrame(np.abs(rng.rand(20, 5)), columns=[f"a{i}" for i in range(5)])
    X = pd.DataFrame(np.abs(rng.rand(20, 7)), columns=[f"b{i}" for i in range(7)])
    for fitted_before in (False, True):
        estimator = make_estimator(name)
        if fitted_before:
            estimator.fit(former)
            if failure == "parameter" and method == "partial_fit":
                continue  # scikit-learn validates no parameter after the first batch
        _, X_failing = FAILURES[failure](estimator, X)
        with pytest.raises((MemoryError, ValueError)):
            getattr(estimator, method)(X_failing)
        says = _fitted_says(estimator, former if fitted_before else X)
        assert says in ([True] * 3, [False] * 3), says
        if failure == "parameter" or not fitted_before:
            # A parameter is refused before the fit starts: the former model
            # stays whole (and an unfitted estimator stays unfitted).
            assert says[0] == fitted_before
        elif method != "partial_fit":
            # (A later batch of partial_fit that fails may keep the model
            # of the former batches.)
            assert not says[0]
        if not says[0]:
            assert not hasattr(estimator, "n_features_in_")
            assert not hasattr(estimator, "feature_names_in_")


@pytest.mark.parametrize("first, second", [("orf", "sorf"), ("sorf", "orf"), ("sorf", "fastfood")])
def test_a_refit_keeps_only_the_new_maps_attributes(first, second):
    # Rule: the fitted attributes are the last fit's; one that only the
    # former map had goes with it, and set_params alone changes nothing.
    from sklearn_sketch import OrthogonalRBFSampler

    X = np.random.RandomState(0).rand(10, 6)
    estimator = OrthogonalRBFSampler(16, method=first, random_state=0).fit(X)
    expected = estimator.transform(X)
    estimator.set_params(method=second)
    assert_array_equal(estimator.transform(X), expected)
    if first == "orf":
        with pytest.raises(AttributeError):
            estimator.signs_
    else:
        assert estimator.signs_ is not None
    estimator.fit(X)
    assert hasattr(estimator, "random_weights_") == (second == "orf")


# ---------------------------------------------------------------------------
# random_state: scikit-learn's convention
# ---------------------------------------------------------------------------


def _features(estimator, X):
    return _dense(estimator.fit(X).transform(X))


@pytest.mark.parametrize("name", NAMES)
def test_random_state_int_reproduces_instance_and_none_advance(name):
    # Rule (scikit-learn's, as RBFSampler follows it): an int reproduces the
    # fit; a RandomState instance shared by two estimators is advanced by
    # the first fit, so the second draws other features; None draws anew
    # at every fit (from NumPy's global generator).
    X = legal_input(name, _data(n_samples=30, n_features=12))
    assert_array_equal(
        _features(make_estimator(name, random_state=3), X),
        _features(make_estimator(name, random_state=3), X),
    )
    shared = np.random.RandomState(0)
    first = _features(make_estimator(name, random_state=shared), X)
    second = _features(make_estimator(name, random_state=shared), X)
    assert not np.array_equal(first, second)
    first = _features(make_estimator(name, random_state=None), X)
    second = _features(make_estimator(name, random_state=None), X)
    assert not np.array_equal(first, second)


def test_structured_frequencies_keep_a_small_fitted_state():
    # SORF's and Fastfood's diagonals are drawn again from a seed, not kept,
    # nor is the generator's state (2.5 KiB) kept in its place.
    import pickle

    from sklearn_sketch import OrthogonalRBFSampler

    X = np.random.RandomState(0).rand(5, 300)
    for method in ("sorf", "fastfood"):
        sampler = OrthogonalRBFSampler(4096, method=method, random_state=0).fit(X)
        assert len(pickle.dumps(sampler)) < 2000


# ---------------------------------------------------------------------------
# A transform that cannot succeed fails before any work
# ---------------------------------------------------------------------------


def _forbid_work(estimator):
    """Make the map of ``estimator`` raise if a transform starts its work."""

    def prepare(*args, **kwargs):
        raise AssertionError("the transform started its work before refusing")

    estimator._map.prepare = prepare


@pytest.mark.parametrize("name", NAMES)
def test_transform_larger_than_memory_fails_before_any_work_naming_its_size(name, monkeypatch):
    # Rule: a transform whose output cannot be allocated fails at once,
    # naming its size, not after the map's per-call work (SORF and Fastfood
    # drew their diagonals, for minutes at n_components=4e8) and NumPy's
    # MemoryError. The machine's memory is made the need of 100 rows.
    from sklearn_sketch._map import transform_bytes
    from sklearn_sketch.utils import _chunking

    X = legal_input(name, _data(n_samples=200, n_features=12))
    estimator = make_estimator(name).fit(X)
    sketch_map = estimator._map
    memory = transform_bytes(sketch_map, X[:100])
    monkeypatch.setattr(_chunking, "_physical_memory_bytes", lambda: memory)
    estimator.transform(X[:100])
    _forbid_work(estimator)
    with pytest.raises(MemoryError, match=f"transform of 200 rows into {sketch_map.n_output} "):
        estimator.transform(X)


# ---------------------------------------------------------------------------
# The per-call state is made once
# ---------------------------------------------------------------------------


def _arrays(state):
    """The NumPy arrays in a map's per-call state (nested dicts, lists, tuples)."""
    if isinstance(state, np.ndarray):
        return [state]
    if isinstance(state, dict):
        state = list(state.values())
    if isinstance(state, (list, tuple)):
        return [array for part in state for array in _arrays(part)]
    return []


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("name", NAMES)
def test_per_call_state_is_made_once_per_dtype(name, sparse):
    # Rule: a transform call's cost beyond its rows' work does not grow
    # with the model: the per-call state a map prepares from its drawn state
    # (dtype copies of the weights, diagonals, block signs, hash tables) is
    # made at the first call in each dtype and then reused, not made again
    # at every call (ORF converted its whole weight matrix per call). It is
    # not pickled, and made again identically after unpickling.
    import pickle

    X = legal_input(name, _data(n_samples=30, n_features=12))
    estimator = make_estimator(name).fit(X)
    for dtype in (np.float32, np.float64):
        rows = X[:2].astype(dtype)
        rows = sp.csr_matrix(rows) if sparse else rows
        first = estimator._map.prepare(rows, 1, 1)
        again = estimator._map.prepare(rows, 1, 1)
        assert all(a is b for a, b in zip(_arrays(first), _arrays(again), strict=True))
        restored = pickle.loads(pickle.dumps(estimator))
        assert "_prepared" not in vars(restored._map)
        assert_array_equal(_dense(restored.transform(rows)), _dense(estimator.transform(rows)))


STREAMING = [name for name in NAMES if make_estimator(name)._make_stream_map is not None]


@pytest.mark.parametrize("name", STREAMING)
def test_per_call_state_follows_partial_fit(name):
    # A map that learns batch by batch drops its prepared state when a
    # batch changes it: a transform between batches changes nothing.
    X = legal_input(name, _data(n_samples=200, n_features=12)).astype(np.float32)
    batches = np.array_split(X, 5)
    watched, plain = make_estimator(name), make_estimator(name)
    for batch in batches:
        watched.partial_fit(batch)
        plain.partial_fit(batch)
        watched.transform(X[:3])
    assert_array_equal(watched.transform(X), plain.transform(X))
