"""The abstract base of every estimator: one path from input to features.

:class:`BaseSketch` owns what all estimators share: parameter validation,
the input rules (``validate_features``), the one size check (an impossible
model fails at once, naming the memory it would need), dask dispatch, the
chunked and parallel transform into a dense or sparse output,
``partial_fit`` bookkeeping, tags and feature names (refused, at once,
beyond ``MAX_FEATURE_NAMES``), the size of the sketch (``n_components="auto"``
with ``eps``, chosen by ``_sizing.auto_size`` through the map's
``sizing_model`` hook, and the fitted ``n_components_`` and
``expected_error_``), and scikit-learn's array API dispatch: under
``array_api_dispatch=True`` an input of another namespace than NumPy is fit
on the host and transformed on its device by the map's ``transform_array``
(see ``utils._array_api``). A subclass states its parameters and builds
its :class:`~sklearn_sketch._map.SketchMap` of a given size in one hook,
``_make_map``, as scikit-learn's ``BaseRandomProjection`` subclasses fill
``_make_random_matrix``.
"""

from abc import ABCMeta, abstractmethod
from contextlib import contextmanager
from numbers import Real

import numpy as np
from joblib import effective_n_jobs
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, validate_data

from ._map import fit_bytes, host_dtype, transform_bytes
from ._sizing import auto_size
from .utils._chunking import (
    DEVICE_CHUNK_MIB,
    check_allocation,
    dense_transform,
    input_bytes_per_row,
    parallel_row_chunks,
    row_chunks,
    sparse_transform,
)
from .utils._array_api import (
    check_same_namespace,
    device_namespace,
    dispatch_enabled,
    float_dtypes,
    namespace_and_device,
    picklable_state,
    to_device,
    to_host,
)
from .utils._compat import Interval, StrOptions, _check_feature_names_in, _fit_context
from .utils._dask import maybe_transform_dask
from .utils._validation import finite_check, positive_int, validate_features

# scikit-learn's feature names are Python strings in an object array (what
# check_estimator, pandas output and ColumnTransformer expect), each about
# 80 bytes: wider outputs (b_bits=16 and more in the hashers) get an error
# saying so instead of gigabytes of names or a bare MemoryError.
MAX_FEATURE_NAMES = 2**23
# Names are built by chunks, so that no list of all of them is held twice.
_NAMES_CHUNK = 2**16

#: The constraints of ``n_components`` and ``eps`` of an estimator that sizes
#: itself (``n_components="auto"``, see ``_sizing``).
AUTO_SIZE_CONSTRAINTS = {
    "n_components": [positive_int(), StrOptions({"auto"})],
    "eps": [Interval(Real, 0, 1, closed="neither")],
}
#: The fitted attributes of the size, set by every fit.
_SIZE_ATTRIBUTES = ("n_components_", "expected_error_")


