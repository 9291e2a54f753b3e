"""PolynomialTreeSketch: the tree of Count Sketches and Hadamard nodes is the
explicit formula, its buckets never collide, and it beats TensorSketch's
kernel error at high degree.

Unbiasedness and the invariances shared with the other polynomial sketches
are tested in ``test_polynomial_common.py``.
"""

import numpy as np
import pytest
from _polynomial_helpers import VARIANTS, augment, image_like_rows, log_error_gap
from numpy.testing import assert_allclose

from sklearn_sketch import PolynomialTreeSketch
from sklearn_sketch.utils._hashing import polynomial_hash


def test_tree_with_three_factor_hadamard_nodes():
    # Node inputs of length 2048 take the long transforms (length 2048)
    # (regression: the node sketches once came out as zeros there).
    X = np.random.RandomState(0).rand(20, 30)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    Z = PolynomialTreeSketch(n_components=2048, degree=3, random_state=0).fit_transform(X)
    assert_allclose(Z @ Z.T, (X @ X.T) ** 3, atol=0.3)


def explicit_count_sketch(buckets, signs, width, D):
    """The dense (width, D) matrix of a Count Sketch."""
    C = np.zeros((width, D))
    C[np.arange(width), buckets] = signs
    return C


def cyclic_convolution(a, b):
    D = a.shape[1]
    return np.real(np.fft.ifft(np.fft.fft(a, axis=1) * np.fft.fft(b, axis=1), n=D, axis=1))


@pytest.mark.parametrize("buckets", ["permutation", "hash"])
@pytest.mark.parametrize("degree", [2, 3])
def test_tree_tensorsketch_equals_explicit_formula(buckets, degree):
    # The tree from its fitted hashes, leaf by leaf and node by node, with
    # dense Count Sketch matrices and FFT convolutions; degree 3 pads one e
    # leaf, whose FFT-free shortcut must give the same map.
    rng = np.random.RandomState(degree)
    X = rng.randn(4, 5)
    gamma, coef0, D = 0.7, 1.3, 16
    sketch = PolynomialTreeSketch(
        D, degree=degree, gamma=gamma, coef0=coef0, buckets=buckets, random_state=0
    ).fit(X)
    width = 6 + (sketch.n_leaves_ > degree)  # x', plus the key of e
    Xa = np.zeros((4, width))
    Xa[:, :6] = [augment(x, gamma, coef0) for x in X]
    e = np.zeros((1, width))
    e[0, -1] = 1.0

    def sketch_matrix(t, w):
        keys = np.arange(w)
        if buckets == "hash":
            b = polynomial_hash(sketch.bucket_hashes_[t], keys) % np.uint64(D)
        else:
            b = sketch.bucket_permutations_[t]
        signs = 1.0 - 2.0 * (polynomial_hash(sketch.sign_hashes_[t], keys) & np.uint64(1))
        return explicit_count_sketch(b.astype(int), signs, w, D)

    leaves = [Xa] * degree + [e] * (sketch.n_leaves_ - degree)
    nodes = [
        cyclic_convolution(leaves[2 * k] @ sketch_matrix(2 * k, width),
                           leaves[2 * k + 1] @ sketch_matrix(2 * k + 1, width))
        for k in range(sketch.n_leaves_ // 2)
    ]
    t = sketch.n_leaves_
    while len(nodes) > 1:
        nodes = [
            cyclic_convolution(nodes[2 * k] @ sketch_matrix(t + 2 * k, D),
                               nodes[2 * k + 1] @ sketch_matrix(t + 2 * k + 1, D))
            for k in range(len(nodes) // 2)
        ]
    assert_allclose(sketch.transform(X), np.broadcast_to(nodes[0], (4, D)), atol=1e-10)


def test_tree_permutation_buckets_never_collide_within_n_components():
    X = np.zeros((2, 30))
    tree = PolynomialTreeSketch(64, degree=3, base="tensorsketch", random_state=0).fit(X)
    for buckets in tree.bucket_permutations_:
        assert np.unique(buckets).size == buckets.size  # 31 leaf keys, 64 node keys
    # Wider than n_components: loads differ by at most one.
    wide = PolynomialTreeSketch(8, degree=2, base="tensorsketch", random_state=0).fit(X)
    for buckets in wide.bucket_permutations_:
        loads = np.bincount(buckets, minlength=8)
        assert loads.max() - loads.min() <= 1


@pytest.mark.slow
@pytest.mark.statistical
def test_tree_has_lower_kernel_error_than_tensor_sketch_at_high_degree():
    # Squared Frobenius error over all pairs of 12 non-negative unit rows
    # (image-like data) at degree 8, i.e. the sum of the pairwise squared
    # errors, at equal D. TensorSketch's error is heavy-tailed (rare draws
    # put much of the mass of x^(8) in one bucket): its mean over 500 draws
    # swings with those draws, and so does the estimate of its standard
    # error, so a gap of the means in such standard errors is unreliable.
    # The log of the error is light-tailed, so compare the means of log
    # errors (the logs of the geometric mean errors), whose CLT standard
    # error holds: the gap must exceed 4 of them (a one-sided 3e-5 false
    # alarm were the errors alike).
    X = image_like_rows(3, 12)
    params = dict(n_components=64, degree=8, gamma=0.5, coef0=0.5)
    for tree in ["tree-srht", "tree-ts"]:
        gap, standard_error = log_error_gap(VARIANTS[tree], X, 500, **params)
        assert gap > 4 * standard_error
