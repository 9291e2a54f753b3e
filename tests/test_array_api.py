"""Array API inputs under scikit-learn's ``array_api_dispatch``.

With ``sklearn.set_config(array_api_dispatch=True)`` an estimator with the
``array_api_support`` tag fits an array of another namespace (torch,
array_api_strict, CuPy) on the host and transforms it on its device, into
an array of that namespace, dtype and device, equal to the NumPy path's
output within float32 rounding; the hashers refuse such arrays with an
error saying that they run on the CPU; without dispatch, and for NumPy
input under dispatch, nothing changes.

Dispatch needs ``SCIPY_ARRAY_API=1`` set before SciPy is imported: the tests
marked ``scipy_array_api_process`` run in one child process with it (see
``conftest.py``), the rest of the suite without it. torch is optional (the
``array-api-torch`` extra): its tests are skipped, with the reason, where it
is missing.
"""

import pickle
import warnings
from functools import partial

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import (
    ESTIMATOR_REGISTRY,
    extra_check_estimators,
    make_estimator,
    scipy_array_api_process,
)
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import clone, config_context
from sklearn.utils.estimator_checks import check_array_api_input

from sklearn_sketch import (
    ComplexToRealSketch,
    CoREHasher,
    MinMaxHasher,
    OrthogonalRBFSampler,
)

array_api_strict = pytest.importorskip("array_api_strict")
# scikit-learn >= 1.6 (its floor here); skipped with the reason otherwise.
estimator_checks_generator = pytest.importorskip(
    "sklearn.utils.estimator_checks"
).__dict__.get("estimator_checks_generator")
if estimator_checks_generator is None:  # pragma: no cover
    pytest.skip("this scikit-learn has no estimator_checks_generator",
                allow_module_level=True)

NAMESPACES = ["array_api_strict", "torch"]
METHODS = ["sorf", "orf", "fastfood"]
CPU_ONLY = "runs on NumPy arrays and SciPy sparse matrices only, on the CPU"


def _namespace(name):
    """``(xp, device)``: array_api_strict on its second device (so that an
    array left on the default one fails), torch on the CPU (skipped without
    torch)."""
    if name == "torch":
        torch = pytest.importorskip("torch", reason="torch is not installed (optional)")
        return torch, torch.device("cpu")
    return array_api_strict, array_api_strict.Device("device1")


def _to_numpy(Z, name):
    if name == "torch":
        return Z.numpy()
    return np.asarray(Z.to_device(array_api_strict.Device("CPU_DEVICE")))


def _atol(dtype):
    return 2e-5 if dtype == np.float32 else 1e-12


def _data(dtype, n_samples=40, n_features=13, seed=0):
    return np.random.RandomState(seed).rand(n_samples, n_features).astype(dtype)


# -- (a) scikit-learn's array API checks ----------------------------------


def _check_id(check):
    keywords = []
    for value in getattr(check, "keywords", {}).values():
        if hasattr(value, "xp"):  # NamespaceAndDevice
            value = f"{value.xp}:{value.device}"
        keywords.append(str(value))
    return "-".join([check.func.__name__, *keywords])


def _array_api_checks():
    """Every array API check scikit-learn runs on each estimator test_common checks:
    on the namespaces and devices for the estimators with the tag, the
    NumPy-under-dispatch check for the others (test_common's copies of them
    are skipped there, without SCIPY_ARRAY_API), and the check of values on
    array_api_strict and torch for the estimators with the tag."""
    params = []
    estimators = {name: make_estimator(name) for name in sorted(ESTIMATOR_REGISTRY)}
    estimators.update(extra_check_estimators())
    for name, estimator in estimators.items():
        for _, check in estimator_checks_generator(estimator, legacy=True, mark=None):
            if getattr(check, "func", check).__name__.startswith("check_array_api"):
                params.append(pytest.param(name, check, id=f"{name}-{_check_id(check)}"))
        if estimator.__sklearn_tags__().array_api_support:
            for namespace, device, dtype in [
                ("array_api_strict", "device1", "float64"),
                ("array_api_strict", "CPU_DEVICE", "float32"),
                ("torch", "cpu", "float64"),
                ("torch", "cpu", "float32"),
            ]:
                check = partial(
                    check_array_api_input, type(estimator).__name__,
                    array_namespace=namespace, device_name=device, dtype_name=dtype,
                    check_values=True,
                )
                params.append(pytest.param(name, check, id=f"{name}-values-{namespace}-{dtype}"))
    return params


