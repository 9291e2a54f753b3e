"""CoREHasher: CoRE kernels linearized by minwise hashing (Li, 2014)."""

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from joblib import effective_n_jobs
from sklearn.utils import check_random_state

from .._base import BaseSketch
from ..utils._chunking import (
    HASHING_CHUNK_MIB,
    check_allocation,
    input_bytes_per_row,
    parallel_row_chunks,
    run_in_threads,
)
from ..utils._compat import StrOptions
from ..utils._hashing import draw_multiply_shift, draw_polynomial_hashes
from ..utils._sparse import dense_to_csr, gather
from ..utils._validation import (
    N_JOBS_CONSTRAINT,
    StrictInterval,
    positive_int,
)
from ._one_hot import (
    OneHotOutputMixin,
    block_starts,
    output_indptr,
    write_codes,
)
from ._positions import (
    BYTES_PER_PROBE,
    MAX_PROBES,
    PROBE_HASH_INDEPENDENCE,
    codes_in_one_pass,
    densification_tables,
    fss_codes,
    fss_positions,
    minwise_positions,
    nnz_chunks,
    oph_codes,
    oph_positions,
)
from ._projection import FEATURE_BLOCK, PROJECTIONS, project

# Rows whose largest absolute value is beyond 2**+-EXTREME_EXPONENT are
# rescaled before their norm and projection: float32 projections of values
# up to 2**60 cannot overflow, nor float64 squares of values from 2**-60 up
# underflow to a zero norm.
EXTREME_EXPONENT = 60
# Temporaries of transform per row and hash, and per row (see transform).
_BYTES_PER_ROW_AND_HASH = 48
_BYTES_PER_ROW = 384
# Most work (entries plus, for "oph" and "fss", bins) of a piece of rows
# hashed at once: the hash values of its entries, its temporary, then come
# from memory the allocator reuses instead of pages faulted in afresh at every
# transform, and the jobs share many pieces, so that one slowed job holds the
# others up little.
_MAX_PIECE_WORK = 1 << 17
# Peak bytes per generated projection entry (its two float32 uniforms, the
# values' copy in the order asked and their float64 copy), an upper bound for
# the size check of fit.
_BYTES_PER_GENERATED_ENTRY = 24

def _holds_positions(dtype, nnz):
    """Whether an integer ``dtype`` holds every position of ``nnz`` entries."""
    return nnz <= np.iinfo(dtype).max


def _rescale_extreme_rows(X, nonempty):
    """``X`` with its rows of very large or very small values scaled by powers of 2.

    Every output value is a ratio of the row's values (``u / |u|``), so it
    does not change when the row is scaled; scaling by a power of 2 is exact,
    so the rows that need no scaling would give the same bits scaled or not.
    Rows whose largest value is beyond ``2**+-EXTREME_EXPONENT`` are brought
    to a largest value in ``[0.5, 1)``, where neither the sum of squares of
    their norm nor the projection can overflow or underflow (huge or tiny
    but finite values would otherwise give infinite or NaN features).
    """
    if X.nnz == 0:
        return X
    peaks = np.maximum.reduceat(np.abs(X.data), X.indptr[:-1][nonempty])
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


