"""The CoRE and resemblance features: minwise codes carrying normalized values.

:class:`CoREMap` is CoREHasher's map: the codes of ``k`` minwise hashes
(:class:`~._minwise_codes.MinwiseCodes`) give each nonempty row's output
columns, and the values they carry are, times ``1 / sqrt(k)``, the random
projections of the normalized row (``_projection``, "core1"), the
normalized value at the location times ``sqrt(f_u)`` ("core2") or 1
("resemblance").
"""

import numpy as np
import scipy.sparse as sp

from ..utils._chunking import HASHING_CHUNK_MIB
from ..utils._hashing import draw_multiply_shift
from ..utils._scratch import ScratchPool, empty
from ..utils._sparse import gather
from ._minwise_codes import MinwiseCodes, holds_positions
from ._one_hot import OneHotCodesMap, output_indptr
from ._projection import FEATURE_BLOCK, project
from ._sizing import core_kernel_with_offset, core_model

# Rows whose largest absolute value is beyond 2**+-EXTREME_EXPONENT are
# rescaled before their norm and projection: float32 projections of values
# up to 2**60 cannot overflow, nor float64 squares of values from 2**-60 up
# underflow to a zero norm.
EXTREME_EXPONENT = 60
# Temporaries of transform per row and hash (positions, locations, values,
# codes and, for core1, projections, with the chunk's copy of its input),
# and per row (per-row arrays, which dominate at small k).
_BYTES_PER_ROW_AND_HASH = 48
_BYTES_PER_ROW = 384
# Peak bytes per generated projection entry (its two float32 uniforms, the
# values' copy in the order asked and their float64 copy), an upper bound for
# the size check of fit.
_BYTES_PER_GENERATED_ENTRY = 24


def _rescale_extreme_rows(X, nonempty, scratch=None):
    """``X`` with its rows of very large or very small values scaled by powers of 2.

    Every output value is a ratio of the row's values (``u / |u|``), so it
    does not change when the row is scaled; scaling by a power of 2 is exact,
    so the rows that need no scaling would give the same bits scaled or not.
    (``scratch``: buffers for the absolute values, see ``utils._scratch``.)
    Rows whose largest value is beyond ``2**+-EXTREME_EXPONENT`` are brought
    to a largest value in ``[0.5, 1)``, where neither the sum of squares of
    their norm nor the projection can overflow or underflow (huge or tiny
    but finite values would otherwise give infinite or NaN features).
    """
    if X.nnz == 0:
        return X
    magnitudes = np.abs(X.data, out=empty(scratch, "magnitudes", X.nnz, X.dtype))
    peaks = np.maximum.reduceat(magnitudes, X.indptr[:-1][nonempty])
    exponents = np.frexp(peaks)[1]  # 0 for NaN and infinity: left alone
    extreme = np.abs(exponents) > EXTREME_EXPONENT
    if not extreme.any():
        return X
    # ldexp scales without forming 2**-exponent, which can overflow
    # (2**1074 for a row of float64 subnormals).
    shifts = np.zeros(X.shape[0], dtype=np.int32)
    shifts[np.flatnonzero(nonempty)[extreme]] = -exponents[extreme]
    data = np.ldexp(X.data, np.repeat(shifts, np.diff(X.indptr)))
    return sp.csr_matrix((data, X.indices, X.indptr), shape=X.shape)


