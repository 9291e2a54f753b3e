"""MaclaurinSketch: the kernel's expansion, one block per degree.

The blocks are the expansion's terms, their sizes follow the predicted
variances, they fill the output, and the variance is the sum of the blocks'
closed forms. Unbiasedness and the invariances shared with the other
polynomial sketches are tested in ``test_polynomial_common.py``.
"""

from math import comb

import numpy as np
import pytest
from _polynomial_helpers import (
    augment,
    image_like_rows,
    log_error_gap,
    mean_and_variance_errors,
    sketched_products,
    tensor_srht_closed_form,
)
from numpy.testing import assert_allclose, assert_array_equal

from sklearn_sketch import MaclaurinSketch, PolynomialTreeSketch
from sklearn_sketch.polynomial._maclaurin_sum import previous_smooth_length


def test_maclaurin_blocks_are_the_expansion():
    rng = np.random.RandomState(0)
    X = rng.rand(20, 6)
    gamma, coef0 = 0.7, 0.4
    sketch = MaclaurinSketch(40, degree=3, gamma=gamma, coef0=coef0, random_state=0).fit(X)
    a = [comb(3, i) * coef0 ** (3 - i) * gamma**i for i in range(4)]
    assert_allclose(sketch.coefficients_, a)
    assert sketch.expanded_ and sketch.linear_exact_
    assert sketch.allocation_[1] == 6 and sketch.allocation_.sum() == 40
    Z = sketch.transform(X)
    m = sketch.allocation_[0]
    # The constant block contributes a_0 exactly, the linear one a_1 <x, y>.
    assert_allclose(Z[:, :m] @ Z[:, :m].T, a[0])
    assert_allclose(Z[:, m : m + 6], np.sqrt(a[1]) * X)
    # Each other block is sqrt(a_i) times a degree-i sketch of <x, y>^i.
    start = m + 6
    for i in (2, 3):
        stop = start + sketch.allocation_[i]
        assert sketch.sketches_[i].degree == i and sketch.sketches_[i].coef0 == 0
        tree = PolynomialTreeSketch(
            sketch.allocation_[i], degree=i, random_state=sketch.block_seeds_[i]
        )
        assert_allclose(Z[:, start:stop], np.sqrt(a[i]) * tree.fit_transform(X))
        start = stop


def test_maclaurin_sizes_follow_the_predicted_variances():
    # D_i proportional to a_i sqrt(v_i), v_i the mean over pairs of
    # (|x|^2 |y|^2)^i + <x, y>^(2i); one feature at least per term, the
    # rest by largest remainders (TensorSRHT: no rounding to FFT lengths).
    X = np.random.RandomState(1).rand(50, 30) / 5
    sketch = MaclaurinSketch(
        2000, degree=3, gamma=0.5, coef0=0.5, base="tensorsrht", linear="sketch"
    ).fit(X)
    gram = X @ X.T
    norms = np.multiply.outer(np.diag(gram), np.diag(gram))
    v = np.array([np.mean(norms**i + gram ** (2 * i)) for i in (1, 2, 3)])
    weights = sketch.coefficients_[1:] * np.sqrt(v)
    expected = 1999 * weights / weights.sum()
    assert sketch.allocation_[0] == 1 and sketch.allocation_.sum() == 2000
    assert np.all(np.abs(sketch.allocation_[1:] - expected) <= 2)
    # The FFT bases round each size down to a 7-smooth length and give the
    # difference to the constant block.
    tree = MaclaurinSketch(2000, degree=3, gamma=0.5, coef0=0.5, linear="sketch").fit(X)
    for size in tree.allocation_[1:]:
        assert previous_smooth_length(size) == size
    assert tree.allocation_.sum() == 2000 and tree.allocation_[0] > 1


@pytest.mark.slow
@pytest.mark.parametrize("base", ["tree", "tensorsrht"])
def test_maclaurin_blocks_fill_the_output_exactly(base):
    # Every setting either lays out blocks that add up to n_components or
    # falls back to the padded sketch; a gap would leave garbage columns.
    X = np.random.RandomState(6).rand(4, 5)
    for n_components in range(1, 30):
        for degree in (1, 2, 3):
            for coef0 in (0.0, 0.5):
                for linear in ("auto", "sketch"):
                    sketch = MaclaurinSketch(
                        n_components, degree=degree, coef0=coef0, base=base,
                        linear=linear, random_state=0,
                    ).fit(X)
                    if sketch.expanded_:
                        assert sketch.allocation_.sum() == n_components
                        assert sketch._map.blocks()[-1][1].stop == n_components
                    assert sketch.transform(X).shape == (4, n_components)


