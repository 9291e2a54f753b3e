"""The random map an estimator applies: the one object a ``transform`` runs.

An estimator of the package is its parameters, its docstring and one hook,
``_make_map``, which builds a :class:`SketchMap` from the validated training
data. :class:`~sklearn_sketch._base.BaseSketch` does the rest: it checks the
map's size before anything is drawn, has the map draw its randomness, and
runs its ``transform_chunk`` over chunks of rows, in threads, into the output.
Maps are plain objects, not estimators: a map may hold other maps (a sum of
polynomial sketches, a projection beside minwise codes), and no estimator
imports another to reuse one.
"""

from abc import ABCMeta, abstractmethod

import numpy as np

from ._sizing import product_gram
from .utils._chunking import MAX_CHUNK_MIB
from .utils._validation import overflow_error


class SketchMap(metaclass=ABCMeta):
    """A random feature map: its layout, its drawn state and its transform of a chunk.

    A subclass's ``__init__`` takes the sizes and parameters and computes the
    layout only (cheap, nothing drawn: the estimator's size check reads
    :meth:`state_bytes` and :meth:`bytes_per_row` first), and sets
    ``n_output``, the number of output features. :meth:`draw` then draws the
    random state.

    The class attributes tell the base how to run :meth:`transform_chunk`.

    A map that learns from its training rows batch by batch (KernelJL's
    subsample) sets ``streams`` and offers ``partial_fit(X)``: the estimator
    builds it in its ``_make_stream_map`` hook, its ``draw`` takes the first
    batch, and the base's ``partial_fit`` hands it every later one.

    A map whose ``array_api_support`` is True also offers
    :meth:`transform_array`: the transform of a whole input of another
    array namespace (torch, CuPy, array_api_strict) on its own device,
    which the base calls under scikit-learn's ``array_api_dispatch=True``.
    """

    #: Whether the output is a CSR matrix: then ``transform_chunk`` returns
    #: each chunk's CSR rows and ``output_indptr`` gives their row pointers
    #: beforehand.
    sparse_output = False
    #: Whether a row's features are the same bits in any chunk, so that chunks
    #: may be split further to give every job work. False where a chunk goes
    #: through a BLAS product, whose rounding depends on the shapes.
    exact_rows = True
    #: Cap on a chunk's temporaries in MiB (scikit-learn's ``working_memory``,
    #: if smaller, wins); the budgets live in ``utils._chunking``.
    chunk_mib = MAX_CHUNK_MIB
    #: Whether the ``n_jobs`` threads share the work of each chunk (the map
    #: runs them, from the number ``prepare`` is given) instead of
    #: transforming chunks side by side.
    jobs_share_chunks = False
    #: Whether the map learns batch by batch: the base's ``partial_fit`` then
    #: hands it every batch after the first (its ``partial_fit(X)``).
    streams = False
    #: The estimator's class name, for the messages; set by the base before
    #: :meth:`check`.
    owner = "SketchMap"
    #: Whether :meth:`transform_array` is implemented (for this map's
    #: parameters: a map may set it in ``__init__``). Without it, an input of
    #: another namespace than NumPy under ``array_api_dispatch=True`` is
    #: refused with an error saying that the estimator runs on the CPU.
    array_api_support = False
    #: Where ``array_api_support`` is False for some parameters or inputs
    #: only: what is not supported (for example "input wider than 4096
    #: features"), named in the error.
    array_api_refusal = None

    @abstractmethod
    def state_bytes(self, dtype):
        """Bytes of the drawn state and of the per-call state of ``prepare``."""

    @abstractmethod
    def bytes_per_row(self, dtype):
        """Temporary bytes one row needs while its chunk is transformed."""

    @abstractmethod
    def size_description(self):
        """What the size check counts, after the estimator's name, for its message.

        For example ``"n_components=100 and degree=2 (its random state and
        the transform of one row)"``.
        """

    @abstractmethod
    def draw(self, random_state, X):
        """Draw the random state from ``random_state`` (and read what it needs of ``X``)."""

    @abstractmethod
    def transform_chunk(self, X_chunk, out, state):
        """Write the features of ``X_chunk`` into ``out`` (sparse output: return them).

        Called from several threads at once with ``n_jobs``: ``state`` (from
        :meth:`prepare`) must be read-only or thread-local.
        """

    def check(self):
        """Refuse what the map cannot serve, before the size check and the draw.

        Called by the base once ``owner`` is set, so that the message names the
        estimator (for example an output too wide for sparse indices).
        """

    def transform_array(self, X, xp, device):
        """The features of the whole input ``X``, an array of namespace ``xp`` on ``device``.

        ``xp`` is the namespace as scikit-learn's ``get_namespace`` gives it
        (array_api_compat's wrapper for torch and CuPy, whose functions
        follow the standard's signatures).

        Called by the base under ``array_api_dispatch=True`` for an input of
        another namespace than NumPy, once validated: ``X`` is float32 or
        float64, of shape (n_samples, n_features_in). The random state stays
        as :meth:`draw` drew it, on the host; this method moves what it
        needs to the device, ``xp.asarray(host_array, device=device)`` in
        ``X``'s dtype, and may cache the moved arrays on the map, per
        namespace, device and dtype (dropped when the map is pickled). It
        uses only the array API standard's functions of ``xp`` (and
        ``xp.fft`` where the namespace has it): no compiled kernel, no
        SciPy, no NumPy on the device's arrays. The result equals the NumPy
        path's within float32 rounding.

        Returns
        -------
        features : array of namespace ``xp`` on ``device``, ``X``'s dtype,
            of shape (n_samples, n_output)
        """
        raise NotImplementedError(
            f"{self.owner} does not transform arrays of other namespaces than NumPy."
        )

    def fitted_attributes(self):
        """The estimator's public fitted attributes (names ending in ``_``) this map sets."""
        return {}

    def estimated_kernel(self, X):
        """What the inner products of the drawn map's features estimate, between rows of ``X``.

        The kernel the estimator's docstring states, with any offset the
        features carry by design (the b-bit codes' ``(1 - P) 2**-b``): the
        features' expectation, against which ``n_components="auto"`` and
        :func:`~sklearn_sketch.metrics.kernel_approximation_error` measure
        the error.

        Returns
        -------
        K : ndarray of shape (n_rows, n_rows), float64
        """
        raise NotImplementedError(f"{self.owner}'s features do not estimate a kernel.")

    def gram(self, Z):
        """``Z Z^T``, dense float64, of this map's output rows ``Z`` (a few rows).

        What pilot sketches and
        :func:`~sklearn_sketch.metrics.kernel_approximation_error` compare
        with the kernel; a map whose output has a structure that a product
        of matrices ignores computes it faster.
        """
        return product_gram(Z)

    def sizing_model(self, sample, build, random_state):
        """The :class:`~sklearn_sketch._sizing.SizingModel` of this sketch on ``sample``.

        The hook of ``n_components="auto"``: the predicted relative error of
        the Gram matrix against the size, from the family's variance formula
        on the sampled pairs or from pilots, maps ``build(n)`` of size ``n``
        drawn with seeds from ``random_state`` (see ``_sizing``).
        """
        raise NotImplementedError(f"{self.owner} does not size itself.")

    def input_bytes_per_row(self, X):
        """:meth:`bytes_per_row` for this input (a map may read its sparsity)."""
        return self.bytes_per_row(X.dtype)

    def prepare(self, X, n_jobs, n_chunks):
        """Per-call state shared by the chunks of one ``transform`` of ``X``."""
        return None

    def output_bytes_per_row(self, dtype):
        """Bytes of one row of the output (a sparse one: its entries and their indices)."""
        return self.n_output * np.dtype(dtype).itemsize

    def check_input(self, X):
        """Refuse, before any work, an input whose features cannot be computed.

        Called by the base at every ``transform``, with the validated
        input, before :meth:`prepare`: for example a polynomial sketch
        refuses rows whose features would exceed the range of their dtype at
        once, instead of after the work of every degree.
        """

    def check_chunk(self, X_chunk, out):
        """Check a transformed chunk of a dense output (say for overflow); raise if wrong."""

    def output_indptr(self, X):
        """Row pointers of the sparse output of ``X`` (``sparse_output`` only)."""
        raise NotImplementedError

    def width_advice(self):
        """How to narrow the output, for the error of ``get_feature_names_out``."""
        return "a smaller n_components"

    def moved_arrays(self, xp, device, dtype, build):
        """The host arrays ``build(host_dtype)`` as arrays of ``xp`` on ``device``.

        For :meth:`transform_array`: the drawn state lives on the host;
        ``build`` gets the NumPy dtype of ``dtype`` and returns a tuple of
        NumPy arrays (or None in their place), moved once per namespace,
        device and dtype, floating ones in ``dtype`` and integer ones as they
        are, then kept on the map (not pickled: they belong to the process
        and device that moved them).
        """
        key = (xp.__name__, str(device), str(dtype))
        moved = vars(self).setdefault("_moved", {})
        if key not in moved:
            moved[key] = tuple(
                None if array is None else xp.asarray(
                    array, dtype=dtype if array.dtype.kind == "f" else None, device=device
                )
                for array in build(host_dtype(dtype, xp))
            )
        return moved[key]

    def prepared(self, key, build):
        """``build()``, made at the first call with ``key`` and then kept on the map.

        For the per-call state of :meth:`prepare` that depends only on the
        drawn state and the input's dtype (a float32 copy of the weights,
        say): made once, not at every ``transform`` call, so that a call's
        cost beyond its rows' work does not grow with the model. Not pickled
        (made again where needed). A map whose drawn state changes after
        the draw (``partial_fit``) calls :meth:`forget_prepared`.
        """
        prepared = vars(self).setdefault("_prepared", {})
        if key not in prepared:
            prepared[key] = build()
        return prepared[key]

    def forget_prepared(self):
        """Drop what :meth:`prepared` and :meth:`moved_arrays` keep (the state changed)."""
        vars(self).pop("_prepared", None)
        vars(self).pop("_moved", None)

    def __getstate__(self):
        state = dict(vars(self))
        state.pop("_moved", None)
        state.pop("_prepared", None)
        return state

    def overflow_error(self, dtype, what, remedy):
        """The ValueError of a result beyond ``dtype`` (see ``overflow_error``)."""
        return overflow_error(self.owner, dtype, what, remedy)


def fit_bytes(sketch_map, dtype):
    """Bytes a model needs to transform one row: state, temporaries and output row."""
    return (
        sketch_map.state_bytes(dtype) + sketch_map.bytes_per_row(dtype)
        + sketch_map.output_bytes_per_row(dtype)
    )


def transform_bytes(sketch_map, X):
    """Bytes a transform of ``X`` needs beyond its chunks: state and whole output."""
    return (
        sketch_map.state_bytes(X.dtype)
        + X.shape[0] * sketch_map.output_bytes_per_row(X.dtype)
    )


def host_dtype(dtype, xp):
    """The NumPy dtype of the floating dtype ``dtype`` of namespace ``xp``."""
    return np.dtype(np.float32) if dtype == xp.float32 else np.dtype(np.float64)
