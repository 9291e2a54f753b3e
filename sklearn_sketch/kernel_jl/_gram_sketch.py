"""The K-JL map: a Gaussian sketch of the Gram matrix of a subsample.

:class:`GramSketchMap` draws a uniform subsample ``x_1, ..., x_n`` of the
training rows and a Gaussian ``Z`` of shape ``(n_components, n)``, and
sketches the subsample's Gram matrix ``K`` (double-centered with
``center``) as ``W = sqrt(n) K Z^T / ||K||_F^2``; a row ``x`` maps to
``k_x^T W`` (plus the offset of the centering), with ``k_x`` its kernel
values against the subsample. :class:`StreamedGramSketchMap` keeps the
subsample of a stream of batches by reservoir sampling instead, and sketches
it again after every batch.
"""

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn import config_context
from sklearn.metrics.pairwise import pairwise_kernels

from .._map import SketchMap, host_dtype
from ..utils._chunking import KERNEL_CHUNK_MIB, check_allocation
from ..utils._incremental import RowReservoir
from ..utils._validation import all_finite, canonical_csr
from ._kernel_blocks import DENSE_ONLY_KERNELS, kernel_block
from ._kernel_params import kernel_params, resolve_gamma

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

# Relative size (Frobenius norms) under which a centered Gram matrix counts
# as zero: the features inherit the kernel values' rounding (eps) divided by
# this size, so below it they would be mostly rounding (above 1e-6 relative).
_NEGLIGIBLE_CENTERED = 1e-10

_OVERFLOW_REMEDY = "Scale the input down, or lower the kernel's parameters"

# Kernels whose array API evaluation in scikit-learn broadcasts every pair of
# rows over the features (an n x n_subsample x n_features temporary, or
# blocks of 1024 x 1024 rows of it). transform_array evaluates them on
# blocks of rows whose temporaries take about _ARRAY_BLOCK_BYTES each.
_BROADCAST_KERNELS = frozenset({"laplacian", "chi2", "additive_chi2"})
_ARRAY_BLOCK_BYTES = 2**30
# Temporaries of that size the broadcast kernels hold at once (difference,
# its square or absolute value, the sums and ratios of chi2).
_BROADCAST_COPIES = 3