class BaseSketch(TransformerMixin, BaseEstimator, metaclass=ABCMeta):
    """Base class of the sketching transformers.

    Warning: This class should not be used directly. Use derived classes
    instead.
    """

    #: The ``array_api_support`` tag: whether the estimator's maps implement
    #: ``transform_array`` (a subclass may make it a property of its
    #: parameters). A map that does not for some input (say input hashed
    #: down) still refuses it under dispatch, with a clear error.
    _array_api_support = False

    #: Why ``n_components="auto"`` is refused (a message), for an estimator
    #: whose features do not estimate its kernel; None: it sizes itself.
    _auto_size_refusal = None

    @abstractmethod
    def _make_map(self, X, n_components):
        """The map of this estimator with ``n_components`` for the training data ``X``.

        Only the layout is computed (nothing drawn): the base checks the
        map's size, then has it draw its random state (see
        :class:`~sklearn_sketch._map.SketchMap`). ``n_components`` is the
        parameter, or the size ``n_components="auto"`` chose; the sizing
        also builds maps of other sizes, as pilots.
        """

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
        with self._refitting():
            X, target = self._host_input(X, reset=True)
            size = self._choose_size(X)
            self._draw_map(self._make_map(X, size[0]), X, target, size)
        return self

    def __sklearn_is_fitted__(self):
        # What transform checks: scikit-learn's check_is_fitted (and a
        # Pipeline ending in the estimator) then says what transform does.
        return "_map" in vars(self)

    def _choose_size(self, X):
        """``(n_components_, expected_error_)`` for the validated training rows ``X``.

        An int ``n_components`` is used as it is, with no prediction (None);
        ``"auto"`` is sized from ``eps`` on a sample of ``X`` (see
        ``_sizing.auto_size``), or refused where the features do not
        estimate the kernel.
        """
        if self.n_components != "auto":
            return self.n_components, None
        if self._auto_size_refusal is not None:
            raise ValueError(
                f"{type(self).__name__} does not take n_components='auto': "
                f"{self._auto_size_refusal}"
            )
        return auto_size(self, X)

    @contextmanager
    def _refitting(self):
        """Forget the former fit; if the new one fails, forget what it set.

        A fit that fails (a size refused, a value rejected, an error while
        drawing) then leaves an unfitted estimator, never the former map
        under the new input's width, nor the refused input's
        ``n_features_in_`` and ``feature_names_in_``; and a fit never keeps
        attributes that only the former map had.
        """
        self._forget_map()
        before = set(vars(self))
        try:
            yield
        except BaseException:
            for name in set(vars(self)) - before:
                del vars(self)[name]
            raise

    def _forget_map(self):
        """Drop the fitted map, what it published and the input's attributes."""
        former = vars(self).pop("_map", None)
        fitted = ["n_features_in_", "feature_names_in_", "_n_features_out", "_fit_namespace"]
        if former is not None:
            fitted += [*former.fitted_attributes(), *_SIZE_ATTRIBUTES]
        for name in fitted:
            vars(self).pop(name, None)

    def _host_input(self, X, *, reset):
        """The validated input on the host, and ``(xp, device)`` of an array API input.

        Under ``array_api_dispatch=True`` an array of another namespace than
        NumPy is brought to the host (fits draw there, whatever the device);
        the target is then its namespace and device, where the fitted
        attributes go. Otherwise the target is None and nothing changes.
        """
        target = device_namespace(X)
        if target is not None:
            X = to_host(X, target[0])
        return validate_features(self, X, reset=reset), target

    def _draw_map(self, sketch_map, X, target, size):
        """Check the size of ``sketch_map``, then draw it and publish its attributes.

        ``target``: the ``(xp, device)`` of an array API training input
        (see :meth:`_host_input`), or None; ``size``: ``(n_components_,
        expected_error_)`` (see :meth:`_choose_size`).
        """
        sketch_map.owner = type(self).__name__
        sketch_map.check()
        if target is not None:
            self._check_array_api_map(sketch_map, target[0])
        check_allocation(
            fit_bytes(sketch_map, X.dtype),
            f"{type(self).__name__} with {sketch_map.size_description()}",
        )
        sketch_map.draw(check_random_state(self.random_state), X)
        self._publish(sketch_map.fitted_attributes(), target)
        vars(self).update(zip(_SIZE_ATTRIBUTES, size))
        # The namespace and device of the training data, which the inputs of
        # transform share under dispatch: an empty array there (a NumPy fit
        # keeps none), which scikit-learn's move_estimator_to moves with the
        # fitted attributes.
        if target is not None:
            xp, device = target
            self._fit_namespace = xp.zeros((0,), device=device)
        self._map = sketch_map
        self._n_features_out = sketch_map.n_output

    def __getstate__(self):
        # A copy: object.__getstate__ returns the instance's own __dict__.
        return picklable_state(dict(super().__getstate__()))

    def _publish(self, attributes, target):
        """Set the fitted ``attributes``, their arrays moved to ``target`` (if not None)."""
        if target is not None:
            xp, device = target
            attributes = {
                name: to_device(value, xp, device) for name, value in attributes.items()
            }
        vars(self).update(attributes)

    def _fitted_namespace(self):
        """``(namespace name, device)`` of the training data (NumPy: ``("numpy", None)``)."""
        anchor = vars(self).get("_fit_namespace")
        return ("numpy", None) if anchor is None else namespace_and_device(anchor)

    def _check_array_api_map(self, sketch_map, xp):
        """Raise a clear ValueError unless ``sketch_map`` transforms arrays of ``xp``."""
        if sketch_map.array_api_support:
            return
        reason = getattr(sketch_map, "array_api_refusal", None)
        name = type(self).__name__
        raise ValueError(
            f"{name}{f' ({reason})' if reason else ''} runs on NumPy arrays and "
            "SciPy sparse matrices only, on the CPU: it cannot take an array of "
            f"namespace {xp.__name__} under array_api_dispatch=True. Pass the data "
            "as a NumPy array (moved to the CPU), or disable array_api_dispatch."
        )

    #: The hook that builds the map ``partial_fit`` grows batch by batch,
    #: ``_make_stream_map(X)`` from the validated first batch ``X``, for an
    #: estimator that learns from its training rows: the map is checked and
    #: drawn as in ``fit`` (its ``draw`` takes the first batch), and each
    #: later batch goes to its ``partial_fit(X)``. None: the first batch
    #: fits, as ``fit`` does, and later batches are only checked.
    _make_stream_map = None

    def _partial_fit_available(self):
        # The columns of a precomputed kernel are the training rows of one
        # batch: the kernel between rows of different batches is unknown.
        if self.__sklearn_tags__().input_tags.pairwise:
            raise AttributeError(
                f"{type(self).__name__} has no partial_fit on a precomputed "
                "kernel: the kernel between rows of different batches is "
                "unknown. Use fit."
            )
        return True

    @available_if(_partial_fit_available)
    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None):
        """Fit on a batch of training data.

        Most sketches fit on the first batch, as ``fit`` does (with
        ``n_components="auto"``, the size is chosen on the first batch),
        and check the number of features of later ones. A sketch that keeps a sample of
        its training rows (KernelJL) updates it with every batch, as its
        Notes describe; ``partial_fit`` after ``fit`` then starts afresh.

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
        stream = vars(self).get("_map")
        if getattr(stream, "streams", False):
            check_same_namespace(self, X, self._fitted_namespace(), "partial_fit")
            X, target = self._host_input(X, reset=False)
            stream.partial_fit(X)
            self._publish(stream.fitted_attributes(), target)
        elif self._make_stream_map is not None:
            with self._refitting():
                X, target = self._host_input(X, reset=True)
                size = self._choose_size(X)
                self._draw_map(self._make_stream_map(X), X, target, size)
        elif stream is None:
            return self.fit(X)
        else:
            check_same_namespace(self, X, self._fitted_namespace(), "partial_fit")
            self._host_input(X, reset=False)
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
            Under ``sklearn.set_config(array_api_dispatch=True)``, for an
            estimator with the ``array_api_support`` tag, an array of another
            namespace (torch, CuPy, ...) gives an array of that namespace on
            its device; the estimator must have been fit on that namespace
            and device.
        """
        check_is_fitted(self, "_map")
        X_dask = maybe_transform_dask(self, X)
        if X_dask is not None:
            return X_dask
        sketch_map = self._map
        if dispatch_enabled():
            target = device_namespace(X)
            if target is not None:
                self._check_array_api_map(sketch_map, target[0])
            check_same_namespace(self, X, self._fitted_namespace(), "transform")
            if target is not None:
                return self._transform_array(X, *target)
        sparse = sketch_map.sparse_output
        # For a dense output, NaN and infinity are looked for chunk by chunk,
        # in the threads: a pass over the whole input before them would be
        # serial. A sparse output is built from its chunks' CSR pieces, with
        # no per-chunk check: the whole input is checked first (an O(nnz)
        # pass beside the output's k entries per row).
        X = validate_features(self, X, reset=False, check_finite=sparse)
        # What cannot succeed fails here, before any work: an output larger
        # than the machine's memory, or features beyond the dtype's range.
        check_allocation(
            transform_bytes(sketch_map, X),
            f"{type(self).__name__}.transform of {X.shape[0]} rows into "
            f"{sketch_map.n_output} {'sparse ' if sparse else ''}{X.dtype} features",
            "Transform fewer rows at a time, or reduce n_components or the "
            "other size parameters",
        )
        sketch_map.check_input(X)
        n_jobs = effective_n_jobs(self.n_jobs)
        # The threads transform chunks side by side, unless the map shares
        # each chunk's work among them itself.
        chunk_jobs = 1 if sketch_map.jobs_share_chunks else n_jobs
        chunks = parallel_row_chunks(
            X.shape[0], sketch_map.input_bytes_per_row(X) + input_bytes_per_row(X),
            chunk_jobs, sketch_map.exact_rows, max_chunk_mib=sketch_map.chunk_mib,
        )
        state = sketch_map.prepare(X, n_jobs, len(chunks))
        if sparse:
            return sparse_transform(
                X, chunks, lambda X_chunk: sketch_map.transform_chunk(X_chunk, None, state),
                sketch_map.output_indptr(X), X.dtype, sketch_map.n_output, chunk_jobs,
            )
        check = finite_check(self)

        def transform_chunk(X_chunk, out):
            if check is not None:
                check(X_chunk)
            # Non-finite values are detected once, on the result.
            with np.errstate(over="ignore", invalid="ignore"):
                sketch_map.transform_chunk(X_chunk, out, state)
            sketch_map.check_chunk(X_chunk, out)

        return dense_transform(
            X, chunks, transform_chunk, sketch_map.n_output, X.dtype, chunk_jobs
        )

    def _transform_array(self, X, xp, device):
        """The transform of an array API input ``X`` on its ``device``, by the map."""
        # scikit-learn's checks on the device: number of features (and
        # names), NaN and infinity unless assume_finite, float32 and float64
        # kept, other dtypes cast to float64 (float32 where the device has
        # no float64).
        X = validate_data(self, X, reset=False, dtype=float_dtypes(xp, device))
        n_rows, n_output = X.shape[0], self._map.n_output
        # Chunks of rows bound the device memory the temporaries take: a
        # few copies of the chunk's output rows, and of its input rows (the
        # Count Sketches' signed or padded copies) where the input is wide.
        itemsize = np.dtype(host_dtype(X.dtype, xp)).itemsize
        row_bytes = (X.shape[1] + n_output) * itemsize
        chunks = list(row_chunks(n_rows, row_bytes, max_chunk_mib=DEVICE_CHUNK_MIB))
        # As in the chunks of the NumPy path: overflow is detected on the
        # result (a namespace backed by NumPy would warn first).
        with np.errstate(over="ignore", invalid="ignore"):
            if len(chunks) <= 1:
                return self._map.transform_array(X, xp, device)
            out = xp.empty((n_rows, n_output), dtype=X.dtype, device=device)
            for chunk in chunks:
                out[chunk, ...] = self._map.transform_array(X[chunk, ...], xp, device)
            return out

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
        check_is_fitted(self, "_map")
        _check_feature_names_in(self, input_features, generate_names=False)
        n_names = self._n_features_out
        if n_names > MAX_FEATURE_NAMES:
            raise ValueError(
                f"{type(self).__name__} has {n_names} output features; feature "
                f"names are built for at most {MAX_FEATURE_NAMES} (each is a "
                f"Python string). Use {self._map.width_advice()}, or address the "
                "output columns by position: set_output(transform='pandas') is "
                "not possible at this width."
            )
        return prefixed_names(type(self).__name__.lower(), n_names)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.array_api_support = bool(self._array_api_support)
        return tags


def prefixed_names(prefix, n_names):
    """Object array of the strings ``prefix + str(i)`` for ``i < n_names``."""
    names = np.empty(n_names, dtype=object)
    for start in range(0, n_names, _NAMES_CHUNK):
        stop = min(start + _NAMES_CHUNK, n_names)
        names[start:stop] = [f"{prefix}{i}" for i in range(start, stop)]
    return names

