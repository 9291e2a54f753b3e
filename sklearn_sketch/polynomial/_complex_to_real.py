"""Complex-to-real (CtR) sketches of the polynomial kernel (Wacker et al., 2023)."""

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from ..utils._compat import StrOptions
from ..utils._count_sketch import draw_hash_down
from ..utils._hadamard import fwht
from ..utils._hashing import (
    MERSENNE_PRIME,
    SIGN_HASH_INDEPENDENCE,
    draw_polynomial_hashes,
    polynomial_hash,
)
from ..utils._sparse import dense_to_csr
from ._base import _PolynomialSketchBase
from ._common import (
    _UNIT_IMAG,
    _UNIT_REAL,
    block_coordinates,
    block_signs,
    complex_dtype,
    complex_to_real,
    n_augmented_features,
    srht_inputs,
    srht_width,
)


def multiply_complex(product, factor):
    """``product *= factor``, each value rounded alike whatever the array's size.

    NumPy's complex multiply rounds a lone value (an array of size 1) apart
    from the vectorized loop that longer arrays take, so with one complex
    feature per row (``n_components <= 2``) a row's product would depend on
    whether its chunk has other rows. There, four real products and two sums,
    each rounded once, give the same bits everywhere; with two or more
    features per row every call takes the vectorized loop, and NumPy's own
    product (several times faster) is kept.
    """
    if product.shape[-1] > 1:
        product *= factor
        return product
    real = product.real * factor.real - product.imag * factor.imag
    product.imag = product.real * factor.imag + product.imag * factor.real
    product.real = real
    return product



def unit_entries(coefficients, columns, row_keys, real_values, imag_values, out):
    """``[Re W | Im W]`` at the given columns of a hashed unit-complex projection ``W``.

    Entry (row ``k``, column ``i``) of ``W`` is the unit complex number whose
    code is the two low bits of the polynomial hash of its key
    ``row_keys[k] + i``: ``out[c, k] = real_values[code]`` and
    ``out[c, m + k] = imag_values[code]``, ``m = row_keys.size``.
    """
    m = row_keys.size
    keys = np.asarray(columns, dtype=np.uint64)[:, None] + row_keys
    codes = (polynomial_hash(coefficients, keys) & np.uint64(3)).astype(np.intp)
    np.take(real_values, codes, out=out[:, :m])
    np.take(imag_values, codes, out=out[:, m:])
    return out

