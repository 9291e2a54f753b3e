"""PolynomialTreeSketch: a binary tree of degree-2 sketches (Ahle et al., SODA 2020)."""

from .._base import AUTO_SIZE_CONSTRAINTS, BaseSketch
from ..utils._compat import StrOptions
from ._polynomial_map import POLYNOMIAL_PARAMETER_CONSTRAINTS
from ._tree import TreeMap


class PolynomialTreeSketch(BaseSketch):
    r"""Polynomial kernel approximation by a binary tree of degree-2 sketches.

    Maps each row ``x`` to ``n_components`` features whose inner products are
    unbiased estimates of ``K(x, y) = (gamma <x, y> + coef0) ** degree``.
    The degree is padded to a power of two ``q``: the ``q`` leaves hold
    ``degree`` copies of ``x' = [sqrt(gamma) x, sqrt(coef0)]`` and
    ``q - degree`` copies of a unit vector ``e`` on an extra coordinate.
    Each internal node maps its children ``u, v`` to an independent degree-2
    sketch ``S(u (x) v)`` of length ``n_components``, up to the root::

        base="tensorsketch": S(u (x) v) = irfft(rfft(C_a u) * rfft(C_b v))
        base="tensorsrht":   S(u (x) v) = (H D_a u)[i_a] * (H D_b v)[i_b] / sqrt(D)

    With ``sklearn.set_config(array_api_dispatch=True)`` it takes arrays of
    other array API namespaces (torch, CuPy, array_api_strict), CUDA tensors
    included, of any width: the random state is drawn at ``fit`` on the
    host, and ``transform`` computes every node (Count Sketches by gathers,
    or torch's ``index_add_``, and FFT products, or signed Walsh-Hadamard
    blocks of the leaves, hashed down first where they are wide, and their
    sampled coordinates) on the input's device, into an array of its
    namespace and dtype, equal to the NumPy features within float32
    rounding.

    Read more in the :ref:`User Guide <polynomial_sketches>`.

    Parameters
    ----------
    n_components : int or "auto", default=100
        Dimension of the output feature space, and of every node. ``"auto"``
        chooses it from ``eps``.

    degree : int, default=2
        Degree of the polynomial kernel.

    gamma : float, default=1.0
        Multiplier of the inner product in the kernel. Must be positive.

    coef0 : float, default=0.0
        Constant term of the kernel. Must be non-negative.

    base : {"tensorsketch", "tensorsrht"}, default="tensorsketch"
        The degree-2 sketch of the nodes.

    buckets : {"permutation", "hash"}, default="permutation"
        Buckets of the Count Sketches ("tensorsketch"): ``perm(i) mod
        n_components`` for a random permutation of the input's keys (no
        collisions unless the input is wider than ``n_components``), or a
        pairwise independent hash. Leaves wider than
        4096 and the power of two at or above ``n_components`` always hash.

    eps : float, default=0.1
        The relative error ``n_components="auto"`` aims at:
        ``||K_hat - K||_F / ||K||_F`` for the Gram matrix ``K_hat`` of the
        features of the training rows and their kernel matrix ``K``. The
        nodes sketch sketches, with no closed form: the prediction is
        measured, with pilot sketches of 256 features, then of the size
        predicted (at most 8 times the largest pilot), drawn on 128 of the
        sampled rows and their mean error extrapolated as ``n_components **
        -0.5`` (or along the law two pilot sizes show). ``fit`` evaluates it
        on a sample of the training rows (all the pairs of at most 256 of
        them, whatever their number; with ``partial_fit``, of the first batch)
        and chooses the smallest size (a fast real FFT length with
        ``base="tensorsketch"``) whose predicted error is at most ``eps``, at
        most ``2**17``; an ``eps``
        that needs more, or a kernel that is 0 on the sample, raises a
        ValueError. Ignored for an int ``n_components``. Between 0 and 1.

    random_state : int, RandomState instance or None, default=None
        Seeds the hashes and coordinates drawn in ``fit``.

    n_jobs : int, default=None
        Number of threads transforming row chunks at once. ``None`` means 1
        unless in a :func:`joblib.parallel_config` context, ``-1`` all
        processors. The output does not depend on ``n_jobs``.

    Attributes
    ----------
    n_leaves_ : int
        ``degree`` rounded up to a power of two.

    sign_hashes_ : ndarray of shape (n_inputs, 4), dtype uint64
        Sign hash of each node input, leaves first (``n_inputs =
        2 (n_leaves_ - 1)``, or 1 for ``degree=1``).

    bucket_hashes_ : ndarray of shape (n_inputs, 2), dtype uint64 or None
        Pairwise independent bucket hash of each node input
        ("tensorsketch" with ``buckets="hash"``, or wide leaves).

    bucket_permutations_ : list of ndarray or None
        Bucket of every key of each node input ("tensorsketch" with
        ``buckets="permutation"``; None for wide leaves).

    coordinates_ : ndarray of shape (n_inputs, n_components), dtype intp or None
        Sampled Hadamard coordinates of each node input ("tensorsrht" only).

    hash_down_ : ndarray of shape (``n_leaves_``, 6), dtype uint64 or None
        Count Sketch hashes that reduce each wide leaf input
        ("tensorsrht" only).

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
    TensorSketch : The flat degree-``p`` Count Sketch product.
    MaclaurinSketch : A sketch per degree of the kernel's expansion.

    Notes
    -----
    Every node is unbiased given its children, so by the tower rule
    :math:`\mathbb{E} \langle \Phi(x), \Phi(y) \rangle = K(x, y)`. The tree
    multiplies :math:`\log_2 p` levels of degree-2 factors instead of :math:`p`
    factors (:math:`p` the degree), so the sketch
    size it needs is polynomial rather than exponential in the degree
    (Ahle et al., 2020).

    References
    ----------
    .. [1] Ahle, T. D., Kapralov, M., Knudsen, J. B. T., Pagh, R., Velingker, A.,
       Woodruff, D. P. and Zandieh, A. "Oblivious sketching of high-degree
       polynomial kernels." SODA 2020.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketch import PolynomialTreeSketch
    >>> X = np.array([[0.0, 1.0], [1.0, 1.0], [1.0, 0.0]])
    >>> sketch = PolynomialTreeSketch(n_components=4096, degree=4, random_state=0)
    >>> X_sketch = sketch.fit_transform(X)
    >>> X_sketch.shape
    (3, 4096)
    >>> bool(np.allclose(X_sketch @ X_sketch.T, (X @ X.T) ** 4, atol=0.3))
    True
    """

    # Inputs of other array API namespaces run on their device (see above).
    _array_api_support = True

    _parameter_constraints: dict = {
        **POLYNOMIAL_PARAMETER_CONSTRAINTS,
        **AUTO_SIZE_CONSTRAINTS,
        "base": [StrOptions({"tensorsrht", "tensorsketch"})],
        "buckets": [StrOptions({"permutation", "hash"})],
    }

    def __init__(
        self,
        n_components=100,
        *,
        degree=2,
        gamma=1.0,
        coef0=0.0,
        base="tensorsketch",
        buckets="permutation",
        eps=0.1,
        random_state=None,
        n_jobs=None,
    ):
        self.n_components = n_components
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.base = base
        self.buckets = buckets
        self.eps = eps
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _make_map(self, X, n_components):
        return TreeMap(
            n_components, self.degree, X.shape[1], gamma=self.gamma, coef0=self.coef0,
            base=self.base, buckets=self.buckets,
        )
