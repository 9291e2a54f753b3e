"""TensorSketch: random features for the polynomial kernel (Pham & Pagh, 2013)."""

from .._base import AUTO_SIZE_CONSTRAINTS, BaseSketch
from ._count_sketch_product import CountSketchProductMap
from ._polynomial_map import POLYNOMIAL_PARAMETER_CONSTRAINTS


class TensorSketch(BaseSketch):
    r"""Polynomial kernel approximation by Tensor Sketch.

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

    With ``sklearn.set_config(array_api_dispatch=True)`` it takes arrays of
    other array API namespaces (torch, CuPy, array_api_strict), CUDA tensors
    included, of any width: the hashes are drawn at ``fit`` on the host, and
    ``transform`` computes the Count Sketches (gathers of each bucket's
    features, or torch's ``index_add_``) and their FFT product on the
    input's device, into an array of its namespace and dtype, equal to the
    NumPy features within float32 rounding.

    Read more in the :ref:`User Guide <tensor_sketch>`.

    Parameters
    ----------
    n_components : int or "auto", default=100
        Dimension of the output feature space, the sketch length. ``"auto"``
        chooses it from ``eps``.

    degree : int, default=2
        Degree of the polynomial kernel.

    gamma : float, default=1.0
        Multiplier of the inner product in the kernel. Must be positive.

    coef0 : float, default=0.0
        Constant term of the kernel. Must be non-negative.

    eps : float, default=0.1
        The relative error ``n_components="auto"`` aims at:
        ``||K_hat - K||_F / ||K||_F`` for the Gram matrix ``K_hat`` of the
        features of the training rows and their kernel matrix ``K``. The
        prediction is the exact variance of the estimate (see Notes) summed
        over the pairs. ``fit`` evaluates it on a sample of the training
        rows (all the pairs of at most 256 of them, whatever their number;
        with ``partial_fit``, of the first batch) and chooses the smallest
        length whose real FFT is fast (a product of powers of 2, 3 and 5)
        whose predicted error is at most ``eps``, at most ``2**17``; an
        ``eps`` that needs more, or a kernel that is 0 on the sample, raises
        a ValueError. Ignored for an int ``n_components``. Between 0 and 1.

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

    n_components_ : int
        The size used: ``n_components``, or the one chosen for ``eps``.

    expected_error_ : float or None
        With ``n_components="auto"``, the predicted relative error of the
        Gram matrix at ``n_components_`` (at most ``eps``): the root of the
        expected squared error, from the variance. None for an int
        ``n_components``.
        :func:`~sklearn_sketch.metrics.kernel_approximation_error` measures
        the error on data.

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
    The estimate is unbiased, :math:`\mathbb{E} \langle TS(x), TS(y) \rangle = K(x, y)`.
    With :math:`p` the degree, :math:`D` ``n_components``,
    :math:`\rho = \langle x', y' \rangle`, :math:`N = \|x'\|^2 \|y'\|^2` and
    :math:`s = \sum_i x_i'^2 y_i'^2`, its variance is, up to terms in
    :math:`1 / D^2` (buckets that collide in two degrees at once),

    .. math::

        \frac{(N + \rho^2 - s)^p + (2 \rho^2 - s)^p - 2 \rho^{2p}}{D},

    which ``n_components="auto"`` sums over pairs of training rows; for
    ``degree=1`` it is the exact variance of a Count Sketch. The variance
    is what the pairwise independent buckets guarantee; the error of one
    fit is heavy-tailed on rows with few coordinates, or few nonzeros (a
    fit whose buckets collide for many coordinates at once is rare but far
    off), so most fits lie below the root mean square.

    For ``degree=1`` the map is a plain Count Sketch.

    References
    ----------
    .. [1] Pham, N. and Pagh, R. "Fast and scalable polynomial kernels via
       explicit feature maps." KDD 2013.

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

    _parameter_constraints: dict = {**POLYNOMIAL_PARAMETER_CONSTRAINTS, **AUTO_SIZE_CONSTRAINTS}
    # Inputs of other array API namespaces run on their device (see above).
    _array_api_support = True

    def __init__(
        self,
        n_components=100,
        *,
        degree=2,
        gamma=1.0,
        coef0=0.0,
        eps=0.1,
        random_state=None,
        n_jobs=None,
    ):
        self.n_components = n_components
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.eps = eps
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _make_map(self, X, n_components):
        return CountSketchProductMap(
            n_components, self.degree, X.shape[1], gamma=self.gamma, coef0=self.coef0
        )
