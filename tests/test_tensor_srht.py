"""TensorSRHT: the transform is the formula of the subsampled randomized
Hadamard transform, block by block.

Its statistics (unbiasedness, the closed-form variance of the block
construction, the hash-down of wide input) are shared with the other SRHT
sketches and tested in ``test_polynomial_common.py``.
"""

import numpy as np
from _polynomial_helpers import augment
from numpy.testing import assert_allclose
from scipy.linalg import hadamard

from sklearn_sketch import TensorSRHT


def test_tensor_srht_equals_explicit_formula():
    rng = np.random.RandomState(0)
    X = rng.randn(4, 5)
    gamma, coef0, D = 0.7, 1.3, 20  # d' = 6 -> Hadamard size 8, three blocks
    sketch = TensorSRHT(D, degree=3, gamma=gamma, coef0=coef0, random_state=0).fit(X)
    assert sketch.hadamard_size_ == 8
    signs = sketch._map.prepare(X, 1, 1)  # per-call state: the block signs
    H = hadamard(8)
    expected = np.ones((4, D))
    for j in range(3):
        for r in range(D):
            block, coordinate = divmod(sketch.coordinates_[j, r], 8)
            for row, x in enumerate(X):
                x_pad = np.zeros(8)
                x_pad[:6] = augment(x, gamma, coef0)
                expected[row, r] *= (H @ (signs[j][block] * x_pad))[coordinate]
    assert_allclose(sketch.transform(X), expected / np.sqrt(D), atol=1e-12)
    # Within a block the coordinates are distinct (sampling without replacement).
    for j in range(3):
        for start in range(0, D, 8):
            block = sketch.coordinates_[j, start : start + 8]
            assert np.unique(block).size == block.size
