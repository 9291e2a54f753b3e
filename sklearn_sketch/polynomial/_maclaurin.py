"""MaclaurinSketch: a sketch per degree of the polynomial kernel's expansion."""

from .._base import AUTO_SIZE_CONSTRAINTS, BaseSketch
from ..utils._compat import StrOptions
from ._maclaurin_sum import MACLAURIN_BASES, MaclaurinMap
from ._polynomial_map import POLYNOMIAL_PARAMETER_CONSTRAINTS


class MaclaurinSketch(BaseSketch):
    r"""Polynomial kernel approximation by a sketch per degree of its expansion.

    Maps each row ``x`` to ``n_components`` features whose inner products are
    unbiased estimates of ``K(x, y) = (gamma <x, y> + coef0) ** degree``,
    written as ``sum_i a_i <x, y> ** i`` with
    ``a_i = C(degree, i) coef0 ** (degree - i) gamma ** i``. The features are
    the blocks::

        [ sqrt(a_0) | sqrt(a_1) x  or  sqrt(a_1) S_1(x) | sqrt(a_i) S_i(x), i >= 2 ]

    where ``S_i`` is an independent ``base`` sketch of ``<x, y> ** i`` with
    ``D_i`` features. The constant is exact, and so is the linear term when
    it is kept whole. With ``coef0=0`` the estimator is its ``base`` sketch.

    With ``sklearn.set_config(array_api_dispatch=True)`` it takes arrays of
    other array API namespaces (torch, CuPy, array_api_strict), CUDA tensors
    included, of any width: the allocation and the blocks' random state are
    drawn at ``fit`` on the host, and ``transform`` computes the constant,
    linear and sketched blocks on the input's device, into an array of its
    namespace and dtype, equal to the NumPy features within float32
    rounding.

    Read more in the :ref:`User Guide <polynomial_sketches>`.

    Parameters
    ----------
    n_components : int or "auto", default=100
        Dimension of the output feature space, all blocks together.
        ``"auto"`` chooses it from ``eps``.

    degree : int, default=2
        Degree of the polynomial kernel.

    gamma : float, default=1.0
        Multiplier of the inner product in the kernel. Must be positive.

    coef0 : float, default=0.0
        Constant term of the kernel. Must be non-negative.

    base : {"tree", "tensorsketch", "tensorsrht"}, default="tree"
        The sketch of each degree: :class:`PolynomialTreeSketch` (default
        settings), :class:`TensorSketch` or :class:`TensorSRHT`.

    linear : {"auto", "exact", "sketch"}, default="auto"
        The degree-1 term: "exact" keeps ``x`` itself (``n_features``
        columns), "sketch" sketches it like the other degrees, "auto" keeps
        it exact when that predicts the lower variance and fits.

    eps : float, default=0.1
        The relative error ``n_components="auto"`` aims at:
        ``||K_hat - K||_F / ||K||_F`` for the Gram matrix ``K_hat`` of the
        features of the training rows and their kernel matrix ``K``. The
        blocks' sizes follow from the data, with no closed form: the
        prediction is measured, with pilot sketches of 256 features, then of
        the size predicted (at most 8 times the largest pilot), drawn on 128
        of the sampled rows and their mean error extrapolated as
        ``n_components ** -0.5`` (or along the law two pilot sizes show).
        ``fit`` evaluates it on a sample of the training rows (all the pairs
        of at most 256 of them, whatever their number; with ``partial_fit``,
        of the first batch) and chooses the smallest size whose predicted
        error is at most ``eps``, at most ``2**17``; an ``eps`` that needs
        more, or a kernel that is 0 on the sample, raises a ValueError.
        Ignored for an int ``n_components``. Between 0 and 1.

    random_state : int, RandomState instance or None, default=None
        Seeds the sketches and the rows that weigh the degrees.

    n_jobs : int, default=None
        Number of threads transforming row chunks at once. ``None`` means 1
        unless in a :func:`joblib.parallel_config` context, ``-1`` all
        processors. The output does not depend on ``n_jobs``.

    Attributes
    ----------
    coefficients_ : ndarray of shape (degree + 1,)
        The ``a_i`` of the expansion.

    expanded_ : bool
        Whether the kernel is sketched degree by degree. False when
        ``n_components`` is below the number of terms.

    allocation_ : ndarray of shape (degree + 1,), dtype int64 or None
        Number of features of each degree's block. None when not
        ``expanded_``.

    linear_exact_ : bool
        Whether the degree-1 block is ``x`` itself.

    block_seeds_ : ndarray of shape (degree + 1,)
        The ``random_state`` each sketch was drawn with.

    sketches_ : list or None
        The random map of each degree: the fitted state of the ``base``
        estimator (:class:`PolynomialTreeSketch`, :class:`TensorSketch` or
        :class:`TensorSRHT`) with ``n_components=allocation_[i]``,
        ``degree=i``, ``coef0=0`` and ``random_state=block_seeds_[i]``, whose
        fitted attributes it carries. ``None`` for the constant, an exact
        linear term and absent terms. None when not ``expanded_``.

    padded_sketch_ : object or None
        The random map of the whole kernel, when not ``expanded_``: that of
        the ``base`` estimator with this estimator's ``n_components``,
        ``degree``, ``gamma``, ``coef0`` and ``random_state=block_seeds_[0]``.

    n_components_ : int
        The size used: ``n_components``, or the one chosen for ``eps``.

    expected_error_ : float or None
        With ``n_components="auto"``, the predicted relative error of the
        Gram matrix at ``n_components_`` (at most ``eps``): the mean error
        of the pilots, extrapolated. None for an int ``n_components``.
        :func:`~sklearn_sketch.metrics.kernel_approximation_error` measures
        the error on data.

    n_features_in_ : int
        Number of features seen during ``fit``.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    PolynomialTreeSketch : The degree-``p`` tree, padded with ``coef0``.
    TensorSketch : The flat degree-``p`` Count Sketch product.

    Notes
    -----
    The blocks are independent and unbiased, so the variance is
    :math:`\sum_i a_i^2 \operatorname{Var}_i(D_i)`. With
    :math:`\operatorname{Var}_i \approx v_i / D_i`, :math:`v_i` the mean of
    :math:`(\|x\|^2 \|y\|^2)^i + \langle x, y \rangle^{2i}` over pairs of up to
    256 training rows, ``fit`` sets :math:`D_i \propto a_i \sqrt{v_i}`
    [1]_. Unlike the other polynomial sketches, ``fit`` reads the data.

    References
    ----------
    .. [1] Wacker, J., Kanagawa, M. and Filippone, M. "Improved random
       features for dot product kernels." arXiv:2201.08712, 2022.
    .. [2] Kar, P. and Karnick, H. "Random feature maps for dot product
       kernels." AISTATS 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketch import MaclaurinSketch
    >>> X = np.random.RandomState(0).rand(5, 8)
    >>> sketch = MaclaurinSketch(n_components=64, degree=3, coef0=1.0, random_state=0)
    >>> sketch.fit_transform(X).shape
    (5, 64)
    >>> sketch.allocation_.tolist()  # constant, exact linear, degrees 2 and 3
    [3, 8, 25, 28]
    """

    # Inputs of other array API namespaces run on their device (see above).
    _array_api_support = True

    _parameter_constraints: dict = {
        **POLYNOMIAL_PARAMETER_CONSTRAINTS,
        **AUTO_SIZE_CONSTRAINTS,
        "base": [StrOptions(set(MACLAURIN_BASES))],
        "linear": [StrOptions({"auto", "exact", "sketch"})],
    }

    def __init__(
        self,
        n_components=100,
        *,
        degree=2,
        gamma=1.0,
        coef0=0.0,
        base="tree",
        linear="auto",
        eps=0.1,
        random_state=None,
        n_jobs=None,
    ):
        self.n_components = n_components
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.base = base
        self.linear = linear
        self.eps = eps
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _make_map(self, X, n_components):
        return MaclaurinMap(
            n_components, self.degree, X.shape[1], gamma=self.gamma, coef0=self.coef0,
            base=self.base, linear=self.linear,
        )
