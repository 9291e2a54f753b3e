"""The maps' ``transform_array``: their features on array API namespaces.

TensorSketch's :class:`CountSketchProductMap`, TensorSRHT's
:class:`SRHTProductMap`, PolynomialTreeSketch's :class:`TreeMap`,
MaclaurinSketch's :class:`MaclaurinMap`, ComplexToRealSketch's
:class:`ComplexProjectionMap` and KernelJL's :class:`GramSketchMap`
transform an array of ``array_api_strict`` or torch (CPU) as a whole,
and must give the features of the NumPy path, from the same fitted
state, within float32 rounding, in the input's namespace, dtype and
device. The maps are called directly (the estimators' dispatch
is tested with the base).

KernelJL's kernel values come from scikit-learn's array API pairwise
kernels, which run only under ``array_api_dispatch``; scikit-learn refuses
that without ``SCIPY_ARRAY_API=1`` in the environment. Where it is unset,
:func:`test_dispatch_tests_under_scipy_array_api` runs the tests named
``*_dispatch`` in a subprocess with it (and they skip here, saying so).
"""

import functools
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from _count_sketch_reference import count_sketch_reference
from sklearn_sketch import (
    ComplexToRealSketch,
    KernelJL,
    MaclaurinSketch,
    PolynomialTreeSketch,
    TensorSketch,
    TensorSRHT,
)
from sklearn_sketch.utils._count_sketch import count_sketch_array, count_sketch_array_tables

# scikit-learn's vendored array_api_compat (scikit-learn 1.6, the oldest
# supported, has no array API support of this kind: skipped there).
array_api_compat = pytest.importorskip(
    "sklearn.externals.array_api_compat",
    reason="this scikit-learn vendors no array_api_compat",
)

NAMESPACES = ["array_api_strict", "torch"]
DTYPES = [np.float32, np.float64]

_SCIPY_ARRAY_API = os.environ.get("SCIPY_ARRAY_API") == "1"
needs_dispatch = pytest.mark.skipif(
    not _SCIPY_ARRAY_API,
    reason="needs SCIPY_ARRAY_API=1 (array_api_dispatch); run in a subprocess "
    "by test_dispatch_tests_under_scipy_array_api",
)


@pytest.fixture(params=NAMESPACES)
def namespace(request):
    """The module of a namespace (skipped, with the reason shown, where missing)."""
    return pytest.importorskip(request.param)


def on_device(module, X, device=None):
    """``X`` as an array of ``module``, its array API namespace and its device."""
    X_device = module.asarray(X) if device is None else module.asarray(X, device=device)
    xp = array_api_compat.array_namespace(X_device)
    return X_device, xp, array_api_compat.device(X_device)


def to_numpy(Z):
    """A CPU array of any namespace as a NumPy array (through DLPack)."""
    return np.from_dlpack(Z)


def assert_same_features(Z, expected, X_device, xp):
    """``Z`` is in ``X_device``'s namespace, dtype and device, and equals ``expected``.

    Within float32 rounding of the features' scale (float64: within float64
    rounding): the device path sums in another order (a matrix product,
    other FFT and kernel routines), never with another algorithm.
    """
    assert array_api_compat.array_namespace(Z) is xp
    assert Z.dtype == X_device.dtype
    assert array_api_compat.device(Z) == array_api_compat.device(X_device)
    assert tuple(Z.shape) == expected.shape
    Z = to_numpy(Z)
    assert Z.dtype == expected.dtype
    scale = max(np.abs(expected).max(), np.finfo(expected.dtype).tiny)
    rtol = 1e-5 if expected.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(Z, expected, rtol=0, atol=rtol * scale)


def dense_data(dtype, n_samples=60, n_features=12, seed=0, nonnegative=False):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_samples, n_features)) / 2
    return (np.abs(X) if nonnegative else X).astype(dtype)


# -- The Count Sketch on a namespace: gathers, or torch's scatter-add ---------


