"""KernelJL: Gaussian sketch of a subsample Gram matrix (Kpotufe & Sriperumbudur, 2020)."""

import warnings
from numbers import Real

import numpy as np
import scipy.sparse as sp
from joblib import effective_n_jobs
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
)
from sklearn.metrics.pairwise import (
    KERNEL_PARAMS,
    PAIRWISE_KERNEL_FUNCTIONS,
    pairwise_kernels,
)
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ._chunking import input_bytes_per_row, parallel_row_chunks, transform_in_chunks
from ._compat import StrOptions, _fit_context
from ._dask import maybe_transform_dask
from ._incremental import reservoir_update
from ._validation import (
    N_JOBS_CONSTRAINT,
    StrictInterval,
    positive_int,
    validate_features,
)

# Temporaries per row and subsample point while a chunk is transformed: the
# kernel block itself plus one more block of the same size (the squared
# distances of the RBF and Laplacian kernels, or the cast to the output dtype).
_KERNEL_BLOCK_COPIES = 2

# Kernels whose float32 evaluation in scikit-learn goes through Euclidean
# distances, which it upcasts to float64 anyway, in batches sized from the
# input (small batches for a small chunk: 1.8x slower than one call on MNIST).
# For these, a float32 chunk is upcast once and evaluated in float64 (same
# precision, one large product); the block is then cast back to float32.
_UPCAST_FLOAT32_KERNELS = frozenset({"rbf"})

# Cap on a chunk's temporaries. The kernel block is one matrix product per
# chunk, and on MNIST (n_subsample=1000) chunks of the shared 16 MiB cap made
# transform 1.13x slower than one unchunked call, chunks of 64 MiB 1.02x
# (benchmarks/bench_kernel_jl.py). scikit-learn's working_memory, if smaller,
# still wins.
_MAX_CHUNK_MIB = 64


