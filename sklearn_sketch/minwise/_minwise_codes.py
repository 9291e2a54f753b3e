"""The codes of CoREHasher's minwise hashes: each row's ``k`` locations as output columns.

:class:`MinwiseCodes` holds the hashes of one scheme ("minwise", "oph" or
"fss", see ``_positions``) and the b-bit code hashes of the blocks; it writes,
for every nonempty row of a CSR chunk and every hash ``j``, the output column
of the location that hash ``j`` chooses (block ``j``'s code of it). The rows
are hashed by pieces of about equal work, the ``n_jobs`` threads sharing a
chunk's pieces.
"""

import numpy as np

from ..utils._chunking import run_in_threads
from ..utils._hashing import draw_multiply_shift, draw_polynomial_hashes
from ..utils._scratch import empty, task_buffers
from ._one_hot import block_starts, write_codes
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

# Most work (entries plus, for "oph" and "fss", bins) of a piece of rows
# hashed at once: the hash values of its entries, its temporary, then come
# from memory the allocator reuses instead of pages faulted in afresh at every
# transform, and the jobs share many pieces, so that one slowed job holds the
# others up little.
_MAX_PIECE_WORK = 1 << 17
# Bytes of a drawn multiply-add-shift hash with the temporaries of its draw.
_BYTES_PER_DRAWN_HASH = 64


def holds_positions(dtype, nnz):
    """Whether an integer ``dtype`` holds every position of ``nnz`` entries."""
    return nnz <= np.iinfo(dtype).max


class MinwiseCodes:
    """The minwise hashes of one scheme and the b-bit codes of their locations.

    Parameters
    ----------
    n_components : int
        The number of hashes ``k``.
    b_bits : int or None
        Bits of the codes (None: the locations themselves).
    hashing : {"fss", "oph", "minwise"}
        The scheme.
    block_width : int
        Width of a block of the output (``2**b_bits`` or ``n_keys``).
    """

    def __init__(self, n_components, b_bits, hashing, block_width):
        self.n_components = n_components
        self.b_bits = b_bits
        self.hashing = hashing
        self.block_width = block_width
        # "minwise" has k independent hashes; "oph" and "fss" one order.
        self.n_hashes = n_components if hashing == "minwise" else 1

    def state_bytes(self):
        """Bytes of the hashes (with their draw) and, for "oph", the densification tables."""
        k = self.n_components
        n_bytes = _BYTES_PER_DRAWN_HASH * (self.n_hashes + k)
        if self.hashing == "oph":
            n_bytes += BYTES_PER_PROBE * k * min(k, MAX_PROBES)
        return n_bytes

    def draw(self, random_state):
        """Draw the scheme's hashes, the densification probes' hash and the code hashes."""
        self.hash_coefficients = draw_multiply_shift(random_state, self.n_hashes)
        self.probe_coefficients = draw_polynomial_hashes(
            random_state, 1, PROBE_HASH_INDEPENDENCE
        )[0]
        self.bucket_coefficients = draw_multiply_shift(random_state, self.n_components)

    def fitted_attributes(self):
        return {
            "hash_coefficients_": self.hash_coefficients,
            "probe_coefficients_": self.probe_coefficients,
            "bucket_coefficients_": self.bucket_coefficients,
        }

    def write(
        self, X, nonempty, codes, n_jobs, positions=None, constant_values=None, scratch=None
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
        :func:`fss_codes`). ``scratch``: the map's
        :class:`~..utils._scratch.ScratchPool`, whose buffers the pieces'
        temporaries use (None: fresh memory).
        """
        tables = None
        if self.hashing == "oph":
            tables = densification_tables(self.probe_coefficients, self.n_components)
        # Nonempty rows before each row: where a piece's rows go.
        done = np.zeros(len(nonempty) + 1, dtype=np.intp)
        np.cumsum(nonempty, out=done[1:])
        # A piece's positions go where its codes will be (the codes kernel
        # replaces them in place) when that dtype holds them.
        positions_fit = holds_positions(codes.dtype, X.nnz)
        # The jobs get pieces of equal work: a row costs its entries plus,
        # for "oph" and "fss", its k bins (densification and output, or the
        # rounds that fill them, whose hashes run in vectorized loops), which
        # dominate on short rows. The work bounds the entries.
        bins = 1 if self.hashing == "minwise" else self.n_components
        work = (X.indptr - X.indptr[0]) + bins * done
        max_work = min(_MAX_PIECE_WORK, -(-int(work[-1]) // n_jobs))

        hash_piece = self._piece_hasher(
            X, codes, done, tables, positions, positions_fit, constant_values
        )

        def hash_piece_with_buffers(piece):
            with task_buffers(scratch) as buffers:
                hash_piece(piece, buffers)

        pieces = nnz_chunks(work, max_nnz=max(max_work, 1))
        run_in_threads(hash_piece_with_buffers, pieces, n_jobs)

    def _piece_hasher(
        self, X, codes, done, tables, positions, positions_fit, constant_values
    ):
        """The function hashing and coding a piece of rows (:meth:`write`)."""
        k, width, hashing = self.n_components, self.block_width, self.hashing
        value = 1.0 / np.sqrt(k)
        # One pass from the entries to the output columns where the codes
        # are computed in a 32-bit word (or are the locations): core2 needs
        # the positions themselves.
        fused = (
            hashing != "minwise" and positions is None
            and codes_in_one_pass(self.b_bits, X.shape[1])
        )
        offsets = block_starts(k, width)
        code_arguments = (self.bucket_coefficients, self.b_bits, X.shape[1], offsets)

        def hash_piece(piece, buffers):
            start, stop = piece
            indptr = X.indptr[start : stop + 1]
            indices = X.indices[indptr[0] : indptr[-1]]
            rows = slice(done[start], done[stop])
            if fused and hashing == "fss":
                seeds = self.hash_coefficients[0]
                fss_codes(indices, indptr, seeds, *code_arguments, codes[rows])
            elif fused:
                permutation = self.hash_coefficients[0]
                oph_codes(indices, indptr, permutation, tables, *code_arguments, codes[rows])
            else:
                hash_positions(indices, indptr, rows, buffers)
            if constant_values is not None:
                constant_values[rows] = value

        def hash_positions(indices, indptr, rows, buffers):
            out = codes[rows]
            if positions is not None:
                out = positions[rows]
            elif not positions_fit:
                out = empty(buffers, "positions", out.shape, np.int64)
            if hashing == "minwise":
                minwise_positions(
                    indices, indptr, self.hash_coefficients, out=out, scratch=buffers
                )
            elif hashing == "fss":
                seeds = self.hash_coefficients[0]
                fss_positions(indices, indptr, seeds, k, out=out)
            else:
                permutation = self.hash_coefficients[0]
                oph_positions(indices, indptr, permutation, tables, out=out)
            write_codes(
                X.indices, self.bucket_coefficients, self.b_bits, width, X.shape[1],
                codes[rows], positions=out,
            )

        return hash_piece