def scatter_modes(namespace):
    """The Count Sketch tables ``namespace`` can read: gathers, and torch's scatter-add."""
    return [False, True] if namespace.__name__ == "torch" else [False]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "n_keys, width", [(40, 64), (500, 7), (3, 1), (1, 9), (0, 5), (33, 33)]
)
def test_count_sketch_array_is_the_reference(namespace, dtype, n_keys, width):
    rng = np.random.default_rng(n_keys + width)
    X = rng.standard_normal((9, n_keys)).astype(dtype)
    X[rng.random(X.shape) < 0.3] = 0.0
    buckets = rng.integers(0, width, size=(2, n_keys))
    signs = (rng.choice([-0.7, 0.7], size=(2, n_keys))).astype(dtype)
    X_device, xp, device = on_device(namespace, X)
    for s in range(2):
        expected = count_sketch_reference(
            X, lambda _, j: buckets[s, j], lambda _, j: signs[s, j], 1, width, dtype
        )[0]
        for scatter in scatter_modes(namespace):
            indices, layer_signs = count_sketch_array_tables(buckets, signs, width, scatter)
            C = count_sketch_array(
                X_device, xp.asarray(indices[s], device=device),
                xp.asarray(layer_signs[s], device=device), width, xp,
            )
            assert tuple(C.shape) == (9, width) and C.dtype == X_device.dtype
            if scatter:  # torch adds in its own order
                np.testing.assert_allclose(to_numpy(C), expected, rtol=1e-6, atol=1e-6)
            else:  # the same additions as the compiled scatter, in key order
                np.testing.assert_array_equal(to_numpy(C), expected)


def test_count_sketch_tables_hold_each_key_once_in_key_order():
    rng = np.random.default_rng(0)
    width = 11
    buckets = rng.integers(0, width, size=(3, 300))
    signs = rng.standard_normal((3, 300))
    indices, layer_signs = count_sketch_array_tables(buckets, signs, width, scatter=False)
    loads = [np.bincount(row, minlength=width) for row in buckets]
    # As many layers as the fullest bucket of any sketch holds keys.
    assert indices.shape == (3, max(load.max() for load in loads), width)
    for s in range(3):
        for b in range(width):
            keys = indices[s, :, b][indices[s, :, b] < 300]
            np.testing.assert_array_equal(keys, np.flatnonzero(buckets[s] == b))
            np.testing.assert_array_equal(layer_signs[s, : keys.size, b], signs[s, keys])
            assert not layer_signs[s, keys.size :, b].any()


# Input wider than the SRHT maps' hash-down width (4096 coordinates): its
# Count Sketches and hash-downs run on the namespace too.
WIDE_SKETCHES = {
    "TensorSketch": lambda: TensorSketch(96, degree=3, gamma=0.8, coef0=0.5),
    "TensorSRHT": lambda: TensorSRHT(96, degree=2, coef0=0.5),
    "tree-tensorsketch": lambda: PolynomialTreeSketch(96, degree=3, coef0=0.5),
    "tree-hash": lambda: PolynomialTreeSketch(96, degree=2, buckets="hash", gamma=0.5),
    "tree-tensorsrht": lambda: PolynomialTreeSketch(96, degree=3, base="tensorsrht", coef0=1.0),
    "maclaurin-tree": lambda: MaclaurinSketch(96, degree=3, coef0=1.0),
    "maclaurin-tensorsrht": lambda: MaclaurinSketch(96, degree=2, coef0=1.0, base="tensorsrht"),
    "complex-srht": lambda: ComplexToRealSketch(97, degree=2, coef0=0.5),
    "complex-rademacher": lambda: ComplexToRealSketch(97, degree=2, projection="rademacher"),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(WIDE_SKETCHES))
def test_wide_input_matches_numpy(namespace, dtype, name):
    rng = np.random.default_rng(1)
    X = dense_data(dtype, n_samples=12, n_features=4500)
    X[rng.random(X.shape) < 0.9] = 0.0
    sketch = WIDE_SKETCHES[name]().set_params(random_state=0).fit(X)
    assert sketch._map.array_api_support
    X_device, xp, device = on_device(namespace, X)
    Z = sketch._map.transform_array(X_device, xp, device)
    assert_same_features(Z, sketch.transform(X), X_device, xp)


