"""KernelJL: Gaussian sketch of a subsample Gram matrix (Kpotufe & Sriperumbudur, 2020)."""

import warnings
from numbers import Real

import numpy as np
import scipy.sparse as sp
from joblib import effective_n_jobs
from sklearn import get_config
from sklearn.metrics.pairwise import (
    KERNEL_PARAMS,
    PAIRWISE_KERNEL_FUNCTIONS,
    pairwise_kernels,
)
from sklearn.utils import check_random_state, gen_batches
from sklearn.utils.metaestimators import available_if

from .._base import BaseSketch, all_finite
from ..utils._chunking import KERNEL_CHUNK_MIB, check_allocation
from ..utils._compat import StrOptions, _fit_context
from ..utils._gamma import scale_gamma
from ..utils._incremental import reservoir_update
from ..utils._validation import (
    N_JOBS_CONSTRAINT,
    StrictInterval,
    canonical_csr,
    overflow_error,
    positive_int,
    validate_features,
)

# Temporaries per row and subsample point while a chunk is transformed: the
# kernel block itself plus one more block of the same size (the squared
# distances of the RBF and Laplacian kernels, or the cast to the output dtype).
_KERNEL_BLOCK_COPIES = 2

# Kernels whose float32 evaluation in scikit-learn goes through Euclidean
# distances, which it upcasts to float64 anyway, in batches sized from the
# input (small batches for a small chunk, which is slower than one call).
# For these, a float32 chunk is upcast once and evaluated in float64 (same
# precision, one large product); the block is then cast back to float32.
_UPCAST_FLOAT32_KERNELS = frozenset({"rbf"})


# Kernels scikit-learn evaluates on dense data only. Their value depends only
# on the coordinates where one of the two rows is nonzero (a coordinate where
# both are zero adds nothing), so sparse rows are densified in blocks over
# the union of their nonzero columns, never over all n_features.
_DENSE_ONLY_KERNELS = frozenset({"chi2", "additive_chi2"})

# Kernels whose default gamma is 1 / n_features: it is set explicitly before
# sparse rows are restricted to their nonzero columns, which changes the width
# scikit-learn would read it from.
_GAMMA_FROM_WIDTH_KERNELS = frozenset(
    {"rbf", "laplacian", "poly", "polynomial", "sigmoid"}
)

# Kernels whose gamma="scale" is SVC's, 1 / (n_features * X.var()). The
# others that take a gamma (laplacian, chi2) keep scikit-learn's default: an
# L1 distance or a chi2 divergence does not grow with the variance.
_SCALE_GAMMA_KERNELS = frozenset({"rbf", "poly", "polynomial", "sigmoid"})

_INT32_MAX = np.iinfo(np.int32).max

# Rows per block of sparse data densified for a dense-only kernel, at most:
# every pair of rows is evaluated over all the columns of its two blocks, so
# larger blocks cost more per pair, smaller ones more calls.
_SPARSE_BLOCK_ROWS = 32

# Sparse operands are restricted to their nonzero columns when they are
# wider than this many columns per nonzero. scikit-learn's sparse kernels
# allocate and pass over a row pointer per column (4 bytes and about a
# nanosecond each), the restriction sorts the nonzeros (tens of nanoseconds
# each). Up to 8 columns per nonzero, those pointers take no more memory than
# the chunk budget allows for the input's own copies, and scikit-learn's
# pass is the faster.
_COLUMNS_PER_NONZERO = 8


# Relative size (Frobenius norms) under which a centered Gram matrix counts
# as zero: the features inherit the kernel values' rounding (eps) divided by
# this size, so below it they would be mostly rounding (above 1e-6 relative).
_NEGLIGIBLE_CENTERED = 1e-10


