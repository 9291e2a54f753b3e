"""dask DataFrames of pandas extension dtypes transform as their pandas frames do.

Rule: a dask DataFrame transforms like its pandas counterpart in memory:
the same features, of the same dtype (the lazy result's metadata included),
or the same clear error. Frames of nullable (``Float64``, ``Int64``,
``Float32``), pyarrow (``double[pyarrow]``, ``int64[pyarrow]``) and
``category`` columns come from ``read_parquet(dtype_backend=...)`` and
friends. No cluster: the synchronous scheduler runs the partitions in this
process (the cluster's tests are in ``test_dask.py``).
"""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import ESTIMATOR_REGISTRY, legal_input, make_estimator
from numpy.testing import assert_array_equal

pd = pytest.importorskip("pandas")
dask = pytest.importorskip("dask", reason="dask not installed (pip install '.[dask]')")
dd = pytest.importorskip("dask.dataframe", reason="dask.dataframe not installed")

NAMES = sorted(ESTIMATOR_REGISTRY)
DTYPES = [
    "Float64", "Int64", "Float32", "boolean", "double[pyarrow]", "int64[pyarrow]",
    "float[pyarrow]", "category", "float32",
]


def _frame(name, dtype):
    # Small integers: every dtype holds the same numbers.
    rng = np.random.RandomState(0)
    X = legal_input(name, rng.randint(-3, 4, size=(24, 5)).astype(np.float64))
    if dtype == "boolean":
        X = X > 0
    X[2] = 0  # an all-zero row
    if "pyarrow" in dtype:
        pytest.importorskip("pyarrow")
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])])
    return frame.astype(dtype)


def _forbid_compute(dsk, keys, **kwargs):
    raise AssertionError("the transform computed something before .compute()")


def _values(result):
    if sp.issparse(result):
        return result.toarray()
    return result.to_numpy() if hasattr(result, "to_numpy") else np.asarray(result)


def _dtype(result):
    return result.dtypes.iloc[0] if hasattr(result, "dtypes") else result.dtype


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", NAMES)
def test_dask_dataframe_of_any_dtype_transforms_as_in_memory(name, dtype):
    frame = _frame(name, dtype)
    estimator = make_estimator(name).fit(frame)
    expected = estimator.transform(frame)
    with dask.config.set(scheduler=_forbid_compute):
        lazy = estimator.transform(dd.from_pandas(frame, npartitions=3))
    result = lazy.compute(scheduler="sync")
    assert _dtype(lazy) == _dtype(result) == expected.dtype
    assert_array_equal(_values(result), _values(expected))


@pytest.mark.parametrize("name", NAMES)
def test_dask_dataframe_missing_value_is_the_in_memory_error(name):
    frame = _frame(name, "Float64")
    estimator = make_estimator(name).fit(frame)
    frame.iloc[5, 1] = pd.NA
    with pytest.raises(ValueError, match="Input X contains NaN") as in_memory:
        estimator.transform(frame)
    lazy = estimator.transform(dd.from_pandas(frame, npartitions=3))
    with pytest.raises(ValueError) as in_dask:
        lazy.compute(scheduler="sync")
    assert str(in_dask.value) == str(in_memory.value)
