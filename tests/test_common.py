"""scikit-learn's estimator checks for every public estimator."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_sketch import (
    ComplexToRealSketch,
    CoREHasher,
    KernelJL,
    MaclaurinSketch,
    PolynomialTreeSketch,
    TensorSketch,
    TensorSRHT,
)

ESTIMATORS = [
    TensorSketch(n_components=64, random_state=0),
    TensorSketch(n_components=64, degree=3, gamma=0.5, coef0=1.0, random_state=0),
    CoREHasher(n_components=32, random_state=0),
    CoREHasher(n_components=32, kernel="core2", hashing="oph", random_state=0),
    CoREHasher(n_components=16, kernel="resemblance", b_bits=None, random_state=0),
    KernelJL(n_components=16, n_subsample=8, random_state=0),
    KernelJL(n_components=16, n_subsample=8, kernel="poly", degree=2, random_state=0),
    KernelJL(n_components=16, n_subsample=8, center=True, random_state=0),
    KernelJL(n_components=16, n_subsample=8, kernel="precomputed", random_state=0),
    TensorSRHT(n_components=64, degree=3, coef0=1.0, random_state=0),
    ComplexToRealSketch(n_components=63, degree=3, coef0=1.0, random_state=0),
    ComplexToRealSketch(n_components=64, projection="rademacher", random_state=0),
    PolynomialTreeSketch(n_components=64, degree=3, coef0=1.0, random_state=0),
    PolynomialTreeSketch(n_components=64, base="tensorsketch", random_state=0),
    MaclaurinSketch(n_components=64, degree=3, coef0=1.0, random_state=0),
    MaclaurinSketch(n_components=32, degree=2, coef0=0.5, base="tensorsrht", linear="sketch"),
]


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
