"""Property-based tests of the invariants every transform promises.

* Row independence: any split of the rows, transformed piece by piece, gives
  the rows of the whole transform, bit for bit (KernelJL: to rounding, as its
  BLAS products round differently for different shapes).
* Determinism: the same random_state gives the same map, in this process and
  in another one.
* Scale covariance where the kernel is homogeneous: a polynomial sketch of
  c * x is c**degree times the sketch of x (coef0 = 0).
"""

import pickle
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import ESTIMATOR_REGISTRY, legal_input, make_estimator, registry_names
from numpy.testing import assert_allclose, assert_array_equal

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra.numpy import arrays  # noqa: E402

NAMES = sorted(ESTIMATOR_REGISTRY)
# The polynomial sketches, made homogeneous (coef0 = 0).
HOMOGENEOUS = registry_names("polynomial")


def _make(name):
    # KernelJL: a subsample of 3, the fewest rows the matrices below have.
    return make_estimator(name, **({"n_subsample": 3} if name.startswith("KernelJL") else {}))

# Small matrices with zeros, negative values and repeated rows; values kept
# moderate so that degree-4 products stay far from overflow.
matrices = st.integers(min_value=3, max_value=12).flatmap(
    lambda n_rows: arrays(
        np.float64,
        (n_rows, 5),
        elements=st.one_of(
            st.just(0.0), st.floats(-100, 100, allow_nan=False, allow_infinity=False, width=32)
        ),
    )
)


def dense(result):
    return result.toarray() if sp.issparse(result) else result


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=25, deadline=None)
@given(X=matrices, data=st.data())
def test_any_row_split_gives_the_whole_transform(name, X, data):
    X = legal_input(name, X)
    estimator = _make(name).fit(X)
    whole = dense(estimator.transform(X))
    cuts = sorted(data.draw(st.sets(st.integers(1, X.shape[0] - 1), max_size=4)))
    pieces = [dense(estimator.transform(part)) for part in np.split(X, cuts)]
    if name.startswith("KernelJL"):
        # Its kernel block and product go through BLAS, whose rounding
        # depends on the matrix shape: equal to rounding, not bit for bit.
        # The features are normalized by the centered Gram matrix's norm,
        # which can be as small as 1e-10 of the kernel's (below that it
        # counts as zero), so the kernel values' rounding (eps) reaches the
        # features, relative to their largest one, at up to about 1e-6.
        tol = 1e-5 * max(1.0, np.abs(whole).max())
        assert_allclose(np.vstack(pieces), whole, rtol=1e-5, atol=tol)
    else:
        assert_array_equal(np.vstack(pieces), whole)
    assert np.isfinite(whole).all()


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=10, deadline=None)
@given(X=matrices)
def test_same_random_state_same_map(name, X):
    X = legal_input(name, X)
    first = dense(_make(name).fit(X).transform(X))
    second = dense(_make(name).fit(X).transform(X))
    assert_array_equal(first, second)


@pytest.mark.parametrize("name", HOMOGENEOUS)
@settings(max_examples=20, deadline=None)
@given(X=matrices, scale=st.floats(0.1, 10.0))
def test_homogeneous_kernels_are_scale_covariant(name, X, scale):
    estimator = make_estimator(name, coef0=0.0).fit(X)
    degree = estimator.degree
    base = estimator.transform(X)
    assert_allclose(
        estimator.transform(scale * X),
        scale**degree * base,
        rtol=1e-9,
        atol=1e-9 * max(1.0, np.abs(scale**degree * base).max()),
    )


@pytest.mark.slow
def test_identical_in_another_process(tmp_path):
    rng = np.random.RandomState(0)
    X = rng.rand(20, 6)
    fitted = {name: _make(name).fit(X) for name in NAMES}
    expected = {name: dense(est.transform(X)) for name, est in fitted.items()}
    (tmp_path / "fitted.pkl").write_bytes(pickle.dumps((fitted, X)))
    script = (
        "import pickle, sys, numpy as np, scipy.sparse as sp\n"
        "fitted, X = pickle.load(open(sys.argv[1], 'rb'))\n"
        "out = {n: (e.transform(X).toarray() if sp.issparse(e.transform(X)) else e.transform(X))"
        " for n, e in fitted.items()}\n"
        "pickle.dump(out, open(sys.argv[2], 'wb'))\n"
    )
    subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "fitted.pkl"), str(tmp_path / "out.pkl")],
        check=True,
        timeout=300,
    )
    results = pickle.loads((tmp_path / "out.pkl").read_bytes())
    for name in NAMES:
        assert_array_equal(results[name], expected[name])
