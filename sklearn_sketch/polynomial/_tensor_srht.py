"""TensorSRHT: products of subsampled randomized Hadamard transforms."""

from .._base import AUTO_SIZE_CONSTRAINTS, BaseSketch
from ._polynomial_map import POLYNOMIAL_PARAMETER_CONSTRAINTS
from ._srht_product import SRHTProductMap


class TensorSRHT(BaseSketch):
    r"""Polynomial kernel approximation by TensorSRHT.

    Maps each row ``x`` to ``n_components`` features whose inner products are
    unbiased estimates of ``K(x, y) = (gamma <x, y> + coef0) ** degree``. With
    ``x' = [sqrt(gamma) x, sqrt(coef0)]`` zero-padded to a power-of-two
    length ``d``, ``H`` the +-1 Hadamard matrix of size ``d`` and, for each
    degree ``j``, a random +-1 diagonal ``D_j`` and sampled coordinates
    ``i_{j,r}``, feature ``r`` is::

        Phi(x)_r = prod_j (H D_j x')_{i_{j,r}} / sqrt(n_components)

    With ``sklearn.set_config(array_api_dispatch=True)`` it takes arrays of
    other array API namespaces (torch, CuPy, array_api_strict), CUDA tensors
    included, of any width: the signs and coordinates are drawn at ``fit`` on
    the host, and ``transform`` computes the hash-down of wide input (see the
    Notes), the signed Walsh-Hadamard blocks, the gather of the sampled
    coordinates and their product on the input's device, into an array of
    its namespace and dtype, equal to the NumPy features within float32
    rounding.

    Read more in the :ref:`User Guide <polynomial_sketches>`.

    Parameters
    ----------
    n_components : int or "auto", default=100
        Dimension of the output feature space. ``"auto"`` chooses it from
        ``eps``.

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
        prediction is the exact variance of the estimate, with the
        covariance of the samples of one Hadamard block and the Count Sketch
        of wide input (see Notes), summed over the pairs. ``fit`` evaluates
        it on a sample of the training rows (all the pairs of at most 256 of
        them, whatever their number; with ``partial_fit``, of the first
        batch) and chooses the smallest size whose predicted error is at
        most ``eps``, at most ``2**17``; an ``eps`` that needs more, or a
        kernel that is 0 on the sample, raises a ValueError. Ignored for an
        int ``n_components``. Between 0 and 1.

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
    ComplexToRealSketch : Complex projections, lower variance.
    PolynomialTreeSketch : Degree-2 sketches combined in a binary tree.

    Notes
    -----
    Since :math:`\mathbb{E}[(H D x)_i (H D y)_i] = \langle x, y \rangle` for
    every coordinate :math:`i`, :math:`\mathbb{E} \langle \Phi(x), \Phi(y)
    \rangle = \langle x', y' \rangle^p = K(x, y)` with :math:`p` the degree.
    With :math:`\rho = \langle x', y' \rangle`, :math:`c = \|x'\|^2 \|y'\|^2
    + \rho^2 - 2 \sum_i x_i'^2 y_i'^2` and :math:`d` the Hadamard length, one
    feature has variance :math:`(\rho^2 + c)^p - \rho^{2p}` (times
    :math:`1 / D^2`), two features sampling distinct coordinates of one block
    the covariance :math:`(\rho^2 - c / (d - 1))^p - \rho^{2p}`, and features
    of different blocks none: the variance of the estimate, which
    ``n_components="auto"`` sums over pairs of training rows, adding for
    hashed-down input the Count Sketch's :math:`(\rho^2 + c / d)^p - \rho^{2p}`.
    Input whose padded length exceeds
    :math:`\max(4096, 2^{\lceil \log_2 D \rceil})`, :math:`D` ``n_components``, is first
    hashed down to that width by an independent Count Sketch per degree,
    which keeps the estimate unbiased and the cost proportional to the
    nonzeros.

    References
    ----------
    .. [1] Ahle, T. D. et al. "Oblivious sketching of high-degree polynomial
       kernels." SODA 2020.
    .. [2] Wacker, J., Kanagawa, M. and Filippone, M. "Improved random features
       for dot product kernels." arXiv:2201.08712, 2022.

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
        return SRHTProductMap(
            n_components, self.degree, X.shape[1], gamma=self.gamma, coef0=self.coef0
        )
