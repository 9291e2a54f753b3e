"""The min-max and GMM features: one-hot codes of DartMinHash samples.

:class:`DartCodesMap` is MinMaxHasher's map: for every nonempty row and
hash, the consistent weighted sample of ``_cws`` (DartMinHash), coded in its
hash's block, carries ``1 / sqrt(k)``.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_non_negative

from ..utils._hashing import draw_multiply_shift
from ..utils._sparse import gather
from ._cws import dart_samples
from ._one_hot import OneHotCodesMap, output_indptr, write_codes
from ._sizing import min_max_kernel_with_offset, min_max_model

# Temporaries of transform per row and hash (positions, dart keys, features,
# codes and values), per row, and per stored entry of the chunk's input
# ("gmm": the split keys and weights).
_BYTES_PER_ROW_AND_HASH = 48
_BYTES_PER_ROW = 256
_BYTES_PER_ENTRY = 32
# The sampler's state and the code hashes, with the temporaries of their
# draw, per hash.
_STATE_BYTES_PER_HASH = 72
# Largest code of a full sample (sample_keys): 32 bits.
_SAMPLE_KEY_RANGE = 2**32


class DartCodesMap(OneHotCodesMap):
    """MinMaxHasher's map: the codes of the darts (or of their coordinates).

    Parameters
    ----------
    n_components : int
        The number of hashes ``k``.
    n_features : int
        The number of input features.
    b_bits : int or None
    codes : {"full", "0bit"}
    kernel : {"minmax", "gmm"}
    """

    def __init__(self, n_components, n_features, *, b_bits, codes, kernel):
        gmm = kernel == "gmm"
        if gmm:
            self.keys_description = "twice the number of input features"
        # The sampled coordinates range over the split vector for "gmm".
        super().__init__(n_components, b_bits, n_features * (2 if gmm else 1))
        self.codes = codes
        self.kernel = kernel

    def check(self):
        super().check()
        if self.b_bits is None and self.codes == "full":
            raise ValueError(
                "b_bits=None codes the sampled coordinate itself, which is the 0-bit "
                "scheme: use codes='0bit', or a b_bits of at most 32 with the full "
                "codes (b_bits=32: two different samples share a code with "
                "probability about 2**-31)."
            )

    def state_bytes(self, dtype):
        return _STATE_BYTES_PER_HASH * self.n_components

    def bytes_per_row(self, dtype):
        return _BYTES_PER_ROW_AND_HASH * self.n_components + _BYTES_PER_ROW

    def input_bytes_per_row(self, X):
        nnz_per_row = X.nnz / max(X.shape[0], 1) if sp.issparse(X) else X.shape[1]
        return self.bytes_per_row(X.dtype) + int(_BYTES_PER_ENTRY * nnz_per_row)

    def size_description(self):
        return (
            f"n_components={self.n_components} (its hashes and the transform "
            f"of one row)"
        )

    def draw(self, random_state, X):
        """Draw the key of the darts and the code hashes; X is only checked."""
        self.check_values(X)
        self.hash_seed = int(draw_multiply_shift(random_state, 1)[0, 0])
        self.bucket_coefficients = draw_multiply_shift(random_state, self.n_components)

    def fitted_attributes(self):
        return {
            **super().fitted_attributes(),
            "hash_seed_": self.hash_seed,
            "bucket_coefficients_": self.bucket_coefficients,
        }

    def estimated_kernel(self, X):
        return min_max_kernel_with_offset(self, X)

    def sizing_model(self, sample, build, random_state):
        return min_max_model(self, sample)

    def prepare(self, X, n_jobs, n_chunks):
        self.check_values(X)

    def check_values(self, X):
        """Refuse negative values for the min-max kernel."""
        if self.kernel == "minmax":
            check_non_negative(
                X, "MinMaxHasher (kernel='minmax'; kernel='gmm' accepts real data)"
            )

    def transform_csr(self, X, state):
        """The features of canonical CSR rows (a chunk)."""
        k = self.n_components
        nonempty = np.diff(X.indptr) > 0
        indptr = output_indptr(nonempty, k, self.block_width)
        keys, weights = self.weighted_keys(X)
        samples = self.sample_keys(keys, weights, X.indptr)
        codes = np.empty(samples.shape, dtype=indptr.dtype)
        n_keys = self.n_keys if self.codes == "0bit" else _SAMPLE_KEY_RANGE
        write_codes(
            samples, self.bucket_coefficients, self.b_bits, self.block_width,
            n_keys, codes,
        )
        values = np.full(codes.size, 1.0 / np.sqrt(k), dtype=X.dtype)
        return sp.csr_matrix(
            (values, codes.ravel(), indptr), shape=(X.shape[0], self.n_output)
        )

    def sample_keys(self, keys, weights, indptr):
        """What is coded, per nonempty row and hash: the dart's coordinate or key."""
        if self.codes == "0bit":
            return gather(keys, self.positions(keys, weights, indptr))
        return dart_samples(keys, weights, indptr, self.hash_seed, self.n_components)[1]

    def positions(self, keys, weights, indptr):
        """Position in ``keys`` of the winning dart's coordinate, per nonempty row and hash."""
        return dart_samples(keys, weights, indptr, self.hash_seed, self.n_components)[0]

    def weighted_keys(self, X):
        """The coordinates and positive weights of the stored entries.

        "minmax": the columns and values. "gmm": column ``2 i`` for a
        positive value of feature ``i`` and ``2 i + 1`` for a negative one,
        with its absolute value: the nonzeros of the split vector, in the
        same (sorted) order.
        """
        if self.kernel == "minmax":
            return X.indices, X.data
        keys = X.indices.astype(np.int64)
        keys <<= 1
        keys += X.data < 0
        return keys, np.abs(X.data)