class ComplexToRealSketch(_PolynomialSketchBase):
    r"""Polynomial kernel approximation by complex-to-real random features.

    Maps each row ``x`` to ``n_components`` real features whose inner
    products are unbiased estimates of
    ``K(x, y) = (gamma <x, y> + coef0) ** degree``. With
    ``x' = [sqrt(gamma) x, sqrt(coef0)]``, ``m = ceil(n_components / 2)``
    complex features are products of complex random projections::

        Phi_C(x) = sqrt(2 / n_components) * (W_1 x') o ... o (W_degree x')

    and the output is ``[Re Phi_C(x), Im Phi_C(x)]``.

    Read more in the :ref:`User Guide <polynomial_sketches>`.

    Parameters
    ----------
    n_components : int, default=100
        Dimension of the output feature space. An odd value drops the
        imaginary part of the last complex feature.

    degree : int, default=2
        Degree of the polynomial kernel.

    gamma : float, default=1.0
        Multiplier of the inner product in the kernel. Must be positive.

    coef0 : float, default=0.0
        Constant term of the kernel. Must be non-negative.

    projection : {"srht", "rademacher"}, default="srht"
        The projection ``W_j`` of each degree. "rademacher": i.i.d. entries
        in ``{1, -1, i, -i}``. "srht": ``W_j = P_j H D_j``, a complex
        Rademacher diagonal ``D_j``, the Hadamard matrix ``H`` of the padded
        input and rows ``P_j`` sampled without replacement within blocks.

    random_state : int, RandomState instance or None, default=None
        Seeds the hashes and coordinates drawn in ``fit``.

    n_jobs : int, default=None
        Number of threads transforming row chunks at once. ``None`` means 1
        unless in a :func:`joblib.parallel_config` context, ``-1`` all
        processors. The output does not depend on ``n_jobs``.

    Attributes
    ----------
    entry_hashes_ : ndarray of shape (degree, 4), dtype uint64
        Coefficients of the 4-wise independent hash that gives, per degree,
        the entries of ``W_j`` ("rademacher") or of ``D_j`` ("srht").

    coordinates_ : ndarray of shape (degree, ceil(n_components / 2)), dtype intp
        Sampled Hadamard coordinate of each complex feature and degree
        ("srht" only; ``None`` for "rademacher").

    hadamard_size_ : int or None
        Hadamard length of "srht": the padded or hashed input width.

    hash_down_ : ndarray of shape (degree, 6), dtype uint64 or None
        Bucket (2 coefficients) and sign (4) hashes of the Count Sketch that
        reduces the input of each degree to ``hadamard_size_`` coordinates
        ("srht" with wide input only).

    n_features_in_ : int
        Number of features seen during ``fit``.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    TensorSketch : Count Sketches combined by FFT.
    TensorSRHT : The real counterpart of ``projection="srht"``.

    Notes
    -----
    :math:`\mathbb{E} \langle \Phi(x), \Phi(y) \rangle = K(x, y)`. For
    "rademacher" and even ``n_components`` :math:`D`, with :math:`p` the degree,

    .. math::

        s = \sum_i x_i'^2 y_i'^2, \qquad
        A = \|x'\|^2 \|y'\|^2 + \langle x', y' \rangle^2 - s, \qquad
        B = 2 \langle x', y' \rangle^2 - s,

    the variance is

    .. math::

        \operatorname{Var} = \frac{A^p + B^p - 2 \langle x', y' \rangle^{2p}}{D}.

    With "srht", input padded wider than :math:`\max(4096, 2^{\lceil \log_2 m
    \rceil})` is first hashed down to that width by a Count Sketch per degree.

    References
    ----------
    .. [1] Wacker, J., Kanagawa, M. and Filippone, M. "Complex-to-real sketches
       for tensor products with applications to the polynomial kernel."
       AISTATS 2023.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketch import ComplexToRealSketch
    >>> X = np.array([[0.0, 1.0], [1.0, 1.0], [1.0, 0.0]])
    >>> sketch = ComplexToRealSketch(n_components=4096, degree=2, random_state=0)
    >>> X_sketch = sketch.fit_transform(X)
    >>> X_sketch.shape
    (3, 4096)
    >>> bool(np.allclose(X_sketch @ X_sketch.T, (X @ X.T) ** 2, atol=0.2))
    True
    """

    _parameter_constraints: dict = {
        **_PolynomialSketchBase._parameter_constraints,
        "projection": [StrOptions({"srht", "rademacher"})],
    }

    def __init__(
        self,
        n_components=100,
        *,
        degree=2,
        gamma=1.0,
        coef0=0.0,
        projection="srht",
        random_state=None,
        n_jobs=None,
    ):
        self.n_components = n_components
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.projection = projection
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _fit(self, X):
        """Draw the hashes (and coordinates); only the number of features is read."""
        hashed = self._check_fit_size(X.dtype)
        random_state = check_random_state(self.random_state)
        self.entry_hashes_ = draw_polynomial_hashes(
            random_state, self.degree, SIGN_HASH_INDEPENDENCE
        )
        self.coordinates_ = self.hash_down_ = None
        if self.projection == "srht":
            self.coordinates_ = np.stack(
                [
                    block_coordinates(random_state, self._n_complex(), self.hadamard_size_)
                    for _ in range(self.degree)
                ]
            )
            if hashed:
                self.hash_down_ = draw_hash_down(random_state, self.degree)
        self._n_features_out = self.n_components
        return self

    def _check_fit_size(self, dtype):
        """Set the Hadamard length; refuse impossible sizes before drawing.

        Returns whether "srht" hashes the input down.
        """
        m, itemsize = self._n_complex(), np.dtype(dtype).itemsize
        if self.projection == "rademacher":
            self.hadamard_size_ = None
            # Entry keys k * (n_features + 1) + i must stay below the prime.
            if m * (self.n_features_in_ + 1) >= int(MERSENNE_PRIME):
                raise ValueError(
                    f"projection='rademacher' hashes one key per entry of its "
                    f"{m} x {self.n_features_in_ + 1} projections, more than "
                    "the hash family's 2**61 - 1 keys. Use projection='srht'."
                )
            # The hash keys, values and entries of one column, times degree.
            self._check_size(48 * m * self.degree, dtype)
            return False
        self.hadamard_size_, hashed = srht_width(
            n_augmented_features(self.n_features_in_, self.coef0), m
        )
        # Coordinates and their sampling temporaries, complex block signs
        # and the temporaries of hashing them.
        n_total = self._n_blocks() * self.hadamard_size_
        self._check_size(16 * self.degree * m + (48 + 2 * self.degree * itemsize) * n_total, dtype)
        return hashed

    def _n_complex(self):
        return -(-self.n_components // 2)

    def _n_blocks(self):
        return -(-self._n_complex() // self.hadamard_size_)

    def _bytes_per_row(self, dtype):
        itemsize = np.dtype(dtype).itemsize
        m = self._n_complex()
        if self.projection == "srht":
            # Augmented row, complex transformed blocks, complex product.
            d = self.hadamard_size_
            return (d + 2 * d * self._n_blocks() + 4 * m) * itemsize
        # Real and imaginary projections (2 m) and the complex product (2 m).
        return 6 * m * itemsize

    def _prepare_transform(self, X):
        dtype = X.dtype
        if self.projection == "rademacher":
            return None
        n_keys = self.hadamard_size_  # a hashed-down input fills its width
        if self.hash_down_ is None:
            n_keys = n_augmented_features(self.n_features_in_, self.coef0)
        return [
            block_signs(
                self.entry_hashes_[j],
                self._n_blocks(),
                self.hadamard_size_,
                n_keys,
                dtype,
                complex_signs=True,
            )
            for j in range(self.degree)
        ]

    def _transform_chunk(self, X_chunk, out, signs):
        if self.projection == "srht":
            product = self._srht_product(X_chunk, out.dtype, signs)
        else:
            product = self._rademacher_product(X_chunk, out.dtype)
        return complex_to_real(product, out, out.dtype.type(np.sqrt(2.0 / self.n_components)))

    def _srht_product(self, X_chunk, dtype, signs):
        n_rows = X_chunk.shape[0]
        inputs = srht_inputs(
            X_chunk, self.gamma, self.coef0, self.hadamard_size_, self.hash_down_,
            self.degree, dtype,
        )
        product = None
        for j, U in enumerate(inputs):
            # H (D_j x) = H (Re D_j x) + i H (Im D_j x): two real transforms
            # in one call, cheaper than a complex one (H is real).
            parts = np.stack([signs[j].real, signs[j].imag])  # (2, blocks, d)
            blocks = fwht(U[:, None, None, :] * parts).reshape(n_rows, 2, -1)
            coordinates = self.coordinates_[j]
            sampled = blocks[:, 0, coordinates] + 1j * blocks[:, 1, coordinates]
            if product is None:
                product = sampled
            else:
                multiply_complex(product, sampled)
        return product

    def _rademacher_product(self, X_chunk, dtype):
        n_features = self.n_features_in_
        m = self._n_complex()
        # A sparse-dense product computes each row on its own (a BLAS product
        # does not: its kernels treat rows by their position in a block), so
        # dense chunks go through CSR too, which keeps transform bitwise
        # chunk-invariant. Only the columns present need their entries.
        if not sp.issparse(X_chunk):
            X_chunk = dense_to_csr(X_chunk)
        columns, inverse = np.unique(X_chunk.indices, return_inverse=True)
        X_chunk = sp.csr_matrix(
            (X_chunk.data, inverse.reshape(-1), X_chunk.indptr),
            shape=(X_chunk.shape[0], columns.size),
        )
        scale = np.dtype(dtype).type(np.sqrt(self.gamma))
        # Keys of the entries (row k, column i) of W_j: k * (d + 1) + i, the
        # constant coordinate being column d = n_features.
        row_keys = np.arange(m, dtype=np.uint64) * np.uint64(n_features + 1)
        constant_keys = row_keys + np.uint64(n_features)
        units = (_UNIT_REAL.astype(dtype) * scale, _UNIT_IMAG.astype(dtype) * scale)
        entries = np.empty((columns.size, 2 * m), dtype=dtype)
        product = None
        for j in range(self.degree):
            # W x = Re(W) x + i Im(W) x as one real product with [Re W | Im W].
            unit_entries(self.entry_hashes_[j], columns, row_keys, *units, out=entries)
            projected = np.asarray(X_chunk @ entries)
            if self.coef0 > 0:
                constant = (polynomial_hash(self.entry_hashes_[j], constant_keys) & np.uint64(3)).astype(np.intp)
                c = np.sqrt(self.coef0)
                projected[:, :m] += (c * _UNIT_REAL[constant]).astype(dtype)
                projected[:, m:] += (c * _UNIT_IMAG[constant]).astype(dtype)
            factor = projected[:, :m] + 1j * projected[:, m:]
            factor = factor.astype(complex_dtype(dtype), copy=False)
            if product is None:
                product = factor
            else:
                multiply_complex(product, factor)
        return product
