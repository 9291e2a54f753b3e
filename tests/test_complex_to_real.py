"""ComplexToRealSketch: the complex projection behind its features, and the
closed-form variance of its complex Rademacher map.

The SRHT projection's variance is tested with TensorSRHT's in
``test_polynomial_common.py``; the closed forms are in ``_polynomial_helpers.py``.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from _polynomial_helpers import (
    VARIANTS,
    augment,
    ctr_rademacher_closed_form,
    mean_and_variance_errors,
    real_rademacher_closed_form,
    sketched_products,
)
from conftest import statistical_seed
from numpy.testing import assert_allclose

from sklearn_sketch import ComplexToRealSketch
from sklearn_sketch.utils._hashing import (
    SIGN_HASH_INDEPENDENCE,
    draw_polynomial_hashes,
    polynomial_hash,
)


def test_ctr_rademacher_equals_explicit_complex_projection():
    rng = np.random.RandomState(1)
    X = rng.randn(3, 4)
    gamma, coef0, D = 1.5, 0.4, 7  # odd D: 4 complex features, 7 outputs
    sketch = ComplexToRealSketch(
        D, degree=2, gamma=gamma, coef0=coef0, projection="rademacher", random_state=0
    ).fit(X)
    m, width = 4, 5
    units = np.array([1, 1j, -1, -1j])
    keys = np.arange(m)[:, None] * width + np.arange(width)
    Phi = np.ones((3, m), dtype=complex)
    for j in range(2):
        W = units[(polynomial_hash(sketch.entry_hashes_[j], keys) & np.uint64(3)).astype(int)]
        Phi *= np.array([augment(x, gamma, coef0) for x in X]) @ W.T
    Phi *= np.sqrt(2 / D)
    expected = np.hstack([Phi.real, Phi.imag[:, : D - m]])
    assert_allclose(sketch.transform(X), expected, atol=1e-12)


def ctr_rademacher_products_vectorized(x, y, degree, n_components, n_draws, seed):
    """Z(x).Z(y) of ComplexToRealSketch(projection="rademacher") for x, y
    already augmented, with the estimator's hash family drawn in bulk
    (``test_ctr_rademacher_equals_explicit_complex_projection`` proves the
    transform is exactly this projection of its hashes)."""
    rng = np.random.RandomState(seed)
    m, width = n_components // 2, x.size
    keys = (np.arange(m)[:, None] * width + np.arange(width)).astype(np.uint64)
    units = np.array([1, 1j, -1, -1j])
    Zx = np.ones((n_draws, m), dtype=complex)
    Zy = np.ones((n_draws, m), dtype=complex)
    for _ in range(degree):
        coefficients = draw_polynomial_hashes(rng, n_draws, SIGN_HASH_INDEPENDENCE)
        all_keys = np.broadcast_to(keys, (n_draws,) + keys.shape)
        codes = polynomial_hash(coefficients.T[..., None, None], all_keys) & np.uint64(3)
        W = units[codes.astype(int)]  # (n_draws, m, width)
        Zx *= W @ x
        Zy *= W @ y
    return (2 / n_components) * np.sum((Zx * np.conj(Zy)).real, axis=1)


@pytest.mark.slow
@pytest.mark.statistical
def test_ctr_rademacher_variance_matches_closed_form():
    rng = np.random.RandomState(0)
    x, y = rng.rand(2, 6)
    y += 0.5 * x  # correlated non-negative rows, the case CtR is made for
    x, y = x / np.linalg.norm(x), y / np.linalg.norm(y)
    degree, n_components, n_draws = 3, 16, 40000
    products = ctr_rademacher_products_vectorized(x, y, degree, n_components, n_draws, seed=statistical_seed(1))
    expected = ctr_rademacher_closed_form(x, y, degree, n_components)
    standard_error = products.std(ddof=1) / np.sqrt(n_draws)
    assert abs(products.mean() - (x @ y) ** degree) < 4 * standard_error
    variance, variance_error = mean_and_variance_errors(products)
    # The 10% tolerance must exceed 4 standard errors of the
    # variance estimate, or the check would be a coin flip.
    assert 4 * variance_error < 0.1 * expected
    assert abs(variance - expected) < 0.1 * expected
    # The complex map beats the real Rademacher product (factor 2 vs 3).
    assert expected < 0.8 * real_rademacher_closed_form(x, y, degree, n_components)

    # The same law through the estimator itself (x, y augmented with
    # gamma = 1, coef0 = c), fewer draws and a band of 4 standard errors.
    c = 0.3
    raw = np.vstack([x, y])
    estimates = sketched_products(
        VARIANTS["ctr-rademacher"], raw, 1500, n_components=n_components,
        degree=degree, coef0=c,
    )[:, 0, 1]
    xa, ya = augment(x, 1.0, c), augment(y, 1.0, c)
    expected = ctr_rademacher_closed_form(xa, ya, degree, n_components)
    variance, variance_error = mean_and_variance_errors(estimates)
    assert abs(variance - expected) < 4 * variance_error


def test_very_sparse_rademacher_hashes_only_present_columns():
    X = sp.random(20, 50000, density=2e-4, random_state=0, format="csr")
    sketch = ComplexToRealSketch(32, degree=2, coef0=0.5, projection="rademacher", random_state=0)
    sketch.fit(X)
    assert_allclose(sketch.transform(X), sketch.transform(X.toarray()), atol=1e-10)
