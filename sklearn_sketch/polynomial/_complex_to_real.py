"""Complex-to-real (CtR) sketches of the polynomial kernel (Wacker et al., 2023)."""

from .._base import AUTO_SIZE_CONSTRAINTS, BaseSketch
from ..utils._compat import StrOptions
from ._complex_projection import ComplexProjectionMap
from ._polynomial_map import POLYNOMIAL_PARAMETER_CONSTRAINTS


class ComplexToRealSketch(BaseSketch):
    r"""Polynomial kernel approximation by complex-to-real random features.

    Maps each row ``x`` to ``n_components`` real features whose inner
    products are unbiased estimates of
    ``K(x, y) = (gamma <x, y> + coef0) ** degree``. With
    ``x' = [sqrt(gamma) x, sqrt(coef0)]``, ``m = ceil(n_components / 2)``
    complex features are products of complex random projections::

        Phi_C(x) = sqrt(2 / n_components) * (W_1 x') o ... o (W_degree x')

    and the output is ``[Re Phi_C(x), Im Phi_C(x)]``.

    With ``sklearn.set_config(array_api_dispatch=True)`` it takes arrays of
    other array API namespaces (torch, CuPy, array_api_strict), CUDA tensors
    included, of any width (with ``projection="rademacher"``, while its
    dense projections take at most 1 GiB on the device): the hashes and
    coordinates are drawn at ``fit`` on the host, and ``transform`` computes
    the projections (signed Walsh-Hadamard blocks of the input, hashed down
    first where it is wide, and their sampled coordinates, or a product with
    the dense entries of ``W_j``) and their complex product, as pairs of
    real arrays, on the input's device, into an array of its namespace and
    dtype, equal to the NumPy features within float32 rounding.

    Read more in the :ref:`User Guide <polynomial_sketches>`.

    Parameters
    ----------
    n_components : int or "auto", default=100
        Dimension of the output feature space. An odd value drops the
        imaginary part of the last complex feature. ``"auto"`` chooses it
        from ``eps``.

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

    eps : float, default=0.1
        The relative error ``n_components="auto"`` aims at:
        ``||K_hat - K||_F / ||K||_F`` for the Gram matrix ``K_hat`` of the
        features of the training rows and their kernel matrix ``K``. The
        prediction is the exact variance of the estimate (see Notes; for
        "srht", with the covariance of the samples of one Hadamard block and
        the Count Sketch of wide input) summed over the pairs. ``fit``
        evaluates it on a sample of the training rows (all the pairs of at
        most 256 of them, whatever their number; with ``partial_fit``, of
        the first batch) and chooses the smallest even size whose predicted
        error is at most ``eps``, at most ``2**17``; an ``eps`` that needs
        more, or a kernel that is 0 on the sample, raises a ValueError.
        Ignored for an int ``n_components``. Between 0 and 1.

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

    With "srht", two complex features sampling distinct coordinates of one
    Hadamard block of length :math:`d` are correlated: their covariance,
    :math:`\frac{1}{2} \left[(\rho^2 + \frac{s - N}{d - 1})^p + (\rho^2 +
    \frac{s - \rho^2}{d - 1})^p\right] - \rho^{2p}` with
    :math:`\rho = \langle x', y' \rangle`, :math:`N = \|x'\|^2 \|y'\|^2` and
    :math:`s = \sum_i x_i'^2 y_i'^2`, enters the variance that
    ``n_components="auto"`` sums over pairs of training rows. Input padded
    wider than :math:`\max(4096, 2^{\lceil \log_2 m \rceil})` is first hashed
    down to that width by a Count Sketch per degree.

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

    # Inputs of other array API namespaces run on their device (see above).
    _array_api_support = True

    _parameter_constraints: dict = {
        **POLYNOMIAL_PARAMETER_CONSTRAINTS,
        **AUTO_SIZE_CONSTRAINTS,
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
        eps=0.1,
        random_state=None,
        n_jobs=None,
    ):
        self.n_components = n_components
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.projection = projection
        self.eps = eps
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _make_map(self, X, n_components):
        return ComplexProjectionMap(
            n_components, self.degree, X.shape[1], gamma=self.gamma, coef0=self.coef0,
            projection=self.projection,
        )
