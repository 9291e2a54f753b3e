"""TensorSketch: random features for the polynomial kernel (Pham & Pagh, 2013)."""

import threading

import numpy as np
import scipy.fft
import scipy.sparse as sp
from sklearn.utils import check_random_state

from ..utils._count_sketch import count_sketch_rows
from ..utils._hashing import (
    BUCKET_HASH_INDEPENDENCE,
    SIGN_HASH_INDEPENDENCE,
    draw_polynomial_hashes,
    hash_to_buckets,
    hash_to_signs,
    polynomial_hash,
)
from ..utils._sparse import dense_to_csr
from ._common import (
    POLYNOMIAL_PARAMETER_CONSTRAINTS,
    _PolynomialSketchBase,
)


class TensorSketch(_PolynomialSketchBase):
    """Polynomial kernel approximation by Tensor Sketch.

    Maps each row ``x`` to ``n_components`` features whose inner products are
    unbiased estimates of the polynomial kernel
    ``K(x, y) = (gamma <x, y> + coef0) ** degree``. With
    ``x' = [sqrt(gamma) x, sqrt(coef0)]``, ``degree`` independent Count
    Sketches ``C_j x'`` of length ``n_components`` are combined by cyclic
    convolution, computed with the real FFT::

        TS(x) = irfft(rfft(C_1 x') * ... * rfft(C_degree x'))

    which is the Count Sketch of the tensor power of ``x'``. The hashes are
    polynomials over the field of ``2**61 - 1`` elements, so the fitted
    state does not grow with the number of features.

    Read more in the :ref:`User Guide <tensor_sketch>`.

    Parameters
    ----------
    n_components : int, default=100
        Dimension of the output feature space, the sketch length.

    degree : int, default=2
        Degree of the polynomial kernel.

    gamma : float, default=1.0
        Multiplier of the inner product in the kernel. Must be positive.

    coef0 : float, default=0.0
        Constant term of the kernel. Must be non-negative.

    random_state : int, RandomState instance or None, default=None
        Seeds the hash functions drawn in ``fit``. Pass an int for
        reproducible output across calls.

    n_jobs : int, default=None
        Number of threads transforming row chunks at once. ``None`` means 1
        unless in a :func:`joblib.parallel_config` context, ``-1`` all
        processors. The output does not depend on ``n_jobs``.

    Attributes
    ----------
    bucket_hashes_ : ndarray of shape (degree, 2), dtype uint64
        Coefficients of the pairwise independent bucket hash of each Count
        Sketch.

    sign_hashes_ : ndarray of shape (degree, 4), dtype uint64
        Coefficients of the 4-wise independent sign hash of each Count Sketch.

    n_features_in_ : int
        Number of features seen during ``fit``.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    sklearn.kernel_approximation.PolynomialCountSketch : The same estimator
        with per-feature hash tables and a complex FFT.
    PolynomialTreeSketch : Degree-2 sketches combined in a binary tree.
    sklearn.metrics.pairwise.polynomial_kernel : The exact kernel.

    Notes
    -----
    ``E <TS(x), TS(y)> = K(x, y)``, and the variance is at most
    ``(<x', y'>**(2 degree) + |x'|**(2 degree) |y'|**(2 degree)) / n_components``
    (Pham & Pagh, 2013, Lemma 6). For ``degree=1`` the map is a plain Count
    Sketch.

    References
    ----------
    Pham, N. and Pagh, R. "Fast and scalable polynomial kernels via explicit
    feature maps." KDD 2013.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketch import TensorSketch
    >>> X = np.array([[0.0, 1.0], [1.0, 1.0], [1.0, 0.0]])
    >>> sketch = TensorSketch(n_components=4096, degree=2, random_state=0)
    >>> X_sketch = sketch.fit_transform(X)
    >>> X_sketch.shape
    (3, 4096)
    >>> bool(np.allclose(X_sketch @ X_sketch.T, (X @ X.T) ** 2, atol=0.2))
    True
    """

    _parameter_constraints: dict = dict(POLYNOMIAL_PARAMETER_CONSTRAINTS)

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
        """Draw the hash functions; only the number of features is read from X."""
        self._check_size(0, X.dtype)
        random_state = check_random_state(self.random_state)
        self.bucket_hashes_ = draw_polynomial_hashes(
            random_state, self.degree, BUCKET_HASH_INDEPENDENCE
        )
        self.sign_hashes_ = draw_polynomial_hashes(
            random_state, self.degree, SIGN_HASH_INDEPENDENCE
        )
        self._n_features_out = self.n_components
        return self

    def _bytes_per_row(self, dtype):
        # Per row: the count sketch, two spectra of n_components // 2 + 1
        # complex values and the inverse transform.
        return 4 * self.n_components * np.dtype(dtype).itemsize

    def _prepare_transform(self, X):
        dtype, n_features = X.dtype, self.n_features_in_
        # The signs carry the factor sqrt(gamma), so that sketching
        # sqrt(gamma) x costs nothing more than sketching x.
        scale = np.sqrt(self.gamma)
        # The hashes of every feature are computed once per call unless the
        # input is sparse with fewer stored entries than features; then each
        # chunk hashes only the feature indices it contains.
        feature_hashes = None
        if not sp.issparse(X) or X.nnz >= n_features:
            feature_hashes = self._feature_hashes(np.arange(n_features), dtype, scale)
        # The constant coordinate sqrt(coef0) is feature number n_features.
        constant_hashes = self._feature_hashes(
            np.array([n_features]), dtype, np.sqrt(self.coef0)
        )
        # Count sketches are built in a scratch buffer reused across degrees
        # and chunks: it stays in cache, and each output row is written once.
        # One buffer per thread when chunks run in parallel (n_jobs).
        return dict(
            scale=scale,
            feature_hashes=feature_hashes,
            constant_hashes=constant_hashes,
            scratch=threading.local(),
        )

    def _transform_chunk(self, X_chunk, out, state):
        if not sp.issparse(X_chunk):
            # A dense chunk goes through the sparse path too: scattering its
            # nonzeros into the buckets row by row beats a dense-sparse
            # product, whose output is written column-wise.
            X_chunk = dense_to_csr(X_chunk)
        if state["feature_hashes"] is not None:
            (buckets, signs), features = state["feature_hashes"], X_chunk.indices
        else:
            keys, features = np.unique(X_chunk.indices, return_inverse=True)
            buckets, signs = self._feature_hashes(keys, out.dtype, state["scale"])
        constant_buckets, constant_signs = state["constant_hashes"]
        buffer = getattr(state["scratch"], "buffer", None)
        if buffer is None or buffer.shape[0] < out.shape[0]:
            buffer = state["scratch"].buffer = np.empty_like(out)
        sketch = buffer[: out.shape[0]]
        spectrum = None
        for j in range(self.degree):
            count_sketch_rows(X_chunk, buckets[j], signs[j], features, sketch)
            if self.coef0:
                sketch[:, constant_buckets[j, 0]] += constant_signs[j, 0]
            if spectrum is None:
                spectrum = scipy.fft.rfft(sketch, axis=1)
            else:
                spectrum *= scipy.fft.rfft(sketch, axis=1)
        # A row's sketch is the same bits in any chunk (scatter and FFT work
        # row by row), which the base class relies on to split chunks.
        out[...] = scipy.fft.irfft(spectrum, n=self.n_components, axis=1, overwrite_x=True)

    def _feature_hashes(self, features, dtype, scale=1.0):
        """Buckets and signs (times ``scale``) of feature indices, every degree.

        Returns
        -------
        buckets : ndarray of shape (degree, n_keys), dtype intp
        signs : ndarray of shape (degree, n_keys), dtype ``dtype``
        """
        buckets = np.empty((self.degree, features.size), dtype=np.intp)
        signs = np.empty((self.degree, features.size), dtype=dtype)
        for j in range(self.degree):
            bucket_values = polynomial_hash(self.bucket_hashes_[j], features)
            sign_values = polynomial_hash(self.sign_hashes_[j], features)
            buckets[j] = hash_to_buckets(bucket_values, self.n_components)
            signs[j] = hash_to_signs(sign_values, dtype) * scale
        return buckets, signs
