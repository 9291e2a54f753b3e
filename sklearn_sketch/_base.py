"""The abstract base of every estimator: one path from input to features.

:class:`BaseSketch` owns what all estimators share: parameter validation,
the input rules (``validate_features``), dask dispatch, the chunked and
parallel transform into a dense or sparse output, ``partial_fit``
bookkeeping, tags and feature names. A subclass declares only its fitted
state (``_fit``), its per-row memory (``_bytes_per_row``) and how a chunk of
rows is transformed (``_transform_chunk``), as scikit-learn's
``BaseRandomProjection`` does with ``_make_random_matrix``.
"""

from abc import ABCMeta, abstractmethod

import numpy as np
import scipy.sparse as sp
from joblib import effective_n_jobs
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
)
from sklearn.utils.validation import check_is_fitted

from .utils._chunking import (
    MAX_CHUNK_MIB,
    dense_transform,
    input_bytes_per_row,
    parallel_row_chunks,
    sparse_transform,
)
from .utils._compat import _fit_context
from .utils._dask import maybe_transform_dask
from .utils._validation import validate_features


class BaseSketch(
    ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator, metaclass=ABCMeta
):
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
        self._fit(validate_features(self, X, reset=True))
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
        X = validate_features(self, X, reset=False)
        n_jobs = effective_n_jobs(self.n_jobs)
        chunks = self._chunks(X, n_jobs)
        state = self._prepare_transform(X)
        if self._sparse_output:
            return sparse_transform(
                X, chunks, lambda X_chunk: self._transform_chunk(X_chunk, None, state),
                self._output_indptr(X), X.dtype, self._n_features_out, n_jobs,
            )

        def transform_chunk(X_chunk, out):
            # Non-finite values are detected once, on the result.
            with np.errstate(over="ignore", invalid="ignore"):
                self._transform_chunk(X_chunk, out, state)
            self._check_chunk(X_chunk, out)

        return dense_transform(
            X, chunks, transform_chunk, self._n_features_out, X.dtype, n_jobs
        )

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


def all_finite(X):
    """Whether every value of a dense or sparse chunk is finite."""
    return bool(np.isfinite(X.data if sp.issparse(X) else X).all())
