"""The Count Sketch product of Pham & Pagh (2013): TensorSketch's map.

:class:`CountSketchProductMap` draws ``degree`` pairs of bucket and sign
hashes and maps a chunk of rows to the circular convolution of their Count
Sketches, computed as a product of real FFTs. TensorSketch is this map;
MaclaurinSketch holds one for some degrees of its expansion.
"""

import threading

import numpy as np
import scipy.fft
import scipy.sparse as sp

from ..utils._count_sketch import (
    count_sketch_hashed,
    count_sketch_rows,
    count_sketch_tables,
    draw_count_sketch_hashes,
)
from ._polynomial_map import PolynomialMap


class CountSketchProductMap(PolynomialMap):
    """Tensor Sketch of ``x' = [sqrt(gamma) x, sqrt(coef0)]``, ``degree`` times.

    Fitted attributes: ``bucket_hashes_`` and ``sign_hashes_``, of shape
    ``(degree, k)``, the coefficients of the polynomial hash functions.
    """

    fitted_names = ("bucket_hashes_", "sign_hashes_")

    def draw(self, random_state, X=None):
        """Draw the hash functions of every degree."""
        self.bucket_hashes_, self.sign_hashes_ = draw_count_sketch_hashes(
            random_state, self.degree
        )

    def bytes_per_row(self, dtype):
        # Per row: the count sketch, two spectra of n_components // 2 + 1
        # complex values and the inverse transform.
        return 4 * self.n_components * np.dtype(dtype).itemsize

    def prepare(self, X, n_jobs=1, n_chunks=1):
        dtype = np.dtype(X.dtype)
        n_features = self.n_features
        # The signs carry the factor sqrt(gamma), so that sketching
        # sqrt(gamma) x costs nothing more than sketching x.
        scales = np.full(self.degree, np.sqrt(self.gamma), dtype=dtype)
        # The hashes of every feature are tabulated once per call unless the
        # input is sparse with fewer stored entries than features; then the
        # kernel hashes each stored entry (O(nnz), whatever n_features is).
        feature_hashes = None
        if not sp.issparse(X) or X.nnz >= n_features:
            feature_hashes = self.feature_hashes(np.arange(n_features), dtype, scales[0])
        # The constant coordinate sqrt(coef0) is feature number n_features.
        constants = None
        if self.coef0:
            buckets, signs = self.feature_hashes(
                np.array([n_features]), dtype, np.sqrt(self.coef0)
            )
            constants = (buckets[:, 0], signs[:, 0])
        # Count sketches are built in a scratch buffer reused across degrees
        # and chunks: it stays in cache, and each output row is written once.
        # One buffer per thread when chunks run in parallel (n_jobs).
        return dict(
            scales=scales,
            feature_hashes=feature_hashes,
            constants=constants,
            scratch=threading.local(),
        )

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