def _on_columns(X, columns):
    """The CSR matrix ``X`` restricted to ``columns``, renumbered ``0 .. len - 1``.

    ``columns`` is sorted and holds every column where ``X`` has a nonzero,
    so no entry is dropped and the entries keep their order within each row:
    sums over a row's entries (products, norms, distances) are the same
    floating-point operations as on ``X``. At least one column is kept, as
    scikit-learn refuses zero features.
    """
    width = max(columns.size, 1)
    index_dtype = np.int32 if max(width, X.nnz) <= _INT32_MAX else np.int64
    indices = np.searchsorted(columns, X.indices).astype(index_dtype, copy=False)
    indptr = X.indptr.astype(index_dtype, copy=False)
    X = sp.csr_matrix((X.data, indices, indptr), shape=(X.shape[0], width))
    X.has_sorted_indices = True
    return X


def _on_shared_columns(X, Y, kernel, params):
    """Sparse ``X`` and ``Y`` restricted to the columns where either is nonzero.

    scikit-learn's sparse kernels cost ``O(n_features)`` (the transpose of
    ``Y`` is converted to CSR, with one row pointer per feature), and its
    sparse Manhattan distance takes only int32 indices; the restricted
    matrices are at most ``nnz`` wide, with int32 indices, and give the same
    kernel values, bit for bit. Restricted only where that helps: when the
    width is many times the number of nonzeros, or when indices are int64.
    ``Y=None`` is the Gram matrix of ``X``.

    Returns
    -------
    X, Y, params
        The operands, and the kernel's parameters with a default gamma of
        ``1 / n_features`` made explicit when the width changed.
    """
    if not sp.issparse(X) or not (Y is None or sp.issparse(Y)):
        return X, Y, params
    pair = (X,) if Y is None else (X, Y)
    narrow = all(M.indices.dtype == np.int32 for M in pair)
    nnz = sum(M.nnz for M in pair)
    if narrow and X.shape[1] <= _COLUMNS_PER_NONZERO * nnz:
        return X, Y, params
    if kernel in _GAMMA_FROM_WIDTH_KERNELS and params.get("gamma") is None:
        # scikit-learn's own default, 1.0 / X.shape[1], before the restriction.
        params = {**params, "gamma": 1.0 / X.shape[1]}
    if Y is None:
        return _on_columns(X, np.unique(X.indices)), None, params
    columns = np.union1d(X.indices, Y.indices)
    return _on_columns(X, columns), _on_columns(Y, columns), params


def _dense_kernel_blocks(X, Y, kernel, params, n_jobs):
    """``kernel(X, Y)`` for a dense-only kernel, on densified pairs of row blocks.

    Two sparse blocks are densified over the union of their nonzero
    columns only (:func:`_on_columns`), a sparse block facing dense rows
    over all columns. The kernel is evaluated pair by pair of rows, and a
    column where both rows are zero adds nothing, so the blocks give
    exactly the values of one dense call. ``Y=None`` is the Gram matrix.
    """
    Y = X if Y is None else Y
    dtype = np.result_type(X.dtype, Y.dtype)
    rows = _dense_block_rows(X, Y, dtype)
    block = np.empty((X.shape[0], Y.shape[0]), dtype=dtype)
    for x_rows in gen_batches(X.shape[0], rows):
        for y_rows in gen_batches(Y.shape[0], rows):
            X_block, Y_block = X[x_rows], Y[y_rows]
            if sp.issparse(X_block) and sp.issparse(Y_block):
                columns = np.union1d(X_block.indices, Y_block.indices)
                X_block = _on_columns(X_block, columns)
                Y_block = _on_columns(Y_block, columns)
            block[x_rows, y_rows] = pairwise_kernels(
                _dense(X_block, dtype), _dense(Y_block, dtype), metric=kernel,
                filter_params=True, n_jobs=n_jobs, **params,
            )
    return block


