"""The Count Sketch product of Pham & Pagh (2013): TensorSketch's map.

:class:`CountSketchProductMap` draws ``degree`` pairs of bucket and sign
hashes and maps a chunk of rows to the circular convolution of their Count
Sketches, computed as a product of real FFTs; on an array API namespace
(``transform_array``) each Count Sketch is a sum of gathers, one per layer of
each bucket's features (torch: its scatter-add). TensorSketch is this map;
MaclaurinSketch holds one for some degrees of its expansion.
"""

import functools
import threading

import numpy as np
import scipy.fft
import scipy.sparse as sp

from ..utils._count_sketch import (
    count_sketch_hashed,
    count_sketch_array,
    count_sketch_array_tables,
    count_sketch_rows,
    count_sketch_tables,
    draw_count_sketch_hashes,
    has_scatter_add,
)
from ._polynomial_map import PolynomialMap
from ._sizing import count_sketch_model


class CountSketchProductMap(PolynomialMap):
    """Tensor Sketch of ``x' = [sqrt(gamma) x, sqrt(coef0)]``, ``degree`` times.

    Fitted attributes: ``bucket_hashes_`` and ``sign_hashes_``, of shape
    ``(degree, k)``, the coefficients of the polynomial hash functions.
    """

    fitted_names = ("bucket_hashes_", "sign_hashes_")

    def __init__(self, n_components, degree, n_features, gamma=1.0, coef0=0.0):
        super().__init__(n_components, degree, n_features, gamma=gamma, coef0=coef0)
        # On a device each Count Sketch is a sum of gathers (or torch's
        # scatter-add): see utils._count_sketch.count_sketch_array.
        self.array_api_support = True

    def draw(self, random_state, X=None):
        """Draw the hash functions of every degree."""
        self.bucket_hashes_, self.sign_hashes_ = draw_count_sketch_hashes(
            random_state, self.degree
        )

    def sizing_model(self, sample, build, random_state):
        return count_sketch_model(self, sample)

    def bytes_per_row(self, dtype):
        # Per row: the count sketch, two spectra of n_components // 2 + 1
        # complex values and the inverse transform.
        return 4 * self.n_components * np.dtype(dtype).itemsize

    def prepare(self, X, n_jobs=1, n_chunks=1):
        dtype = np.dtype(X.dtype)
        # The hashes of every feature are tabulated (once per dtype) unless
        # the input is sparse with fewer stored entries than features; then
        # the kernel hashes each stored entry (O(nnz), whatever n_features is).
        tabulate = not sp.issparse(X) or X.nnz >= self.n_features
        tables = self.prepared(
            ("hashes", dtype, tabulate), lambda: self._hash_tables(dtype, tabulate)
        )
        # Count sketches are built in a scratch buffer reused across degrees
        # and chunks: it stays in cache, and each output row is written once.
        # One buffer per thread when chunks run in parallel (n_jobs).
        return dict(tables, scratch=threading.local())

    def _hash_tables(self, dtype, tabulate):
        """The scales, the feature hashes (if ``tabulate``) and the constant's."""
        n_features = self.n_features
        # The signs carry the factor sqrt(gamma), so that sketching
        # sqrt(gamma) x costs nothing more than sketching x.
        scales = np.full(self.degree, np.sqrt(self.gamma), dtype=dtype)
        feature_hashes = None
        if tabulate:
            feature_hashes = self.feature_hashes(np.arange(n_features), dtype, scales[0])
        # The constant coordinate sqrt(coef0) is feature number n_features.
        constants = None
        if self.coef0:
            buckets, signs = self.feature_hashes(
                np.array([n_features]), dtype, np.sqrt(self.coef0)
            )
            constants = (buckets[:, 0], signs[:, 0])
        return dict(scales=scales, feature_hashes=feature_hashes, constants=constants)

    def transform_chunk(self, X_chunk, out, state):
        constants = state["constants"]
        buffer = getattr(state["scratch"], "buffer", None)
        if buffer is None or buffer.shape[1] < out.shape[0] or buffer.dtype != out.dtype:
            buffer = state["scratch"].buffer = np.empty((1,) + out.shape, dtype=out.dtype)
        sketch = buffer[:, : out.shape[0]]
        spectrum = None
        for j in range(self.degree):
            # One degree at a time: the sketch is still in cache for its FFT.
            degree = slice(j, j + 1)
            constant = None if constants is None else (constants[0][degree], constants[1][degree])
            if state["feature_hashes"] is not None:
                buckets, signs = state["feature_hashes"]
                count_sketch_rows(X_chunk, buckets[degree], signs[degree], sketch, constant)
            else:
                count_sketch_hashed(
                    X_chunk, self.bucket_hashes_[degree], self.sign_hashes_[degree],
                    state["scales"][degree], sketch, constants=constant,
                )
            if spectrum is None:
                spectrum = scipy.fft.rfft(sketch[0], axis=1)
            else:
                spectrum *= scipy.fft.rfft(sketch[0], axis=1)
        # A row's sketch is the same bits in any chunk (scatter and FFT work
        # row by row), which the base class relies on to split chunks.
        out[...] = scipy.fft.irfft(spectrum, n=self.n_components, axis=1, overwrite_x=True)
        return out

    def transform_array(self, X, xp, device):
        """The features of the whole array ``X`` of namespace ``xp`` on ``device``.

        Each Count Sketch ``C_j x'`` is :func:`count_sketch_array` of the
        tables of :meth:`prepare` (signs times ``sqrt(gamma)``), plus the
        constant ``sqrt(coef0)`` in its bucket, the tables built on the host
        and moved once. Then the same FFT convolution as
        :meth:`transform_chunk`: ``irfft`` of the product of the ``rfft`` of
        every sketch (for ``degree=1``, the sketch itself).
        """
        build = functools.partial(self._array_tables, scatter=has_scatter_add(xp))
        moved = self.moved_arrays(xp, device, X.dtype, build)
        width = self.n_components

        indices, signs, constants = moved[0], moved[1], moved[2:]

        def sketch(j):
            C = count_sketch_array(X, indices[j, ...], signs[j, ...], width, xp)
            return C if constants[j] is None else C + constants[j]

        # A namespace computing with NumPy (array_api_strict) would warn of
        # an overflow, which check_array reports as the NumPy path does.
        with np.errstate(over="ignore", invalid="ignore"):
            if self.degree == 1:
                out = sketch(0)
            else:
                spectrum = xp.fft.rfft(sketch(0), axis=-1)
                for j in range(1, self.degree):
                    spectrum = spectrum * xp.fft.rfft(sketch(j), axis=-1)
                out = xp.fft.irfft(spectrum, n=width, axis=-1)
        self.check_array(X, out, xp)
        return out

    def _array_tables(self, dtype, scatter):
        """The two tables of :func:`count_sketch_array_tables` (every degree),
        then per degree the constant ``sqrt(coef0)`` in its bucket (or None)."""
        width = self.n_components
        # The tables of prepare: signs times sqrt(gamma), in dtype.
        scale = dtype.type(np.sqrt(self.gamma))
        buckets, signs = self.feature_hashes(np.arange(self.n_features), dtype, scale)
        tables = count_sketch_array_tables(buckets, signs, width, scatter)
        constants = [None] * self.degree
        if self.coef0:
            buckets, signs = self.feature_hashes(
                np.array([self.n_features]), dtype, np.sqrt(self.coef0)
            )
            constants = [np.zeros(width, dtype=dtype) for _ in range(self.degree)]
            for j, constant in enumerate(constants):
                constant[buckets[j, 0]] = signs[j, 0]
        return (*tables, *constants)

    def feature_hashes(self, features, dtype, scale=1.0):
        """Buckets and signs (times ``scale``) of feature indices, every degree.

        Returns
        -------
        buckets : ndarray of shape (degree, n_keys), dtype intp
        signs : ndarray of shape (degree, n_keys), dtype ``dtype``
        """
        return count_sketch_tables(
            self.bucket_hashes_, self.sign_hashes_, features, self.n_components, dtype, scale
        )
