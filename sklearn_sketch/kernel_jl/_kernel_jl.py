"""KernelJL: Gaussian sketch of a subsample Gram matrix (Kpotufe & Sriperumbudur, 2020)."""

from sklearn.metrics.pairwise import PAIRWISE_KERNEL_FUNCTIONS

from .._base import BaseSketch
from ..utils._compat import Hidden, StrOptions
from ..utils._validation import N_JOBS_CONSTRAINT, positive_int
from ._gram_sketch import GramSketchMap, StreamedGramSketchMap
from ._kernel_params import KERNEL_PARAMETER_RANGES


class KernelJL(BaseSketch):
    r"""Kernel Johnson-Lindenstrauss features: a Gaussian sketch of a Gram matrix.

    ``fit`` draws a uniform subsample ``x_1, ..., x_n`` of the training rows,
    computes its Gram matrix ``K`` (double-centered by default, see
    ``center``) and a Gaussian matrix ``Z`` of shape ``(n_components, n)``,
    and stores ::

        W = sqrt(n) K Z^T / ||K||_F^2,        d = n_components.

    ``transform`` maps a row ``x`` to ``Phi(x) = W^T k_x`` with
    ``k_x = (k(x_1, x), ..., k(x_n, x))``. Unlike
    :class:`~sklearn.kernel_approximation.Nystroem`, the fit needs no
    eigendecomposition, only one ``O(n^2 d)`` product after the Gram matrix.

    With ``sklearn.set_config(array_api_dispatch=True)`` and a named kernel,
    it takes dense arrays of other array API namespaces (torch, CuPy,
    array_api_strict), CUDA tensors included: the subsample is drawn and
    sketched at ``fit`` on the host, and ``transform`` computes the kernel
    block (scikit-learn's array API ``pairwise_kernels``) and its product
    with ``projection_`` on the input's device, in its namespace and dtype.

    Read more in the :ref:`User Guide <kernel_jl>`.

    Parameters
    ----------
    n_components : int, default=100
        Dimension ``d`` of the output feature space. Unlike the other
        estimators, KernelJL does not take ``"auto"``: its features do not
        estimate the kernel (see Notes), so no size brings their inner
        products to it.

    n_subsample : int, default=300
        Size ``n`` of the subsample whose Gram matrix is sketched; it should
        not be smaller than ``n_components``. A value larger than the number
        of training samples is clipped to it, with a warning.

    kernel : str or callable, default="rbf"
        Any kernel name of :func:`sklearn.metrics.pairwise.pairwise_kernels`,
        a callable of two rows returning a float, or "precomputed": then
        ``fit`` takes the square training Gram matrix and ``transform`` the
        kernel between the new rows and the training rows.

    gamma : 'scale', float or None, default='scale'
        Gamma parameter of the RBF, Laplacian, polynomial, exponential chi2
        and sigmoid kernels. ``"scale"`` (the default of
        :class:`~sklearn.svm.SVC`) is ``1 / (n_features * var)`` with ``var``
        the variance of the subsample's cells (1.0 for a constant
        subsample), for the RBF, polynomial and sigmoid kernels, and
        scikit-learn's default for the Laplacian and chi2 kernels, as is
        ``None`` for every kernel (``1 / n_features``, 1.0 for chi2). A gamma
        in ``kernel_params`` takes the place of ``"scale"``; for kernels
        without gamma, ``"scale"`` and ``None`` are ignored.

    degree : float, default=None
        Degree of the polynomial kernel; ``None`` uses the kernel's default.

    coef0 : float, default=None
        Zero coefficient of the polynomial and sigmoid kernels; ``None`` uses
        the kernel's default.

    kernel_params : dict, default=None
        Further keyword arguments of the kernel (for a callable kernel, all
        of them).

    center : bool, default=True
        Sketch the centered Gram matrix ``H K H`` (``H = I - 11^T / n``) and
        center the kernel vectors alike, as kernel PCA does: the default, for
        clustering, PCA and linear models. ``False`` is the paper's
        estimator, whose leading direction, the mean of the features,
        dominates the others.

    random_state : int, RandomState instance or None, default=None
        Seeds the subsample and ``Z``, both drawn in ``fit``.

    n_jobs : int, default=None
        Number of threads for the Gram matrix in ``fit`` and the row chunks of
        ``transform``. ``None`` means 1 unless in a
        :obj:`joblib.parallel_config` context, ``-1`` all processors. The
        output agrees with ``n_jobs=1`` up to floating-point rounding.

    Attributes
    ----------
    gamma_ : float or None
        The kernel's gamma used: ``gamma``, its value for ``"scale"``, or
        scikit-learn's default; None for a kernel without gamma.

    components_ : {ndarray, csr_matrix} of shape (``n_subsample_``, ``n_features_in_``)
        The subsample (for a precomputed kernel, rows of the training Gram
        matrix), dense or CSR like the training data.

    component_indices_ : ndarray of shape (``n_subsample_``,)
        Indices of the subsample in the training data, in increasing order.

    projection_ : ndarray of shape (``n_subsample_``, n_components)
        The sketch ``W``; ``transform`` returns
        ``kernel(X, components_) @ projection_ + offset_``.

    offset_ : ndarray of shape (n_components,)
        ``-r^T W`` with ``r`` the column means of ``K`` when ``center=True``,
        zeros otherwise.

    n_subsample_ : int
        Size of the subsample actually used, ``min(n_subsample, n_samples)``.

    n_samples_seen_ : int
        Number of training rows the subsample was drawn from, over all
        batches of ``partial_fit``.

    n_components_ : int
        ``n_components``, as every estimator of the package records the
        size it used.

    expected_error_ : None
        None: KernelJL predicts no error of its features against the
        kernel, which they do not estimate (see ``n_components``).

    n_features_in_ : int
        Number of features seen during ``fit``.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    sklearn.kernel_approximation.Nystroem : Features whose inner products
        approximate the kernel itself, through ``K^(-1/2)``.
    sklearn.metrics.pairwise.pairwise_kernels : The kernels.

    Notes
    -----
    Over the draws of :math:`Z`

    .. math::

        \mathbb{E} \langle \Phi(x), \Phi(y) \rangle
        &= \frac{d \, n \, k_x^\top K^2 k_y}{\|K\|_F^4} \\
        &= \frac{d \, \langle k(\cdot, x), \Sigma_n^3 k(\cdot, y) \rangle}
                {\|\Sigma_n\|_{HS}^4}

    with :math:`\Sigma_n` the empirical covariance operator of the subsample
    (:math:`K` and :math:`k_x` centered when ``center=True``), and one draw deviates
    from it by a relative :math:`O(d^{-1/2})`. The paper's normalization,
    :math:`W = K Z^\top / (n \sqrt{n d})`, has the mean :math:`k_x^\top K^2 k_y / n^3
    = \langle k(\cdot, x), \Sigma_n^3 k(\cdot, y) \rangle`: the two differ by the
    constant factor :math:`d n^4 / \|K\|_F^4` of the fitted subsample, so PCA and
    k-means directions are the same. This one makes the features independent of the
    kernel's scale (:math:`k` and :math:`c k` give the same features), and their
    size independent of :math:`d`: each feature has over the subsample, in
    expectation over :math:`Z`, the mean square
    :math:`\operatorname{tr}(K^4) / \|K\|_F^4`, between
    :math:`1 / \operatorname{rank}(K)` and 1, the scale
    of standardized data, which suits a linear model with ``C=1``. The
    features keep the leading kernel principal directions with their
    variances cubed: use them for PCA, clustering and linear models, not as
    a substitute for :math:`k(x, y)` in a kernel machine.

    ``partial_fit`` updates the subsample by reservoir sampling, and
    re-sketches its Gram matrix. The subsample is a reservoir of
    ``n_subsample`` rows filled by Vitter's Algorithm R across the batches
    (vectorized within a batch): after any sequence of calls it is a uniform
    random subset, without replacement, of all the rows seen so far, as
    ``fit`` on their concatenation would draw. ``Z`` is drawn once, by the
    first call, for ``n_subsample`` columns; after every call the Gram matrix
    of the current subsample and ``W = sqrt(n) K Z^T / ||K||_F^2`` are
    recomputed (with the first ``n = n_subsample_`` columns of ``Z``, and
    ``gamma="scale"`` on the current subsample), so ``transform`` is
    consistent with the rows seen so far. Until ``n_subsample`` rows have
    been seen, the subsample is all of them. Batches may mix dense and
    sparse input: the subsample keeps the format of the first batch, and
    rows of later batches are converted to it. ``partial_fit`` after
    ``fit`` starts a new reservoir (the rows given to ``fit`` are not kept).
    With ``kernel="precomputed"`` the method is not available (the kernel
    between rows of different batches is unknown).

    References
    ----------
    .. [1] Kpotufe, S. and Sriperumbudur, B. K. "Gaussian Sketching yields a J-L
       Lemma in RKHS." AISTATS 2020.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketch import KernelJL
    >>> rng = np.random.RandomState(0)
    >>> X = np.vstack([rng.normal(0, 0.3, (50, 2)), rng.normal(3, 0.3, (50, 2))])
    >>> kjl = KernelJL(n_components=20, n_subsample=40, gamma=0.5, random_state=0)
    >>> X_kjl = kjl.fit_transform(X)
    >>> X_kjl.shape
    (100, 20)
    >>> from sklearn.cluster import KMeans
    >>> labels = KMeans(n_clusters=2, n_init=10, random_state=0).fit_predict(X_kjl)
    >>> bool((labels[:50] == labels[0]).all() and (labels[50:] != labels[0]).all())
    True
    """

    _parameter_constraints: dict = {
        # "auto" is refused at fit, with the reason (see _auto_size_refusal).
        "n_components": [positive_int(), Hidden(StrOptions({"auto"}))],
        "n_subsample": [positive_int()],
        "kernel": [
            StrOptions(set(PAIRWISE_KERNEL_FUNCTIONS) | {"precomputed"}),
            callable,
        ],
        "gamma": [KERNEL_PARAMETER_RANGES["gamma"], StrOptions({"scale"}), None],
        "degree": [KERNEL_PARAMETER_RANGES["degree"], None],
        "coef0": [KERNEL_PARAMETER_RANGES["coef0"], None],
        "kernel_params": [dict, None],
        "center": ["boolean"],
        "random_state": ["random_state"],
        "n_jobs": N_JOBS_CONSTRAINT,
    }

    def __init__(
        self,
        n_components=100,
        *,
        n_subsample=300,
        kernel="rbf",
        gamma="scale",
        degree=None,
        coef0=None,
        kernel_params=None,
        center=True,
        random_state=None,
        n_jobs=None,
    ):
        self.n_components = n_components
        self.n_subsample = n_subsample
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.center = center
        self.random_state = random_state
        self.n_jobs = n_jobs

    _auto_size_refusal = (
        "its features do not estimate the kernel k(x, y): their inner products "
        "estimate k_x^T K^2 k_y up to a constant, the kernel through the cube of "
        "the subsample's covariance operator (see the Notes), so no n_components "
        "brings them to k(x, y), and a target error eps has no meaning. Pass "
        "n_components as an integer; for features that approximate the kernel "
        "itself, see Nystroem or the other estimators of sklearn_sketch."
    )

    def _make_map(self, X, n_components):
        """The sketch of the Gram matrix of a uniform subsample of ``X`` (``n_components``:
        the parameter, which KernelJL never chooses)."""
        return GramSketchMap(X, self.get_params())

    def _make_stream_map(self, X):
        """The sketch of a reservoir subsample of the batches, from the first, ``X``."""
        return StreamedGramSketchMap(X, self.get_params())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        # scikit-learn's array API pairwise kernels: every named kernel.
        tags.array_api_support = not (callable(self.kernel) or self.kernel == "precomputed")
        return tags