class GramSketchMap(SketchMap):
    """K-JL features of a uniform subsample of the training data ``X``.

    Parameters
    ----------
    X : {ndarray, csr_matrix} of shape (n_samples, n_features)
        The validated training data (for a precomputed kernel, its square
        Gram matrix).
    params : dict
        The estimator's parameters (``get_params()``).
    """

    # A chunk goes through BLAS products, whose rounding depends on the
    # shape: keep the chunks of one job, and so the same output.
    exact_rows = False
    chunk_mib = KERNEL_CHUNK_MIB

    def __init__(self, X, params):
        n_samples = X.shape[0]
        self._read_parameters(X, params)
        if self.kernel == "precomputed" and X.shape[1] != n_samples:
            raise ValueError(
                "With kernel='precomputed', fit expects the square Gram matrix "
                f"of the training data; got X of shape {X.shape}."
            )
        n_subsample = params["n_subsample"]
        if n_subsample > n_samples:
            warnings.warn(
                f"n_subsample={n_subsample} is larger than n_samples={n_samples}; "
                f"the subsample is the whole training set (n_subsample_={n_samples}).",
                UserWarning,
            )
            n_subsample = n_samples
        self.n_subsample = n_subsample

    def _read_parameters(self, X, params):
        """The kernel, its checked parameters and the sizes the size check reads."""
        self.kernel, self.center = params["kernel"], params["center"]
        self.n_output, self.n_jobs = params["n_components"], params["n_jobs"]
        self.gamma = params["gamma"]
        # On a device the kernel values come from scikit-learn's array API
        # pairwise kernels: every named kernel, on dense data. A callable
        # kernel, a precomputed one and sparse data stay on the CPU.
        self.array_api_support = not (
            callable(self.kernel) or self.kernel == "precomputed" or sp.issparse(X)
        )
        self.kernel_params = kernel_params(
            self.kernel, self.gamma, params["degree"], params["coef0"],
            params["kernel_params"],
        )
        itemsize = X.dtype.itemsize
        if sp.issparse(X):
            self.row_bytes = X.nnz / max(X.shape[0], 1) * (itemsize + 8)
        else:
            self.row_bytes = X.shape[1] * itemsize
        self.dense_pairs = None
        if self.kernel in DENSE_ONLY_KERNELS and sp.issparse(X):
            # The smallest dense blocks, one row from each side, span the
            # union of the two rows' nonzero columns.
            width = min(X.shape[1], 2 * int(np.diff(X.indptr).max(initial=0)))
            self.dense_pairs = (width, X.shape[1])

    def check(self):
        # A dense-only kernel on sparse rows densifies pairs of rows: refused
        # at once where even two such rows would not fit in memory.
        if self.dense_pairs is not None:
            width, n_features = self.dense_pairs
            check_allocation(
                2 * 8 * width,
                f"{self.owner} with kernel={self.kernel!r}, which scikit-learn "
                f"evaluates on dense data only, on pairs of rows densified over up "
                f"to {width} of the {n_features} columns",
            )

    def state_bytes(self, dtype):
        """``Z``, the Gram matrix and its centered copy, ``W`` twice, the subsample."""
        d, n = self.n_output, self.n_subsample
        return 8 * (d * n + 2 * n**2 + 2 * n * d) + n * self.row_bytes

    def bytes_per_row(self, dtype):
        n_values = _KERNEL_BLOCK_COPIES * self.n_subsample + self.n_output
        return n_values * np.dtype(dtype).itemsize

    def input_bytes_per_row(self, X):
        bytes_per_row = self.bytes_per_row(X.dtype)
        if X.dtype == np.float32 and self.kernel in _UPCAST_FLOAT32_KERNELS:
            # The chunk and its kernel block in float64; a sparse chunk's
            # copy holds only its nonzeros.
            row_values = X.nnz / max(X.shape[0], 1) if sp.issparse(X) else X.shape[1]
            bytes_per_row += int(8 * (np.ceil(row_values) + self.n_subsample))
        return bytes_per_row

    def size_description(self):
        d, n = self.n_output, self.n_subsample
        return (
            f"n_components={d} and a subsample of {n} rows (Z of {d} x {n}, "
            f"W of {n} x {d}, Gram matrix of {n} x {n})"
        )

    def draw(self, random_state, X):
        """Draw the subsample and ``Z``, and sketch the subsample's Gram matrix."""
        n_samples, n_subsample = X.shape[0], self.n_subsample
        # Sorted, so that the subsample keeps the order of the training data
        # (and is the training set itself when n_subsample == n_samples).
        indices = np.sort(
            random_state.choice(n_samples, size=n_subsample, replace=False)
        )
        gaussian = random_state.standard_normal(size=(self.n_output, n_subsample))
        components = X[indices]
        if sp.issparse(components):
            # Row selection may widen the indices to int64 for a wide X.
            components = canonical_csr(components)
        self.components, self.indices, self.n_seen = components, indices, n_samples
        self._sketch(gaussian, X.dtype)

    def fitted_attributes(self):
        return {
            "gamma_": self.gamma_,
            "components_": self.components,
            "component_indices_": self.indices,
            "projection_": self.projection,
            "offset_": self.offset,
            "n_subsample_": self.n_subsample,
            "n_samples_seen_": self.n_seen,
        }

    def _sketch(self, gaussian, dtype):
        """Sketch the subsample's Gram matrix with ``Z = gaussian``, resolving gamma."""
        params, self.gamma_ = resolve_gamma(
            self.kernel, self.gamma, self.components, self.kernel_params
        )
        if self.kernel == "precomputed":
            # The subsample's rows of the training Gram matrix, at its columns.
            gram = self.components[:, self.indices]
            gram = gram.toarray() if sp.issparse(gram) else gram
        else:
            with np.errstate(over="ignore", invalid="ignore"):
                gram = kernel_block(
                    self.components, None, self.kernel, params, self.n_jobs
                )
            # With assume_finite=True a NaN that came in goes out as it is,
            # and is no overflow.
            if not np.isfinite(gram).all() and all_finite(self.components):
                raise self.overflow_error(
                    gram.dtype, "the kernel values of the subsample", _OVERFLOW_REMEDY
                )
        self.projection, self.offset = self._sketch_gram(gram, gaussian, dtype)
        # Prepared copies, and arrays moved to a device, hold the former
        # subsample and sketch.
        self.forget_prepared()

    def _sketch_gram(self, gram, gaussian, dtype):
        """``W`` and the offset, from the Gram matrix and ``Z``.

        ``W = sqrt(n) K Z^T / ||K||_F^2``, with ``K`` double-centered when
        ``center=True``. Computed in float64 whatever the input dtype (an
        ``O(n^2 d)`` product, small next to the Gram matrix), returned in
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
            offset = np.zeros(self.n_output)
        with np.errstate(over="ignore"):
            projection = unit_projection / peak if peak > 0 else unit_projection
            projection, offset = projection.astype(dtype), offset.astype(dtype)
        if np.isfinite(gram).all() and not (
            np.isfinite(projection).all() and np.isfinite(offset).all()
        ):
            raise self.overflow_error(
                dtype, "the sketched kernel values of the subsample", _OVERFLOW_REMEDY
            )
        return projection, offset

    def _transform_params(self):
        """The kernel's parameters in ``transform``, with the gamma of the fit."""
        params = dict(self.kernel_params)
        if self.gamma_ is not None:
            params["gamma"] = self.gamma_
        return params

    def prepare(self, X, n_jobs, n_chunks):
        """What every chunk of one ``transform`` call reads."""
        dtype = np.dtype(X.dtype)
        upcast = dtype == np.float32 and self.kernel in _UPCAST_FLOAT32_KERNELS
        return dict(
            self.prepared(("dtype", dtype), lambda: self._dtype_state(dtype, upcast)),
            kernel_params=self._transform_params(),
            upcast=upcast,
            # Threads share the work across row chunks when there are
            # several; otherwise pairwise_kernels shares one chunk's block.
            n_jobs=n_jobs if n_chunks == 1 else None,
        )

    def _dtype_state(self, dtype, upcast):
        """The subsample, ``W`` and the offset as the transforms of ``dtype`` read them."""
        return dict(
            components=self.components.astype(np.float64) if upcast else self.components,
            projection=self.projection.astype(dtype, copy=False),
            offset=self.offset.astype(dtype, copy=False),
        )

    def transform_chunk(self, X_chunk, out, state):
        if state["upcast"]:
            X_chunk = X_chunk.astype(np.float64)
        if self.kernel == "precomputed":
            block = X_chunk[:, self.indices]
            block = block.toarray() if sp.issparse(block) else block
        else:
            block = kernel_block(
                X_chunk, state["components"], self.kernel, state["kernel_params"],
                state["n_jobs"],
            )
        np.matmul(block.astype(out.dtype, copy=False), state["projection"], out=out)
        if self.center:
            out += state["offset"]

    def transform_array(self, X, xp, device):
        """The features of the whole array ``X`` of namespace ``xp`` on ``device``.

        The kernel values against the subsample come from scikit-learn's
        :func:`~sklearn.metrics.pairwise.pairwise_kernels` under
        ``array_api_dispatch``, in ``X``'s dtype (for float32, scikit-learn
        computes the Euclidean distances of the RBF kernel in the device's
        widest float, as the NumPy path's upcast does); then
        ``block @ W + offset`` as in :meth:`transform_chunk`. The subsample,
        ``W`` and the offset are moved to the device once.
        """
        # The subsample, W and the offset on the device; moved again when
        # the subsample changes (a partial_fit forgets them).
        components, projection, offset = self.moved_arrays(
            xp, device, X.dtype, lambda dtype: (self.components, self.projection, self.offset)
        )
        # Python numbers: a namespace may refuse NumPy scalars beside its arrays.
        params = {
            name: value.item() if isinstance(value, np.generic) else value
            for name, value in self._transform_params().items()
        }
        blocks = []
        # errstate: a namespace computing with NumPy (array_api_strict) would
        # warn of an overflow, which is reported below as the NumPy path does.
        with config_context(array_api_dispatch=True), np.errstate(
            over="ignore", invalid="ignore"
        ):
            for rows in self._array_row_blocks(X, xp):
                block = pairwise_kernels(
                    X[rows, ...], components, metric=self.kernel, filter_params=True,
                    **params,
                )
                blocks.append(xp.astype(block, X.dtype, copy=False) @ projection)
            out = blocks[0] if len(blocks) == 1 else xp.concat(blocks, axis=0)
            if self.center:
                out = out + offset
        if not bool(xp.all(xp.isfinite(out))) and bool(xp.all(xp.isfinite(X))) and (
            all_finite(self.components)
        ):
            raise self.overflow_error(
                host_dtype(X.dtype, xp), "the features of the input", _OVERFLOW_REMEDY
            )
        return out

    def _array_row_blocks(self, X, xp):
        """Row slices of ``X`` for :meth:`transform_array`: one, or bounded blocks."""
        n_rows = X.shape[0]
        if self.kernel not in _BROADCAST_KERNELS:
            return [slice(0, n_rows)]
        itemsize = host_dtype(X.dtype, xp).itemsize
        pair_bytes = _BROADCAST_COPIES * self.n_subsample * X.shape[1] * itemsize
        size = max(1, _ARRAY_BLOCK_BYTES // max(pair_bytes, 1))
        starts = range(0, n_rows, size)
        return [slice(start, min(start + size, n_rows)) for start in starts]

    def check_chunk(self, X_chunk, out):
        # Under assume_finite=True a NaN may also come from the subsample.
        if (
            not np.isfinite(out).all()
            and all_finite(X_chunk)
            and all_finite(self.components)
        ):
            raise self.overflow_error(
                out.dtype, "the features of the input", _OVERFLOW_REMEDY
            )



class StreamedGramSketchMap(GramSketchMap):
    """K-JL features of a reservoir subsample of a stream of batches.

    ``Z`` is drawn once, for the ``n_subsample`` slots of the reservoir;
    after each batch the subsample's Gram matrix is sketched again with the
    first ``n = n_subsample_`` columns of ``Z``.

    Parameters
    ----------
    X : {ndarray, csr_matrix} of shape (n_samples, n_features)
        The validated first batch.
    params : dict
        The estimator's parameters (``get_params()``).
    """

    streams = True

    def __init__(self, X, params):
        self._read_parameters(X, params)
        # The stream's length is unknown: the size check counts every slot.
        # After each batch, n_subsample is the number of rows held.
        self.n_slots = self.n_subsample = params["n_subsample"]

    def draw(self, random_state, X):
        """Draw ``Z`` for every slot, and take the first batch ``X``."""
        self.gaussian = random_state.standard_normal(size=(self.n_output, self.n_slots))
        self.reservoir = RowReservoir(self.n_slots, X[:0], random_state)
        self._offer(X, first=True)

    def partial_fit(self, X):
        """Offer the rows of ``X`` to the reservoir, and sketch the subsample again."""
        self._offer(X, first=False)

    def _offer(self, X, first):
        reservoir = self.reservoir
        replaced = reservoir.offer(X)
        self.components, self.indices = reservoir.rows, reservoir.indices
        self.n_seen = reservoir.n_seen
        self.n_subsample = reservoir.indices.size
        if first or replaced:
            self._sketch(self.gaussian[:, : self.n_subsample], self.components.dtype)