# -- TensorSketch: the Count Sketch product ---------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("degree", [1, 2, 3, 4])
@pytest.mark.parametrize("coef0", [0.0, 1.5])
def test_tensor_sketch_matches_numpy(namespace, dtype, degree, coef0):
    X = dense_data(dtype)
    sketch = TensorSketch(
        n_components=130, degree=degree, gamma=0.7, coef0=coef0, random_state=0
    ).fit(X)
    assert sketch._map.array_api_support
    X_device, xp, device = on_device(namespace, X)
    Z = sketch._map.transform_array(X_device, xp, device)
    assert_same_features(Z, sketch.transform(X), X_device, xp)


@pytest.mark.parametrize("n_components", [1, 2, 77])
def test_tensor_sketch_odd_and_tiny_widths(namespace, n_components):
    X = dense_data(np.float32, n_features=3)
    sketch = TensorSketch(n_components, degree=3, coef0=1.0, random_state=1).fit(X)
    X_device, xp, device = on_device(namespace, X)
    Z = sketch._map.transform_array(X_device, xp, device)
    assert_same_features(Z, sketch.transform(X), X_device, xp)


def test_tensor_sketch_nan_in_nan_out(namespace):
    # As in the NumPy path under assume_finite: a NaN that came in is no overflow.
    X = dense_data(np.float32)
    sketch = TensorSketch(n_components=16, degree=2, random_state=0).fit(X)
    X[0, 0] = np.nan
    X_device, xp, device = on_device(namespace, X)
    Z = to_numpy(sketch._map.transform_array(X_device, xp, device))
    assert np.isnan(Z[0]).any()
    assert np.isfinite(Z[1:]).all()


# -- TensorSRHT: the SRHT product -------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("degree", [1, 2, 3, 4])
@pytest.mark.parametrize("coef0", [0.0, 1.5])
@pytest.mark.parametrize("n_components", [130, 16, 7])
def test_tensor_srht_matches_numpy(namespace, dtype, degree, coef0, n_components):
    # 130 samples: several Hadamard blocks of 16 (12 features and the
    # constant); 16: one whole block; 7: part of one.
    X = dense_data(dtype)
    sketch = TensorSRHT(
        n_components=n_components, degree=degree, gamma=0.7, coef0=coef0, random_state=0
    ).fit(X)
    assert sketch._map.array_api_support
    X_device, xp, device = on_device(namespace, X)
    Z = sketch._map.transform_array(X_device, xp, device)
    assert_same_features(Z, sketch.transform(X), X_device, xp)


@pytest.mark.parametrize("n_features", [1, 8, 15, 16])
def test_tensor_srht_paddings(namespace, n_features):
    # A power of two with and without the constant, and a single feature.
    X = dense_data(np.float64, n_features=n_features)
    for coef0 in (0.0, 2.0):
        sketch = TensorSRHT(20, degree=2, coef0=coef0, random_state=3).fit(X)
        X_device, xp, device = on_device(namespace, X)
        Z = sketch._map.transform_array(X_device, xp, device)
        assert_same_features(Z, sketch.transform(X), X_device, xp)


# -- PolynomialTreeSketch: the tree of degree-2 sketches ---------------------

