"""Finite input at the edges of the floating-point range, for every estimator.

The rule: finite input gives finite output, or a ``ValueError`` that names
the overflow, at ``fit`` or ``transform``; never a NaN or an infinity
silently. It runs over the whole registry of ``conftest.py``, float32 and
float64, dense and CSR, on values near the dtype's maximum, near its
smallest normal number (1e-300 in float64), and denormals, with mixed signs
where the estimator accepts them.

And ``gamma="scale"`` (``1 / (n_features * X.var())``) is the same number for
dense and sparse input, on any data: large common offsets, values from
1e-150 to 1e150, implicit zeros.
"""

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import ESTIMATOR_REGISTRY, legal_input, make_estimator, registry_names
from numpy.testing import assert_allclose

from sklearn_sketch import OrthogonalRBFSampler
from sklearn_sketch.utils._gamma import scale_gamma

NAMES = sorted(ESTIMATOR_REGISTRY)
DTYPES = ["float64", "float32"]
# Magnitudes of the values, by dtype: near the maximum, near the smallest
# normal number, and denormals (a few multiples of the smallest one).
MAGNITUDES = {
    "max": lambda info: info.max,
    "tiny": lambda info: 1e-300 if info.dtype == np.float64 else 1e-37,
    "denormal": lambda info: 7 * info.smallest_subnormal,
}
OVERFLOW = "overflowed"


def _base(seed=0):
    """Mixed-sign values of magnitude up to 1, a third of them zero, a zero row."""
    rng = np.random.RandomState(seed)
    X = rng.uniform(0.3, 1.0, size=(7, 9)) * np.where(rng.rand(7, 9) < 0.5, -1.0, 1.0)
    X[rng.rand(7, 9) < 0.3] = 0.0
    X[3] = 0.0
    return X


def _extreme(name, magnitude, dtype, kind):
    info = np.finfo(dtype)
    values = legal_input(name, _base()) * MAGNITUDES[magnitude](info)
    # Rounding to the dtype keeps the values finite (at most its maximum).
    X = np.clip(values, -info.max, info.max).astype(dtype)
    assert np.isfinite(X).all()
    return sp.csr_matrix(X) if kind == "sparse" else X


def _finite_or_overflow_error(function):
    """``function()``'s result if finite; None if it raised the overflow error."""
    try:
        with warnings.catch_warnings():
            # An overflow may warn on its way to the error: the error is the rule.
            warnings.simplefilter("ignore", RuntimeWarning)
            result = function()
    except ValueError as error:
        assert OVERFLOW in str(error), error
        return None
    dense = result.toarray() if sp.issparse(result) else np.asarray(result)
    assert np.isfinite(dense).all(), "finite input gave a non-finite output silently"
    return dense


@pytest.mark.parametrize("kind", ["dense", "sparse"])
@pytest.mark.parametrize("magnitude", MAGNITUDES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", NAMES)
def test_extreme_finite_input_gives_finite_output_or_an_overflow_error(
    name, dtype, magnitude, kind
):
    X = _extreme(name, magnitude, dtype, kind)
    _finite_or_overflow_error(lambda: make_estimator(name).fit(X).transform(X))
    # Fitted on ordinary data, the check is the transform's.
    ordinary = legal_input(name, _base(1)).astype(dtype)
    estimator = make_estimator(name).fit(ordinary)
    _finite_or_overflow_error(lambda: estimator.transform(X))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("method", ["sorf", "orf", "fastfood"])
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
def test_rbf_features_near_the_maximum_are_an_overflow_error(method, dtype):
    # The reproducer: projections beyond the range were infinite, their
    # cosines NaN.
    X = (_base() * np.finfo(dtype).max / 4).astype(dtype)
    estimator = OrthogonalRBFSampler(32, gamma=0.5, method=method, random_state=0).fit(X)
    with pytest.raises(ValueError, match=f"overflowed {dtype}: the projections"):
        estimator.transform(X)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", registry_names("polynomial"))
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
def test_polynomial_overflow_message_says_what_helps_for_its_dtype(name, dtype):
    X = (_base() * np.finfo(dtype).max / 4).astype(dtype)
    estimator = make_estimator(name).fit(X)
    with pytest.raises(ValueError, match=f"overflowed {dtype}") as raised:
        estimator.transform(X)
    message = str(raised.value)
    assert "Scale the input down" in message
    assert "lower degree, gamma or coef0" in message
    # float64 input cannot be helped by float64; float32 input can.
    assert ("float64 input" in message) == (dtype == "float32"), message


# -- gamma="scale" ----------------------------------------------------------------


def _reference_gamma(X):
    """``1 / (n_features * X.var())`` from correctly rounded sums (math.fsum).

    The values are scaled by a power of two (exactly) so that their squares
    stay in range; the gamma is unscaled in Python's exact integer powers.
    """
    values = np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64).ravel()
    exponent = math.frexp(float(np.abs(values).max()))[1]
    scaled = [math.ldexp(float(v), -exponent) for v in values]
    mean = math.fsum(scaled) / len(scaled)
    variance = math.fsum((v - mean) ** 2 for v in scaled) / len(scaled)
    if variance == 0:
        return 1.0
    return math.ldexp(1.0 / (X.shape[1] * variance), -2 * exponent)


