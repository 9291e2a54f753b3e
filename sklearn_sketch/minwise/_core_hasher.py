"""CoREHasher: CoRE kernels linearized by minwise hashing (Li, 2014)."""

from numbers import Integral

from .._base import AUTO_SIZE_CONSTRAINTS, BaseSketch
from ..utils._compat import StrOptions
from ..utils._validation import (
    N_JOBS_CONSTRAINT,
    StrictInterval,
)
from ._core_features import CoREMap
from ._projection import PROJECTIONS


class CoREHasher(BaseSketch):
    """Hashed CoRE / resemblance features: sparse, ``k * 2**b_bits`` columns wide.

    Each row :math:`u` is normalized, :math:`\\tilde u = u / \\|u\\|`, and its
    set of nonzero coordinates :math:`S_u` (of size :math:`f_u`) is hashed by
    :math:`k` = ``n_components`` minwise hashes; hash :math:`j` gives the
    location :math:`L_j(u)`. The output row has one block per hash, with a
    single nonzero at (the b-bit code of) :math:`L_j(u)` carrying, times
    :math:`1 / \\sqrt{k}`, a random projection
    :math:`P_j(u) = \\sum_i r_{ij} \\tilde u_i` ("core1"),
    :math:`\\sqrt{f_u}\\, \\tilde u_{L_j(u)}` ("core2") or 1 ("resemblance").
    Inner products of output rows are Li's estimators of

    * CoRE type 1, :math:`K_{C1} = \\rho R`,
    * CoRE type 2, :math:`K_{C2} = \\rho \\sqrt{f_u f_v} / |S_u \\cup S_v|`,
    * the resemblance :math:`R = |S_u \\cap S_v| / |S_u \\cup S_v|`,

    where :math:`\\rho = \\langle \\tilde u, \\tilde v \\rangle`.

    Read more in the :ref:`User Guide <core_hasher>`.

    Parameters
    ----------
    n_components : int or "auto", default=256
        The number of hashes ``k``, also the number of nonzeros of each
        output row. ``"auto"`` chooses it from ``eps``.

    kernel : {"core1", "core2", "resemblance"}, default="core1"
        The kernel the inner products estimate.

    b_bits : int or None, default=8
        Bits of the code of each location, between 1 and 32: a block is
        ``2**b_bits`` wide. ``None`` keeps the full location (blocks of
        width ``n_features_in_``, no bias).

    hashing : {"fss", "oph", "minwise"}, default="fss"
        How the ``k`` locations are drawn; every scheme gives each location
        collision probability ``R``.
        "fss": the fast similarity sketch [4]_, rounds of one-permutation
        hashing until every block has a location, expected
        ``O(nnz + k log k)`` per row. The blocks' collisions are negatively
        correlated, so the estimates are at least as concentrated as with
        ``k`` independent hashes (the paper proves Chernoff bounds as
        strong), and markedly more where ``k`` is comparable to the sets'
        sizes or larger: the most accurate features for their number.
        "oph": one-permutation hashing with optimal densification [2]_ [3]_,
        ``O(nnz + k)`` per row, the fastest, with the accuracy of ``k``
        independent hashes while ``k`` is below the sets' sizes and less
        beyond (empty bins copy their neighbours).
        "minwise": ``k`` independent minwise hashes, ``O(nnz * k)``, the
        scheme Li (2014) analyses.

    projection : {"gaussian", "rademacher", "hashed_gaussian"}, \
            default="gaussian"
        Distribution of ``r_ij`` for ``kernel="core1"`` (ignored otherwise):
        i.i.d. N(0, 1) as in the paper, i.i.d. random signs, or a Gaussian
        matrix behind feature hashing (8192 buckets per group of 128
        columns), whose cost does not grow with the number of features.

    eps : float, default=0.1
        The relative error ``n_components="auto"`` aims at:
        ``||K_hat - K||_F / ||K||_F`` for the Gram matrix ``K_hat`` of the
        features of the training rows and their kernel matrix ``K``. ``K``
        is what the features estimate: the kernel, plus the offset of the
        b-bit codes (see Notes), which no number of hashes removes. With
        ``hashing="minwise"`` the prediction is the exact variance of the
        estimate (see Notes, b-bit codes included) summed over the pairs;
        "fss" and "oph", whose locations are not independent, are measured
        with pilot sketches drawn on 64 of the sampled rows, at the number
        of hashes that variance gives and then at the one predicted, their
        mean error extrapolated along the law they show ("oph" stops
        improving once the hashes outnumber the rows' nonzeros). ``fit``
        evaluates it on a sample of the training rows (all the pairs of at
        most 256 of them, whatever their number; with ``partial_fit``, of
        the first batch) and chooses the smallest number of hashes whose
        predicted error is at most ``eps``, at most ``2**17``; an ``eps``
        that needs more, or a kernel that is 0 on the sample, raises a
        ValueError. Ignored for an int ``n_components``. Between 0 and 1.

    random_state : int, RandomState instance or None, default=None
        Seeds the hashes and the projection drawn in ``fit``.

    n_jobs : int, default=None
        Number of threads hashing row chunks at once. ``None`` means 1
        unless in a :func:`joblib.parallel_config` context, ``-1`` all
        processors. The output does not depend on ``n_jobs``.

    Attributes
    ----------
    hash_coefficients_ : ndarray of shape (n_hashes, 2), dtype uint64
        Multiply-add-shift coefficients of the minwise hashes:
        ``n_components`` of them for "minwise", one for "oph"; for "fss",
        its one row holds the two 64-bit keys of the sketch's hashes.

    probe_coefficients_ : ndarray of shape (2,), dtype uint64
        Pairwise independent hash of the keys of the densification probes
        ("oph"), mixed before use.

    bucket_coefficients_ : ndarray of shape (n_components, 2), dtype uint64
        Hash of each block's b-bit location code (when ``b_bits`` is set).

    projection_seed_ : int
        Key of the counter-based generator of the projection ("core1").

    n_output_features_ : int
        Number of output columns, ``n_components * 2**b_bits`` (with
        ``b_bits=None``: ``n_components`` times the number of input
        features); each nonempty output row has ``n_components`` nonzeros.

    n_components_ : int
        The number of hashes used: ``n_components``, or the one chosen for ``eps``.

    expected_error_ : float or None
        With ``n_components="auto"``, the predicted relative error of the
        Gram matrix at ``n_components_`` (at most ``eps``): for
        ``hashing="minwise"``, the root of the expected squared error; for
        "fss" and "oph", the mean error of the pilots, extrapolated. None
        for an int ``n_components``.
        :func:`~sklearn_sketch.metrics.kernel_approximation_error` measures
        the error on data.

    n_features_in_ : int
        Number of features seen during ``fit``.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    sklearn_sketch.metrics.core_kernel : The exact CoRE kernels.
    sklearn_sketch.metrics.resemblance_kernel : The exact resemblance kernel.

    Notes
    -----
    With ``b_bits=None`` the estimates are unbiased, with variances
    :math:`((1 + 2 \\rho^2) R - \\rho^2 R^2) / k` (type 1, Gaussian) and
    :math:`(R - R^2) / k` (resemblance). With ``b_bits=b`` two different
    locations share a code with probability :math:`2^{-b}`, so the resemblance
    estimate has mean :math:`R + (1 - R) 2^{-b}` and type 1
    :math:`\\rho (R + (1 - R) 2^{-b})`; this bias is not corrected.

    ``transform`` accepts real values, negative ones included, and returns a
    CSR matrix of shape ``(n_samples, n_components * B)``, ``B = 2**b_bits``
    (``n_features_in_`` with ``b_bits=None``): exactly ``n_components``
    nonzeros per nonempty input row, none for an all-zero row; float32 for
    float32 input, float64 otherwise. Under ``assume_finite=True`` a row with
    NaN or infinite values gets meaningless (NaN or zero) values with
    ``kernel="core1"`` or ``"core2"``.

    The output has :math:`k \\cdot 2^b` columns (:math:`k` times
    ``n_features_in_`` with ``b_bits=None``); ``fit`` refuses a width beyond
    :math:`2^{63} - 1`, which sparse indices cannot address, and
    ``get_feature_names_out`` a width beyond :math:`2^{23}` (see its Notes).

    References
    ----------
    .. [1] Li, P. "CoRE Kernels." UAI 2014.
    .. [2] Li, P., Owen, A. and Zhang, C.-H. "One Permutation Hashing." NIPS 2012.
    .. [3] Shrivastava, A. "Optimal Densification for Fast and Accurate Minwise
       Hashing." ICML 2017.
    .. [4] Dahlgaard, S., Knudsen, M. B. T. and Thorup, M. "Fast Similarity
       Sketching." FOCS 2017 (arXiv:1704.04370).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketch import CoREHasher
    >>> from sklearn_sketch.metrics import core_kernel
    >>> rng = np.random.RandomState(0)
    >>> X = rng.rand(3, 100) * (rng.rand(3, 100) < [[0.5], [0.6], [0.3]])
    >>> hasher = CoREHasher(n_components=2048, kernel="core1", random_state=0)
    >>> X_hashed = hasher.fit_transform(X)
    >>> X_hashed.shape, X_hashed.nnz
    ((3, 524288), 6144)
    >>> bool(np.allclose((X_hashed @ X_hashed.T).toarray(), core_kernel(X), atol=0.1))
    True
    """

    _parameter_constraints: dict = {
        **AUTO_SIZE_CONSTRAINTS,
        "kernel": [StrOptions({"core1", "core2", "resemblance"})],
        "b_bits": [StrictInterval(Integral, 1, 32, closed="both"), None],
        "hashing": [StrOptions({"fss", "minwise", "oph"})],
        "projection": [StrOptions(set(PROJECTIONS))],
        "random_state": ["random_state"],
        "n_jobs": N_JOBS_CONSTRAINT,
    }

    def __init__(
        self,
        n_components=256,
        *,
        kernel="core1",
        b_bits=8,
        hashing="fss",
        projection="gaussian",
        eps=0.1,
        random_state=None,
        n_jobs=None,
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.b_bits = b_bits
        self.hashing = hashing
        self.projection = projection
        self.eps = eps
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _make_map(self, X, n_components):
        return CoREMap(
            n_components, X.shape[1], kernel=self.kernel, b_bits=self.b_bits,
            hashing=self.hashing, projection=self.projection,
        )
