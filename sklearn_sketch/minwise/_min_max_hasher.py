"""MinMaxHasher: the min-max and GMM kernels by consistent weighted sampling (DartMinHash)."""

from numbers import Integral

from .._base import AUTO_SIZE_CONSTRAINTS, BaseSketch
from ..utils._compat import StrOptions
from ..utils._validation import N_JOBS_CONSTRAINT, StrictInterval
from ._dart_codes import DartCodesMap


class MinMaxHasher(BaseSketch):
    r"""Hashed min-max / GMM kernel features: sparse, ``k * 2**b_bits`` columns wide.

    For nonnegative rows the min-max kernel is

    ``K_MM(x, y) = sum_i min(x_i, y_i) / sum_i max(x_i, y_i)``,

    the weighted version of the resemblance (Jaccard) of sets. Each of the
    ``k = n_components`` hashes draws, by DartMinHash (Christiani 2020), a
    sample of the row: the first of random "darts" ``(i, w, rank)``, the
    same for every row, that lands under the row (``w < x_i``). Two rows
    draw the same dart with probability exactly ``K_MM(x, y)``, at any
    scale of their values. The output row has one block per
    hash with a single nonzero ``1 / sqrt(k)`` at the b-bit code of the
    sample, so inner products of output rows are the fraction of hashes
    whose codes agree, and a linear model on them approximates the min-max
    kernel machine.

    With ``codes="0bit"`` (after Li's 0-bit CWS) the code is that of the
    dart's coordinate ``i`` alone. Its collision probability is at least
    ``K_MM`` and not equal to it: when the darts differ, the coordinates
    still agree with probability ``sum_i (x_i - y_i)+ / M * y_i / |y|_1 +
    sum_i (y_i - x_i)+ / M * x_i / |x|_1`` (``M = sum max``), so a row and
    its multiple ``c x`` agree at ``1 / c + (1 - 1 / c) sum_i p_i**2``
    (``p = x / |x|_1``). The user guide measures the difference.

    With ``kernel="gmm"`` (generalized min-max) each coordinate is split into
    its positive and negative parts, ``x~ = [max(x, 0), max(-x, 0)]``, and
    ``K_GMM(x, y) = K_MM(x~, y~)``: real data, negative values included.

    Read more in the :ref:`User Guide <min_max_hasher>`.

    Parameters
    ----------
    n_components : int or "auto", default=256
        The number of hashes ``k``, also the number of nonzeros of each
        output row. ``"auto"`` chooses it from ``eps``.

    b_bits : int or None, default=8
        Bits of the code of each sample, between 1 and 32: a block is
        ``2**b_bits`` wide. ``None`` keeps the sampled coordinate itself
        (blocks of width ``n_features_in_``, twice that for "gmm"), which
        only the 0-bit scheme can: it needs ``codes="0bit"``.

    codes : {"full", "0bit"}, default="full"
        What is coded. "full": the whole sample ``(i*, t*)``, whose
        collision probability is the kernel. "0bit": the coordinate ``i*``
        only (Li 2015), whose collision probability is above the kernel.

    kernel : {"minmax", "gmm"}, default="minmax"
        "minmax" needs nonnegative data; "gmm" accepts any real data.

    eps : float, default=0.1
        The relative error ``n_components="auto"`` aims at:
        ``||K_hat - K||_F / ||K||_F`` for the Gram matrix ``K_hat`` of the
        features of the training rows and their kernel matrix ``K``. ``K``
        is what the features estimate, the collision probability ``P`` of
        what is coded plus the offset of the b-bit codes (see Notes), which
        no number of hashes removes. The prediction is the exact variance
        ``P_b (1 - P_b) / k`` of the fraction of agreeing codes,
        ``P_b = P + (1 - P) 2**-b``, summed over the pairs. ``fit``
        evaluates it on a sample of the training rows (all the pairs of at
        most 256 of them, whatever their number; with ``partial_fit``, of
        the first batch) and chooses the smallest number of hashes whose
        predicted error is at most ``eps``, at most ``2**17``; an ``eps``
        that needs more, or a kernel that is 0 on the sample, raises a
        ValueError. Ignored for an int ``n_components``. Between 0 and 1.

    random_state : int, RandomState instance or None, default=None
        Seeds the hashes drawn in ``fit``.

    n_jobs : int, default=None
        Number of threads hashing row chunks at once. ``None`` means 1
        unless in a :func:`joblib.parallel_config` context, ``-1`` all
        processors. The output does not depend on ``n_jobs``.

    Attributes
    ----------
    hash_seed_ : int
        Key of the darts (a counter-based generator: nothing is stored per
        feature) and of the keys of the full samples.

    bucket_coefficients_ : ndarray of shape (n_components, 2), dtype uint64
        Hash of each block's b-bit code (when ``b_bits`` is set).

    n_output_features_ : int
        Number of output columns, ``n_components * 2**b_bits`` (with
        ``b_bits=None``: ``n_components`` times the number of input
        features); each nonempty output row has ``n_components`` nonzeros.

    n_components_ : int
        The number of hashes used: ``n_components``, or the one chosen for ``eps``.

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
    sklearn_sketch.metrics.min_max_kernel : The exact min-max kernel.
    sklearn_sketch.metrics.gmm_kernel : The exact GMM kernel.
    CoREHasher : Hashed features for the resemblance of nonzero patterns and
        the CoRE kernels.

    Notes
    -----
    Writing :math:`P` for the collision probability of what is coded
    (:math:`K_{MM}` for "full" codes), the inner product of two output rows has
    mean :math:`P + (1 - P) 2^{-b}` and variance at most :math:`1 / (4 k)`. Two
    different coordinates ("0bit") share a code with probability :math:`2^{-b}`;
    two different full samples are first hashed to 32-bit keys, which two
    different samples share with probability about :math:`2^{-32}`, and then
    coded. With ``b_bits=None`` ("0bit" only) the mean is :math:`P`. The offset
    is not corrected.

    The kernel does not change when both rows are scaled by the same factor,
    but does when one is (a row and its double have kernel 1/2): the rows
    are hashed as given, not normalized. The values are read in float64 for
    float32 input too (the same samples).

    ``transform`` takes nonnegative data for ``kernel="minmax"`` and any real
    values for ``kernel="gmm"``, and returns a CSR matrix of shape
    ``(n_samples, n_components * B)``, ``B = 2**b_bits`` (``n_features_in_``,
    or twice that for "gmm", when ``b_bits=None``): exactly ``n_components``
    nonzeros ``1 / sqrt(n_components)`` per nonempty input row, none for an
    all-zero row; float32 for float32 input, float64 otherwise.

    The expected cost per row is
    :math:`O(k \log k + \mathrm{nnz} \log(\|x\|_1 + 1 / \|x\|_1))`:
    a row throws about :math:`k \ln k + 2k` darts, whatever its number of stored
    entries, and the darts are generated, not stored.

    References
    ----------
    .. [1] Christiani, T. "DartMinHash: Fast Sketching for Weighted Sets."
       arXiv:2005.11547, 2020.
    .. [2] Ioffe, S. "Improved Consistent Sampling, Weighted Minhash and L1
       Sketching." ICDM 2010.
    .. [3] Li, P. "0-Bit Consistent Weighted Sampling." KDD 2015.
    .. [4] Li, P. "Linearized GMM Kernels and Normalized Random Fourier Features."
       KDD 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketch import MinMaxHasher
    >>> from sklearn_sketch.metrics import min_max_kernel
    >>> X = np.array([[1.0, 2.0, 0.0, 3.0], [1.0, 0.0, 0.0, 3.0], [2.0, 4.0, 0.0, 6.0]])
    >>> hasher = MinMaxHasher(n_components=2048, random_state=0)
    >>> X_hashed = hasher.fit_transform(X)
    >>> X_hashed.shape, X_hashed.nnz
    ((3, 524288), 6144)
    >>> estimate = (X_hashed @ X_hashed.T).toarray()
    >>> bool(np.allclose(estimate, min_max_kernel(X), atol=0.05))
    True
    """

    _parameter_constraints: dict = {
        **AUTO_SIZE_CONSTRAINTS,
        "b_bits": [StrictInterval(Integral, 1, 32, closed="both"), None],
        "codes": [StrOptions({"full", "0bit"})],
        "kernel": [StrOptions({"minmax", "gmm"})],
        "random_state": ["random_state"],
        "n_jobs": N_JOBS_CONSTRAINT,
    }

    def __init__(
        self, n_components=256, *, b_bits=8, codes="full", kernel="minmax",
        eps=0.1, random_state=None, n_jobs=None,
    ):
        self.n_components = n_components
        self.b_bits = b_bits
        self.codes = codes
        self.kernel = kernel
        self.eps = eps
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _make_map(self, X, n_components):
        return DartCodesMap(
            n_components, X.shape[1], b_bits=self.b_bits, codes=self.codes,
            kernel=self.kernel,
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = self.kernel == "minmax"
        return tags