def _dense_block_rows(X, Y, dtype):
    """Rows per block so that two densified blocks fit the chunk budget.

    Two blocks of ``b`` rows take ``2 b w`` values, with ``w`` the number of
    columns, or, when both are sparse, at most the ``2 b r`` nonzeros of
    their rows (``r`` the mean number per row): ``b`` is the larger of the
    sizes each bound allows.
    """
    budget = min(get_config()["working_memory"], KERNEL_CHUNK_MIB) * 2**20
    budget_values = budget / (2 * dtype.itemsize)
    rows = budget_values / X.shape[1]
    if sp.issparse(X) and sp.issparse(Y):
        per_row = (X.nnz + Y.nnz) / max(X.shape[0] + Y.shape[0], 1)
        sparse_rows = np.sqrt(budget_values / (2 * max(per_row, 1)))
        rows = max(rows, min(sparse_rows, _SPARSE_BLOCK_ROWS))
    return max(int(rows), 1)


def _dense(X, dtype):
    """``X`` as a dense array of ``dtype``."""
    X = X.toarray() if sp.issparse(X) else X
    return X.astype(dtype, copy=False)


def _kernel_block(X, Y, kernel, params, n_jobs=None):
    """The dense block ``pairwise_kernels(X, Y)`` for any input format.

    Sparse operands cost what their nonzeros cost, whatever
    ``n_features``; the dense-only kernels are evaluated on densified
    blocks. ``Y=None`` gives the Gram matrix of ``X`` (as
    :func:`~sklearn.metrics.pairwise.pairwise_kernels` does, with the
    exact zeros of the RBF kernel's distances on its diagonal).
    """
    if not callable(kernel):
        if kernel in _DENSE_ONLY_KERNELS and (sp.issparse(X) or sp.issparse(Y)):
            return _dense_kernel_blocks(X, Y, kernel, params, n_jobs)
        X, Y, params = _on_shared_columns(X, Y, kernel, params)
    block = pairwise_kernels(
        X, Y, metric=kernel, filter_params=True, n_jobs=n_jobs, **params
    )
    return block.toarray() if sp.issparse(block) else block


def _rows_like(rows, components):
    """Rows of a ``partial_fit`` batch in the format and dtype of ``components``."""
    if sp.issparse(components):
        rows = canonical_csr(rows)
    elif sp.issparse(rows):
        rows = rows.toarray()
    return rows.astype(components.dtype, copy=False)


