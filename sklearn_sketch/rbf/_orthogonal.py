"""Orthogonal, structured orthogonal and Fastfood random features of the RBF kernel."""

from numbers import Real

from sklearn.utils.validation import check_is_fitted

from .._base import AUTO_SIZE_CONSTRAINTS, BaseSketch
from ..utils._compat import StrOptions
from ..utils._validation import N_JOBS_CONSTRAINT, StrictInterval
from ._fourier_features import FourierFeatureMap


class OrthogonalRBFSampler(BaseSketch):
    r"""Orthogonal and structured random Fourier features of the RBF kernel.

    Approximates the feature map of the RBF (Gaussian) kernel
    :math:`k(x, y) = \exp(-\gamma \|x - y\|^2)`, as
    :class:`~sklearn.kernel_approximation.RBFSampler` does, with frequencies
    :math:`w \sim \mathcal{N}(0, 2 \gamma I)` that are drawn in
    orthogonal blocks instead of independently (Yu et al. 2016), which
    lowers the variance of the kernel estimate:

    - ``method="orf"``: orthogonal random features. Each block of
      ``n_features`` frequencies is a Haar-random orthogonal matrix whose
      rows are scaled by chi-distributed norms: unbiased, lowest variance,
      ``O(n_features * n_components)`` time per row and memory, like
      ``RBFSampler``.
    - ``method="sorf"``: structured orthogonal random features,
      :math:`\sqrt{2 \gamma} \, S H D_1 H D_2 H D_3` per block of :math:`d`
      frequencies (:math:`H` the normalized Walsh-Hadamard matrix, :math:`D_i`
      random sign diagonals, :math:`d` the input width padded to a power of
      two): :math:`O(D \log d)` time per row and :math:`O(D)` memory, with
      :math:`D` ``n_components``. The rows get chi-distributed norms :math:`S`
      as in ORF, where Yu et al. fix them to :math:`\sqrt{d}`: that removes
      the bias of the fixed norm, large at small :math:`d`.
    - ``method="fastfood"``: Fastfood (Le et al. 2013),
      :math:`S H G \Pi H B` per block (:math:`B` random signs, :math:`\Pi` a
      random permutation, :math:`G` a Gaussian diagonal, :math:`S`
      chi-distributed row norms): the same cost as SORF.

    The features are :math:`\sqrt{2 / D} \, [\cos(W x), \sin(W x)]` for
    :math:`\lfloor D / 2 \rfloor` frequencies (for an odd :math:`D` one more
    feature :math:`\sqrt{2 / D} \cos(w^\top x + b)` with a random offset
    :math:`b`). Pairs of cosines and sines estimate :math:`k(x, y)` with the
    variance :math:`(1 - k^2)^2 / (2 m)` of :math:`m` independent frequencies,
    lower at every distance than the :math:`D` random-offset features
    :math:`\sqrt{2 / D} \cos(w^\top x + b)` of ``RBFSampler`` (Sutherland &
    Schneider 2015), and need half the projections.

    Input wider than 4096 features (hashed text, for instance) is first
    reduced to 4096 coordinates by a Count Sketch (Charikar et al. 2002), at
    a cost that follows its nonzeros; the squared distance is then
    estimated without bias with a relative variance of at most
    ``2 / 4096``, and ``k`` is estimated through it.

    With ``sklearn.set_config(array_api_dispatch=True)`` it takes arrays of
    other array API namespaces (torch, CuPy, array_api_strict), CUDA tensors
    included: the frequencies are drawn at ``fit`` on the host, as for NumPy
    input, and ``transform`` computes the features on the input's device,
    into an array of its namespace and dtype, equal to the NumPy features
    within float32 rounding (input wider than 4096 features is hashed down
    there too).

    Read more in the :ref:`User Guide <rbf_features>`.

    Parameters
    ----------
    n_components : int or "auto", default=100
        Number of output features. ``"auto"`` chooses it from ``eps``.

    gamma : 'scale' or float, default='scale'
        Parameter of the RBF kernel ``exp(-gamma ||x - y||^2)``. With
        ``"scale"``, ``1 / (n_features * X.var())`` of the data given to
        ``fit`` (1.0 for constant data), the default of
        :class:`~sklearn.svm.SVC`. This default differs from
        ``RBFSampler``'s, ``gamma=1.0``, which suits only data whose squared
        distances are of order one: on pixels in [0, 255], or even scaled to
        [0, 1], almost every kernel value it gives is 0 and a linear model
        on the features learns next to nothing. Pass ``gamma=1.0`` for
        ``RBFSampler``'s kernel.

    method : {'sorf', 'orf', 'fastfood'}, default='sorf'
        How the frequencies are drawn (see above).

    eps : float, default=0.1
        The relative error ``n_components="auto"`` aims at:
        ``||K_hat - K||_F / ||K||_F`` for the Gram matrix ``K_hat`` of the
        features of the training rows and their kernel matrix ``K``. The
        prediction is the variance of independent frequencies,
        ``(1 - k^2)^2 / n_components`` for a kernel value ``k``, summed over
        the pairs, plus the covariance of two frequencies of one orthogonal
        block (negative), which pilot features drawn on 128 of the sampled
        rows measure at the size independent frequencies need (ORF: at most
        512 features). ``fit`` evaluates it on a sample of the training rows
        (all the pairs of at most 256 of them, whatever their number; with
        ``partial_fit``, of the first batch) and chooses the smallest even
        size whose predicted error is at most ``eps``, at most ``2**17``; an
        ``eps`` that needs more, or a kernel that is 0 on the sample, raises
        a ValueError. Ignored for an int ``n_components``. Between 0 and 1.

    random_state : int, RandomState instance or None, default=None
        Pseudo-random number generator that draws the frequencies at fit.
        Pass an int for reproducible output across multiple function calls.

    n_jobs : int, default=None
        Number of threads that transform row chunks in parallel. ``None``
        means 1 unless in a :obj:`joblib.parallel_config` context; ``-1``
        means all processors. The result is the same bits for any value.

    Attributes
    ----------
    gamma_ : float
        The kernel parameter used (``gamma``, or its value for ``"scale"``).

    input_width_ : int
        Width ``d`` of the rows the frequencies multiply: ``n_features``,
        padded to a power of two (at least 16) for ``"sorf"`` and
        ``"fastfood"``, and 4096 for wider input, which is hashed down.

    hash_down_ : ndarray of shape (6,), dtype uint64, or None
        Coefficients of the Count Sketch hashes of input wider than 4096
        features; None otherwise.

    random_weights_ : ndarray of shape (`input_width_`, n_frequencies)
        ``method="orf"`` only: the frequencies ``W``, ``sqrt(2 gamma_)``
        included, with ``n_frequencies = (n_components + 1) // 2``.

    The structured diagonals below (``signs_``, ``permutations_``,
    ``gaussian_``, ``scales_``) are not stored: each access draws them again
    from a seed drawn from ``random_state`` at ``fit``, the same numbers
    every time, so that the fitted state stays a few bytes whatever the
    input width.

    signs_ : ndarray of dtype int8
        ``method="sorf"``: the diagonals ``D1, D2, D3`` of every block, of
        shape (3, n_blocks, `input_width_`); ``method="fastfood"``: ``B``, of
        shape (n_blocks, `input_width_`).

    permutations_ : ndarray of shape (n_blocks, `input_width_`)
        ``method="fastfood"`` only: the permutation ``Pi`` of every block.

    gaussian_ : ndarray of shape (n_blocks, `input_width_`)
        ``method="fastfood"`` only: the diagonal ``G`` of every block.

    scales_ : ndarray of shape (n_blocks, `input_width_`)
        ``method="sorf"`` and ``"fastfood"``: the row scales ``S`` (with the
        normalization of the unnormalized Hadamard products and
        ``sqrt(2 gamma_)`` included).

    random_offset_ : float
        The offset ``b`` of the last feature of an odd ``n_components``
        (unused, 0.0, for an even one).

    n_components_ : int
        The size used: ``n_components``, or the one chosen for ``eps``.

    expected_error_ : float or None
        With ``n_components="auto"``, the predicted relative error of the
        Gram matrix at ``n_components_`` (at most ``eps``): the root of the
        expected squared error. None for an int ``n_components``.
        :func:`~sklearn_sketch.metrics.kernel_approximation_error` measures
        the error on data.

    n_features_in_ : int
        Number of features seen during ``fit``.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    sklearn.kernel_approximation.RBFSampler : Random Fourier features with
        independent frequencies and random offsets.
    sklearn.kernel_approximation.Nystroem : Approximate a kernel map using a
        subset of the training data.
    sklearn.metrics.pairwise.rbf_kernel : The exact kernel.

    References
    ----------
    .. [1] Rahimi, A. and Recht, B. "Random Features for Large-Scale Kernel
       Machines." NeurIPS 2007.
    .. [2] Le, Q., Sarlos, T. and Smola, A. "Fastfood - Approximating Kernel
       Expansions in Loglinear Time." ICML 2013.
    .. [3] Sutherland, D. J. and Schneider, J. "On the Error of Random Fourier
       Features." UAI 2015.
    .. [4] Yu, F. X., Suresh, A. T., Choromanski, K., Holtmann-Rice, D. and Kumar,
       S. "Orthogonal Random Features." NeurIPS 2016.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.metrics.pairwise import rbf_kernel
    >>> from sklearn_sketch import OrthogonalRBFSampler
    >>> X = np.random.RandomState(0).rand(5, 30)
    >>> sampler = OrthogonalRBFSampler(n_components=4096, gamma=0.1, random_state=0)
    >>> Z = sampler.fit_transform(X)
    >>> Z.shape
    (5, 4096)
    >>> bool(np.abs(Z @ Z.T - rbf_kernel(X, gamma=0.1)).max() < 0.05)
    True
    """

    _parameter_constraints: dict = {
        **AUTO_SIZE_CONSTRAINTS,
        "gamma": [StrOptions({"scale"}), StrictInterval(Real, 0, None, closed="neither")],
        "method": [StrOptions({"sorf", "orf", "fastfood"})],
        "random_state": ["random_state"],
        "n_jobs": N_JOBS_CONSTRAINT,
    }

    # Every method transforms array API inputs on their device, of any width.
    _array_api_support = True

    def __init__(
        self, n_components=100, *, gamma="scale", method="sorf", eps=0.1, random_state=None, n_jobs=None
    ):
        self.n_components = n_components
        self.gamma = gamma
        self.method = method
        self.eps = eps
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _make_map(self, X, n_components):
        return FourierFeatureMap(X.shape[1], n_components, self.gamma, self.method)

    def _diagonal(self, index, name=None):
        """Part ``index`` of the structured diagonals, drawn again (see Attributes)."""
        check_is_fitted(self, "_map")
        # The fitted method, not the parameter: set_params after fit changes
        # nothing until the next fit.
        method = self._map.method
        if method == "orf":
            raise AttributeError("method='orf' has no structured diagonals.")
        if name is not None and method != "fastfood":
            raise AttributeError(f"Only method='fastfood' has {name}.")
        return self._map.diagonals()[index]

    @property
    def signs_(self):
        return self._diagonal(0)

    @property
    def permutations_(self):
        return self._diagonal(1, "permutations_")

    @property
    def gaussian_(self):
        return self._diagonal(2, "gaussian_")

    @property
    def scales_(self):
        return self._diagonal(-1)
