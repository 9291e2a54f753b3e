"""The product of subsampled randomized Hadamard transforms: TensorSRHT's map.

:class:`SRHTProductMap` draws, per degree, random signs and ``n_components``
sampled coordinates of blocks of the Walsh-Hadamard transform of the
augmented input (hashed down first when it is wide), and multiplies the
degrees' samples (Ahle et al., 2020). TensorSRHT is this map;
MaclaurinSketch holds one for some degrees of its expansion.
"""

import functools

import numpy as np

from ..utils._count_sketch import draw_hash_down, has_scatter_add
from ..utils._hashing import SIGN_HASH_INDEPENDENCE, draw_polynomial_hashes
from ..utils._validation import kernel_array
from ._hadamard_blocks import (
    block_coordinates,
    block_signs,
    n_augmented_features,
    sampled_hadamard_array,
    srht_array_tables,
    srht_inputs,
    srht_inputs_array,
    srht_width,
)
from ._polynomial_map import PolynomialMap
from ._sizing import srht_model


class SRHTProductMap(PolynomialMap):
    """TensorSRHT of ``x' = [sqrt(gamma) x, sqrt(coef0)]``, ``degree`` times.

    Fitted attributes: ``hadamard_size_``, ``sign_hashes_``,
    ``coordinates_`` and ``hash_down_`` (None unless the input is hashed
    down), as documented by TensorSRHT.
    """

    fitted_names = ("hadamard_size_", "sign_hashes_", "coordinates_", "hash_down_")

    def __init__(self, n_components, degree, n_features, gamma=1.0, coef0=0.0):
        super().__init__(n_components, degree, n_features, gamma, coef0)
        # The Hadamard length, and whether the augmented input is hashed
        # down to it.
        self.hadamard_size_, self.hashed = srht_width(
            n_augmented_features(n_features, coef0), n_components
        )
        self.n_blocks = -(-n_components // self.hadamard_size_)
        self.array_api_support = True

    def state_bytes(self, dtype):
        # Coordinates and their sampling temporaries, block signs and the
        # temporaries of hashing them.
        n_total = self.n_blocks * self.hadamard_size_
        itemsize = np.dtype(dtype).itemsize
        return 16 * self.degree * self.n_components + (48 + self.degree * itemsize) * n_total

    def draw(self, random_state, X=None):
        """Draw the signs, the sampled coordinates and the hash-down of every degree."""
        self.sign_hashes_ = draw_polynomial_hashes(
            random_state, self.degree, SIGN_HASH_INDEPENDENCE
        )
        self.coordinates_ = block_coordinates(
            random_state, self.n_components, self.hadamard_size_, self.degree
        )
        self.hash_down_ = None
        if self.hashed:
            self.hash_down_ = draw_hash_down(random_state, self.degree)

    def sizing_model(self, sample, build, random_state):
        return srht_model(self, sample)

    def bytes_per_row(self, dtype):
        # The augmented row, one degree's transformed blocks and the product.
        d, n_blocks = self.hadamard_size_, self.n_blocks
        return (d * (n_blocks + 1) + 2 * self.n_components) * np.dtype(dtype).itemsize

    def prepare(self, X, n_jobs=1, n_chunks=1):
        """The block signs of every degree (made once per dtype)."""
        dtype = np.dtype(X.dtype)
        return self.prepared(("signs", dtype), lambda: self._block_signs(dtype))

    def _block_signs(self, dtype):
        n_keys = self.hadamard_size_  # a hashed-down input fills its width
        if self.hash_down_ is None:
            n_keys = n_augmented_features(self.n_features, self.coef0)
        return [
            block_signs(self.sign_hashes_[j], self.n_blocks, self.hadamard_size_, n_keys, dtype)
            for j in range(self.degree)
        ]

    def transform_chunk(self, X_chunk, out, signs):
        from ..utils._hadamard_kernels import srht_rows

        dtype = out.dtype
        inputs = srht_inputs(
            X_chunk, self.gamma, self.coef0, self.hadamard_size_, self.hash_down_,
            self.degree, dtype,
        )
        one, scale = dtype.type(1.0), dtype.type(1.0 / np.sqrt(self.n_components))
        for j, U in enumerate(inputs):
            # Each degree's sampled coordinates of its transformed blocks,
            # multiplied into ``out`` in the order of the degrees, and the
            # scale last.
            last = j == self.degree - 1
            srht_rows(
                np.ascontiguousarray(U, dtype=dtype), signs[j],
                kernel_array(self.coordinates_[j]), out,
                j == 0, scale if last else one,
            )
        return out

    def transform_array(self, X, xp, device):
        """The features of the whole array ``X`` of namespace ``xp`` on ``device``.

        The steps of :meth:`transform_chunk` with the namespace's
        operations: the augmented rows ``[sqrt(gamma) x, sqrt(coef0), 0...]``
        (or each degree's hash-down of them, :func:`srht_inputs_array`),
        per degree the signed blocks' Walsh-Hadamard transform and the
        gather of the sampled coordinates, multiplied in the order of the
        degrees, and the scale ``1 / sqrt(n_components)`` last. The signs,
        coordinates and the inputs' tables are computed on the host and
        moved once.
        """
        degree = self.degree
        build = functools.partial(self._device_tables, scatter=has_scatter_add(xp))
        moved = self.moved_arrays(xp, device, X.dtype, build)
        n_inputs = len(moved) - 2 * degree
        signs, coordinates = moved[n_inputs : n_inputs + degree], moved[n_inputs + degree :]
        inputs = srht_inputs_array(X, self.gamma, moved[:n_inputs], degree,
                                   self.hadamard_size_, xp)
        # A namespace computing with NumPy (array_api_strict) would warn of
        # an overflow, which check_array reports as the NumPy path does.
        with np.errstate(over="ignore", invalid="ignore"):
            out = None
            for j, U in enumerate(inputs):
                factor = sampled_hadamard_array(U, signs[j], coordinates[j], xp)
                out = factor if out is None else out * factor
            out = out * float(1.0 / np.sqrt(self.n_components))
        self.check_array(X, out, xp)
        return out

    def _device_tables(self, dtype, scatter):
        """The tables of the inputs (:func:`srht_array_tables`), the block
        signs of every degree, then their coordinates."""
        inputs = srht_array_tables(
            self.n_features, self.gamma, self.coef0, self.hadamard_size_, self.hash_down_,
            self.degree, dtype, scatter,
        )
        signs = self.prepare(np.empty((0, self.n_features), dtype=dtype))
        return (*inputs, *signs, *self.coordinates_)
