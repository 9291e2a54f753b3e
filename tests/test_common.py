"""scikit-learn's estimator checks for every estimator and option of the registry."""

import pytest
from conftest import ESTIMATOR_REGISTRY, make_estimator
from sklearn.utils.estimator_checks import (
    check_param_validation,
    parametrize_with_checks,
)

from sklearn_sketch import KernelJL, TensorSketch

ESTIMATORS = [make_estimator(name) for name in sorted(ESTIMATOR_REGISTRY)] + [
    # Options the registry's cross-cutting tests cannot take: a precomputed
    # kernel (square input) and a non-default gamma.
    KernelJL(n_components=16, n_subsample=8, kernel="precomputed", random_state=0),
    TensorSketch(n_components=64, degree=3, gamma=0.5, coef0=1.0, random_state=0),
]


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


@pytest.mark.parametrize("name", sorted(ESTIMATOR_REGISTRY))
def test_invalid_parameters_are_refused_naming_them(name):
    # Not part of check_estimator: for every parameter, a value outside each
    # of its constraints (type, interval, options) makes fit, partial_fit and
    # transform raise "The '<parameter>' parameter of <Estimator> must be ...".
    estimator = make_estimator(name)
    check_param_validation(type(estimator).__name__, estimator)