class CoREMap(OneHotCodesMap):
    """CoREHasher's map: minwise codes with the kernel's values.

    Parameters
    ----------
    n_components : int
        The number of hashes ``k``.
    n_features : int
        The number of input features.
    kernel : {"core1", "core2", "resemblance"}
    b_bits : int or None
    hashing : {"fss", "oph", "minwise"}
    projection : {"gaussian", "rademacher", "hashed_gaussian"}
    """

    # The jobs share the work of each chunk, without copies of its rows and
    # of the pieces of its output, and for "core1" without generating in
    # each piece the rows of R that the whole chunk touches.
    jobs_share_chunks = True
    # Large chunks: each chunk regenerates the projection blocks of the
    # features it touches, and the jobs sharing it keep one chunk in memory.
    chunk_mib = HASHING_CHUNK_MIB

    def __init__(self, n_components, n_features, *, kernel, b_bits, hashing, projection):
        super().__init__(n_components, b_bits, n_features)
        self.kernel = kernel
        self.hashing = hashing
        self.projection = projection
        self.minwise_codes = MinwiseCodes(n_components, b_bits, hashing, self.block_width)

    def state_bytes(self, dtype):
        # The hashes and, for "core1", one block of generated projection rows.
        n_bytes = self.minwise_codes.state_bytes()
        if self.kernel == "core1":
            n_bytes += _BYTES_PER_GENERATED_ENTRY * FEATURE_BLOCK * self.n_components
        return n_bytes

    def bytes_per_row(self, dtype):
        return _BYTES_PER_ROW_AND_HASH * self.n_components + _BYTES_PER_ROW

    def size_description(self):
        return (
            f"n_components={self.n_components}, kernel={self.kernel!r} and "
            f"hashing={self.hashing!r} (its hashes and the transform of one row)"
        )

    def draw(self, random_state, X):
        """Draw the hashes, then the projection's key; only the width of X counts."""
        self.minwise_codes.draw(random_state)
        self.projection_seed = int(draw_multiply_shift(random_state, 1)[0, 0])

    def fitted_attributes(self):
        return {
            **super().fitted_attributes(),
            **self.minwise_codes.fitted_attributes(),
            "projection_seed_": self.projection_seed,
        }

    def estimated_kernel(self, X):
        return core_kernel_with_offset(self, X)

    def sizing_model(self, sample, build, random_state):
        return core_model(self, sample, build, random_state)

    def prepare(self, X, n_jobs, n_chunks):
        # The threads that share the work of each chunk.
        return n_jobs

    def transform_csr(self, X, n_jobs):
        """The features of canonical CSR rows (a chunk), hashed in ``n_jobs`` threads."""
        k = self.n_components
        nonempty = np.diff(X.indptr) > 0
        indptr = output_indptr(nonempty, k, self.block_width)
        codes = np.empty((int(nonempty.sum()), k), dtype=indptr.dtype)
        if self.kernel == "resemblance":
            # The values do not depend on the data: no rescaling needed; the
            # jobs fill them with the codes.
            values = np.empty(codes.shape, dtype=X.dtype)
            self.minwise_codes.write(
                X, nonempty, codes, n_jobs, constant_values=values,
                scratch=self.prepared(("scratch",), ScratchPool),
            )
        else:
            values = self._values(X, nonempty, codes, n_jobs)
        X_new = sp.csr_matrix(
            (values.ravel(), codes.ravel(), indptr), shape=(X.shape[0], self.n_output)
        )
        # Canonical by construction (block j's code lies in block j): scipy
        # need not check it again before its operations.
        X_new.has_canonical_format = True
        return X_new

    def _values(self, X, nonempty, codes, n_jobs):
        """Write the codes of "core1" or "core2"; return their values.

        The temporaries come from buffers kept across calls (a
        :class:`~..utils._scratch.ScratchPool` of the map): the output is
        the only fresh memory of a call.
        """
        pool = self.prepared(("scratch",), ScratchPool)
        # Positions in X of the hashes' minima (int32 where they fit),
        # kept for core2's values; core1 needs only their codes.
        positions = None
        with pool.buffers() as scratch:
            if self.kernel == "core2":
                fits = holds_positions(np.int32, X.nnz)
                shape, dtype = codes.shape, np.int32 if fits else np.int64
                positions = scratch.empty("positions", shape, dtype)
            self.minwise_codes.write(
                X, nonempty, codes, n_jobs, positions=positions, scratch=pool
            )
            X = _rescale_extreme_rows(X, nonempty, scratch)
            values = None  # core1's are the projections
            if self.kernel == "core2":
                values = np.empty(codes.shape, dtype=X.dtype)
                gather(X.data, positions, out=values, scratch=scratch)
            # Non-finite input (possible only under assume_finite=True)
            # gives NaN values, as documented, rather than warnings about
            # the arithmetic.
            with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
                return self._scaled_values(X, nonempty, values, n_jobs, scratch, pool)

    def _scaled_values(self, X, nonempty, values, n_jobs, scratch, pool):
        """The output values of the nonempty rows (``values`` holds core2's)."""
        k = self.n_components
        dtype = X.dtype
        norms = np.empty(0)
        if nonempty.any():
            squares = empty(scratch, "squares", X.nnz, np.float64)
            np.square(X.data, out=squares, dtype=np.float64)
            norms = np.sqrt(np.add.reduceat(squares, X.indptr[:-1][nonempty]))
        if self.kernel == "core2":
            row_nnz = np.diff(X.indptr)[nonempty]
            scale = np.sqrt(row_nnz) / norms / np.sqrt(k)
            values *= scale[:, None].astype(dtype)
            return values
        values = project(X, self.projection, self.projection_seed, k, n_jobs, pool)
        if not nonempty.all():
            values = values[nonempty]
        values *= (1.0 / np.sqrt(k) / norms[:, None]).astype(dtype)
        return values
