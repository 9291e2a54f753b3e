"""The abstract base of every estimator: one path from input to features.

:class:`BaseSketch` owns what all estimators share: parameter validation,
the input rules (``validate_features``), dask dispatch, the chunked and
parallel transform into a dense or sparse output, ``partial_fit``
bookkeeping, tags and feature names (refused, at once, beyond
``MAX_FEATURE_NAMES``). A subclass declares only its fitted
state (``_fit``), its per-row memory (``_bytes_per_row``) and how a chunk of
rows is transformed (``_transform_chunk``), as scikit-learn's
``BaseRandomProjection`` does with ``_make_random_matrix``.
"""

from abc import ABCMeta, abstractmethod

import numpy as np
import scipy.sparse as sp
from joblib import effective_n_jobs
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .utils._chunking import (
    MAX_CHUNK_MIB,
    dense_transform,
    input_bytes_per_row,
    parallel_row_chunks,
    sparse_transform,
)
from .utils._compat import _check_feature_names_in, _fit_context
from .utils._dask import maybe_transform_dask
from .utils._validation import finite_check, validate_features

# scikit-learn's feature names are Python strings in an object array (what
# check_estimator, pandas output and ColumnTransformer expect), each about
# 80 bytes: wider outputs (b_bits=16 and more in the hashers) get an error
# saying so instead of gigabytes of names or a bare MemoryError.
MAX_FEATURE_NAMES = 2**23
# Names are built by chunks, so that no list of all of them is held twice.
_NAMES_CHUNK = 2**16


