"""The keyword arguments of KernelJL's kernel: its parameters, checked, and gamma."""

from numbers import Real

import numpy as np
from sklearn.metrics.pairwise import KERNEL_PARAMS

from ..utils._gamma import scale_gamma
from ..utils._validation import StrictInterval, all_finite

# The ranges of the kernels' own parameters: the estimator's constraints, and
# the check of the same parameters given in kernel_params.
KERNEL_PARAMETER_RANGES = {
    "gamma": StrictInterval(Real, 0, None, closed="left"),
    "degree": StrictInterval(Real, 1, None, closed="left"),
    "coef0": StrictInterval(Real, None, None, closed="neither"),
}

# Kernels whose gamma="scale" is SVC's, 1 / (n_features * X.var()). The
# others that take a gamma (laplacian, chi2) keep scikit-learn's default: an
# L1 distance or a chi2 divergence does not grow with the variance.
_SCALE_GAMMA_KERNELS = frozenset({"rbf", "poly", "polynomial", "sigmoid"})


def kernel_params(kernel, gamma, degree, coef0, params):
    """Keyword arguments of the kernel, from the estimator's parameters.

    ``gamma``, ``degree`` and ``coef0`` are passed only to the named
    kernels that take them; with a callable or precomputed kernel, setting
    them is an error (they would be silently ignored). A named kernel
    takes in ``params`` (the estimator's ``kernel_params``) only its own
    parameters, each given once (in ``kernel_params`` or as the estimator's
    parameter) and valid as that parameter; a precomputed kernel takes
    none, a callable any.
    """
    params = dict(params or {})
    # gamma="scale" is resolved on the subsample (resolve_gamma); until
    # then it is a default, which kernel_params may override.
    gamma = None if isinstance(gamma, str) else gamma
    named = {"gamma": gamma, "degree": degree, "coef0": coef0}
    if callable(kernel) or kernel == "precomputed":
        given = sorted(name for name, value in named.items() if value is not None)
        if given:
            raise ValueError(
                f"{', '.join(given)} cannot be set with a callable or "
                "precomputed kernel; pass a callable's arguments in "
                "kernel_params."
            )
        if params and kernel == "precomputed":
            raise ValueError(
                "kernel='precomputed' takes no kernel_params; got "
                f"{sorted(map(repr, params))}."
            )
        return params
    accepted = sorted(KERNEL_PARAMS[kernel])
    for key, value in params.items():
        _check_kernel_param(kernel, key, value, accepted, named.get(key))
    for name in accepted:
        if named[name] is not None:
            params[name] = named[name]
    return params


def _check_kernel_param(kernel, key, value, accepted, given):
    """Refuse a ``kernel_params`` entry the named kernel would ignore or misread."""
    if key not in accepted:
        takes = ", ".join(accepted) if accepted else "no parameters"
        raise ValueError(
            f"kernel_params has {key!r}, which is not a parameter of "
            f"kernel={kernel!r} (it takes {takes})."
        )
    if given is not None:
        raise ValueError(
            f"{key} is given twice, as {key}={given!r} and in "
            f"kernel_params ({value!r}); set it once."
        )
    constraint = KERNEL_PARAMETER_RANGES[key]
    if value is not None and not constraint.is_satisfied_by(value):
        raise ValueError(
            f"kernel_params[{key!r}] of kernel={kernel!r} must be {constraint}; "
            f"got {value!r}."
        )


def resolve_gamma(kernel, gamma, components, params):
    """The kernel's parameters with the gamma used made explicit, and that gamma.

    ``gamma="scale"`` is ``1 / (n_features * var)`` of the subsample's
    cells for the kernels of ``_SCALE_GAMMA_KERNELS`` (unless ``params``
    gives gamma); the subsample is what both ``fit`` and ``partial_fit``
    hold, a uniform sample of the rows seen. Any other gamma left to the
    kernel is made explicit, scikit-learn's default (``1 / n_features``,
    1.0 for chi2), so that ``gamma_`` is the value used.

    Returns
    -------
    params : dict
        The kernel's parameters for the Gram matrix of ``components``.
    gamma_ : float or None
        The gamma used; None for a kernel without gamma.
    """
    takes_gamma = not callable(kernel) and "gamma" in KERNEL_PARAMS.get(kernel, ())
    value = params.get("gamma")
    if value is None and takes_gamma:
        if gamma == "scale" and kernel in _SCALE_GAMMA_KERNELS:
            # Under assume_finite=True a NaN in the subsample makes gamma
            # NaN and the features NaN: what came in goes out, no error.
            value = scale_gamma(components) if all_finite(components) else np.nan
        else:
            value = 1.0 if kernel == "chi2" else 1.0 / components.shape[1]
        params = {**params, "gamma": value}
    return params, None if value is None else float(value)