@scipy_array_api_process
@pytest.mark.parametrize("name, check", _array_api_checks())
def test_sklearn_array_api_checks(name, check):
    estimators = extra_check_estimators()
    check(clone(estimators[name]) if name in estimators else make_estimator(name))


def test_the_tag_follows_the_maps():
    supported = {
        name for name in ESTIMATOR_REGISTRY
        if make_estimator(name).__sklearn_tags__().array_api_support
    }
    on_devices = (
        "OrthogonalRBFSampler", "TensorSketch", "KernelJL", "TensorSRHT", "PolynomialTreeSketch",
        "MaclaurinSketch", "ComplexToRealSketch",
    )
    assert supported == {
        name for name in ESTIMATOR_REGISTRY if name.split("-")[0] in on_devices
    }
    for name in ESTIMATOR_REGISTRY:
        estimator = make_estimator(name).fit(_data(np.float64))
        if name in supported:
            assert estimator._map.array_api_support
        if name.startswith(("CoREHasher", "MinMaxHasher")):
            assert not estimator._map.array_api_support


# -- (b) the same features as the NumPy path, on the input's device -------


@scipy_array_api_process
@pytest.mark.parametrize("namespace", NAMESPACES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("n_components, n_features", [(64, 13), (31, 16), (1, 5), (200, 17)])
def test_orthogonal_rbf_features_equal_the_numpy_path(
    namespace, dtype, method, n_components, n_features
):
    xp, device = _namespace(namespace)
    X = _data(dtype, n_features=n_features)
    params = dict(n_components=n_components, method=method, random_state=0)
    expected = OrthogonalRBFSampler(**params).fit_transform(X)
    X_xp = xp.asarray(X, device=device)
    with config_context(array_api_dispatch=True):
        estimator = OrthogonalRBFSampler(**params).fit(X_xp)
        Z = estimator.transform(X_xp)
        # A second call reuses the state moved to the device.
        Z_again = estimator.transform(X_xp[:7, ...])
    assert Z.dtype == X_xp.dtype
    assert Z.device == device
    assert Z.shape == expected.shape
    assert_allclose(_to_numpy(Z, namespace), expected, rtol=0, atol=_atol(dtype))
    # Matrix products on the device (the frequencies, or the Hadamard
    # transform's factors): their rounding may depend on the number of rows
    # (BLAS, GPU kernels).
    assert_allclose(_to_numpy(Z_again, namespace), _to_numpy(Z, namespace)[:7],
                    rtol=0, atol=_atol(dtype))
    # The fitted attributes are the NumPy fit's, on the device.
    reference = OrthogonalRBFSampler(**params).fit(X)
    assert estimator.gamma_ == reference.gamma_
    if method == "orf":
        assert estimator.random_weights_.device == device
        assert_array_equal(_to_numpy(estimator.random_weights_, namespace),
                           reference.random_weights_)


def _on_device_names():
    return [
        name for name in sorted(ESTIMATOR_REGISTRY)
        if make_estimator(name).__sklearn_tags__().array_api_support
    ]


@scipy_array_api_process
@pytest.mark.parametrize("namespace", NAMESPACES)
@pytest.mark.parametrize("name", _on_device_names())
def test_device_rows_are_transformed_in_bounded_chunks(namespace, name):
    # The input and output rows of a chunk stay within scikit-learn's
    # working_memory (and 512 MiB): the same features as one whole call.
    xp, device = _namespace(namespace)
    X = _data(np.float64, n_samples=50)
    X_xp = xp.asarray(X, device=device)
    with config_context(array_api_dispatch=True):
        estimator = make_estimator(name).fit(X_xp)
        whole = estimator.transform(X_xp)
        row_bytes = 8 * (X.shape[1] + estimator._map.n_output)
        calls = []
        transform_array = estimator._map.transform_array

        def spy(X_chunk, xp, device):
            calls.append(X_chunk.shape[0])
            return transform_array(X_chunk, xp, device)

        estimator._map.transform_array = spy
        with config_context(working_memory=7 * row_bytes / 2**20):
            chunked = estimator.transform(X_xp)
    assert calls == [7] * 7 + [1]
    assert chunked.device == device and chunked.dtype == whole.dtype
    assert_allclose(_to_numpy(chunked, namespace), _to_numpy(whole, namespace),
                    rtol=0, atol=_atol(np.float64))


@scipy_array_api_process
@pytest.mark.parametrize("name", _on_device_names())
def test_estimators_fitted_on_torch_pickle_and_load(name, tmp_path):
    # torch cannot load the tensors of unsigned dtypes it pickles (the hash
    # coefficients): an estimator fitted on torch still loads, its fitted
    # attributes in torch on their device, and transforms as before.
    import joblib

    xp, device = _namespace("torch")
    X_xp = xp.asarray(_data(np.float32), device=device)
    with config_context(array_api_dispatch=True):
        estimator = make_estimator(name).fit(X_xp)
        Z = estimator.transform(X_xp)
        joblib.dump(estimator, tmp_path / "model.joblib")
        for restored in (pickle.loads(pickle.dumps(estimator)),
                         joblib.load(tmp_path / "model.joblib")):
            for key, value in vars(estimator).items():
                if key.endswith("_") and isinstance(value, xp.Tensor):
                    assert vars(restored)[key].dtype == value.dtype
                    assert vars(restored)[key].device == value.device
                    assert xp.equal(vars(restored)[key], value)
            assert_array_equal(_to_numpy(restored.transform(X_xp), "torch"),
                               _to_numpy(Z, "torch"))
    # The estimator pickled is unchanged.
    assert all(not type(v).__name__.startswith("_Unsigned") for v in vars(estimator).values())


@scipy_array_api_process
@pytest.mark.parametrize("namespace", NAMESPACES)
def test_integer_input_gives_float64_features(namespace):
    xp, device = _namespace(namespace)
    X = np.random.RandomState(0).randint(0, 5, size=(20, 6))
    expected = OrthogonalRBFSampler(16, random_state=0).fit_transform(X)
    X_xp = xp.asarray(X, device=device)
    with config_context(array_api_dispatch=True):
        Z = OrthogonalRBFSampler(16, random_state=0).fit(X_xp).transform(X_xp)
    assert Z.dtype == xp.float64
    assert_allclose(_to_numpy(Z, namespace), expected, atol=1e-12)


@scipy_array_api_process
@pytest.mark.parametrize("namespace", NAMESPACES)
def test_bad_input_is_refused_on_the_device_as_on_the_host(namespace):
    xp, device = _namespace(namespace)
    X = _data(np.float64)
    with config_context(array_api_dispatch=True):
        estimator = OrthogonalRBFSampler(16, random_state=0).fit(xp.asarray(X, device=device))
        with pytest.raises(ValueError, match="features"):
            estimator.transform(xp.asarray(X[:, :5], device=device))
        X_nan = X.copy()
        X_nan[3, 2] = np.nan
        with pytest.raises(ValueError, match="NaN"):
            estimator.transform(xp.asarray(X_nan, device=device))
        with pytest.raises(ValueError, match="NaN"):
            OrthogonalRBFSampler(16).fit(xp.asarray(X_nan, device=device))
        # Under assume_finite a NaN goes through, as on the host.
        with config_context(assume_finite=True):
            Z = _to_numpy(estimator.transform(xp.asarray(X_nan, device=device)), namespace)
        assert np.isnan(Z[3]).all() and np.isfinite(np.delete(Z, 3, axis=0)).all()
        # Projections beyond float32: the overflow error of the NumPy path.
        X_big = np.full((2, 13), 3e38, dtype=np.float32)
        with pytest.raises(ValueError, match="overflowed float32"):
            estimator.transform(xp.asarray(X_big, device=device))


@scipy_array_api_process
@pytest.mark.parametrize("namespace", NAMESPACES)
@pytest.mark.parametrize("method", METHODS)
def test_overflow_of_wide_input_is_the_numpy_paths_error(namespace, method):
    # Finite input whose hash-down overflows float32: the device checks the
    # input it was given, not the hashed rows, and raises as the host does.
    xp, device = _namespace(namespace)
    X = np.zeros((3, 6000), dtype=np.float32)
    X[:, :3000] = 3e38
    params = dict(n_components=33, method=method, gamma=1.0, random_state=0)
    with pytest.raises(ValueError, match="overflowed float32") as host_error:
        OrthogonalRBFSampler(**params).fit(X[:, :] * 0).transform(X)
    X_xp = xp.asarray(X, device=device)
    with config_context(array_api_dispatch=True):
        estimator = OrthogonalRBFSampler(**params).fit(X_xp * 0)
        with pytest.raises(ValueError, match="overflowed float32") as device_error:
            estimator.transform(X_xp)
    assert str(device_error.value) == str(host_error.value)


@scipy_array_api_process
def test_inputs_must_share_the_fit_namespace_and_device():
    xp, device = _namespace("array_api_strict")
    X = _data(np.float64)
    with config_context(array_api_dispatch=True):
        estimator = OrthogonalRBFSampler(16, random_state=0).fit(xp.asarray(X, device=device))
        for other in (X, sp.csr_matrix(X), xp.asarray(X)):  # NumPy, sparse, another device
            with pytest.raises(ValueError, match=r"OrthogonalRBFSampler.transform\(\) must use"):
                estimator.transform(other)
        # An estimator fit on NumPy transforms NumPy and sparse input as before.
        on_host = OrthogonalRBFSampler(16, random_state=0).fit(X)
        assert_array_equal(on_host.transform(sp.csr_matrix(X)), on_host.transform(X))
        with pytest.raises(ValueError, match="Array namespaces used during fit"):
            on_host.transform(xp.asarray(X, device=device))
        # scikit-learn's move_estimator_to moves an estimator fit under
        # dispatch, with its record of the namespace and device.
        from sklearn.utils._array_api import move_estimator_to

        moved = move_estimator_to(estimator, xp, array_api_strict.Device("CPU_DEVICE"))
        Z = moved.transform(xp.asarray(X))
    assert_allclose(_to_numpy(Z, "array_api_strict"), on_host.transform(X), atol=1e-12)


@scipy_array_api_process
@pytest.mark.parametrize("namespace", NAMESPACES)
def test_partial_fit_and_pickle_keep_the_device(namespace):
    xp, device = _namespace(namespace)
    X = _data(np.float32)
    X_xp = xp.asarray(X, device=device)
    with config_context(array_api_dispatch=True):
        estimator = OrthogonalRBFSampler(32, method="orf", random_state=0).partial_fit(X_xp)
        estimator.partial_fit(X_xp)
        Z = estimator.transform(X_xp)
        restored = pickle.loads(pickle.dumps(estimator))
        assert "_moved" not in vars(restored._map)
        Z_restored = restored.transform(X_xp)
    assert estimator.random_weights_.device == device
    assert_array_equal(_to_numpy(Z_restored, namespace), _to_numpy(Z, namespace))


# -- (c) the hashers stay on the CPU; input hashed down does not ---------


@scipy_array_api_process
@pytest.mark.parametrize("namespace", NAMESPACES)
@pytest.mark.parametrize("estimator", [CoREHasher(n_components=16), MinMaxHasher(n_components=16)],
                         ids=lambda estimator: type(estimator).__name__)
def test_hashers_refuse_arrays_of_other_namespaces(namespace, estimator):
    xp, device = _namespace(namespace)
    X = _data(np.float64)
    X_xp = xp.asarray(X, device=device)
    name = type(estimator).__name__
    with config_context(array_api_dispatch=True):
        with pytest.raises(ValueError, match=f"{name} {CPU_ONLY}"):
            estimator.fit(X_xp)
        fitted = estimator.fit(X)
        with pytest.raises(ValueError, match=f"{name} {CPU_ONLY}"):
            fitted.transform(X_xp)
        # NumPy and sparse input under dispatch: the CPU path, as without it.
        Z = fitted.transform(sp.csr_matrix(X))
    assert_array_equal(Z.toarray(), estimator.transform(X).toarray())


@scipy_array_api_process
@pytest.mark.parametrize("namespace", NAMESPACES)
@pytest.mark.parametrize("method", METHODS)
def test_input_hashed_down_on_the_device(namespace, method):
    # Wider than 4096 features: the Count Sketch that hashes the input down
    # runs on the device too (a sum of gathers, or torch's scatter-add).
    xp, device = _namespace(namespace)
    X = np.zeros((5, 5000))
    X[:, ::97] = np.random.RandomState(0).uniform(size=(5, 52))
    params = dict(n_components=33, method=method, random_state=0)
    expected = OrthogonalRBFSampler(**params).fit_transform(X)
    with config_context(array_api_dispatch=True):
        estimator = OrthogonalRBFSampler(**params).fit(xp.asarray(X, device=device))
        Z = estimator.transform(xp.asarray(X, device=device))
    assert estimator.hash_down_ is not None
    assert Z.device == device
    assert_allclose(_to_numpy(Z, namespace), expected, rtol=0, atol=_atol(np.float64))


@scipy_array_api_process
def test_rademacher_projections_too_large_for_a_device_are_refused():
    xp, device = _namespace("array_api_strict")
    X = np.zeros((2, 70000))
    with config_context(array_api_dispatch=True):
        with pytest.raises(ValueError, match=r"ComplexToRealSketch \(projection='rademacher' "
                           r"on 70000 features: .* GiB on the device.*\) " + CPU_ONLY):
            ComplexToRealSketch(2048, degree=2, projection="rademacher").fit(
                xp.asarray(X, device=device)
            )


@scipy_array_api_process
def test_sparse_torch_tensors_are_refused_clearly():
    torch, device = _namespace("torch")
    X = torch.asarray(_data(np.float32))
    with config_context(array_api_dispatch=True):
        estimator = OrthogonalRBFSampler(16, random_state=0).fit(X)
        with warnings.catch_warnings():  # torch: "Sparse CSR tensor support is in beta"
            warnings.simplefilter("ignore", UserWarning)
            sparse_tensors = (X.to_sparse(), X.to_sparse_csr())
        for sparse in sparse_tensors:
            for method in (OrthogonalRBFSampler(16).fit, estimator.transform):
                with pytest.raises(ValueError, match=r"A sparse tensor \(torch.sparse_.*"
                                   r"Pass X.to_dense\(\), or the data as a SciPy sparse"):
                    method(sparse)


# -- (d) without dispatch, or with NumPy input, nothing changes -----------


@scipy_array_api_process
@pytest.mark.parametrize("name", sorted(ESTIMATOR_REGISTRY))
def test_numpy_input_under_dispatch_gives_the_same_bits(name):
    X = abs(_data(np.float64, n_samples=30, n_features=12))
    expected = make_estimator(name).fit(X).transform(X)
    with config_context(array_api_dispatch=True):
        estimator = make_estimator(name).fit(X)
        Z = estimator.transform(X)
    assert "_fit_namespace" not in vars(estimator)
    if sp.issparse(expected):
        expected, Z = expected.toarray(), Z.toarray()
    assert_array_equal(Z, expected)


@pytest.mark.parametrize("method", METHODS)
def test_torch_input_without_dispatch_is_numpy_input(method):
    # scikit-learn converts the tensor with np.asarray; its dtype is not a
    # NumPy dtype, so check_array makes it float64, as before this support.
    torch = pytest.importorskip("torch", reason="torch is not installed (optional)")
    X = _data(np.float32)
    estimator = OrthogonalRBFSampler(32, method=method, random_state=0)
    expected = estimator.fit(X.astype(np.float64)).transform(X.astype(np.float64))
    Z = OrthogonalRBFSampler(32, method=method, random_state=0).fit(torch.asarray(X)).transform(
        torch.asarray(X)
    )
    assert isinstance(Z, np.ndarray)
    assert_array_equal(Z, expected)


def test_importing_the_package_imports_no_array_library():
    import subprocess
    import sys

    code = (
        "import sys, sklearn_sketch; "
        "print(sorted(m for m in ('torch', 'array_api_strict', 'cupy') if m in sys.modules))"
    )
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert output.strip() == "[]"
