"""TensorSRHT: products of subsampled randomized Hadamard transforms."""

import numpy as np
from sklearn.utils import check_random_state

from ..utils._count_sketch import draw_hash_down
from ..utils._hadamard import fwht
from ..utils._hashing import SIGN_HASH_INDEPENDENCE, draw_polynomial_hashes
from ._common import (
    _PolynomialSketchBase,
    block_coordinates,
    block_signs,
    n_augmented_features,
    srht_inputs,
    srht_width,
)


class TensorSRHT(_PolynomialSketchBase):
    """Polynomial kernel approximation by TensorSRHT.

    Maps each row ``x`` to ``n_components`` features whose inner products are
    unbiased estimates of ``K(x, y) = (gamma <x, y> + coef0) ** degree``. With
    ``x' = [sqrt(gamma) x, sqrt(coef0)]`` zero-padded to a power-of-two
    length ``d``, ``H`` the +-1 Hadamard matrix of size ``d`` and, for each
    degree ``j``, a random +-1 diagonal ``D_j`` and sampled coordinates
    ``i_{j,r}``, feature ``r`` is::

        Phi(x)_r = prod_j (H D_j x')_{i_{j,r}} / sqrt(n_components)

    Read more in the :ref:`User Guide <polynomial_sketches>`.

    Parameters
    ----------
    n_components : int, default=100
        Dimension of the output feature space.

    degree : int, default=2
        Degree of the polynomial kernel.

    gamma : float, default=1.0
        Multiplier of the inner product in the kernel. Must be positive.

    coef0 : float, default=0.0
        Constant term of the kernel. Must be non-negative.

    random_state : int, RandomState instance or None, default=None
        Seeds the signs and coordinates drawn in ``fit``.

    n_jobs : int, default=None
        Number of threads transforming row chunks at once. ``None`` means 1
        unless in a :func:`joblib.parallel_config` context, ``-1`` all
        processors. The output does not depend on ``n_jobs``.

    Attributes
    ----------
    sign_hashes_ : ndarray of shape (degree, 4), dtype uint64
        Coefficients of the 4-wise independent sign hash of each degree.

    coordinates_ : ndarray of shape (degree, n_components), dtype intp
        Sampled coordinate of each feature and degree, as a flat index into
        the ``(n_blocks, hadamard_size_)`` transformed blocks.

    hadamard_size_ : int
        The Hadamard length ``d``: the padded input length, or the hashed
        width for wide input.

    hash_down_ : ndarray of shape (degree, 6), dtype uint64 or None
        Bucket (2 coefficients) and sign (4) hashes of the Count Sketch that
        reduces the input of each degree to ``hadamard_size_`` coordinates;
        None when the input is not wider than that.

    n_features_in_ : int
        Number of features seen during ``fit``.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    TensorSketch : Count Sketches combined by FFT.
    ComplexToRealSketch : Complex projections, lower variance.
    PolynomialTreeSketch : Degree-2 sketches combined in a binary tree.

    Notes
    -----
    Since ``E[(H D x)_i (H D y)_i] = <x, y>`` for every coordinate ``i``,
    ``E <Phi(x), Phi(y)> = <x', y'> ** degree = K(x, y)``. Input whose padded
    length exceeds ``max(4096, next_power_of_two(n_components))`` is first
    hashed down to that width by an independent Count Sketch per degree,
    which keeps the estimate unbiased and the cost proportional to the
    nonzeros.

    References
    ----------
    Ahle, T. D. et al. "Oblivious sketching of high-degree polynomial
    kernels." SODA 2020.

    Wacker, J., Kanagawa, M. and Filippone, M. "Improved random features for
    dot product kernels." arXiv:2201.08712, 2022.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketch import TensorSRHT
    >>> X = np.array([[0.0, 1.0], [1.0, 1.0], [1.0, 0.0]])
    >>> sketch = TensorSRHT(n_components=4096, degree=2, random_state=0)
    >>> X_sketch = sketch.fit_transform(X)
    >>> X_sketch.shape
    (3, 4096)
    >>> bool(np.allclose(X_sketch @ X_sketch.T, (X @ X.T) ** 2, atol=0.2))
    True
    """

    def __init__(
        self,
        n_components=100,
        *,
        degree=2,
        gamma=1.0,
        coef0=0.0,
        random_state=None,
        n_jobs=None,
    ):
        self.n_components = n_components
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _fit(self, X):
        """Draw the signs and coordinates; only the number of features is read."""
        self.hadamard_size_, hashed = srht_width(
            n_augmented_features(self.n_features_in_, self.coef0), self.n_components
        )
        self.hash_down_ = None
        # Coordinates and their sampling temporaries, block signs and the
        # temporaries of hashing them.
        n_total = self._n_blocks() * self.hadamard_size_
        itemsize = X.dtype.itemsize
        self._check_size(
            16 * self.degree * self.n_components + (48 + self.degree * itemsize) * n_total,
            X.dtype,
        )
        random_state = check_random_state(self.random_state)
        self.sign_hashes_ = draw_polynomial_hashes(
            random_state, self.degree, SIGN_HASH_INDEPENDENCE
        )
        self.coordinates_ = np.stack(
            [
                block_coordinates(random_state, self.n_components, self.hadamard_size_)
                for _ in range(self.degree)
            ]
        )
        if hashed:
            self.hash_down_ = draw_hash_down(random_state, self.degree)
        self._n_features_out = self.n_components
        return self

    def _n_blocks(self):
        return -(-self.n_components // self.hadamard_size_)

    def _bytes_per_row(self, dtype):
        # The augmented row, one degree's transformed blocks and the product.
        d, n_blocks = self.hadamard_size_, self._n_blocks()
        return (d * (n_blocks + 1) + 2 * self.n_components) * np.dtype(dtype).itemsize

    def _prepare_transform(self, X):
        dtype = X.dtype
        n_keys = self.hadamard_size_  # a hashed-down input fills its width
        if self.hash_down_ is None:
            n_keys = n_augmented_features(self.n_features_in_, self.coef0)
        return [
            block_signs(
                self.sign_hashes_[j], self._n_blocks(), self.hadamard_size_, n_keys, dtype
            )
            for j in range(self.degree)
        ]

    def _transform_chunk(self, X_chunk, out, signs):
        dtype = out.dtype
        n_rows = X_chunk.shape[0]
        inputs = srht_inputs(
            X_chunk, self.gamma, self.coef0, self.hadamard_size_, self.hash_down_,
            self.degree, dtype,
        )
        for j, U in enumerate(inputs):
            # Every block of this degree at once: (rows, blocks, d).
            blocks = fwht(U[:, None, :] * signs[j])
            sampled = blocks.reshape(n_rows, -1)[:, self.coordinates_[j]]
            if j == 0:
                out[...] = sampled
            else:
                out *= sampled
        out *= dtype.type(1.0 / np.sqrt(self.n_components))
        return out