TREE_OPTIONS = {
    "tensorsketch": dict(base="tensorsketch"),
    "hash": dict(base="tensorsketch", buckets="hash"),
    "tensorsrht": dict(base="tensorsrht"),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("degree", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("coef0", [0.0, 1.5])
@pytest.mark.parametrize("options", sorted(TREE_OPTIONS))
def test_tree_sketch_matches_numpy(namespace, dtype, degree, coef0, options):
    # Degrees 3 and 5 pad the tree with e leaves: (x, e) and (e, e) pairs.
    X = dense_data(dtype)
    sketch = PolynomialTreeSketch(
        n_components=70, degree=degree, gamma=0.7, coef0=coef0, random_state=0,
        **TREE_OPTIONS[options],
    ).fit(X)
    assert sketch._map.array_api_support
    X_device, xp, device = on_device(namespace, X)
    Z = sketch._map.transform_array(X_device, xp, device)
    assert_same_features(Z, sketch.transform(X), X_device, xp)


@pytest.mark.parametrize("n_components", [1, 7, 16])
@pytest.mark.parametrize("options", sorted(TREE_OPTIONS))
def test_tree_sketch_narrow_nodes(namespace, n_components, options):
    # Nodes narrower than the leaves (colliding buckets, several blocks).
    X = dense_data(np.float64, n_features=10)
    sketch = PolynomialTreeSketch(
        n_components, degree=4, coef0=1.0, random_state=2, **TREE_OPTIONS[options]
    ).fit(X)
    X_device, xp, device = on_device(namespace, X)
    Z = sketch._map.transform_array(X_device, xp, device)
    assert_same_features(Z, sketch.transform(X), X_device, xp)


# -- MaclaurinSketch: a sketch per degree of the expansion ------------------

MACLAURIN_BASES = ["tree", "tensorsketch", "tensorsrht"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("degree", [1, 2, 3, 4])
@pytest.mark.parametrize("coef0", [0.0, 1.5])
@pytest.mark.parametrize("base", MACLAURIN_BASES)
@pytest.mark.parametrize("linear", ["auto", "sketch"])
def test_maclaurin_sketch_matches_numpy(namespace, dtype, degree, coef0, base, linear):
    X = dense_data(dtype)
    sketch = MaclaurinSketch(
        n_components=70, degree=degree, gamma=0.7, coef0=coef0, base=base, linear=linear,
        random_state=0,
    ).fit(X)
    assert sketch._map.array_api_support
    X_device, xp, device = on_device(namespace, X)
    Z = sketch._map.transform_array(X_device, xp, device)
    assert_same_features(Z, sketch.transform(X), X_device, xp)


@pytest.mark.parametrize("base", MACLAURIN_BASES)
def test_maclaurin_sketch_exact_linear_and_padded_sketch(namespace, base):
    X = dense_data(np.float32)
    exact = MaclaurinSketch(40, degree=3, coef0=1.0, base=base, linear="exact", random_state=1)
    padded = MaclaurinSketch(3, degree=3, coef0=1.0, base=base, random_state=1)  # not expanded
    for sketch in (exact.fit(X), padded.fit(X)):
        X_device, xp, device = on_device(namespace, X)
        Z = sketch._map.transform_array(X_device, xp, device)
        assert_same_features(Z, sketch.transform(X), X_device, xp)
    assert exact.linear_exact_ and not padded.expanded_


@pytest.mark.parametrize("base", MACLAURIN_BASES)
def test_maclaurin_sketch_overflow_of_the_scales_is_the_numpy_paths_error(namespace, base):
    # The scales' overflow (a huge coef0): the kernel's error. A block's
    # overflow: test_overflow_is_the_numpy_paths_error.
    coef0 = 1e30
    X = np.full((2, 3), 1e-3, dtype=np.float32)
    sketch = MaclaurinSketch(
        n_components=16, degree=4, coef0=coef0, base=base, linear="sketch", random_state=0
    ).fit(X)
    with pytest.raises(ValueError, match="overflow") as numpy_error:
        sketch.transform(X)
    X_device, xp, device = on_device(namespace, X)
    with pytest.raises(ValueError, match="overflow") as device_error:
        sketch._map.transform_array(X_device, xp, device)
    assert str(device_error.value) == str(numpy_error.value)


# -- ComplexToRealSketch: complex projections -------------------------------

PROJECTIONS = ["srht", "rademacher"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("degree", [1, 2, 3, 4])
@pytest.mark.parametrize("coef0", [0.0, 1.5])
@pytest.mark.parametrize("projection", PROJECTIONS)
@pytest.mark.parametrize("n_components", [70, 17])
def test_complex_to_real_matches_numpy(namespace, dtype, degree, coef0, projection, n_components):
    # An odd n_components drops the imaginary part of the last feature.
    X = dense_data(dtype)
    sketch = ComplexToRealSketch(
        n_components=n_components, degree=degree, gamma=0.7, coef0=coef0,
        projection=projection, random_state=0,
    ).fit(X)
    assert sketch._map.array_api_support
    X_device, xp, device = on_device(namespace, X)
    Z = sketch._map.transform_array(X_device, xp, device)
    assert_same_features(Z, sketch.transform(X), X_device, xp)


@pytest.mark.parametrize("n_components", [1, 2, 3])
@pytest.mark.parametrize("projection", PROJECTIONS)
def test_complex_to_real_one_complex_feature(namespace, n_components, projection):
    X = dense_data(np.float32, n_features=5)
    sketch = ComplexToRealSketch(
        n_components, degree=3, coef0=1.0, projection=projection, random_state=4
    ).fit(X)
    X_device, xp, device = on_device(namespace, X)
    Z = sketch._map.transform_array(X_device, xp, device)
    assert_same_features(Z, sketch.transform(X), X_device, xp)


def test_complex_to_real_rademacher_refuses_tables_too_large_for_a_device():
    # Its dense projections, n_features + 1 rows by n_components per degree,
    # are held on the device: refused beyond 1 GiB (float32), with the reason.
    fits = ComplexToRealSketch(2048, degree=2, projection="rademacher").fit(np.ones((2, 60000)))
    assert fits._map.array_api_support
    wide = ComplexToRealSketch(2048, degree=2, projection="rademacher").fit(np.ones((2, 70000)))
    assert not wide._map.array_api_support
    assert "70000 features" in wide._map.array_api_refusal
    assert "projection='srht'" in wide._map.array_api_refusal
    assert ComplexToRealSketch(2048, degree=2).fit(np.ones((2, 70000)))._map.array_api_support


# -- Every polynomial sketch: device, moved tables, overflow ------------------

POLYNOMIAL_SKETCHES = {
    "TensorSketch": lambda **params: TensorSketch(**params),
    "TensorSRHT": lambda **params: TensorSRHT(**params),
    **{
        f"tree-{name}": functools.partial(PolynomialTreeSketch, **options)
        for name, options in TREE_OPTIONS.items()
    },
    **{
        f"maclaurin-{base}": functools.partial(MaclaurinSketch, base=base, linear="sketch")
        for base in MACLAURIN_BASES
    },
    **{
        f"complex-{projection}": functools.partial(ComplexToRealSketch, projection=projection)
        for projection in PROJECTIONS
    },
}


def moved_caches(sketch_map):
    """The caches of arrays moved to devices: the map's, or its blocks' (MaclaurinSketch)."""
    maps = sketch_map.drawn_maps() if hasattr(sketch_map, "drawn_maps") else [sketch_map]
    return [vars(m).get("_moved", {}) for m in maps]


@pytest.mark.parametrize("name", sorted(POLYNOMIAL_SKETCHES))
def test_stays_on_its_device(name):
    # array_api_strict refuses to mix devices: every array the map moves
    # must be on the input's device, and so is the output.
    xp = pytest.importorskip("array_api_strict")
    X = dense_data(np.float64)
    sketch = POLYNOMIAL_SKETCHES[name](
        n_components=40, degree=3, coef0=0.5, random_state=0
    ).fit(X)
    device = xp.Device("device1")
    Z = sketch._map.transform_array(xp.asarray(X, device=device), xp, device)
    assert Z.device == device
    Z = Z.to_device(xp.Device("CPU_DEVICE"))
    assert_same_features(Z, sketch.transform(X), xp.asarray(X), xp)


@pytest.mark.parametrize("name", sorted(POLYNOMIAL_SKETCHES))
def test_moves_its_tables_once_and_does_not_pickle_them(namespace, name):
    X = dense_data(np.float32)
    sketch = POLYNOMIAL_SKETCHES[name](
        n_components=64, degree=3, coef0=1.0, random_state=0
    ).fit(X)
    X_device, xp, device = on_device(namespace, X)
    first = to_numpy(sketch._map.transform_array(X_device, xp, device))
    moved = [dict(cache) for cache in moved_caches(sketch._map)]
    assert all(len(cache) == 1 for cache in moved)
    second = to_numpy(sketch._map.transform_array(X_device, xp, device))
    np.testing.assert_array_equal(first, second)
    # Same namespace and device, another dtype: its own tables.
    X64, _, _ = on_device(namespace, X.astype(np.float64))
    sketch._map.transform_array(X64, xp, device)
    for before, cache in zip(moved, moved_caches(sketch._map)):
        assert len(cache) == 2
        assert all(cache[key] is value for key, value in before.items())

    restored = pickle.loads(pickle.dumps(sketch))
    assert not any(moved_caches(restored._map))
    assert all(moved_caches(sketch._map))
    np.testing.assert_array_equal(
        to_numpy(restored._map.transform_array(X_device, xp, device)), first
    )


@pytest.mark.parametrize("coef0", [0.0, 1.0])
@pytest.mark.parametrize("name", sorted(POLYNOMIAL_SKETCHES))
def test_overflow_is_the_numpy_paths_error(namespace, name, coef0):
    X = np.full((2, 3), 1e12, dtype=np.float32)
    sketch = POLYNOMIAL_SKETCHES[name](
        n_components=16, degree=4, coef0=coef0, random_state=0
    ).fit(X)
    with pytest.raises(ValueError, match="overflow") as numpy_error:
        sketch.transform(X)
    X_device, xp, device = on_device(namespace, X)
    with pytest.raises(ValueError, match="overflow") as device_error:
        sketch._map.transform_array(X_device, xp, device)
    assert str(device_error.value) == str(numpy_error.value)


# -- KernelJL: the Gram sketch ----------------------------------------------

# Every kernel scikit-learn 1.9 evaluates under array API dispatch, with a
# gamma other than 1 where the kernel takes one.
KERNELS = {
    "rbf": dict(gamma=0.3),
    "linear": {},
    "poly": dict(gamma=0.4, degree=3, coef0=0.5),
    "polynomial": dict(gamma=0.4, degree=2, coef0=0.0),
    "cosine": {},
    "sigmoid": dict(gamma=0.2, coef0=0.3),
    "laplacian": dict(gamma=0.3),
    "chi2": dict(gamma=0.5),
    "additive_chi2": {},
}


def kernel_jl(kernel, center=True, **params):
    return KernelJL(
        n_components=16, n_subsample=25, kernel=kernel, center=center, random_state=0,
        **{**KERNELS.get(kernel, {}), **params},
    )


@needs_dispatch
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kernel", sorted(KERNELS))
@pytest.mark.parametrize("center", [True, False])
def test_kernel_jl_matches_numpy_dispatch(namespace, dtype, kernel, center):
    X = dense_data(dtype, nonnegative=kernel.endswith("chi2"))
    estimator = kernel_jl(kernel, center=center).fit(X)
    assert estimator._map.array_api_support
    X_device, xp, device = on_device(namespace, X)
    Z = estimator._map.transform_array(X_device, xp, device)
    assert_same_features(Z, estimator.transform(X), X_device, xp)


@needs_dispatch
@pytest.mark.parametrize("kernel", ["rbf", "poly", "sigmoid"])
def test_kernel_jl_gamma_scale_and_numpy_parameters_dispatch(namespace, kernel):
    # gamma="scale" is resolved on the subsample in fit; a NumPy scalar in
    # kernel_params reaches the namespace's arrays as a Python number.
    X = dense_data(np.float32, seed=3)
    params = {} if kernel == "rbf" else {"coef0": np.float64(0.25)}
    estimator = KernelJL(
        n_components=8, n_subsample=20, kernel=kernel, gamma="scale",
        kernel_params=params, random_state=2,
    ).fit(X)
    assert isinstance(estimator.gamma_, float)
    X_device, xp, device = on_device(namespace, X)
    Z = estimator._map.transform_array(X_device, xp, device)
    assert_same_features(Z, estimator.transform(X), X_device, xp)


@needs_dispatch
def test_kernel_jl_stays_on_its_device_dispatch():
    xp = pytest.importorskip("array_api_strict")
    X = dense_data(np.float32, nonnegative=True)
    for kernel in ("rbf", "chi2"):
        estimator = kernel_jl(kernel).fit(X)
        device = xp.Device("device1")
        Z = estimator._map.transform_array(xp.asarray(X, device=device), xp, device)
        assert Z.device == device
        Z = Z.to_device(xp.Device("CPU_DEVICE"))
        assert_same_features(Z, estimator.transform(X), xp.asarray(X), xp)


@needs_dispatch
def test_kernel_jl_row_blocks_dispatch(namespace, monkeypatch):
    # The broadcasting kernels run on row blocks; with blocks of a few rows
    # the features are those of the NumPy path still.
    from sklearn_sketch.kernel_jl import _gram_sketch

    X = dense_data(np.float64, n_samples=43, nonnegative=True)
    estimator = kernel_jl("chi2").fit(X)
    pair_bytes = _gram_sketch._BROADCAST_COPIES * 25 * X.shape[1] * 8
    monkeypatch.setattr(_gram_sketch, "_ARRAY_BLOCK_BYTES", 5 * pair_bytes)
    X_device, xp, device = on_device(namespace, X)
    assert len(estimator._map._array_row_blocks(X_device, xp)) == 9
    Z = estimator._map.transform_array(X_device, xp, device)
    assert_same_features(Z, estimator.transform(X), X_device, xp)


@needs_dispatch
def test_kernel_jl_partial_fit_moves_the_new_subsample_dispatch(namespace):
    first, second = dense_data(np.float32, seed=4), dense_data(np.float32, seed=5)
    estimator = kernel_jl("rbf")
    estimator.partial_fit(first)
    X_device, xp, device = on_device(namespace, first)
    Z = estimator._map.transform_array(X_device, xp, device)
    assert_same_features(Z, estimator.transform(first), X_device, xp)
    estimator.partial_fit(second)
    Z = estimator._map.transform_array(X_device, xp, device)
    assert_same_features(Z, estimator.transform(first), X_device, xp)

    restored = pickle.loads(pickle.dumps(estimator))
    assert "_moved" not in vars(restored._map)
    Z = restored._map.transform_array(X_device, xp, device)
    assert_same_features(Z, estimator.transform(first), X_device, xp)


@needs_dispatch
def test_kernel_jl_overflow_is_the_numpy_paths_error_dispatch(namespace):
    X = dense_data(np.float32, seed=6)
    estimator = kernel_jl("poly", gamma=1.0, degree=3, coef0=0.0).fit(X)
    X_big = X * np.float32(1e14)
    with pytest.raises(ValueError, match="overflow") as numpy_error:
        estimator.transform(X_big)
    X_device, xp, device = on_device(namespace, X_big)
    with pytest.raises(ValueError, match="overflow") as device_error:
        estimator._map.transform_array(X_device, xp, device)
    assert str(device_error.value) == str(numpy_error.value)


def test_kernel_jl_array_api_support():
    X = dense_data(np.float64, nonnegative=True)
    for kernel in KERNELS:
        assert kernel_jl(kernel).fit(X)._map.array_api_support
    # What stays on the CPU: a callable kernel, a precomputed one, sparse data.
    for kernel, data in [(lambda x, y: x @ y, X), ("precomputed", X @ X.T)]:
        estimator = KernelJL(n_components=4, n_subsample=25, kernel=kernel).fit(data)
        assert not estimator._map.array_api_support
    assert not kernel_jl("rbf").fit(sp.csr_matrix(X))._map.array_api_support
    streamed = kernel_jl("rbf").partial_fit(sp.csr_matrix(X))
    assert not streamed._map.array_api_support
    assert kernel_jl("rbf").partial_fit(X)._map.array_api_support


def test_dispatch_tests_under_scipy_array_api():
    """The ``*_dispatch`` tests, in a subprocess with ``SCIPY_ARRAY_API=1``."""
    if _SCIPY_ARRAY_API:
        pytest.skip("SCIPY_ARRAY_API=1 here: the *_dispatch tests ran in this process")
    env = {**os.environ, "SCIPY_ARRAY_API": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs",
         "-k", "dispatch and not under_scipy_array_api", __file__],
        env=env, capture_output=True, text=True, cwd=Path(__file__).parents[1],
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    assert " passed" in result.stdout and " failed" not in result.stdout