def _stack_rows(top, bottom):
    """``top`` above ``bottom``, both dense or both canonical CSR."""
    if sp.issparse(top):
        return canonical_csr(sp.vstack([top, bottom], format="csr"))
    return np.concatenate([top, bottom])


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

    Read more in the :ref:`User Guide <kernel_jl>`.

    Parameters
    ----------
    n_components : int, default=100
        Dimension ``d`` of the output feature space.

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
        "n_components": [positive_int()],
        "n_subsample": [positive_int()],
        "kernel": [
            StrOptions(set(PAIRWISE_KERNEL_FUNCTIONS) | {"precomputed"}),
            callable,
        ],
        "gamma": [
            StrictInterval(Real, 0, None, closed="left"), StrOptions({"scale"}), None
        ],
        "degree": [StrictInterval(Real, 1, None, closed="left"), None],
        "coef0": [StrictInterval(Real, None, None, closed="neither"), None],
        "kernel_params": [dict, None],
        "center": ["boolean"],
        "random_state": ["random_state"],
        "n_jobs": N_JOBS_CONSTRAINT,
    }

    # A chunk goes through BLAS products, whose rounding depends on the
    # shape: keep the chunks of one job, and so the same output.
    _exact_rows = False
    _max_chunk_mib = KERNEL_CHUNK_MIB

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

    def _fit(self, X):
        """Draw the subsample and ``Z``, and sketch the subsample's Gram matrix."""
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
        self._check_model_size(X, n_subsample, n_subsample)

        random_state = check_random_state(self.random_state)
        # Sorted, so that the subsample keeps the order of the training data
        # (and is the training set itself when n_subsample == n_samples).
        indices = np.sort(
            random_state.choice(n_samples, size=n_subsample, replace=False)
        )
        gaussian = random_state.standard_normal(size=(self.n_components, n_subsample))

        components = X[indices]
        if sp.issparse(components):
            # Row selection may widen the indices to int64 for a wide X.
            components = canonical_csr(components)
        kernel_params = self._resolve_gamma(components, kernel_params)
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

    def _check_model_size(self, X, n_subsample, n_drawn):
        """Refuse at once a model that could not transform one row on this machine.

        Counts, in bytes, the fitted state and the fit's temporaries (``Z``
        with ``n_drawn`` columns, the Gram matrix of ``n_subsample`` rows and
        its centered copy, ``W`` in float64 and in the input's dtype, the
        subsample's rows) and what ``transform`` needs for one row (its
        kernel block and output, and for a dense-only kernel on sparse data
        two rows densified over their nonzero columns).
        """
        d, itemsize = self.n_components, X.dtype.itemsize
        if sp.issparse(X):
            row_values = X.nnz / max(X.shape[0], 1)
            row_bytes = row_values * (itemsize + 8)
        else:
            row_values, row_bytes = X.shape[1], X.shape[1] * itemsize
        state = 8 * (d * n_drawn + 2 * n_subsample**2 + 2 * n_subsample * d)
        state += n_subsample * row_bytes
        one_row = 8 * (_KERNEL_BLOCK_COPIES * n_subsample + d)
        check_allocation(
            state + one_row,
            f"KernelJL with n_components={d} and a subsample of {n_subsample} "
            f"rows (Z of {d} x {n_drawn}, W of {n_subsample} x {d}, Gram matrix "
            f"of {n_subsample} x {n_subsample})",
        )
        if self.kernel in _DENSE_ONLY_KERNELS and sp.issparse(X):
            # The smallest dense blocks, one row from each side, span the
            # union of the two rows' nonzero columns.
            width = min(X.shape[1], 2 * int(np.diff(X.indptr).max(initial=0)))
            check_allocation(
                2 * 8 * width,
                f"kernel={self.kernel!r}, which scikit-learn evaluates on dense "
                f"data only, on pairs of rows densified over up to {width} of "
                f"the {X.shape[1]} columns",
            )

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
        current subsample and ``W = sqrt(n) K Z^T / ||K||_F^2`` are recomputed
        (with the first ``n = n_subsample_`` columns of ``Z``, and
        ``gamma="scale"`` on the current subsample), so
        ``transform`` is consistent with the rows seen so far. Until
        ``n_subsample`` rows have been seen, the subsample is all of them.

        Batches may mix dense and sparse input: the subsample keeps the
        format of the first batch, and rows of later batches are converted
        to it. ``partial_fit`` after ``fit`` starts a new reservoir (the rows
        given to ``fit`` are not kept). With ``kernel="precomputed"`` the method
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
        X = validate_features(self, X, reset=first)
        if first:
            self._start_reservoir(X)
        components, indices, replaced = self._add_to_reservoir(X)
        n_subsample = indices.size
        if first or replaced:
            kernel_params = self._resolve_gamma(components, kernel_params)
            gram = self._subsample_gram(components, indices, kernel_params)
            gaussian = self._reservoir_gaussian[:, :n_subsample]
            self._sketch_gram(gram, gaussian, components.dtype)
        self.components_ = components
        self.component_indices_ = indices
        self.n_subsample_ = n_subsample
        self.n_samples_seen_ += X.shape[0]
        self._n_features_out = self.n_components
        return self

    def _start_reservoir(self, X):
        """An empty reservoir in the format of the first batch, and ``Z``.

        Later batches are converted to that format (a dense batch into a
        canonical CSR matrix, or a sparse one into dense rows), so the
        subsample keeps one format whatever mix of batches follows.
        """
        self._check_model_size(X, self.n_subsample, self.n_subsample)
        random_state = check_random_state(self.random_state)
        self._reservoir_random_state = random_state
        self._reservoir_gaussian = random_state.standard_normal(
            size=(self.n_components, self.n_subsample)
        )
        self.n_samples_seen_ = 0
        self.components_ = X[:0]
        self.component_indices_ = np.empty(0, dtype=np.int64)

    def _add_to_reservoir(self, X):
        """Offer the rows of ``X`` to the reservoir (Algorithm R, vectorized).

        Returns
        -------
        components, indices
            The new subsample and its indices in the stream: the rows kept
            from earlier batches, then the new ones in batch order, so the
            subsample stays in the order of the stream.
        replaced : bool
            Whether any slot was (re)filled.
        """
        components, indices = self.components_, self.component_indices_
        slots, items = reservoir_update(
            self.n_samples_seen_, self.n_subsample, X.shape[0],
            self._reservoir_random_state,
        )
        n_filled = indices.size
        kept = np.ones(n_filled, dtype=bool)
        kept[slots[slots < n_filled]] = False
        new_items = np.sort(items)
        new_rows = _rows_like(X[new_items], components)
        components = _stack_rows(components[kept], new_rows)
        indices = np.concatenate([indices[kept], self.n_samples_seen_ + new_items])
        return components, indices, slots.size > 0

    def _subsample_gram(self, components, indices, kernel_params):
        """The dense Gram matrix ``K`` of the subsample.

        For a precomputed kernel ``components`` are rows of the training Gram
        matrix and ``indices`` the subsample's columns in it.
        """
        if self.kernel == "precomputed":
            gram = components[:, indices]
            return gram.toarray() if sp.issparse(gram) else gram
        with np.errstate(over="ignore", invalid="ignore"):
            gram = _kernel_block(components, None, self.kernel, kernel_params, self.n_jobs)
        # With assume_finite=True a NaN that came in goes out as it is, and
        # is no overflow.
        if not np.isfinite(gram).all() and all_finite(components):
            raise self._overflow_error(gram.dtype, "the kernel values of the subsample")
        return gram

    def _overflow_error(self, dtype, what):
        return overflow_error(
            self, dtype, what, "Scale the input down, or lower the kernel's parameters"
        )

    def _check_chunk(self, X_chunk, out):
        # Under assume_finite=True a NaN may also come from the subsample.
        if (
            not np.isfinite(out).all()
            and all_finite(X_chunk)
            and all_finite(self.components_)
        ):
            raise self._overflow_error(out.dtype, "the features of the input")

    def _sketch_gram(self, gram, gaussian, dtype):
        """Set ``projection_`` (and ``offset_``) from the Gram matrix and ``Z``.

        ``W = sqrt(n) K Z^T / ||K||_F^2``, with ``K`` double-centered when
        ``center=True``. Computed in float64 whatever the input dtype (an
        ``O(n^2 d)`` product, small next to the Gram matrix), stored in
        ``dtype``. The features do not change when the kernel is multiplied
        by a constant, so ``K`` is first divided by its largest magnitude
        ``m`` (then ``||K / m||_F^2`` neither overflows nor underflows), and
        ``W`` of the kernel ``k / m`` is divided by ``m`` at the end.
        """
        n_subsample = gram.shape[0]
        gram = np.asarray(gram, dtype=np.float64)
        peak = np.abs(gram).max(initial=0.0)
        unit = gram / peak if peak > 0 else gram
        uncentered_norm = np.sqrt(np.vdot(unit, unit))
        if self.center:
            # K_c = H K H with H = I - 11^T / n: the Gram matrix of the
            # subsample's features minus their mean. The centered features of
            # x are (H (k_x - r))^T K_c Z^T c with r the column means of K;
            # since 1^T K_c = 0, H can be dropped, leaving k_x^T W - r^T W: a
            # product with W and a constant offset.
            column_means = unit.mean(axis=0)
            unit = unit - column_means - column_means[:, np.newaxis] + column_means.mean()
        squared_norm = np.vdot(unit, unit)
        # A zero (centered) Gram matrix: every feature is 0, not 0 / 0. A
        # centered one below _NEGLIGIBLE_CENTERED of the kernel's own size
        # (kernel values equal to 10 digits) is zero too: dividing by its
        # norm would blow the rounding of the kernel values up to features.
        negligible = np.sqrt(squared_norm) <= _NEGLIGIBLE_CENTERED * uncentered_norm
        # scikit-learn's cosine treats a row of norm below 10 eps as zero
        # (not normalized): its kernel values are products of tiny norms.
        # A subsample of such rows only (no diagonal value near 1) spans
        # nothing, and scaling its Gram matrix up would blow the rounding
        # of every other row's kernel values up to features.
        negligible |= self.kernel == "cosine" and peak < 0.5
        scale = 0.0 if negligible else np.sqrt(n_subsample) / squared_norm
        unit_projection = unit @ gaussian.T
        unit_projection *= scale
        if self.center:
            offset = -(column_means @ unit_projection)
        else:
            offset = np.zeros(self.n_components)
        with np.errstate(over="ignore"):
            projection = unit_projection / peak if peak > 0 else unit_projection
            projection, offset = projection.astype(dtype), offset.astype(dtype)
        if np.isfinite(gram).all() and not (
            np.isfinite(projection).all() and np.isfinite(offset).all()
        ):
            raise self._overflow_error(dtype, "the sketched kernel values of the subsample")
        self.projection_, self.offset_ = projection, offset

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
        return super().transform(X)

    def _prepare_transform(self, X):
        # Threads share the work across row chunks when there are several;
        # otherwise pairwise_kernels shares one chunk's kernel block.
        n_chunks = len(self._chunks(X, effective_n_jobs(self.n_jobs)))
        kernel_n_jobs = self.n_jobs if n_chunks == 1 else None
        return self._chunk_state(X.dtype, kernel_n_jobs)

    def _bytes_per_row(self, dtype):
        n_values = _KERNEL_BLOCK_COPIES * self.n_subsample_ + self.n_components
        return n_values * np.dtype(dtype).itemsize

    def _input_bytes_per_row(self, X):
        """Temporary bytes per row of a transformed chunk, beyond its input."""
        bytes_per_row = self._bytes_per_row(X.dtype)
        if X.dtype == np.float32 and self.kernel in _UPCAST_FLOAT32_KERNELS:
            # The chunk and its kernel block in float64; a sparse chunk's
            # copy holds only its nonzeros.
            row_values = X.nnz / max(X.shape[0], 1) if sp.issparse(X) else X.shape[1]
            bytes_per_row += int(8 * (np.ceil(row_values) + self.n_subsample_))
        return bytes_per_row

    def _chunk_state(self, dtype, n_jobs):
        """What every chunk of one ``transform`` call reads."""
        components = self.components_
        upcast = dtype == np.float32 and self.kernel in _UPCAST_FLOAT32_KERNELS
        if upcast:
            components = components.astype(np.float64)
        return dict(
            kernel_params=self._fitted_kernel_params(),
            projection=self.projection_.astype(dtype, copy=False),
            offset=self.offset_.astype(dtype, copy=False),
            components=components,
            upcast=upcast,
            n_jobs=n_jobs,
        )

    def _transform_chunk(self, X_chunk, out, state):
        if state["upcast"]:
            X_chunk = X_chunk.astype(np.float64)
        if self.kernel == "precomputed":
            block = X_chunk[:, self.component_indices_]
            block = block.toarray() if sp.issparse(block) else block
        else:
            block = _kernel_block(
                X_chunk, state["components"], self.kernel, state["kernel_params"],
                state["n_jobs"],
            )
        np.matmul(block.astype(out.dtype, copy=False), state["projection"], out=out)
        if self.center:
            out += state["offset"]

    def _get_kernel_params(self):
        """Keyword arguments of the kernel, from the parameters.

        ``gamma``, ``degree`` and ``coef0`` are passed only to the named
        kernels that take them; with a callable or precomputed kernel, setting
        them is an error (they would be silently ignored). A named kernel
        takes in ``kernel_params`` only its own parameters, each given once
        (in ``kernel_params`` or as the estimator's parameter) and valid as
        that parameter; a precomputed kernel takes none, a callable any.
        """
        params = dict(self.kernel_params or {})
        # gamma="scale" is resolved on the subsample (_resolve_gamma); until
        # then it is a default, which kernel_params may override.
        gamma = None if isinstance(self.gamma, str) else self.gamma
        named = {"gamma": gamma, "degree": self.degree, "coef0": self.coef0}
        if callable(self.kernel) or self.kernel == "precomputed":
            given = sorted(name for name, value in named.items() if value is not None)
            if given:
                raise ValueError(
                    f"{', '.join(given)} cannot be set with a callable or "
                    "precomputed kernel; pass a callable's arguments in "
                    "kernel_params."
                )
            if params and self.kernel == "precomputed":
                raise ValueError(
                    "kernel='precomputed' takes no kernel_params; got "
                    f"{sorted(map(repr, params))}."
                )
            return params
        accepted = sorted(KERNEL_PARAMS[self.kernel])
        for key, value in params.items():
            self._check_kernel_param(key, value, accepted, named.get(key))
        for name in accepted:
            if named[name] is not None:
                params[name] = named[name]
        return params

    def _resolve_gamma(self, components, kernel_params):
        """Set ``gamma_`` and return the kernel's parameters with it.

        ``gamma="scale"`` is ``1 / (n_features * var)`` of the subsample's
        cells for the kernels of ``_SCALE_GAMMA_KERNELS`` (unless
        ``kernel_params`` gives gamma); the subsample is what both ``fit``
        and ``partial_fit`` hold, a uniform sample of the rows seen. Any
        other gamma left to the kernel is made explicit, scikit-learn's
        default (``1 / n_features``, 1.0 for chi2), so that ``gamma_`` is
        the value used; None for a kernel without gamma.
        """
        takes_gamma = not callable(self.kernel) and "gamma" in KERNEL_PARAMS.get(
            self.kernel, ()
        )
        gamma = kernel_params.get("gamma")
        if gamma is None and takes_gamma:
            if self.gamma == "scale" and self.kernel in _SCALE_GAMMA_KERNELS:
                # Under assume_finite=True a NaN in the subsample makes gamma
                # NaN and the features NaN: what came in goes out, no error.
                gamma = scale_gamma(components) if all_finite(components) else np.nan
            else:
                gamma = 1.0 if self.kernel == "chi2" else 1.0 / components.shape[1]
            kernel_params = {**kernel_params, "gamma": gamma}
        self.gamma_ = None if gamma is None else float(gamma)
        return kernel_params

    def _fitted_kernel_params(self):
        """The kernel's parameters of ``transform``: those of the fit."""
        params = self._get_kernel_params()
        if self.gamma_ is not None:
            params["gamma"] = self.gamma_
        return params

    def _check_kernel_param(self, key, value, accepted, given):
        """Refuse a ``kernel_params`` entry the named kernel would ignore or misread."""
        kernel = self.kernel
        if key not in accepted:
            takes = ", ".join(accepted) if accepted else "no parameters"
            raise ValueError(
                f"kernel_params has {key!r}, which is not a parameter of "
                f"kernel={kernel!r} (it takes {takes})."
            )
        if given is not None:
            raise ValueError(
                f"{key} is given twice, as {key}={given!r} and in "
                f"kernel_params ({value!r}); set it once."
            )
        constraint = self._parameter_constraints[key][0]
        if value is not None and not constraint.is_satisfied_by(value):
            raise ValueError(
                f"kernel_params[{key!r}] of kernel={kernel!r} must be {constraint}; "
                f"got {value!r}."
            )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags
