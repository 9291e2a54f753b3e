"""Random Fourier features of the RBF kernel from orthogonal and structured frequencies.

:class:`FourierFeatureMap` draws ORF frequencies, or SORF's and Fastfood's
diagonals, and computes ``sqrt(2 / D) [cos(W x), sin(W x)]`` by pieces of
rows; the functions below are its steps. Under scikit-learn's
``array_api_dispatch`` it computes the same features of an array of another
namespace on its device (:meth:`FourierFeatureMap.transform_array`), with
the Walsh-Hadamard transform as matrix products (:func:`hadamard_array`)
and wide input hashed down by gathers (:func:`hash_down_array`).
"""

import functools

import numpy as np
import scipy.sparse as sp

from .._map import SketchMap, host_dtype
from ..utils._chunking import single_threaded_blas
from ..utils._count_sketch import (
    draw_hash_down,
    has_scatter_add,
    hash_down,
    hash_down_array,
    hash_down_array_tables,
)
from ..utils._gamma import scale_gamma
from ..utils._hadamard import hadamard_array, hadamard_length
from ..utils._validation import all_finite, kernel_array
from ._sizing import fourier_model, rbf_kernel_matrix

# Input wider than this (hashed text, one-hot codes) is first reduced to
# this many coordinates by a Count Sketch, whose cost follows the nonzeros:
# the frequencies then multiply rows of a fixed width, so the fitted state
# and the cost per row do not grow with n_features.
MAX_DENSE_WIDTH = 2**12
# The Hadamard methods pad narrow input to at least this length: their rows
# are close to Gaussian only in enough dimensions (Yu et al. 2016).
MIN_HADAMARD_LENGTH = 16
# The ORF product runs over tiles of this many rows (padded with zeros), so
# that every BLAS call has the same shape and a row gets the same bits
# whatever chunk, batch or process it is transformed in.
_ORF_TILE_ROWS = 128
# The features are computed over pieces of the output of this many bytes,
# small enough to stay in a core's cache between the projections, their
# cosines and sines and the scale; in whole groups of rows of the Hadamard
# kernels (which pad a partial group with zero rows).
_PIECE_BYTES = 2**20
_GROUP_ROWS = 8
# On an array API namespace SORF's and Fastfood's frequencies up to this size
# are formed once as the dense matrix W they define (the transform of the
# unit rows) and applied as one matrix product, which a GPU runs near its
# peak, where the structured transform makes a dozen passes over the
# projections (three Hadamard transforms, each two or three matrix products
# with small factors, and the diagonals). Larger ones are transformed as
# structured, with state of O(width) instead of O(d D).
_MAX_DEVICE_FREQUENCY_BYTES = 2**28


def input_width(n_features, method):
    """Width of the rows the frequencies multiply, and whether input is hashed to it."""
    hashed = n_features > MAX_DENSE_WIDTH
    width = MAX_DENSE_WIDTH if hashed else n_features
    if method != "orf":
        width = max(hadamard_length(width), MIN_HADAMARD_LENGTH)
    return width, hashed


def draw_orf(random_state, width, n_frequencies):
    """ORF frequencies ``S Q`` (unit bandwidth), ``ceil(n / width)`` blocks stacked.

    Each block is Haar-random orthonormal rows ``Q`` (the QR factor of a
    Gaussian ``width x k`` matrix, with the signs of ``R``'s diagonal moved
    into ``Q``; ``k = width`` but for a last, partial block) scaled by
    independent chi(width) norms ``S``, so that every row is a standard
    Gaussian vector and the rows of a block are orthogonal.

    Returns
    -------
    weights : ndarray of shape (width, n_frequencies)
    """
    weights = np.empty((width, n_frequencies))
    for start in range(0, n_frequencies, width):  # a few blocks, each O(width**3)
        k = min(width, n_frequencies - start)
        Q, R = np.linalg.qr(random_state.standard_normal((width, k)))
        Q *= np.where(np.diag(R) < 0, -1.0, 1.0)
        norms = np.sqrt(random_state.chisquare(width, size=k))
        weights[:, start : start + k] = Q * norms
    return weights


def draw_sorf(random_state, width, n_blocks):
    """SORF's Rademacher diagonals ``D1, D2, D3`` (int8) and row scales of every block.

    Row ``i`` of the unnormalized ``H D1 H D2 H D3`` has norm
    ``width ** 1.5``; its scale ``s_i / width ** 1.5`` with ``s_i``
    chi(width) gives it the norm of a standard Gaussian vector, as ORF's
    rows have (Yu et al. 2016 fix it to ``sqrt(width)``, which biases the
    estimate at small ``width``).
    """
    signs = (1 - 2 * random_state.randint(0, 2, size=(3, n_blocks, width))).astype(np.int8)
    norms = np.sqrt(random_state.chisquare(width, size=(n_blocks, width)))
    return signs, norms / width**1.5


def draw_fastfood(random_state, width, n_blocks):
    """Fastfood's ``B`` (signs), ``Pi`` (permutations), ``G`` (Gaussian) and row scales.

    The scale of row ``i`` of a block is ``s_i / (||G|| sqrt(width))`` with
    ``s_i`` chi(width), so that row ``i`` of ``S H G Pi H B`` has norm
    ``s_i``, the norm of a standard Gaussian vector (Le et al. 2013).
    """
    signs = (1 - 2 * random_state.randint(0, 2, size=(n_blocks, width))).astype(np.int8)
    permutations = np.argsort(random_state.rand(n_blocks, width), axis=1)
    gaussian = random_state.standard_normal((n_blocks, width))
    norms = np.sqrt(random_state.chisquare(width, size=(n_blocks, width)))
    scales = norms / (np.linalg.norm(gaussian, axis=1, keepdims=True) * np.sqrt(width))
    return signs, permutations.astype(np.intp), gaussian, scales


def padded_rows(X, width, dtype):
    """The rows of ``X`` as a dense array, zero-padded to ``width`` columns."""
    U = np.zeros((X.shape[0], width), dtype=dtype)
    U[:, : X.shape[1]] = X.toarray() if sp.issparse(X) else X
    return U


def orf_projections(U, weights):
    """``U @ weights`` over fixed tiles of rows (see ``_ORF_TILE_ROWS``), in their dtype."""
    n_rows, width = U.shape
    n_padded = -(-n_rows // _ORF_TILE_ROWS) * _ORF_TILE_ROWS
    if n_padded != n_rows:
        U = np.vstack([U, np.zeros((n_padded - n_rows, width), dtype=U.dtype)])
    tiles = U.reshape(-1, _ORF_TILE_ROWS, width)
    # Some OpenBLAS releases round a row of a GEMM differently depending on
    # how the product is split among threads: the product runs on one BLAS
    # thread (jobs parallelize over chunks instead), and on tiles of one
    # shape, so that a row's tile is the same computation in any chunk.
    with single_threaded_blas():
        products = np.matmul(tiles, weights)
    return products.reshape(n_padded, -1)[:n_rows]


def dense_rows(X, dtype):
    """The rows of ``X`` as a C-ordered, writable dense array of ``dtype``
    (no copy if they are: see ``kernel_array``)."""
    return kernel_array(X.toarray() if sp.issparse(X) else X, dtype)


def sorf_projections(X, signs, scales, out=None, n_pairs=0):
    """``S H D1 H D2 H D3 x`` of every row ``x`` and block, H unnormalized.

    ``X`` holds dense rows of at most ``width`` columns, zero-padded to it;
    ``signs`` (3, n_blocks, width) the diagonals ``D1, D2, D3`` and
    ``scales`` (n_blocks, width) ``S``, in ``X``'s dtype.

    Parameters
    ----------
    out : ndarray of shape (n_samples, n_columns), default=None
        Where the projections go (C-ordered): by default a new array of
        ``n_blocks * width`` columns.
    n_pairs : int, default=0
        With ``n_pairs > 0`` projection ``c`` goes to column ``c`` of
        ``out`` if ``c < n_pairs`` and to column ``n_pairs + c`` if ``out``
        has it: the places of its features (see :func:`cos_sin_in_place`).
        With 0 the projections are in order.

    Returns
    -------
    out : ndarray
    """
    from ..utils._hadamard_kernels import sorf_rows

    n_blocks, width = scales.shape
    X = dense_rows(X, scales.dtype)
    if out is None:
        out = np.empty((X.shape[0], n_blocks * width), dtype=scales.dtype)
    sorf_rows(X, signs, scales, out, n_pairs)
    return out


def fastfood_projections(X, signs, permutations, gaussian, scales, out=None, n_pairs=0):
    """``S H G Pi H B x`` of every row ``x`` and block, H unnormalized.

    The arguments are as :func:`sorf_projections`'s, with ``signs``
    (n_blocks, width) ``B`` and ``Pi`` the gather ``v[permutations[block]]``.
    """
    from ..utils._hadamard_kernels import fastfood_rows

    n_blocks, width = scales.shape
    X = dense_rows(X, scales.dtype)
    if out is None:
        out = np.empty((X.shape[0], n_blocks * width), dtype=scales.dtype)
    fastfood_rows(X, signs, permutations, gaussian, scales, out, n_pairs)
    return out


def place_angles(P, out):
    """Projections ``P`` (n, at least ``ceil(D / 2)``) where their features go
    in ``out`` (n, D): projection ``c`` in column ``c`` if ``c < D // 2``,
    and in column ``D // 2 + c`` if ``out`` has it."""
    n_pairs = out.shape[1] // 2
    out[:, :n_pairs] = P[:, :n_pairs]
    out[:, n_pairs:] = P[:, : out.shape[1] - n_pairs]


def cos_sin_in_place(Z, offset):
    """``sqrt(2 / D) [cos p, sin p]`` of the angles placed in ``Z`` (n, D), in place.

    ``Z`` holds the angles as :func:`place_angles` places them: the
    cosines replace the first ``D // 2`` columns and the sines the next
    ones. For an odd ``D`` the last feature is ``sqrt(2 / D) cos(p +
    offset)`` of one more frequency, with a uniform random ``offset``: each
    of the ``(D - 1) / 2`` pairs contributes ``cos(w.(x - y)) * 2 / D`` and
    the last feature ``cos(w.(x - y)) / D`` in expectation, so the sum is
    unbiased.

    Returns
    -------
    finite : bool
        Whether every feature is finite, that is every angle was (the
        cosine and sine of an infinite angle are NaN).
    """
    n_components = Z.shape[1]
    n_pairs = n_components // 2
    scale = Z.dtype.type(np.sqrt(2.0 / n_components))
    # Each cosine and sine is taken in place (input and output the same
    # memory): NumPy then uses the same routine whatever the layout, where
    # an input beside or near a distinct output can send it to its scalar
    # routine, which differs in the last bit on some angles (and a row would
    # get other bits in a one-row chunk than in a larger one).
    for function, columns in ((np.cos, slice(0, n_pairs)),
                              (np.sin, slice(n_pairs, 2 * n_pairs))):
        angles = Z[:, columns]
        function(angles, out=angles)
    if n_components % 2:
        # The last column is strided: its cosine is taken in place on a
        # contiguous copy, for the same reason.
        shifted = Z[:, -1] + Z.dtype.type(offset)
        np.cos(shifted, out=shifted)
        Z[:, -1] = shifted
    np.multiply(Z, scale, out=Z)
    # The maximum is NaN if any value is (NumPy's reductions propagate NaN).
    return not np.isnan(Z.max(initial=0))


def features_in_pieces(place, n_rows, out, offset):
    """The features of ``n_rows`` rows into ``out``, a piece of rows at a time.

    ``place(start, stop, piece)`` writes the angles of rows ``start ..
    stop`` into ``piece`` (as :func:`place_angles` lays them out);
    :func:`cos_sin_in_place` then replaces them by their features while the
    piece is still in the core's cache (about ``_PIECE_BYTES``).

    Returns
    -------
    finite : bool
        Whether every feature is finite.
    """
    step = max(_PIECE_BYTES // max(out.shape[1] * out.itemsize, 1), 1)
    if step > _GROUP_ROWS:
        step -= step % _GROUP_ROWS
    finite = True
    for start in range(0, n_rows, step):
        stop = min(start + step, n_rows)
        piece = out[start:stop]
        place(start, stop, piece)
        finite &= cos_sin_in_place(piece, offset)
    return finite


def structured_projections_array(U, state, method, xp):
    """SORF's ``S H D1 H D2 H D3 x`` or Fastfood's ``S H G Pi H B x`` of the
    rows of ``U`` (n, width), every block, in namespace ``xp``: the products
    of :func:`sorf_projections` and :func:`fastfood_projections`, in their
    order, with ``state`` the diagonals on ``U``'s device (Fastfood's
    permutations as indices into the flattened blocks).

    Returns
    -------
    P : array of shape (n, n_blocks * width)
    """
    n_rows, width = U.shape
    U = xp.reshape(U, (n_rows, 1, width))
    if method == "sorf":
        signs, scales = state
        V = hadamard_array(U * signs[2, ...], xp)
        V = hadamard_array(V * signs[1, ...], xp)
        V = hadamard_array(V * signs[0, ...], xp)
    else:
        signs, flat_permutations, gaussian, scales = state
        V = hadamard_array(U * signs, xp)
        V = xp.take(xp.reshape(V, (n_rows, -1)), flat_permutations, axis=1)
        V = hadamard_array(xp.reshape(V, (n_rows, *gaussian.shape)) * gaussian, xp)
    return xp.reshape(V * scales, (n_rows, -1))


def cos_sin_array(P, n_components, offset, xp):
    """``sqrt(2 / D) [cos p, sin p]`` of the projections ``P`` in namespace ``xp``:
    the features :func:`cos_sin_in_place` computes, in its layout (for an
    odd ``D`` the last one ``sqrt(2 / D) cos(p + offset)`` of projection
    ``D // 2``)."""
    n_pairs = n_components // 2
    angles = P[:, :n_pairs]
    parts = [xp.cos(angles), xp.sin(angles)]
    if n_components % 2:
        parts.append(xp.cos(P[:, n_pairs : n_pairs + 1] + offset))
    return xp.concat(parts, axis=1) * float(np.sqrt(2.0 / n_components))


class FourierFeatureMap(SketchMap):
    """``sqrt(2 / D) [cos(W x), sin(W x)]`` with ORF, SORF or Fastfood frequencies ``W``.

    SORF's and Fastfood's diagonals are O(width) to draw again: the map keeps
    a seed drawn from the estimator's generator (so that every fit, and
    every sampler sharing one generator, gets diagonals of its own), not the
    diagonals, and draws them again from it when a process first needs them
    (they are then kept in memory, not pickled).
    """

    def __init__(self, n_features, n_components, gamma, method):
        self.n_components = n_components
        self.gamma = gamma
        self.method = method
        self.n_output = n_components
        self.n_frequencies = (n_components + 1) // 2
        self.width, self.hashed = input_width(n_features, method)
        # ORF's BLAS product: with some OpenBLAS releases a row's bits depend
        # on its place in the product, so jobs keep the chunks of one job.
        self.exact_rows = method != "orf"
        self.n_features = n_features
        self.array_api_support = True

    def n_blocks(self):
        return -(-self.n_frequencies // self.width)

    def state_bytes(self, dtype):
        # The frequencies and their copy in the input dtype; SORF's and
        # Fastfood's diagonals, drawn again from their seed at the first
        # transform (in each dtype), then kept.
        if self.method == "orf":
            return 16 * self.width * self.n_frequencies
        return 48 * self.n_blocks() * self.width

    def bytes_per_row(self, dtype):
        # The dense (or hashed, or padded) input row, and ORF's projections;
        # the features are computed in place in the output, a piece of
        # _PIECE_BYTES at a time.
        itemsize = np.dtype(dtype).itemsize
        if self.method == "orf":
            return itemsize * (2 * self.width + self.n_frequencies)
        return itemsize * self.width

    def size_description(self):
        return (
            f"n_components={self.n_components} and method={self.method!r} "
            "(its random state and the transform of one row)"
        )

    def draw(self, random_state, X):
        self.gamma_ = float(scale_gamma(X) if self.gamma == "scale" else self.gamma)
        self.hash_down = draw_hash_down(random_state, 1)[0] if self.hashed else None
        self.random_offset = (
            float(random_state.uniform(0, 2 * np.pi)) if self.n_components % 2 else 0.0
        )
        if self.method == "orf":
            self.weights = draw_orf(random_state, self.width, self.n_frequencies)
            self.weights *= np.sqrt(2.0 * self.gamma_)
        else:
            # A seed drawn from the generator, which it advances: two fits
            # sharing one generator, or the global one (random_state=None),
            # get different diagonals.
            self.diagonals_seed = int(random_state.randint(np.iinfo(np.int32).max))

    def fitted_attributes(self):
        attributes = dict(
            gamma_=self.gamma_, input_width_=self.width, hash_down_=self.hash_down,
            random_offset_=self.random_offset,
        )
        if self.method == "orf":
            attributes["random_weights_"] = self.weights
        return attributes

    def estimated_kernel(self, X):
        return rbf_kernel_matrix(X, self.gamma_)

    def sizing_model(self, sample, build, random_state):
        return fourier_model(self, sample, random_state)

    def diagonals(self):
        """SORF's ``(signs, scales)`` or Fastfood's ``(signs, permutations,
        gaussian, scales)``, drawn from the seed drawn by ``draw``, the same
        numbers every time, ``sqrt(2 gamma_)`` included in the scales."""
        random_state = np.random.RandomState(self.diagonals_seed)
        draw_diagonals = draw_sorf if self.method == "sorf" else draw_fastfood
        *diagonals, scales = draw_diagonals(random_state, self.width, self.n_blocks())
        scales *= np.sqrt(2.0 * self.gamma_)
        return (*diagonals, scales)

    def prepare(self, X, n_jobs, n_chunks):
        return self.host_state(X.dtype)

    def host_state(self, dtype):
        """The frequencies (ORF) or diagonals in ``dtype`` (integers kept), checked finite.

        Made at the first call for each dtype, then kept (see ``prepared``).
        """
        dtype = np.dtype(dtype)
        return self.prepared(("host", dtype), lambda: self._host_state(dtype))

    def _host_state(self, dtype):
        with np.errstate(over="ignore"):
            if self.method == "orf":
                state = (self.weights.astype(dtype, copy=False),)
            else:
                state = tuple(
                    part if part.dtype == np.intp else part.astype(dtype)
                    for part in self.diagonals()
                )
        # A large gamma_ (say gamma="scale" of tiny values) can put the
        # frequencies beyond float32.
        if not all(np.isfinite(part).all() for part in state if part.dtype == dtype):
            raise self.overflow_error(
                dtype, f"the frequencies (gamma_={self.gamma_:.3g})", "Lower gamma"
            )
        return state

    def device_state(self, xp, device, dtype):
        """:meth:`host_state` on ``device`` in ``xp``'s ``dtype`` (moved once),
        then the tables of the hash-down (when the input is hashed)."""
        build = functools.partial(self._gather_state, scatter=has_scatter_add(xp))
        return self.moved_arrays(xp, device, dtype, build)

    def dense_on_device(self, dtype):
        """Whether SORF's or Fastfood's frequencies are a dense matrix on a device."""
        n_inputs = min(self.n_features, self.width)
        size = n_inputs * self.n_frequencies * np.dtype(dtype).itemsize
        return self.method != "orf" and size <= _MAX_DEVICE_FREQUENCY_BYTES

    def _gather_state(self, dtype, scatter):
        """:meth:`host_state` (SORF's and Fastfood's as the dense frequencies
        where :meth:`dense_on_device`, else Fastfood's permutations as one
        gather), then :func:`hash_down_array_tables` (when hashed)."""
        state = list(self.host_state(dtype))
        if self.dense_on_device(dtype):
            # The frequencies are the projections of the unit rows, computed
            # as transform_chunk computes any row's (the Hadamard sums of
            # +-1 are exact; the scales round once).
            project = sorf_projections if self.method == "sorf" else fastfood_projections
            units = np.eye(min(self.n_features, self.width), self.width, dtype=dtype)
            state = [np.ascontiguousarray(project(units, *state)[:, : self.n_frequencies])]
        elif self.method == "fastfood":
            # Pi as a gather of the flattened blocks: column j of block b
            # reads column permutations[b, j] of the same block.
            permutations = state[1]
            offsets = np.arange(permutations.shape[0])[:, None] * self.width
            state[1] = (permutations + offsets).ravel().astype(np.int64)
        if self.hash_down is not None:
            state += hash_down_array_tables(
                self.hash_down, self.n_features, self.width, 1.0, 0.0, dtype, scatter
            )
        return tuple(state)

    def transform_array(self, X, xp, device):
        """The features of the whole array ``X`` of namespace ``xp`` on ``device``.

        Wide input is hashed down first (:func:`hash_down_array`); the
        projections are one product with the frequencies (ORF's, and SORF's
        and Fastfood's where :meth:`dense_on_device`) or the structured
        transform (:func:`structured_projections_array`); then
        the cosines and sines of :meth:`transform_chunk`, in its layout.
        """
        state = self.device_state(xp, device, X.dtype)
        X_in = X
        if self.hash_down is not None:
            X, state = hash_down_array(X, state[-3:], self.width, xp), state[:-3]
        n_rows, n_features = X.shape
        if self.method == "orf" or self.dense_on_device(host_dtype(X.dtype, xp)):
            P = X @ state[0]
        else:
            if n_features < self.width:
                padding = xp.zeros((n_rows, self.width - n_features), dtype=X.dtype, device=device)
                X = xp.concat([X, padding], axis=1)
            P = structured_projections_array(X, state, self.method, xp)
        Z = cos_sin_array(P, self.n_components, self.random_offset, xp)
        # As transform_chunk: a projection beyond the dtype's range is
        # infinite and its cosine NaN; NaN that came in (assume_finite=True)
        # goes out as it is.
        if not bool(xp.all(xp.isfinite(Z))) and bool(xp.all(xp.isfinite(X_in))):
            raise self.overflow_error(
                np.float32 if X.dtype == xp.float32 else np.float64,
                "the projections of the input", "Scale the input down or lower gamma",
            )
        return Z

    def transform_chunk(self, X_chunk, out, state):
        dtype = out.dtype
        X = X_chunk
        if self.hash_down is not None:
            X = hash_down(X, self.hash_down, self.width, 1.0, 0.0, dtype)
        n_pairs = out.shape[1] // 2
        if self.method == "orf":
            if self.hash_down is None:
                X = padded_rows(X, self.width, dtype)
            P = orf_projections(X, *state)

            def place(start, stop, piece):
                place_angles(P[start:stop], piece)
        else:
            X = dense_rows(X, dtype)
            project = sorf_projections if self.method == "sorf" else fastfood_projections

            def place(start, stop, piece):
                project(X[start:stop], *state, out=piece, n_pairs=n_pairs)

        finite = features_in_pieces(place, X.shape[0], out, self.random_offset)
        # A projection beyond the dtype's range is infinite, and its cosine
        # NaN. With assume_finite=True a NaN that came in goes out as it is,
        # and is no overflow.
        if not finite and all_finite(X_chunk):
            raise self.overflow_error(
                dtype, "the projections of the input", "Scale the input down or lower gamma"
            )
