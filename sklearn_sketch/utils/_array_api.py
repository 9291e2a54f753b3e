"""Array API inputs (torch, CuPy, array_api_strict) under scikit-learn's dispatch.

With ``sklearn.set_config(array_api_dispatch=True)`` an estimator whose map
supports it (``SketchMap.array_api_support``) transforms an input of another
namespace than NumPy on its device, into an output of that namespace and
device; its random state is drawn on the host at fit, from the input
brought to NumPy, exactly as for NumPy input. Without dispatch, and for
NumPy arrays, SciPy sparse matrices, lists and DataFrames under dispatch,
nothing here applies: :func:`device_namespace` returns None for them.

Only what this package needs of scikit-learn's helpers (imported through
``_compat``), written so that it works with every scikit-learn release the
package supports.
"""

import numpy as np
import scipy.sparse as sp
from sklearn import get_config

from ._compat import _convert_to_numpy, get_namespace_and_device


def dispatch_enabled():
    """Whether scikit-learn's ``array_api_dispatch`` is on."""
    return bool(get_config().get("array_api_dispatch", False))


def is_numpy_namespace(xp):
    """Whether the namespace ``xp`` is NumPy (plain or array_api_compat's wrapper)."""
    return xp.__name__ in (
        "numpy", "array_api_compat.numpy", "sklearn.externals.array_api_compat.numpy"
    )


def device_namespace(X):
    """``(xp, device)`` of ``X`` where it is transformed on its own namespace and device.

    That is under ``array_api_dispatch=True`` for an array of an array API
    namespace other than NumPy. Returns None otherwise: without dispatch,
    and for NumPy arrays, sparse matrices, lists, DataFrames, anything
    that is not an array of a namespace scikit-learn's ``array_api_compat``
    recognizes. Raises a ValueError for a sparse torch tensor.
    """
    if not dispatch_enabled() or sp.issparse(X) or isinstance(X, (np.ndarray, np.generic)):
        return None
    try:
        xp, is_array_api, device = get_namespace_and_device(X)
    except TypeError:  # not an array of a namespace array_api_compat knows
        return None
    if not is_array_api or is_numpy_namespace(xp):
        return None
    layout = getattr(X, "layout", None)  # torch's sparse tensors
    if layout is not None and str(layout) != "torch.strided":
        raise ValueError(
            f"A sparse tensor ({layout}) cannot be transformed on its device: the "
            "sketches take dense arrays of other namespaces than NumPy, and sparse "
            "input as a SciPy sparse matrix, on the CPU. Pass X.to_dense(), or the "
            "data as a SciPy sparse matrix."
        )
    return xp, device


def namespace_and_device(X):
    """``(xp name, device)`` of ``X`` as :func:`check_same_namespace` compares them:
    ``("numpy", None)`` for anything transformed on the host."""
    target = device_namespace(X)
    if target is None:
        return "numpy", None
    xp, device = target
    return xp.__name__, device


def to_host(X, xp):
    """``X`` (of namespace ``xp``) as a NumPy array on the CPU."""
    return _convert_to_numpy(X, xp=xp)


def float_dtypes(xp, device):
    """float64 and float32 of ``xp`` that ``device`` supports, float64 first.

    The dtypes an input keeps (others, integers included, become the
    first): the NumPy path's rule, on a device without float64 (Apple's
    MPS) float32.
    """
    info = getattr(xp, "__array_namespace_info__", None)
    if info is None:
        return (xp.float64, xp.float32)
    supported = info().dtypes(kind="real floating", device=device)
    return tuple(supported[name] for name in ("float64", "float32") if name in supported)


def to_device(value, xp, device):
    """A fitted attribute moved to ``xp`` on ``device``: a numeric ndarray is
    copied there (float64 as float32 on a device without float64); anything
    else is returned as it is."""
    if not isinstance(value, np.ndarray) or value.dtype.kind not in "biuf":
        return value
    if value.dtype.kind == "f" and value.dtype.itemsize > 4:
        dtypes = float_dtypes(xp, device)
        if xp.float64 not in dtypes:
            value = value.astype(np.float32)
    return xp.asarray(value, device=device)


def check_same_namespace(estimator, X, fitted, method):
    """Raise if ``X`` is not of the namespace and device recorded at fit.

    Under ``array_api_dispatch=True`` only, as scikit-learn's estimators do
    (its ``check_same_namespace``): the fitted attributes are in the
    namespace and on the device of the training data, and an input of
    another one is refused instead of being moved silently.

    Parameters
    ----------
    estimator : estimator
        Named in the message.
    X : array-like
        The input of ``method``.
    fitted : tuple
        ``(xp name, device)`` of the training data
        (:func:`namespace_and_device`).
    method : str
        The method called, for the message.
    """
    if not dispatch_enabled():
        return
    current = namespace_and_device(X)
    if current[0] == fitted[0] and current[1] == fitted[1]:
        return
    if current[0] != fitted[0]:
        detail = (
            f"Array namespaces used during fit ({fitted[0]}) and {method} "
            f"({current[0]}) differ."
        )
    else:
        detail = f"Devices used during fit ({fitted[1]}) and {method} ({current[1]}) differ."
    raise ValueError(
        f"Inputs passed to {type(estimator).__name__}.{method}() must use the same "
        f"namespace and the same device as those passed to fit(). {detail} "
        "Fit the estimator on data of that namespace and device."
    )


# torch pickles a tensor of an unsigned dtype (uint16, uint32, uint64: the
# hash coefficients of the polynomial sketches fitted on torch) but cannot
# load it back ("UntypedStorage has no attribute dtype", torch 2.13): such
# tensors go into a pickle as NumPy arrays that rebuild the tensor on load.
_UNSIGNED_TORCH_DTYPES = ("torch.uint16", "torch.uint32", "torch.uint64")


def picklable_state(state):
    """``state`` (an estimator's ``__dict__``) with torch's unsigned tensors made loadable."""
    return {
        name: _UnsignedTensor(value) if _is_unsigned_tensor(value) else value
        for name, value in state.items()
    }


def _is_unsigned_tensor(value):
    return (
        type(value).__module__.startswith("torch")
        and str(getattr(value, "dtype", "")) in _UNSIGNED_TORCH_DTYPES
    )


class _UnsignedTensor:
    """An unsigned torch tensor in a pickle: its values on the host and its device."""

    def __init__(self, tensor):
        self.values = tensor.cpu().numpy()
        self.device = str(tensor.device)

    def __reduce__(self):
        return _unsigned_tensor, (self.values, self.device)


def _unsigned_tensor(values, device):
    """The tensor :class:`_UnsignedTensor` pickled, rebuilt on its device."""
    import torch

    return torch.asarray(values, device=device)
