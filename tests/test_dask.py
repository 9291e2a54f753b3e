"""Transforms of dask collections on a local distributed cluster, and dask-ml wrappers.

Skipped, with the reason shown, when the ``dask`` extra is not installed
(``pip install "sklearn-sketch[dask]"``). The cluster has two worker processes
on the loopback interface; it is started once for the module and shut down
after it.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import make_estimator
from numpy.testing import assert_allclose, assert_array_equal

import sklearn_sketch
from sklearn_sketch import CoREHasher, KernelJL, TensorSketch

da = pytest.importorskip("dask.array", reason="dask not installed (pip install '.[dask]')")
dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed", reason="dask.distributed not installed")
dd = pytest.importorskip("dask.dataframe", reason="dask.dataframe not installed")
pd = pytest.importorskip("pandas")

# A two-worker cluster per module: seconds of start-up before any test.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def client():
    """A LocalCluster of two single-threaded worker processes on 127.0.0.1."""
    with distributed.LocalCluster(
        n_workers=2,
        processes=True,
        threads_per_worker=1,
        host="127.0.0.1",
        dashboard_address=None,
    ) as cluster, distributed.Client(cluster) as client:
        # The workers must import this checkout of the package, not another one.
        files = client.run(lambda: __import__("sklearn_sketch").__file__)
        assert set(files.values()) == {sklearn_sketch.__file__}, files
        yield client


def _data(n_samples=500, n_features=30, seed=0, dtype=np.float64):
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n_samples, n_features)).astype(dtype)
    X[rng.rand(n_samples, n_features) > 0.3] = 0
    X[7] = 0  # an all-zero row
    return X


def _forbid_compute(dsk, keys, **kwargs):
    raise AssertionError("the transform computed something before .compute()")


def _assert_sparse_equal(result, expected):
    assert sp.issparse(result) and result.dtype == expected.dtype
    result, expected = sp.csr_matrix(result), sp.csr_matrix(expected)
    assert result.shape == expected.shape
    for name in ("data", "indices", "indptr"):
        assert_array_equal(getattr(result, name), getattr(expected, name))


# Registry entries with dense output (and KernelJL's subsample of 40 rows).
DENSE = {
    "TensorSketch": {"n_components": 48, "degree": 2},
    "PolynomialTreeSketch-tensorsketch": {},
    "KernelJL-rbf": {"n_components": 12, "n_subsample": 40},
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", sorted(DENSE))
def test_dense_dask_array_is_lazy_blockwise_and_equal(client, name, dtype):
    X = _data(dtype=dtype)
    estimator = make_estimator(name, **DENSE[name]).fit(X)
    # Chunked along the features too: the transform rechunks to whole rows.
    X_dask = da.from_array(X, chunks=(128, 20))
    with dask.config.set(scheduler=_forbid_compute):
        result = estimator.transform(X_dask)
    assert isinstance(result, da.Array)
    assert result.chunks == ((128, 128, 128, 116), (estimator.n_components,))
    assert type(result._meta) is np.ndarray and result.dtype == result._meta.dtype == dtype
    assert len(result.__dask_keys__()) == 4  # one task per block of rows
    computed = result.compute()
    assert computed.dtype == dtype
    expected = estimator.transform(X)
    if name == "TensorSketch":
        assert_array_equal(computed, expected)  # bit for bit
    else:
        # KernelJL's BLAS product rounds differently in single-threaded
        # workers and for other block shapes (see the KernelJL n_jobs notes).
        tol = 1e-5 if dtype == np.float32 else 1e-12
        assert_allclose(computed, expected, rtol=tol, atol=tol * np.abs(expected).max())


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sparse_blocks_core_hasher_bit_identical(client, dtype):
    X = _data(n_samples=400, dtype=dtype)
    hasher = CoREHasher(n_components=32, random_state=0).fit(X)
    X_dask = da.from_array(X, chunks=(100, -1)).map_blocks(sp.csr_matrix, dtype=dtype)
    assert sp.issparse(X_dask._meta)
    with dask.config.set(scheduler=_forbid_compute):
        result = hasher.transform(X_dask)
    assert result.chunks == ((100,) * 4, (hasher._n_features_out,))
    assert isinstance(result._meta, sp.csr_matrix) and result.dtype == dtype
    _assert_sparse_equal(result.compute(), hasher.transform(sp.csr_matrix(X)))

    # Sparse blocks into a dense output.
    sketch = TensorSketch(n_components=32, random_state=0).fit(X)
    assert_array_equal(sketch.transform(X_dask).compute(), sketch.transform(X))


def test_dask_dataframe(client):
    X = _data(n_samples=300, n_features=6)
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(6)])
    ddf = dd.from_pandas(frame, npartitions=3)

    sketch = TensorSketch(n_components=16, random_state=0).fit(frame)
    with dask.config.set(scheduler=_forbid_compute):
        result = sketch.transform(ddf)
    assert isinstance(result, dd.DataFrame)
    assert list(result.columns) == list(sketch.get_feature_names_out())
    assert result.npartitions == 3
    assert (result.dtypes == np.float64).all()
    computed = result.compute()
    assert_array_equal(computed.index, frame.index)
    assert_array_equal(computed.to_numpy(), sketch.transform(frame))

    # Sparse output: a dask array of CSR blocks, rows per partition unknown.
    hasher = CoREHasher(n_components=8, random_state=0).fit(frame)
    with dask.config.set(scheduler=_forbid_compute):
        hashed = hasher.transform(ddf)
    assert isinstance(hashed, da.Array) and isinstance(hashed._meta, sp.csr_matrix)
    assert hashed.shape[1] == hasher._n_features_out and np.isnan(hashed.shape[0])
    _assert_sparse_equal(hashed.compute(), hasher.transform(frame))


def test_dask_input_errors(client):
    sketch = TensorSketch(n_components=8, random_state=0).fit(_data(n_features=5))
    with pytest.raises(ValueError, match="X has 4 features, but TensorSketch is expecting 5"):
        sketch.transform(da.zeros((10, 4), chunks=5))
    with pytest.raises(ValueError, match="2D"):
        sketch.transform(da.zeros(10, chunks=5))


# ---------------------------------------------------------------------------
# dask-ml wrappers
# ---------------------------------------------------------------------------


def test_dask_ml_parallel_post_fit(client):
    wrappers = pytest.importorskip("dask_ml.wrappers", reason="dask-ml not installed")
    X = _data(n_samples=400)
    X_dask = da.from_array(X, chunks=(100, -1))
    for estimator in (TensorSketch(n_components=24, random_state=0), CoREHasher(n_components=8, random_state=0)):
        wrapped = wrappers.ParallelPostFit(estimator).fit(X)
        result = wrapped.transform(X_dask)
        assert isinstance(result, da.Array)
        # dask-ml maps the blocks without output chunks, so its metadata
        # keeps the input's 30 columns; the values are right.
        assert result.shape == X.shape
        expected = wrapped.estimator_.transform(X) if hasattr(wrapped, "estimator_") else estimator.transform(X)
        computed = result.compute()
        if sp.issparse(expected):
            _assert_sparse_equal(computed, expected)
        else:
            assert_array_equal(computed, expected)


def _no_score(estimator, X, y=None):
    return 0.0


def test_dask_ml_incremental(client):
    wrappers = pytest.importorskip("dask_ml.wrappers", reason="dask-ml not installed")
    from sklearn.linear_model import SGDClassifier

    rng = np.random.RandomState(0)
    X = _data(n_samples=600)
    y = (X[:, 0] * X[:, 1] + X[:, 2] ** 2 > 0.2).astype(int)  # not linear in X
    X_dask = da.from_array(X, chunks=(150, -1))
    y_dask = da.from_array(y, chunks=150)

    # dask-ml's Incremental insists on a scorer, which a transformer does not
    # have: it must be given one (here a constant) to wrap a sketch.
    with pytest.raises(TypeError, match="score"):
        wrappers.Incremental(TensorSketch()).fit(X_dask)

    # An oblivious sketch fitted block by block is the sketch fitted at once.
    incremental = wrappers.Incremental(TensorSketch(n_components=64, random_state=0), scoring=_no_score)
    incremental.fit(X_dask)
    assert_array_equal(
        incremental.transform(X_dask).compute(),
        TensorSketch(n_components=64, random_state=0).fit(X).transform(X),
    )

    # KernelJL keeps a reservoir across the blocks (in the order they come).
    kjl = wrappers.Incremental(
        KernelJL(n_components=8, n_subsample=50, random_state=0), scoring=_no_score, shuffle_blocks=False
    )
    kjl.fit(X_dask)
    fitted = kjl.estimator_
    assert fitted.n_samples_seen_ == 600 and fitted.n_subsample_ == 50
    assert_array_equal(fitted.components_, X[fitted.component_indices_])

    # A model on the features: sketch blockwise with the estimator's own
    # transform (right output chunks; ParallelPostFit.transform keeps the
    # input's column count in its metadata, which breaks Incremental.score),
    # then partial_fit the linear model block by block.
    sketch = TensorSketch(n_components=128, random_state=0).fit(X[:10])
    features = sketch.transform(X_dask)
    model = wrappers.Incremental(SGDClassifier(random_state=rng.randint(1000), tol=None, max_iter=5), scoring="accuracy")
    model.fit(features, y_dask, classes=[0, 1])
    assert 0.5 < model.score(features, y_dask) <= 1