class BaseSketch(TransformerMixin, BaseEstimator, metaclass=ABCMeta):
    """Base class of the sketching transformers.

    Warning: This class should not be used directly. Use derived classes
    instead.
    """

    #: Whether ``transform`` returns a CSR matrix; then ``_transform_chunk``
    #: returns each chunk's CSR rows and ``_output_indptr`` gives their
    #: nonzeros beforehand.
    _sparse_output = False
    #: Whether a row's features are the same bits in any chunk, so that
    #: chunks may be split further to give every job work. False where a
    #: chunk goes through a BLAS product, whose rounding depends on shapes.
    _exact_rows = True
    #: Cap on a chunk's temporaries in MiB (scikit-learn's working_memory,
    #: if smaller, wins).
    _max_chunk_mib = MAX_CHUNK_MIB
    #: Whether the ``n_jobs`` threads share the work of each chunk (the
    #: subclass's ``_transform_chunk`` runs its own threads, their number
    #: given by ``_prepare_transform``) instead of transforming chunks side
    #: by side.
    _jobs_share_chunks = False

    @abstractmethod
    def _fit(self, X):
        """Draw the random state from the validated ``X``; set ``_n_features_out``."""

    @abstractmethod
    def _bytes_per_row(self, dtype):
        """Temporary bytes one row needs while its chunk is transformed."""

    @abstractmethod
    def _transform_chunk(self, X_chunk, out, state):
        """Write the features of ``X_chunk`` into ``out`` (sparse output: return them).

        Called from several threads at once with ``n_jobs``: ``state`` (from
        ``_prepare_transform``) must be read-only or thread-local.
        """

    def _check_output_width(self):
        """Refuse, at fit, an output wider than its indices can be; raise ValueError.

        Called once ``n_features_in_`` is set, before ``_fit`` draws anything.
        """

    def _width_advice(self):
        """How to narrow the output, for the error of ``get_feature_names_out``."""
        return "a smaller n_components"

    def _prepare_transform(self, X):
        """Per-call state shared by the chunks of one ``transform`` call."""
        return None

    def _check_chunk(self, X_chunk, out):
        """Check a transformed chunk (for example for overflow); raise if wrong."""

    def _output_indptr(self, X):
        """Row pointers of the sparse output of ``X`` (``_sparse_output`` only)."""
        raise NotImplementedError

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fit the sketch to X: draw its randomness (and read what it needs of X).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.

        y : None
            Ignored.

        Returns
        -------
        self : object
            Fitted transformer.
        """
        X = validate_features(self, X, reset=True)
        self._check_output_width()
        self._fit(X)
        return self

    def partial_fit(self, X, y=None):
        """Fit on the first batch; check the number of features of later ones.

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
        """
        if not hasattr(self, "n_features_in_"):
            return self.fit(X)
        validate_features(self, X, reset=False)
        return self

    def transform(self, X):
        """Map X to the sketched features.

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array or DataFrame} of shape \
                (n_samples, n_features)
            Data to transform. A dask collection is transformed lazily,
            block by block.

        Returns
        -------
        X_new : {ndarray, csr_matrix} of shape (n_samples, n_features_out)
            The features, float32 for float32 input and float64 otherwise.
        """
        check_is_fitted(self)
        X_dask = maybe_transform_dask(self, X)
        if X_dask is not None:
            return X_dask
        # For a dense output, NaN and infinity are looked for chunk by chunk,
        # in the threads: a pass over the whole input before them would be
        # serial. The hashers check the whole input first (an O(nnz) pass
        # beside their output's k per row), since their _prepare_transform
        # reads the values.
        X = validate_features(self, X, reset=False, check_finite=self._sparse_output)
        check = None if self._sparse_output else finite_check(self)
        n_jobs = effective_n_jobs(self.n_jobs)
        chunks = self._chunks(X, n_jobs)
        state = self._prepare_transform(X)
        if self._jobs_share_chunks:
            n_jobs = 1
        if self._sparse_output:
            return sparse_transform(
                X, chunks, lambda X_chunk: self._transform_chunk(X_chunk, None, state),
                self._output_indptr(X), X.dtype, self._n_features_out, n_jobs,
            )

        def transform_chunk(X_chunk, out):
            if check is not None:
                check(X_chunk)
            # Non-finite values are detected once, on the result.
            with np.errstate(over="ignore", invalid="ignore"):
                self._transform_chunk(X_chunk, out, state)
            self._check_chunk(X_chunk, out)

        return dense_transform(
            X, chunks, transform_chunk, self._n_features_out, X.dtype, n_jobs
        )

    def get_feature_names_out(self, input_features=None):
        """Get output feature names for transformation.

        The names are the lowercased class name followed by the column
        number: ``["corehasher0", "corehasher1", ...]``.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Only used to validate feature names with the names seen in `fit`.

        Returns
        -------
        feature_names_out : ndarray of str objects
            Transformed feature names.

        Raises
        ------
        ValueError
            If the output has more than ``MAX_FEATURE_NAMES = 2**23`` columns
            (see Notes).

        Notes
        -----
        Each name is a Python string in an object array, as scikit-learn
        requires, so names cost memory in proportion to the output's width.
        Names are built for at most ``2**23`` (8,388,608) output columns;
        a wider output, such as that of a hasher with ``b_bits=16`` and 512
        hashes, has no feature names: reduce its width, or address its
        columns by position (pandas or polars output through ``set_output``,
        which needs the names, is not possible at that width).
        """
        check_is_fitted(self, "_n_features_out")
        _check_feature_names_in(self, input_features, generate_names=False)
        n_names = self._n_features_out
        if n_names > MAX_FEATURE_NAMES:
            raise ValueError(
                f"{type(self).__name__} has {n_names} output features; feature "
                f"names are built for at most {MAX_FEATURE_NAMES} (each is a "
                f"Python string). Use {self._width_advice()}, or address the "
                "output columns by position: set_output(transform='pandas') is "
                "not possible at this width."
            )
        return prefixed_names(type(self).__name__.lower(), n_names)

    def _chunks(self, X, n_jobs):
        """Row chunks of ``X`` whose temporaries fit the chunk budget."""
        bytes_per_row = self._input_bytes_per_row(X) + input_bytes_per_row(X)
        return parallel_row_chunks(
            X.shape[0], bytes_per_row, n_jobs, self._exact_rows,
            max_chunk_mib=self._chunk_budget_mib(n_jobs),
        )

    def _input_bytes_per_row(self, X):
        """``_bytes_per_row`` for this input (a subclass may read its sparsity)."""
        return self._bytes_per_row(X.dtype)

    def _chunk_budget_mib(self, n_jobs):
        return self._max_chunk_mib

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags


def prefixed_names(prefix, n_names):
    """Object array of the strings ``prefix + str(i)`` for ``i < n_names``."""
    names = np.empty(n_names, dtype=object)
    for start in range(0, n_names, _NAMES_CHUNK):
        stop = min(start + _NAMES_CHUNK, n_names)
        names[start:stop] = [f"{prefix}{i}" for i in range(start, stop)]
    return names


def all_finite(X):
    """Whether every value of a dense or sparse chunk is finite."""
    return bool(np.isfinite(X.data if sp.issparse(X) else X).all())
