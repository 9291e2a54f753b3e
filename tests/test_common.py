"""scikit-learn's estimator checks for every estimator and option of the registry."""

import pytest
from conftest import ESTIMATOR_REGISTRY, extra_check_estimators, make_estimator
from sklearn.utils.estimator_checks import (
    check_param_validation,
    parametrize_with_checks,
)

# The registry, and options its cross-cutting tests cannot take. Their array
# API checks need SCIPY_ARRAY_API=1, unset here: they are skipped here and
# run in tests/test_array_api.py, in a process with it.
ESTIMATORS = [make_estimator(name) for name in sorted(ESTIMATOR_REGISTRY)] + list(
    extra_check_estimators().values()
)


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
