"""Orthogonal, structured orthogonal and Fastfood random features of the RBF kernel."""

from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._base import BaseSketch, all_finite
from ..utils._chunking import check_allocation, single_threaded_blas
from ..utils._compat import StrOptions
from ..utils._count_sketch import draw_hash_down, hash_down
from ..utils._gamma import scale_gamma
from ..utils._hadamard import hadamard_length
from ..utils._validation import (
    N_JOBS_CONSTRAINT,
    StrictInterval,
    kernel_array,
    overflow_error,
    positive_int,
)

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


class OrthogonalRBFSampler(BaseSketch):
    r"""Orthogonal and structured random Fourier features of the RBF kernel.

    Approximates the feature map of the RBF (Gaussian) kernel
    :math:`k(x, y) = \exp(-\gamma \|x - y\|^2)`, as
    :class:`~sklearn.kernel_approximation.RBFSampler` does, with frequencies
    :math:`w \sim \mathcal{N}(0, 2 \gamma I)` that are drawn in
    orthogonal blocks instead of independently (Yu et al. 2016), which
    lowers the variance of the kernel estimate:

    - ``method="orf"``: orthogonal random features. Each block of
      ``n_features`` frequencies is a Haar-random orthogonal matrix whose
      rows are scaled by chi-distributed norms: unbiased, lowest variance,
      ``O(n_features * n_components)`` time per row and memory, like
      ``RBFSampler``.
    - ``method="sorf"``: structured orthogonal random features,
      :math:`\sqrt{2 \gamma} \, S H D_1 H D_2 H D_3` per block of :math:`d`
      frequencies (:math:`H` the normalized Walsh-Hadamard matrix, :math:`D_i`
      random sign diagonals, :math:`d` the input width padded to a power of
      two): :math:`O(D \log d)` time per row and :math:`O(D)` memory, with
      :math:`D` ``n_components``. The rows get chi-distributed norms :math:`S`
      as in ORF, where Yu et al. fix them to :math:`\sqrt{d}`: that removes
      the bias of the fixed norm, large at small :math:`d`.
    - ``method="fastfood"``: Fastfood (Le et al. 2013),
      :math:`S H G \Pi H B` per block (:math:`B` random signs, :math:`\Pi` a
      random permutation, :math:`G` a Gaussian diagonal, :math:`S`
      chi-distributed row norms): the same cost as SORF.

    The features are :math:`\sqrt{2 / D} \, [\cos(W x), \sin(W x)]` for
    :math:`\lfloor D / 2 \rfloor` frequencies (for an odd :math:`D` one more
    feature :math:`\sqrt{2 / D} \cos(w^\top x + b)` with a random offset
    :math:`b`). Pairs of cosines and sines estimate :math:`k(x, y)` with the
    variance :math:`(1 - k^2)^2 / (2 m)` of :math:`m` independent frequencies,
    lower at every distance than the :math:`D` random-offset features
    :math:`\sqrt{2 / D} \cos(w^\top x + b)` of ``RBFSampler`` (Sutherland &
    Schneider 2015), and need half the projections.

    Input wider than 4096 features (hashed text, for instance) is first
    reduced to 4096 coordinates by a Count Sketch (Charikar et al. 2002), at
    a cost that follows its nonzeros; the squared distance is then
    estimated without bias with a relative variance of at most
    ``2 / 4096``, and ``k`` is estimated through it.

    Read more in the :ref:`User Guide <rbf_features>`.

    Parameters
    ----------
    n_components : int, default=100
        Number of output features.

    gamma : 'scale' or float, default='scale'
        Parameter of the RBF kernel ``exp(-gamma ||x - y||^2)``. With
        ``"scale"``, ``1 / (n_features * X.var())`` of the data given to
        ``fit`` (1.0 for constant data), the default of
        :class:`~sklearn.svm.SVC`. This default differs from
        ``RBFSampler``'s, ``gamma=1.0``, which suits only data whose squared
        distances are of order one: on pixels in [0, 255], or even scaled to
        [0, 1], almost every kernel value it gives is 0 and a linear model
        on the features learns next to nothing. Pass ``gamma=1.0`` for
        ``RBFSampler``'s kernel.

    method : {'sorf', 'orf', 'fastfood'}, default='sorf'
        How the frequencies are drawn (see above).

    random_state : int, RandomState instance or None, default=None
        Pseudo-random number generator that draws the frequencies at fit.
        Pass an int for reproducible output across multiple function calls.

    n_jobs : int, default=None
        Number of threads that transform row chunks in parallel. ``None``
        means 1 unless in a :obj:`joblib.parallel_config` context; ``-1``
        means all processors. The result is the same bits for any value.

    Attributes
    ----------
    gamma_ : float
        The kernel parameter used (``gamma``, or its value for ``"scale"``).

    input_width_ : int
        Width ``d`` of the rows the frequencies multiply: ``n_features``,
        padded to a power of two (at least 16) for ``"sorf"`` and
        ``"fastfood"``, and 4096 for wider input, which is hashed down.

    hash_down_ : ndarray of shape (6,), dtype uint64, or None
        Coefficients of the Count Sketch hashes of input wider than 4096
        features; None otherwise.

    random_weights_ : ndarray of shape (`input_width_`, n_frequencies)
        ``method="orf"`` only: the frequencies ``W``, ``sqrt(2 gamma_)``
        included, with ``n_frequencies = (n_components + 1) // 2``.

    The structured diagonals below (``signs_``, ``permutations_``,
    ``gaussian_``, ``scales_``) are not stored: each access, and each
    ``transform`` call, draws them again from the generator's state saved at
    ``fit``, the same numbers every time, so that the fitted state stays a
    few KiB whatever the input width.

    signs_ : ndarray of dtype int8
        ``method="sorf"``: the diagonals ``D1, D2, D3`` of every block, of
        shape (3, n_blocks, `input_width_`); ``method="fastfood"``: ``B``, of
        shape (n_blocks, `input_width_`).

    permutations_ : ndarray of shape (n_blocks, `input_width_`)
        ``method="fastfood"`` only: the permutation ``Pi`` of every block.

    gaussian_ : ndarray of shape (n_blocks, `input_width_`)
        ``method="fastfood"`` only: the diagonal ``G`` of every block.

    scales_ : ndarray of shape (n_blocks, `input_width_`)
        ``method="sorf"`` and ``"fastfood"``: the row scales ``S`` (with the
        normalization of the unnormalized Hadamard products and
        ``sqrt(2 gamma_)`` included).

    random_offset_ : float
        The offset ``b`` of the last feature of an odd ``n_components``
        (unused, 0.0, for an even one).

    n_features_in_ : int
        Number of features seen during ``fit``.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    sklearn.kernel_approximation.RBFSampler : Random Fourier features with
        independent frequencies and random offsets.
    sklearn.kernel_approximation.Nystroem : Approximate a kernel map using a
        subset of the training data.
    sklearn.metrics.pairwise.rbf_kernel : The exact kernel.

    References
    ----------
    .. [1] Rahimi, A. and Recht, B. "Random Features for Large-Scale Kernel
       Machines." NeurIPS 2007.
    .. [2] Le, Q., Sarlos, T. and Smola, A. "Fastfood - Approximating Kernel
       Expansions in Loglinear Time." ICML 2013.
    .. [3] Sutherland, D. J. and Schneider, J. "On the Error of Random Fourier
       Features." UAI 2015.
    .. [4] Yu, F. X., Suresh, A. T., Choromanski, K., Holtmann-Rice, D. and Kumar,
       S. "Orthogonal Random Features." NeurIPS 2016.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.metrics.pairwise import rbf_kernel
    >>> from sklearn_sketch import OrthogonalRBFSampler
    >>> X = np.random.RandomState(0).rand(5, 30)
    >>> sampler = OrthogonalRBFSampler(n_components=4096, gamma=0.1, random_state=0)
    >>> Z = sampler.fit_transform(X)
    >>> Z.shape
    (5, 4096)
    >>> bool(np.abs(Z @ Z.T - rbf_kernel(X, gamma=0.1)).max() < 0.05)
    True
    """

    @property
    def _exact_rows(self):
        # ORF's BLAS product: with some OpenBLAS releases a row's bits depend
        # on its place in the product, so jobs keep the chunks of one job.
        return self.method != "orf"

    _parameter_constraints: dict = {
        "n_components": [positive_int()],
        "gamma": [StrOptions({"scale"}), StrictInterval(Real, 0, None, closed="neither")],
        "method": [StrOptions({"sorf", "orf", "fastfood"})],
        "random_state": ["random_state"],
        "n_jobs": N_JOBS_CONSTRAINT,
    }

    def __init__(
        self, n_components=100, *, gamma="scale", method="sorf", random_state=None, n_jobs=None
    ):
        self.n_components = n_components
        self.gamma = gamma
        self.method = method
        self.random_state = random_state
        self.n_jobs = n_jobs

    @property
    def _n_frequencies(self):
        return (self.n_components + 1) // 2

    def _n_blocks(self):
        return -(-self._n_frequencies // self.input_width_)

    def _fit(self, X):
        random_state = check_random_state(self.random_state)
        self.gamma_ = float(scale_gamma(X) if self.gamma == "scale" else self.gamma)
        self.input_width_, hashed = input_width(X.shape[1], self.method)
        self._check_size()
        self.hash_down_ = draw_hash_down(random_state, 1)[0] if hashed else None
        self.random_offset_ = (
            float(random_state.uniform(0, 2 * np.pi)) if self.n_components % 2 else 0.0
        )
        self._n_features_out = self.n_components
        if self.method == "orf":
            self.random_weights_ = draw_orf(
                random_state, self.input_width_, self._n_frequencies
            )
            self.random_weights_ *= np.sqrt(2.0 * self.gamma_)
            return
        # SORF's and Fastfood's diagonals are O(width) to draw again: the
        # fitted state keeps the generator's state before their draw (a few
        # KiB), not the diagonals (tens of KiB for hashed wide input).
        self._diagonals_draw = random_state.get_state()

    def _diagonals(self):
        """SORF's ``(signs, scales)`` or Fastfood's ``(signs, permutations,
        gaussian, scales)``, drawn again from the state saved at fit, the same
        numbers as then, ``sqrt(2 gamma_)`` included in the scales."""
        check_is_fitted(self)
        if self.method == "orf":
            raise AttributeError("method='orf' has no structured diagonals.")
        random_state = np.random.RandomState()
        random_state.set_state(self._diagonals_draw)
        draw = draw_sorf if self.method == "sorf" else draw_fastfood
        *diagonals, scales = draw(random_state, self.input_width_, self._n_blocks())
        scales *= np.sqrt(2.0 * self.gamma_)
        return (*diagonals, scales)

    @property
    def signs_(self):
        return self._diagonals()[0]

    @property
    def permutations_(self):
        if self.method != "fastfood":
            raise AttributeError("Only method='fastfood' has permutations_.")
        return self._diagonals()[1]

    @property
    def gaussian_(self):
        if self.method != "fastfood":
            raise AttributeError("Only method='fastfood' has gaussian_.")
        return self._diagonals()[2]

    @property
    def scales_(self):
        return self._diagonals()[-1]

    def _state_bytes(self):
        """Bytes of the frequencies and their per-call copy in the input dtype.

        SORF's and Fastfood's are drawn again in each transform call, not kept.
        """
        if self.method == "orf":
            return 16 * self.input_width_ * self._n_frequencies
        return 48 * self._n_blocks() * self.input_width_

    def _check_size(self):
        """Refuse, before drawing it, a model that could not transform one row here."""
        check_allocation(
            self._state_bytes() + self._bytes_per_row(np.float64) + 8 * self.n_components,
            f"{type(self).__name__} with n_components={self.n_components} and "
            f"method={self.method!r} (its random state and the transform of one row)",
        )

    def _bytes_per_row(self, dtype):
        # The dense (or hashed, or padded) input row, and ORF's projections;
        # the features are computed in place in the output, a piece of
        # _PIECE_BYTES at a time.
        itemsize = np.dtype(dtype).itemsize
        width = self.input_width_
        if self.method == "orf":
            return itemsize * (2 * width + self._n_frequencies)
        return itemsize * width

    def _prepare_transform(self, X):
        dtype = X.dtype
        with np.errstate(over="ignore"):
            if self.method == "orf":
                state = (self.random_weights_.astype(dtype),)
            elif self.method == "sorf":
                signs, scales = self._diagonals()
                state = signs.astype(dtype), scales.astype(dtype)
            else:
                signs, permutations, gaussian, scales = self._diagonals()
                state = (
                    signs.astype(dtype), permutations,
                    gaussian.astype(dtype), scales.astype(dtype),
                )
        # A large gamma_ (say gamma="scale" of tiny values) can put the
        # frequencies beyond float32.
        if not all(np.isfinite(part).all() for part in state if part.dtype == dtype):
            raise overflow_error(
                self, dtype, f"the frequencies (gamma_={self.gamma_:.3g})", "Lower gamma"
            )
        return state

    def _transform_chunk(self, X_chunk, out, state):
        dtype = out.dtype
        X = X_chunk
        if self.hash_down_ is not None:
            X = hash_down(X, self.hash_down_, self.input_width_, 1.0, 0.0, dtype)
        n_pairs = out.shape[1] // 2
        if self.method == "orf":
            if self.hash_down_ is None:
                X = padded_rows(X, self.input_width_, dtype)
            P = orf_projections(X, *state)

            def place(start, stop, piece):
                place_angles(P[start:stop], piece)
        else:
            X = dense_rows(X, dtype)
            project = sorf_projections if self.method == "sorf" else fastfood_projections

            def place(start, stop, piece):
                project(X[start:stop], *state, out=piece, n_pairs=n_pairs)

        finite = features_in_pieces(place, X.shape[0], out, self.random_offset_)
        # A projection beyond the dtype's range is infinite, and its cosine
        # NaN. With assume_finite=True a NaN that came in goes out as it is,
        # and is no overflow.
        if not finite and all_finite(X_chunk):
            raise overflow_error(
                self, dtype, "the projections of the input",
                "Scale the input down or lower gamma",
            )