def test_previous_smooth_length():
    def smooth(m):
        for f in (2, 3, 5, 7):
            while m % f == 0:
                m //= f
        return m == 1

    for n in range(1, 400):
        m = previous_smooth_length(n)
        assert m <= n and smooth(m) and not any(smooth(k) for k in range(m + 1, n + 1))


def test_maclaurin_linear_term_exact_only_when_it_pays():
    X = np.random.RandomState(2).rand(30, 50)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    # 50 exact columns of 60 would leave 9 features to degrees 2 and 3:
    # predicted variance (w_2 + w_3)^2 / 9 against (w_1 + w_2 + w_3)^2 / 59.
    assert not MaclaurinSketch(60, degree=3, coef0=1.0, random_state=0).fit(X).linear_exact_
    assert MaclaurinSketch(1000, degree=3, coef0=1.0, random_state=0).fit(X).linear_exact_
    with pytest.raises(ValueError, match=r"linear='exact' needs n_features=50 columns "
                       r"plus one per other term of the expansion \(3\): 53, more than "
                       r"n_components=40"):
        MaclaurinSketch(40, degree=3, coef0=1.0, linear="exact").fit(X)
    # With the linear term alone the output is x: exactly n_features wide.
    with pytest.raises(ValueError, match=r"n_components must equal n_features=50, not 60"):
        MaclaurinSketch(60, degree=1, linear="exact").fit(X)
    assert MaclaurinSketch(50, degree=1, linear="exact").fit(X).linear_exact_
    # Degree 1 with room for x: the kernel itself, no variance at all.
    Z = MaclaurinSketch(52, degree=1, gamma=2.0, coef0=1.0).fit_transform(X)
    assert_allclose(Z @ Z.T, 2.0 * X @ X.T + 1.0)


def test_maclaurin_with_fewer_features_than_terms_sketches_the_kernel_whole():
    X = np.random.RandomState(3).rand(10, 4)
    sketch = MaclaurinSketch(3, degree=3, coef0=1.0, random_state=0).fit(X)
    assert not sketch.expanded_ and sketch.allocation_ is None
    padded = sketch.padded_sketch_
    assert (padded.n_components, padded.degree, padded.coef0) == (3, 3, 1.0)
    tree = PolynomialTreeSketch(3, degree=3, coef0=1.0, random_state=sketch.block_seeds_[0])
    assert_array_equal(sketch.transform(X), tree.fit_transform(X))


@pytest.mark.slow
@pytest.mark.statistical
def test_maclaurin_variance_is_the_sum_of_its_blocks_closed_forms():
    # The blocks are independent, so Var = sum_i a_i^2 Var_i(D_i), each Var_i
    # the TensorSRHT closed form of degree i (6 features, no constant
    # coordinate: Hadamard length 8). The padded TensorSRHT of the same
    # size has a closed form more than 4 standard errors above it, so the
    # check tells the two apart.
    rng = np.random.RandomState(5)
    x, y = rng.rand(2, 6)
    y += 0.5 * x
    x, y = x / np.linalg.norm(x), y / np.linalg.norm(y)
    degree, coef0, n_components = 2, 0.5, 24
    X = np.vstack([x, y])
    params = dict(n_components=n_components, degree=degree, coef0=coef0)

    def make(**kw):
        return MaclaurinSketch(base="tensorsrht", linear="sketch", **kw)

    fitted = make(**params).fit(X)
    estimates = sketched_products(make, X, 2000, **params)[:, 0, 1]
    expected = sum(
        fitted.coefficients_[i] ** 2
        * tensor_srht_closed_form(x, y, i, fitted.allocation_[i], 8)
        for i in (1, 2)
    )
    variance, variance_error = mean_and_variance_errors(estimates)
    assert abs(variance - expected) < 4 * variance_error
    xa, ya = augment(x, 1.0, coef0), augment(y, 1.0, coef0)
    assert tensor_srht_closed_form(xa, ya, degree, n_components, 8) - expected > (
        4 * variance_error
    )


@pytest.mark.slow
@pytest.mark.statistical
def test_maclaurin_has_lower_kernel_error_than_tensor_sketch():
    # The setting of benchmarks/bench_polynomial_sketches.py in small:
    # non-negative unit rows (image-like), (0.5 + 0.5 <x, y>)^3, equal D.
    # Compared on the means of log errors (light-tailed; see the tree test
    # above): the gap must exceed 4 standard errors.
    X = image_like_rows(4, 40)
    params = dict(n_components=128, degree=3, gamma=0.5, coef0=0.5)
    gap, standard_error = log_error_gap(MaclaurinSketch, X, 200, **params)
    assert gap > 4 * standard_error