class KernelJL(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Kernel Johnson-Lindenstrauss features: a Gaussian sketch of a Gram matrix.

    ``fit`` draws a uniform subsample ``x_1, ..., x_n`` of the training rows
    (without replacement), computes its Gram matrix ``K`` and a Gaussian matrix
    ``Z`` of shape ``(n_components, n)`` with i.i.d. standard normal entries,
    and stores ::

        W = K Z^T / (n sqrt(n d)),        d = n_components.

    ``transform`` maps a row ``x`` to ``Phi(x) = W^T k_x`` with
    ``k_x = (k(x_1, x), ..., k(x_n, x))``, that is
    ``Phi(X) = pairwise_kernels(X, subsample) @ W``. Over the draws of ``Z``,
    ``E <Phi(x), Phi(y)> = k_x^T K^2 k_y / n^3``, the inner product
    ``<k(., x), Sigma_n^3 k(., y)>`` in the kernel's feature space, with
    ``Sigma_n`` the empirical covariance operator of the subsample; one draw
    deviates from it by ``O(d^(-1/2))``. The features therefore preserve the
    kernel geometry reweighted by ``Sigma_n^3``: the leading kernel principal
    components keep their directions while their variances are cubed, so
    ordinary :class:`~sklearn.decomposition.PCA` on them recovers the top
    components of kernel PCA, and :class:`~sklearn.cluster.KMeans` on them
    approximates kernel k-means when the clusters are separated along those
    leading components. Where they are not, the cubed spectrum hides the
    structure: on MNIST and digits with an RBF kernel, KMeans on these
    features scores a much lower NMI than on Nystroem features (see the
    User Guide). Much of that loss comes from the uncentered ``Sigma_n``,
    whose leading direction is the features' mean: ``center=True`` removes
    it.

    Unlike :class:`~sklearn.kernel_approximation.Nystroem`, which needs the
    inverse square root of ``K`` (an ``O(n^3)`` eigendecomposition), the fit
    costs one matrix product, ``O(n^2 d)``, after the Gram matrix.

    Read more in the :ref:`User Guide <kernel_jl>`.

    Parameters
    ----------
    n_components : int, default=100
        Dimension ``d`` of the output feature space, the number of Gaussian
        directions. The error of ``<Phi(x), Phi(y)>`` around its expectation
        falls like ``n_components ** -0.5``.

    n_subsample : int, default=300
        Size ``n`` of the subsample whose Gram matrix is sketched. The paper's
        guarantee is an error of order ``n ** -0.5 + d ** -0.5``, so the
        subsample should not be smaller than ``n_components`` (the paper's
        experiments use ``d <= n <= 100``); 300 keeps the ``n ** -0.5`` term
        below the ``d ** -0.5`` term at the default ``n_components=100``,
        while each transformed row costs only 300 kernel evaluations, and the
        fit's Gram matrix is 300 x 300. A value larger than the number of
        training samples is clipped to it, with a warning: the subsample is
        then the whole training set (this keeps small folds of a grid search
        or a pipeline working).

    kernel : str or callable, default="rbf"
        Any kernel name of :func:`sklearn.metrics.pairwise.pairwise_kernels`,
        or a callable of two rows (and the ``kernel_params``) returning a
        float, or "precomputed". With "precomputed", ``fit`` takes the square
        Gram matrix of the training set, ``K_train`` of shape
        ``(n_samples, n_samples)``, and ``transform`` takes the kernel between
        the new rows and the training rows, of shape
        ``(n_queries, n_samples)``; only the columns of the subsample are read
        (the convention of :class:`~sklearn.svm.SVC`).

    gamma : float, default=None
        Gamma parameter of the RBF, Laplacian, polynomial, exponential chi2
        and sigmoid kernels; ``None`` leaves it to the kernel's default (for
        the RBF kernel, ``1 / n_features``).

    degree : float, default=None
        Degree of the polynomial kernel; ``None`` uses the kernel's default.

    coef0 : float, default=None
        Zero coefficient of the polynomial and sigmoid kernels; ``None`` uses
        the kernel's default.

    kernel_params : dict, default=None
        Further keyword arguments of the kernel (for a callable kernel, all
        of them).

    center : bool, default=False
        Sketch the centered Gram matrix ``K_c = H K H`` (``H = I - 11^T / n``)
        and center the kernel vectors alike, so that ``Sigma_n`` is the
        covariance operator of the subsample in the kernel's feature space
        rather than its second-moment operator, as kernel PCA does. Without
        centering the mean of the features is the leading direction of
        ``Sigma_n``, and cubing its eigenvalue lets it dominate the
        geometry; with it, KMeans on the features scores a much higher NMI
        (MNIST t10k: 0.35 instead of 0.15, digits 0.63 instead of 0.25; the
        User Guide has the figures). ``False`` is the estimator of the paper
        and of the formulas above; ``True`` is recommended for clustering
        and PCA. The centered features are
        ``(k_x - r)^T W = k_x^T W + offset_`` with ``r`` the column means of
        ``K``, so transform costs the same.

    random_state : int, RandomState instance or None, default=None
        Seeds the subsample and ``Z``, both drawn in ``fit``. Pass an int for
        reproducible output across calls and processes.

    n_jobs : int, default=None
        Number of threads: ``fit`` passes it to
        :func:`~sklearn.metrics.pairwise.pairwise_kernels` for the Gram
        matrix, and ``transform`` evaluates that many row chunks at once.
        ``None`` means 1 unless in a :obj:`joblib.parallel_config` context;
        ``-1`` uses all processors. The chunks are those of one job, but the
        output of ``transform`` equals that of ``n_jobs=1`` only up to
        floating-point rounding (about one unit in the last place): the
        rounding of a BLAS matrix product depends on the number of threads
        and the shape of the operands, as for the chunk size set by
        ``working_memory``.

    Attributes
    ----------
    components_ : {ndarray, sparse matrix} of shape (``n_subsample_``, ``n_features_in_``)
        The subsample: the training rows ``x_1, ..., x_n`` (for a precomputed
        kernel, the rows of the training Gram matrix).

    component_indices_ : ndarray of shape (``n_subsample_``,)
        Indices of the subsample in the training data, in increasing order.

    projection_ : ndarray of shape (``n_subsample_``, n_components)
        The sketch ``W = K Z^T / (n sqrt(n d))``; ``transform`` returns
        ``kernel(X, components_) @ projection_ + offset_``. Stored in the
        dtype of the training data. With ``center=True``, ``K`` is the
        centered Gram matrix ``H K H``.

    offset_ : ndarray of shape (n_components,)
        Added to every transformed row: ``-r^T W`` with ``r`` the column
        means of the Gram matrix when ``center=True``, zeros otherwise.

    n_subsample_ : int
        Size of the subsample actually used, ``min(n_subsample, n_samples)``.

    n_samples_seen_ : int
        Number of training rows the subsample was drawn from: ``n_samples``
        after ``fit``, the total over the batches after ``partial_fit``.

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
    The features approximate ``<k(., x), Sigma^3 k(., y)>`` rather than the
    kernel ``k(x, y)``; distances between them are distances in the kernel
    space seen through ``Sigma^(3/2)``, which keeps the leading kernel
    principal directions (and so clusters separated along them) and shrinks
    the others. Use them for clustering and PCA, not as a substitute for
    ``k(x, y)`` in a kernel machine.

    Rows are transformed in chunks whose kernel block fits scikit-learn's
    ``working_memory`` (capped at 64 MiB), so memory beyond the output is
    bounded whatever ``n_samples`` is. Sparse input is accepted where the
    kernel accepts it (all but chi2 and additive chi2). float32 input gives
    float32 features and a float32 ``@ W`` product; the kernel block is
    computed in float32 where :func:`~sklearn.metrics.pairwise.pairwise_kernels`
    does so (linear, polynomial, sigmoid, cosine, chi2), while the RBF block is
    computed in float64 per chunk (scikit-learn upcasts its distances anyway)
    and the Laplacian and callable kernels return float64 blocks; all are cast
    to float32 before the product.

    References
    ----------
    Kpotufe, S. and Sriperumbudur, B. K. "Gaussian Sketching yields a J-L
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
    >>> kjl.projection_.shape
    (40, 20)
    >>> from sklearn.cluster import KMeans
    >>> labels = KMeans(n_clusters=2, n_init=10, random_state=0).fit_predict(X_kjl)
    >>> bool((labels[:50] == labels[0]).all() and (labels[50:] != labels[0]).all())
    True
    """

    _parameter_constraints: dict = {
        "n_components": [positive_int()],
        "n_subsample": [positive_int()],
        "kernel": [
            StrOptions(set(PAIRWISE_KERNEL_FUNCTIONS) | {"precomputed"}),
            callable,
        ],
        "gamma": [StrictInterval(Real, 0, None, closed="left"), None],
        "degree": [StrictInterval(Real, 1, None, closed="left"), None],
        "coef0": [StrictInterval(Real, None, None, closed="neither"), None],
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
        gamma=None,
        degree=None,
        coef0=None,
        kernel_params=None,
        center=False,
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

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Draw the subsample and ``Z``, and sketch the subsample's Gram matrix.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; for ``kernel="precomputed"``, the Gram matrix of
            the training data, of shape (n_samples, n_samples).

        y : None
            Ignored.

        Returns
        -------
        self : object
            Fitted transformer.
        """
        X = validate_features(self, X, reset=True)
        kernel_params = self._get_kernel_params()
        n_samples = X.shape[0]
        if self.kernel == "precomputed" and X.shape[1] != n_samples:
            raise ValueError(
                "With kernel='precomputed', fit expects the square Gram matrix "
                f"of the training data; got X of shape {X.shape}."
            )

        n_subsample = self.n_subsample
        if n_subsample > n_samples:
            warnings.warn(
                f"n_subsample={n_subsample} is larger than n_samples={n_samples}; "
                f"the subsample is the whole training set (n_subsample_={n_samples}).",
                UserWarning,
            )
            n_subsample = n_samples

        random_state = check_random_state(self.random_state)
        # Sorted, so that the subsample keeps the order of the training data
        # (and is the training set itself when n_subsample == n_samples).
        indices = np.sort(
            random_state.choice(n_samples, size=n_subsample, replace=False)
        )
        gaussian = random_state.standard_normal(size=(self.n_components, n_subsample))

        components = X[indices]
        gram = self._subsample_gram(components, indices, kernel_params)
        self._sketch_gram(gram, gaussian, X.dtype)
        self.components_ = components
        self.component_indices_ = indices
        self.n_subsample_ = n_subsample
        self.n_samples_seen_ = n_samples
        self._n_features_out = self.n_components
        for name in ("_reservoir_random_state", "_reservoir_gaussian"):
            self.__dict__.pop(name, None)  # a later partial_fit starts afresh
        return self

    def _partial_fit_available(self):
        if self.kernel == "precomputed":
            raise AttributeError(
                "KernelJL has no partial_fit with kernel='precomputed': the kernel "
                "between rows of different batches is unknown. Use fit."
            )
        return True

    @available_if(_partial_fit_available)
    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None):
        """Update the subsample by reservoir sampling, and re-sketch its Gram matrix.

        The subsample is a reservoir of ``n_subsample`` rows filled by
        Vitter's Algorithm R across the batches (vectorized within a batch):
        after any sequence of calls it is a uniform random subset, without
        replacement, of all the rows seen so far, as ``fit`` on their
        concatenation would draw. ``Z`` is drawn once, by the first call, for
        ``n_subsample`` columns; after every call the Gram matrix of the
        current subsample and ``W = K Z^T / (n sqrt(n d))`` are recomputed
        (with the first ``n = n_subsample_`` columns of ``Z``), so
        ``transform`` is consistent with the rows seen so far. Until
        ``n_subsample`` rows have been seen, the subsample is all of them.

        ``partial_fit`` after ``fit`` starts a new reservoir (the rows given
        to ``fit`` are not kept). With ``kernel="precomputed"`` the method
        is not available (the kernel between rows of different batches is
        unknown).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            A batch of training data.

        y : None
            Ignored.

        Returns
        -------
        self : object
            Fitted transformer.

        Raises
        ------
        ValueError
            If ``X`` has a different number of features than the first batch.
        """
        kernel_params = self._get_kernel_params()
        first = not hasattr(self, "_reservoir_random_state")
        if first:
            X = validate_features(self, X, reset=True)
            random_state = check_random_state(self.random_state)
            self._reservoir_random_state = random_state
            self._reservoir_gaussian = random_state.standard_normal(
                size=(self.n_components, self.n_subsample)
            )
            self.n_samples_seen_ = 0
            components = X[:0]
            indices = np.empty(0, dtype=np.int64)
        else:
            X = validate_features(self, X, reset=False)
            components, indices = self.components_, self.component_indices_
            X = X.astype(components.dtype, copy=False)

        slots, items = reservoir_update(
            self.n_samples_seen_, self.n_subsample, X.shape[0], self._reservoir_random_state
        )
        n_filled = indices.size
        replaced = slots < n_filled
        kept = np.ones(n_filled, dtype=bool)
        kept[slots[replaced]] = False
        # Rows kept from earlier batches, then the new ones in batch order:
        # the subsample stays in the order of the stream.
        new_items = np.sort(items)
        if sp.issparse(X):
            components = sp.vstack([components[kept], X[new_items]], format="csr")
        else:
            components = np.concatenate([components[kept], X[new_items]])
        indices = np.concatenate([indices[kept], self.n_samples_seen_ + new_items])
        self.n_samples_seen_ += X.shape[0]

        n_subsample = indices.size
        if first or slots.size:
            gram = self._subsample_gram(components, indices, kernel_params)
            gaussian = self._reservoir_gaussian[:, :n_subsample]
            self._sketch_gram(gram, gaussian, components.dtype)
        self.components_ = components
        self.component_indices_ = indices
        self.n_subsample_ = n_subsample
        self._n_features_out = self.n_components
        return self

    def _subsample_gram(self, components, indices, kernel_params):
        """The dense Gram matrix ``K`` of the subsample.

        For a precomputed kernel ``components`` are rows of the training Gram
        matrix and ``indices`` the subsample's columns in it.
        """
        if self.kernel == "precomputed":
            gram = components[:, indices]
        else:
            gram = pairwise_kernels(
                components,
                metric=self.kernel,
                filter_params=True,
                n_jobs=self.n_jobs,
                **kernel_params,
            )
        return gram.toarray() if sp.issparse(gram) else gram

    def _sketch_gram(self, gram, gaussian, dtype):
        """Set ``projection_`` (and ``offset_``) from the Gram matrix and ``Z``.

        ``W = K Z^T / (n sqrt(n d))``, with ``K`` double-centered when
        ``center=True``. Computed in float64 whatever the input dtype (an
        ``O(n^2 d)`` product, small next to the Gram matrix), stored in
        ``dtype``.
        """
        n_subsample = gram.shape[0]
        gram = np.asarray(gram, dtype=np.float64)
        scale = 1.0 / (n_subsample * np.sqrt(n_subsample * self.n_components))
        if self.center:
            # K_c = H K H with H = I - 11^T / n: the Gram matrix of the
            # subsample's features minus their mean. The centered features of
            # x are (H (k_x - r))^T K_c Z^T c with r the column means of K;
            # since 1^T K_c = 0, H can be dropped, leaving k_x^T W - r^T W: a
            # product with W and a constant offset.
            column_means = gram.mean(axis=0)
            gram = gram - column_means - column_means[:, np.newaxis] + column_means.mean()
        projection = gram @ gaussian.T
        projection *= scale
        if self.center:
            offset = -(column_means @ projection)
        else:
            offset = np.zeros(self.n_components)
        self.projection_ = projection.astype(dtype, copy=False)
        self.offset_ = offset.astype(dtype, copy=False)

    def transform(self, X):
        """Sketched features ``kernel(X, components_) @ projection_ + offset_``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Data to transform; for ``kernel="precomputed"``, the kernel
            between these rows and the training rows, of shape
            (n_samples, n_samples_fit).

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components)
            Features, float32 for float32 input and float64 otherwise.
        """
        check_is_fitted(self)
        X_dask = maybe_transform_dask(self, X)
        if X_dask is not None:
            return X_dask
        X = validate_features(self, X, reset=False)
        kernel_params = self._get_kernel_params()
        dtype = X.dtype
        projection = self.projection_.astype(dtype, copy=False)
        offset = self.offset_.astype(dtype, copy=False)
        precomputed = self.kernel == "precomputed"
        components = self.components_
        upcast = dtype == np.float32 and self.kernel in _UPCAST_FLOAT32_KERNELS
        if upcast:
            components = components.astype(np.float64)
        bytes_per_row = (
            _KERNEL_BLOCK_COPIES * self.n_subsample_ + self.n_components
        ) * np.dtype(dtype).itemsize
        if upcast:  # the chunk and its kernel block in float64
            bytes_per_row += 8 * (X.shape[1] + self.n_subsample_)

        # Threads share the work across row chunks when there are several;
        # otherwise pairwise_kernels shares one chunk's kernel block.
        n_jobs = effective_n_jobs(self.n_jobs)
        # The chunks of transform_in_chunks, which adds the input's share.
        n_chunks = len(
            parallel_row_chunks(
                X.shape[0], bytes_per_row + input_bytes_per_row(X), n_jobs, False,
                max_chunk_mib=_MAX_CHUNK_MIB,
            )
        )
        kernel_n_jobs = self.n_jobs if n_chunks == 1 else None

        def transform_chunk(X_chunk, out):
            if upcast:
                X_chunk = X_chunk.astype(np.float64)
            if precomputed:
                block = X_chunk[:, self.component_indices_]
            else:
                block = pairwise_kernels(
                    X_chunk,
                    components,
                    metric=self.kernel,
                    filter_params=True,
                    n_jobs=kernel_n_jobs,
                    **kernel_params,
                )
            if sp.issparse(block):
                block = block.toarray()
            np.matmul(block.astype(dtype, copy=False), projection, out=out)
            if self.center:
                out += offset

        return transform_in_chunks(
            X,
            transform_chunk,
            self.n_components,
            dtype,
            bytes_per_row,
            max_chunk_mib=_MAX_CHUNK_MIB,
            n_jobs=self.n_jobs,
            # The chunk goes through BLAS products, whose rounding depends on
            # the shape: keep the chunks of one job, and so the same output.
            exact_rows=False,
        )

    def _get_kernel_params(self):
        """Keyword arguments of the kernel, from the parameters.

        ``gamma``, ``degree`` and ``coef0`` are passed only to the named
        kernels that take them; with a callable or precomputed kernel, setting
        them is an error (they would be silently ignored).
        """
        params = dict(self.kernel_params or {})
        named = {"gamma": self.gamma, "degree": self.degree, "coef0": self.coef0}
        if callable(self.kernel) or self.kernel == "precomputed":
            given = sorted(name for name, value in named.items() if value is not None)
            if given:
                raise ValueError(
                    f"{', '.join(given)} cannot be set with a callable or "
                    "precomputed kernel; pass a callable's arguments in "
                    "kernel_params."
                )
            return params
        for name in KERNEL_PARAMS[self.kernel]:
            if named[name] is not None:
                params[name] = named[name]
        return params

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags
