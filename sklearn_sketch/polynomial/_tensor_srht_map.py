"""The product of subsampled randomized Hadamard transforms, the map of TensorSRHT.

:class:`SRHTMap` draws, per degree, random signs and ``n_components``
sampled coordinates of blocks of the Walsh-Hadamard transform of the
augmented input (hashed down first when it is wide), and multiplies the
degrees' samples (Ahle et al., 2020). TensorSRHT is this map as an
estimator; MaclaurinSketch uses it for the degrees of its expansion.
"""

import numpy as np

from ..utils._count_sketch import draw_hash_down
from ..utils._hashing import SIGN_HASH_INDEPENDENCE, draw_polynomial_hashes
from ..utils._validation import kernel_array
from ._common import (
    PolynomialMap,
    block_coordinates,
    block_signs,
    n_augmented_features,
    srht_inputs,
    srht_width,
)


class SRHTMap(PolynomialMap):
    """TensorSRHT of ``x' = [sqrt(gamma) x, sqrt(coef0)]``, ``degree`` times.

    Fitted attributes: ``hadamard_size_``, ``sign_hashes_``,
    ``coordinates_`` and ``hash_down_`` (None unless the input is hashed
    down), as documented by TensorSRHT.
    """

    def _layout(self):
        self.hadamard_size_ = self._width()[0]

    def _width(self):
        """Hadamard length and whether the augmented input is hashed down to it."""
        return srht_width(n_augmented_features(self.n_features_in_, self.coef0), self.n_components)

    def _state_bytes(self, dtype):
        # Coordinates and their sampling temporaries, block signs and the
        # temporaries of hashing them.
        n_total = self._n_blocks() * self.hadamard_size_
        itemsize = np.dtype(dtype).itemsize
        return 16 * self.degree * self.n_components + (48 + self.degree * itemsize) * n_total

    def _draw(self, random_state):
        """Draw the signs, the sampled coordinates and the hash-down of every degree."""
        self.sign_hashes_ = draw_polynomial_hashes(
            random_state, self.degree, SIGN_HASH_INDEPENDENCE
        )
        self.coordinates_ = np.stack(
            [
                block_coordinates(random_state, self.n_components, self.hadamard_size_)
                for _ in range(self.degree)
            ]
        )
        self.hash_down_ = None
        if self._width()[1]:
            self.hash_down_ = draw_hash_down(random_state, self.degree)

    def _n_blocks(self):
        return -(-self.n_components // self.hadamard_size_)

    def _bytes_per_row(self, dtype):
        # The augmented row, one degree's transformed blocks and the product.
        d, n_blocks = self.hadamard_size_, self._n_blocks()
        return (d * (n_blocks + 1) + 2 * self.n_components) * np.dtype(dtype).itemsize

    def _prepare_transform(self, X):
        dtype = X.dtype
        n_keys = self.hadamard_size_  # a hashed-down input fills its width
        if self.hash_down_ is None:
            n_keys = n_augmented_features(self.n_features_in_, self.coef0)
        return [
            block_signs(
                self.sign_hashes_[j], self._n_blocks(), self.hadamard_size_, n_keys, dtype
            )
            for j in range(self.degree)
        ]

    def _transform_chunk(self, X_chunk, out, signs):
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
