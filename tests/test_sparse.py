import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal

from sklearn_sketch.utils._sparse import dense_to_csr


@pytest.mark.parametrize(
    "X",
    [
        np.zeros((3, 4)),
        np.eye(3),
        np.array([[0.0, 1.5], [-2.0, 0.0], [0.0, 0.0]]),
        np.random.RandomState(0).rand(4, 0),
        np.asfortranarray(np.random.RandomState(0).rand(5, 3) > 0.5).astype(np.float32),
        # Signed zeros are zeros and NaN is a nonzero, as for scipy.
        np.array([[-0.0, np.nan, 0.0], [0.0, 0.0, -0.0], [1e-45, -3.0, 0.0]], np.float32),
        np.zeros((0, 7)),
        (np.random.RandomState(1).rand(9, 37) < 0.3) * np.arange(37.0),
    ],
)
def test_dense_to_csr_matches_scipy(X):
    expected = sp.csr_matrix(X)
    result = dense_to_csr(X)
    assert result.has_canonical_format
    assert result.dtype == X.dtype
    assert_array_equal(result.indptr, expected.indptr)
    assert_array_equal(result.indices, expected.indices)
    assert_array_equal(result.data, expected.data)  # NaN equal to NaN