def _offset_data(offset, scale, dtype, density, seed):
    """Values ``scale * (offset + noise)``; a fraction ``1 - density`` of implicit zeros."""
    rng = np.random.RandomState(seed)
    X = scale * (offset + rng.standard_normal((40, 6)))
    X[rng.rand(40, 6) >= density] = 0.0
    return X.astype(dtype)


@pytest.mark.parametrize("density", [1.0, 0.3])
@pytest.mark.parametrize("dtype", DTYPES)
def test_gamma_scale_is_the_same_for_dense_and_sparse_input_on_any_data(dtype, density):
    limit = 30 if dtype == "float32" else 150
    checked = 0
    for offset in (1e0, 1e2, 1e4, 1e6, 1e8):
        for scale in (10.0**-limit, 1e-10, 1.0, 1e10, 10.0**limit):
            X = _offset_data(offset, scale, dtype, density, seed=checked)
            expected = _reference_gamma(X)
            for X_in in (X, sp.csr_matrix(X)):
                assert_allclose(scale_gamma(X_in), expected, rtol=1e-9, err_msg=(offset, scale))
            checked += 1


def test_gamma_scale_of_a_large_common_offset():
    # The reproducer: the sparse variance was E[x^2] - E[x]^2, noise at a
    # large offset; dense input (constant here) gave 1.0.
    X = np.full((50, 4), 1e8 + 0.1)
    assert scale_gamma(X) == scale_gamma(sp.csr_matrix(X)) == 1.0
    X = 1e8 + np.random.RandomState(0).rand(50, 4)
    assert_allclose(scale_gamma(sp.csr_matrix(X)), scale_gamma(X), rtol=1e-9)
    assert_allclose(scale_gamma(X), _reference_gamma(X), rtol=1e-9)


@pytest.mark.parametrize("dtype", DTYPES)
def test_gamma_scale_of_constant_input_is_one(dtype):
    for value in (0.1, 3.0, 1e300 if dtype == "float64" else 1e38, -7.0):
        X = np.full((5, 3), value, dtype=dtype)
        assert scale_gamma(X) == scale_gamma(sp.csr_matrix(X)) == 1.0
    # Implicit zeros and one value are not constant.
    X = sp.csr_matrix(np.array([[0.0, 2.0], [2.0, 2.0]], dtype=dtype))
    assert_allclose(scale_gamma(X), 1.0 / (2 * 0.75), rtol=1e-12)


# scikit-learn's finiteness check sums the values first, which warns on
# finite values of mixed signs near the maximum.
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
@pytest.mark.parametrize("magnitude", ["max", "tiny"])
def test_gamma_scale_beyond_float64_is_an_overflow_error(magnitude):
    # 1 / (n_features * X.var()) is about 1e-617 or 1e600: not a float64.
    X = _base() * (1e308 if magnitude == "max" else 1e-300)
    for X_in in (X, sp.csr_matrix(X)):
        with pytest.raises(ValueError, match="gamma='scale' overflowed float64's range"):
            OrthogonalRBFSampler(gamma="scale").fit(X_in)