class CoREHasher(OneHotOutputMixin, BaseSketch):
    """Hashed CoRE / resemblance features: sparse, ``k * 2**b_bits`` columns wide.

    Each row :math:`u` is normalized, :math:`\\tilde u = u / \\|u\\|`, and its
    set of nonzero coordinates :math:`S_u` (of size :math:`f_u`) is hashed by
    :math:`k` = ``n_components`` minwise hashes; hash :math:`j` gives the
    location :math:`L_j(u)`. The output row has one block per hash, with a
    single nonzero at (the b-bit code of) :math:`L_j(u)` carrying, times
    :math:`1 / \\sqrt{k}`, a random projection
    :math:`P_j(u) = \\sum_i r_{ij} \\tilde u_i` ("core1"),
    :math:`\\sqrt{f_u}\\, \\tilde u_{L_j(u)}` ("core2") or 1 ("resemblance").
    Inner products of output rows are Li's estimators of

    * CoRE type 1, :math:`K_{C1} = \\rho R`,
    * CoRE type 2, :math:`K_{C2} = \\rho \\sqrt{f_u f_v} / |S_u \\cup S_v|`,
    * the resemblance :math:`R = |S_u \\cap S_v| / |S_u \\cup S_v|`,

    where :math:`\\rho = \\langle \\tilde u, \\tilde v \\rangle`.

    Read more in the :ref:`User Guide <core_hasher>`.

    Parameters
    ----------
    n_components : int, default=256
        The number of hashes ``k``, also the number of nonzeros of each
        output row.

    kernel : {"core1", "core2", "resemblance"}, default="core1"
        The kernel the inner products estimate.

    b_bits : int or None, default=8
        Bits of the code of each location, between 1 and 32: a block is
        ``2**b_bits`` wide. ``None`` keeps the full location (blocks of
        width ``n_features_in_``, no bias).

    hashing : {"fss", "oph", "minwise"}, default="fss"
        How the ``k`` locations are drawn; every scheme gives each location
        collision probability ``R``.
        "fss": the fast similarity sketch [4]_, rounds of one-permutation
        hashing until every block has a location, expected
        ``O(nnz + k log k)`` per row. The blocks' collisions are negatively
        correlated, so the estimates are at least as concentrated as with
        ``k`` independent hashes (the paper proves Chernoff bounds as
        strong), and markedly more where ``k`` is comparable to the sets'
        sizes or larger: the most accurate features for their number.
        "oph": one-permutation hashing with optimal densification [2]_ [3]_,
        ``O(nnz + k)`` per row, the fastest, with the accuracy of ``k``
        independent hashes while ``k`` is below the sets' sizes and less
        beyond (empty bins copy their neighbours).
        "minwise": ``k`` independent minwise hashes, ``O(nnz * k)``, the
        scheme Li (2014) analyses.

    projection : {"gaussian", "rademacher", "hashed_gaussian"}, \
            default="gaussian"
        Distribution of ``r_ij`` for ``kernel="core1"`` (ignored otherwise):
        i.i.d. N(0, 1) as in the paper, i.i.d. random signs, or a Gaussian
        matrix behind feature hashing (8192 buckets per group of 128
        columns), whose cost does not grow with the number of features.

    random_state : int, RandomState instance or None, default=None
        Seeds the hashes and the projection drawn in ``fit``.

    n_jobs : int, default=None
        Number of threads hashing row chunks at once. ``None`` means 1
        unless in a :func:`joblib.parallel_config` context, ``-1`` all
        processors. The output does not depend on ``n_jobs``.

    Attributes
    ----------
    hash_coefficients_ : ndarray of shape (n_hashes, 2), dtype uint64
        Multiply-add-shift coefficients of the minwise hashes:
        ``n_components`` of them for "minwise", one for "oph"; for "fss",
        its one row holds the two 64-bit keys of the sketch's hashes.

    probe_coefficients_ : ndarray of shape (2,), dtype uint64
        Pairwise independent hash of the keys of the densification probes
        ("oph"), mixed before use.

    bucket_coefficients_ : ndarray of shape (n_components, 2), dtype uint64
        Hash of each block's b-bit location code (when ``b_bits`` is set).

    projection_seed_ : int
        Key of the counter-based generator of the projection ("core1").

    n_output_features_ : int
        Number of output columns, ``n_components * 2**b_bits`` (with
        ``b_bits=None``: ``n_components`` times the number of input
        features); each nonempty output row has ``n_components`` nonzeros.

    n_features_in_ : int
        Number of features seen during ``fit``.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    sklearn_sketch.metrics.core_kernel : The exact CoRE kernels.
    sklearn_sketch.metrics.resemblance_kernel : The exact resemblance kernel.

    Notes
    -----
    With ``b_bits=None`` the estimates are unbiased, with variances
    :math:`((1 + 2 \\rho^2) R - \\rho^2 R^2) / k` (type 1, Gaussian) and
    :math:`(R - R^2) / k` (resemblance). With ``b_bits=b`` two different
    locations share a code with probability :math:`2^{-b}`, so the resemblance
    estimate has mean :math:`R + (1 - R) 2^{-b}` and type 1
    :math:`\\rho (R + (1 - R) 2^{-b})`; this bias is not corrected.

    The output has :math:`k \\cdot 2^b` columns (:math:`k` times
    ``n_features_in_`` with ``b_bits=None``); ``fit`` refuses a width beyond
    :math:`2^{63} - 1`, which sparse indices cannot address, and
    ``get_feature_names_out`` a width beyond :math:`2^{23}` (see its Notes).

    References
    ----------
    .. [1] Li, P. "CoRE Kernels." UAI 2014.
    .. [2] Li, P., Owen, A. and Zhang, C.-H. "One Permutation Hashing." NIPS 2012.
    .. [3] Shrivastava, A. "Optimal Densification for Fast and Accurate Minwise
       Hashing." ICML 2017.
    .. [4] Dahlgaard, S., Knudsen, M. B. T. and Thorup, M. "Fast Similarity
       Sketching." FOCS 2017 (arXiv:1704.04370).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketch import CoREHasher
    >>> from sklearn_sketch.metrics import core_kernel
    >>> rng = np.random.RandomState(0)
    >>> X = rng.rand(3, 100) * (rng.rand(3, 100) < [[0.5], [0.6], [0.3]])
    >>> hasher = CoREHasher(n_components=2048, kernel="core1", random_state=0)
    >>> X_hashed = hasher.fit_transform(X)
    >>> X_hashed.shape, X_hashed.nnz
    ((3, 524288), 6144)
    >>> bool(np.allclose((X_hashed @ X_hashed.T).toarray(), core_kernel(X), atol=0.1))
    True
    """

    _jobs_share_chunks = True

    _parameter_constraints: dict = {
        "n_components": [positive_int()],
        "kernel": [StrOptions({"core1", "core2", "resemblance"})],
        "b_bits": [StrictInterval(Integral, 1, 32, closed="both"), None],
        "hashing": [StrOptions({"fss", "minwise", "oph"})],
        "projection": [StrOptions(set(PROJECTIONS))],
        "random_state": ["random_state"],
        "n_jobs": N_JOBS_CONSTRAINT,
    }

    # The output is sparse: chunks return CSR rows (and dask collections
    # become arrays of CSR blocks).

    def __init__(
        self,
        n_components=256,
        *,
        kernel="core1",
        b_bits=8,
        hashing="fss",
        projection="gaussian",
        random_state=None,
        n_jobs=None,
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.b_bits = b_bits
        self.hashing = hashing
        self.projection = projection
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _fit(self, X):
        """Draw the hashes and the projection key; only n_features is read from X."""
        self._check_size()
        random_state = check_random_state(self.random_state)
        k = self.n_components
        n_hashes = k if self.hashing == "minwise" else 1
        self.hash_coefficients_ = draw_multiply_shift(random_state, n_hashes)
        self.probe_coefficients_ = draw_polynomial_hashes(
            random_state, 1, PROBE_HASH_INDEPENDENCE
        )[0]
        self.bucket_coefficients_ = draw_multiply_shift(random_state, k)
        self.projection_seed_ = int(draw_multiply_shift(random_state, 1)[0, 0])
        self._n_features_out = k * self._block_width
        return self

    def _check_size(self):
        """Refuse, before drawing it, a model that could not transform one row here.

        Counts the hashes (with the temporaries of their draw), for "oph"
        the table of densification probes and its inverse, for "core1" one
        block of generated projection rows, and the temporaries and output
        of one row. Raises a MemoryError naming the size (see
        ``check_allocation``).
        """
        k = self.n_components
        n_hashes = k if self.hashing == "minwise" else 1
        n_bytes = 64 * (n_hashes + k) + _BYTES_PER_ROW_AND_HASH * k + _BYTES_PER_ROW
        if self.hashing == "oph":
            n_bytes += BYTES_PER_PROBE * k * min(k, MAX_PROBES)
        if self.kernel == "core1":
            n_bytes += _BYTES_PER_GENERATED_ENTRY * FEATURE_BLOCK * k
        check_allocation(
            n_bytes,
            f"CoREHasher with n_components={k}, kernel={self.kernel!r} and "
            f"hashing={self.hashing!r} (its hashes and the transform of one row)",
        )

    @property
    def _block_width(self):
        if self.b_bits is None:
            return self.n_features_in_
        return 2**self.b_bits

    def transform(self, X):
        """Hash X into sparse features whose inner products estimate the kernel.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Data to transform; real values, negative ones included.

        Returns
        -------
        X_new : csr_matrix of shape (n_samples, n_components * B)
            ``B = 2**b_bits`` (``n_features_in_`` when ``b_bits=None``).
            Exactly ``n_components`` nonzeros per nonempty input row, none for
            an all-zero row; float32 for float32 input, float64 otherwise.
            Under ``assume_finite=True`` a row with NaN or infinite values
            gets meaningless (NaN or zero) values with ``kernel="core1"`` or
            ``"core2"``; see Notes.
        """
        return super().transform(X)

    def _bytes_per_row(self, dtype):
        # Positions, locations, values, codes and, for core1, projections,
        # with the chunk's copy of its input, plus per-row arrays (which
        # dominate at small k).
        return _BYTES_PER_ROW_AND_HASH * self.n_components + _BYTES_PER_ROW

    def _chunk_budget_mib(self, n_jobs):
        # Chunks are large, because each chunk regenerates the projection
        # blocks of the features it touches: small chunks would generate the
        # same blocks over and over. The jobs share each chunk's work
        # (_jobs_share_chunks), so one chunk is in memory at a time.
        return HASHING_CHUNK_MIB

    def _chunks(self, X, n_jobs):
        # Chunks are not split further to give every job one: the jobs share
        # the work of each chunk, without copies of its rows and of the
        # pieces of its output, and for "core1" without generating in each
        # piece about all the rows of R that the chunk touches.
        bytes_per_row = self._input_bytes_per_row(X) + input_bytes_per_row(X)
        return parallel_row_chunks(
            X.shape[0], bytes_per_row, 1, self._exact_rows,
            max_chunk_mib=self._chunk_budget_mib(n_jobs),
        )

    def _prepare_transform(self, X):
        """The threads that share the work of each chunk: ``n_jobs``."""
        return effective_n_jobs(self.n_jobs)

    def _transform_chunk(self, X_chunk, out, state):
        # A dense input is converted to CSR chunk by chunk, never whole.
        if not sp.issparse(X_chunk):
            X_chunk = dense_to_csr(X_chunk)
        return self._transform_csr(X_chunk, n_jobs=state)

    def _transform_csr(self, X, n_jobs=1):
        """The transform of canonical CSR rows (an input or a chunk), in threads."""
        k = self.n_components
        n_samples = X.shape[0]
        nonempty = np.diff(X.indptr) > 0
        n_nonempty = int(nonempty.sum())
        width = self._block_width
        indptr = output_indptr(nonempty, k, width)
        codes = np.empty((n_nonempty, k), dtype=indptr.dtype)
        if self.kernel == "resemblance":
            # The values do not depend on the data: no rescaling needed; the
            # jobs fill them with the codes.
            values = np.empty((n_nonempty, k), dtype=X.dtype)
            self._hash_and_code(X, nonempty, codes, n_jobs, constant_values=values)
        else:
            # Positions in X of the hashes' minima (int32 where they fit),
            # kept for core2's values; core1 needs only their codes.
            positions = None
            if self.kernel == "core2":
                fits = _holds_positions(np.int32, X.nnz)
                positions = np.empty((n_nonempty, k), np.int32 if fits else np.int64)
            self._hash_and_code(X, nonempty, codes, n_jobs, positions=positions)
            X = _rescale_extreme_rows(X, nonempty)
            values = np.empty((n_nonempty, k), dtype=X.dtype)
            if self.kernel == "core2":
                gather(X.data, positions, out=values)
            # Non-finite input (possible only under assume_finite=True)
            # gives NaN values, as documented, rather than warnings about
            # the arithmetic.
            with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
                values = self._scaled_values(X, nonempty, values, n_jobs)
        X_new = sp.csr_matrix(
            (values.ravel(), codes.ravel(), indptr), shape=(n_samples, k * width)
        )
        # Canonical by construction (block j's code lies in block j): scipy
        # need not check it again before its operations.
        X_new.has_canonical_format = True
        return X_new

    def _scaled_values(self, X, nonempty, values, n_jobs=1):
        """The output values of the nonempty rows (``values`` holds core2's)."""
        k = self.n_components
        dtype = X.dtype
        norms = np.empty(0)
        if values.shape[0]:
            squares = np.square(X.data, dtype=np.float64)
            norms = np.sqrt(np.add.reduceat(squares, X.indptr[:-1][nonempty]))
        if self.kernel == "core2":
            row_nnz = np.diff(X.indptr)[nonempty]
            scale = np.sqrt(row_nnz) / norms / np.sqrt(k)
            values *= scale[:, None].astype(dtype)
            return values
        values = project(X, self.projection, self.projection_seed_, k, n_jobs)
        if not nonempty.all():
            values = values[nonempty]
        values *= (1.0 / np.sqrt(k) / norms[:, None]).astype(dtype)
        return values

    def _hash_and_code(
        self, X, nonempty, codes, n_jobs, positions=None, constant_values=None
    ):
        """Write the codes of the hashes' minima, by pieces of rows.

        ``codes[i, j]`` is the output column of the location chosen by hash
        ``j`` in the nonempty row number ``i``; with ``positions``, its
        position in ``X.data`` is written there too. The rows are hashed by
        pieces of about equal work, at most ``_MAX_PIECE_WORK`` (the
        hash values of a piece's entries are its only temporary, unless the
        positions do not fit the codes' dtype), ``n_jobs`` pieces at once. With
        ``constant_values``, each piece also sets its rows there to ``1 /
        sqrt(k)`` (the resemblance kernel's values). One-permutation hashing
        and the fast similarity sketch, without ``positions``, write the codes
        in the same pass as the bins' minima where they can (:func:`oph_codes`,
        :func:`fss_codes`).
        """
        tables = None
        if self.hashing == "oph":
            tables = densification_tables(self.probe_coefficients_, self.n_components)
        # Nonempty rows before each row: where a piece's rows go.
        done = np.zeros(len(nonempty) + 1, dtype=np.intp)
        np.cumsum(nonempty, out=done[1:])
        # A piece's positions go where its codes will be (the codes kernel
        # replaces them in place) when that dtype holds them.
        positions_fit = _holds_positions(codes.dtype, X.nnz)
        # The jobs get pieces of equal work: a row costs its entries plus,
        # for "oph", its k bins (densification and output), which weigh as
        # much as the entries on short rows, and for "fss" the rounds that
        # fill them (about k log k hashes on short rows, in vectorized loops:
        # they cost about what k entries cost). The work bounds the entries.
        k = self.n_components
        bins = 1 if self.hashing == "minwise" else k
        work = (X.indptr - X.indptr[0]) + bins * done
        max_work = min(_MAX_PIECE_WORK, -(-int(work[-1]) // n_jobs))

        hash_piece = self._piece_hasher(
            X, codes, done, tables, positions, positions_fit, constant_values
        )
        pieces = nnz_chunks(work, max_nnz=max(max_work, 1))
        run_in_threads(hash_piece, pieces, n_jobs)

    def _piece_hasher(
        self, X, codes, done, tables, positions, positions_fit, constant_values
    ):
        """The function hashing and coding a piece of rows (``_hash_and_code``)."""
        k, width = self.n_components, self._block_width
        value = 1.0 / np.sqrt(k)
        # One pass from the entries to the output columns where the codes
        # are computed in a 32-bit word (or are the locations): core2 needs
        # the positions themselves.
        fused = (
            self.hashing != "minwise" and positions is None
            and codes_in_one_pass(self.b_bits, X.shape[1])
        )
        offsets = block_starts(k, width)
        code_arguments = (self.bucket_coefficients_, self.b_bits, X.shape[1], offsets)

        def hash_piece(piece):
            start, stop = piece
            indptr = X.indptr[start : stop + 1]
            indices = X.indices[indptr[0] : indptr[-1]]
            rows = slice(done[start], done[stop])
            if fused and self.hashing == "fss":
                seeds = self.hash_coefficients_[0]
                fss_codes(indices, indptr, seeds, *code_arguments, codes[rows])
            elif fused:
                permutation = self.hash_coefficients_[0]
                oph_codes(indices, indptr, permutation, tables, *code_arguments, codes[rows])
            else:
                hash_positions(indices, indptr, rows)
            if constant_values is not None:
                constant_values[rows] = value

        def hash_positions(indices, indptr, rows):
            out = codes[rows]
            if positions is not None:
                out = positions[rows]
            elif not positions_fit:
                out = np.empty(out.shape, dtype=np.int64)
            if self.hashing == "minwise":
                minwise_positions(indices, indptr, self.hash_coefficients_, out=out)
            elif self.hashing == "fss":
                seeds = self.hash_coefficients_[0]
                fss_positions(indices, indptr, seeds, k, out=out)
            else:
                permutation = self.hash_coefficients_[0]
                oph_positions(indices, indptr, permutation, tables, out=out)
            write_codes(
                X.indices, self.bucket_coefficients_, self.b_bits, width, X.shape[1],
                codes[rows], positions=out,
            )

        return hash_piece
