"""Minwise hashing of the nonzero patterns of CSR rows.

Three schemes give, for every nonempty row and every hash ``j = 0 .. k-1``, the
position (in the CSR ``indices``/``data`` arrays) of the row's minimal element
under a random order of the coordinates:

* :func:`minwise_positions`: ``k`` independent orders, ``O(nnz * k)`` work.
* :func:`oph_positions`: one order split into ``k`` bins (one-permutation
  hashing, Li, Owen and Zhang 2012) with optimal densification of empty bins
  (Shrivastava 2017), ``O(nnz + k)`` work per row.
* :func:`fss_positions`: the fast similarity sketch (Dahlgaard, Knudsen and
  Thorup 2017), rounds of one-permutation hashing until every bin is
  filled, expected ``O(nnz + k log k)`` work per row; each bin collides
  with probability exactly the resemblance, like ``k`` independent orders.

:func:`oph_codes` runs one-permutation hashing straight to a one-hot
output's columns (the b-bit codes of the locations) where they are computed
in a 32-bit word, without writing the positions.

This module prepares and checks their arguments and owns the densification
tables; the loops over rows are compiled (``_minwise_kernels``), and consume the
hash values of a chunk's entries that ``utils._hashing`` computes.

Hash family
-----------
A coordinate ``i`` is ordered by the multiply-add-shift hash of its
``fmix32`` key, ``((a * fmix32(i) + b) mod 2**64) >> 32`` with ``a, b``
uniform 64-bit integers (the family and why the keys are scrambled first
are described, and implemented, in ``utils._hashing``, the home of every
hash family; this module owns what minwise hashing does with it).

Ties between two coordinates of one row that share the 32-bit hash value are
broken by the coordinate index (rows are in canonical CSR form, so the
position order is the index order); the order is then a strict total order on
coordinates, i.e. a permutation, identical for every row.

The state of a scheme is a few integers per hash, whatever the number of
features.
"""

import functools

import numpy as np

from ..utils._hashing import (
    bbit_word,
    minwise_hashes,
    polynomial_hash,
)
from ..utils._scratch import empty
from ..utils._validation import kernel_array

# Largest number of stored entries hashed at once: the hash values of a
# chunk's entries (uint32, one array per hash block) stay near 4 MiB.
MAX_CHUNK_NNZ = 1 << 20
# The densification probes are a pairwise independent polynomial hash of
# their keys, then mixed (see densification_probes for why the mixing).
PROBE_HASH_INDEPENDENCE = 2
# Densification probes per empty bin before the circular fallback; after 256
# probes a bin stays empty only when its row fills under ~2% of the bins.
MAX_PROBES = 256
# Bytes per densification probe (its bin in the table, 4, and its packed
# pair in the inverse lists, 8), for the size checks of fit.
BYTES_PER_PROBE = 12
# A row of k bins, f of them filled, is densified from its filled bins (the
# inverse lists of the probes, f * n_attempts steps) when f is below
# SPARSE_FILL_FRACTION * k / sqrt(n_attempts), else bin by bin (about k / f
# steps per empty bin, k**2 / f in all). The sources are the same either way.
SPARSE_FILL_FRACTION = 1.0


def nnz_chunks(indptr, max_nnz=MAX_CHUNK_NNZ, max_rows=None):
    """Row ranges ``(start, stop)`` holding at most ``max_nnz`` stored entries.

    A row with more entries than ``max_nnz`` gets a chunk of its own.
    ``indptr`` may be any cumulative count per row (row pointers, or a
    cumulative cost whose chunks should be about equal).
    """
    n_rows = len(indptr) - 1
    if max_rows is None:
        max_rows = n_rows
    max_rows = max(int(max_rows), 1)
    start = 0
    while start < n_rows:
        stop = int(np.searchsorted(indptr, indptr[start] + max_nnz, side="right")) - 1
        stop = min(max(stop, start + 1), start + max_rows, n_rows)
        yield start, stop
        start = stop


def minwise_positions(indices, indptr, hash_coefficients, out=None, scratch=None):
    """Position of each row's minimum under each of ``k`` independent hashes.

    Parameters
    ----------
    indices, indptr : ndarray
        Rows of a canonical CSR matrix (sorted indices, no duplicates, no
        stored zeros): ``indices`` holds the entries from position
        ``indptr[0]`` on.
    hash_coefficients : ndarray of shape (k, 2), dtype uint64
        From :func:`draw_multiply_shift`.
    out : ndarray of shape (n_nonempty_rows, k), default=None
        Integer array for the positions (int64 if None).
    scratch : ScratchBuffers, default=None
        Buffers for the hash values (``utils._scratch``); None: fresh ones.

    Returns
    -------
    positions : ndarray of shape (n_nonempty_rows, k)
        For every nonempty row (in order), the position (counted like
        ``indptr``) of its minimal coordinate under hash ``j``.
    """
    from ._minwise_kernels import _minwise_positions

    n_hashes = hash_coefficients.shape[0]
    if out is None:
        out = np.empty((np.count_nonzero(np.diff(indptr)), n_hashes), dtype=np.int64)
    if out.shape[0] == 0:
        return out
    indptr = kernel_array(indptr, np.int64)  # one dtype to compile for
    # Hash values of a block of hashes at a time, about MAX_CHUNK_NNZ of them.
    block = max(1, min(n_hashes, MAX_CHUNK_NNZ // max(indices.size, 1)))
    for first in range(0, n_hashes, block):
        coefficients = hash_coefficients[first : first + block]
        hashes = empty(scratch, "hashes", (coefficients.shape[0], indices.size), np.uint32)
        minwise_hashes(coefficients, indices, out=hashes)
        _minwise_positions(hashes, indptr, first, out)
    return out


def oph_positions(indices, indptr, hash_coefficients, tables, out=None):
    """One-permutation hashing with optimal densification.

    Parameters
    ----------
    indices, indptr : ndarray
        Rows of a canonical CSR matrix, as in :func:`minwise_positions`.
    hash_coefficients : ndarray of shape (2,), dtype uint64
        The one multiply-add-shift hash (the permutation).
    tables : tuple
        :func:`densification_tables` for the ``k`` bins.
    out : ndarray of shape (n_nonempty_rows, k), default=None
        Integer array for the positions (int64 if None).

    Returns
    -------
    positions : ndarray of shape (n_nonempty_rows, k)
        Counted like ``indptr``.
    """
    hashes = minwise_hashes(hash_coefficients[None], indices)[0]
    # Within a bin the order is the hash order, ties to the first entry.
    return _run_binned(_oph_positions_kernel, (hashes,), indptr, tables, out)


def _oph_positions_kernel(hashes, indptr, *tables_and_out):
    """``_oph_rows`` writing positions (no codes: the one row kernel of both)."""
    from ._minwise_kernels import _oph_rows

    *tables, sparse_bins, out = tables_and_out
    _oph_rows(hashes, _NO_INDICES, indptr, *tables, sparse_bins, *_NO_CODES, out)


def _oph_codes_kernel(hashes, indices, coefficients, b_bits, offsets, indptr, *tables_and_out):
    """``_oph_rows`` writing the output columns."""
    from ._minwise_kernels import _oph_rows

    *tables, sparse_bins, out = tables_and_out
    _oph_rows(hashes, indices, indptr, *tables, sparse_bins, coefficients, b_bits, offsets, out)


def fss_positions(indices, indptr, seeds, n_bins, out=None):
    """The fast similarity sketch (Dahlgaard, Knudsen and Thorup 2017).

    Rounds ``i = 0, 1, ..`` of one-permutation hashing, each with its own
    hash of the coordinates, until every bin has an element (then rounds
    ``k + j`` send all elements to bin ``j`` alone); a bin keeps the element
    of smallest hash of the first round that reaches it. Both sets of a pair
    pick the same element in a bin exactly when the first element of their
    union to reach it is in both, which has probability the resemblance.
    The hash family is described in ``_minwise_kernels``.

    Parameters
    ----------
    indices, indptr : ndarray
        Rows of a canonical CSR matrix, as in :func:`minwise_positions`
        (any non-negative integer indices, up to ``2**63 - 1``).
    seeds : ndarray of shape (2,), dtype uint64
        The two keys of the hashes (uniform 64-bit integers).
    n_bins : int
        The number of codes ``k`` per row.
    out : ndarray of shape (n_nonempty_rows, k), default=None
        Integer array for the positions (int64 if None).

    Returns
    -------
    positions : ndarray of shape (n_nonempty_rows, k)
        Counted like ``indptr``.
    """
    from ._minwise_kernels import _fss_rows, fss_work_arrays

    _check_fss_rows(indptr)
    if out is None:
        out = np.empty((np.count_nonzero(np.diff(indptr)), n_bins), dtype=np.int64)
    if out.shape[0]:
        _fss_rows(
            kernel_array(indices), kernel_array(indptr, np.int64),
            kernel_array(seeds, np.uint64), *_NO_CODES, out,
            *fss_work_arrays(indptr, n_bins),
        )
    return out


# The code arguments of the row kernels where they write positions: no
# coefficients, b_bits < 0 and no offsets (arrays of the codes' types, so
# that positions and codes take one compile).
_NO_CODES = (np.empty((0, 2), dtype=np.uint64), -1, np.empty(0, dtype=np.uint64))
# The locations _oph_rows reads for codes only (int32, the usual indices).
_NO_INDICES = np.empty(0, dtype=np.int32)


def _check_fss_rows(indptr):
    if indptr.size > 1 and np.max(np.diff(indptr)) >= 2**32:
        # The kernel packs an entry's offset in its row into 32 bits.
        raise ValueError("fss_positions takes rows of fewer than 2**32 entries.")


def fss_codes(indices, indptr, seeds, code_coefficients, b_bits, n_keys, offsets, out):
    """The fast similarity sketch straight to the output columns.

    What :func:`fss_positions` followed by ``bbit_codes`` of the positions'
    locations gives, in one pass over the rows, as :func:`oph_codes` does
    for one-permutation hashing (same parameters, ``seeds`` as in
    :func:`fss_positions`). Only where :func:`codes_in_one_pass`.
    """
    from ._minwise_kernels import _fss_rows, fss_work_arrays

    _check_fss_rows(indptr)
    code_arrays = _one_pass_code_arrays(code_coefficients, b_bits, n_keys, offsets)
    if out.shape[0]:
        _fss_rows(
            kernel_array(indices), kernel_array(indptr, np.int64),
            kernel_array(seeds, np.uint64), *code_arrays, out,
            *fss_work_arrays(indptr, out.shape[1]),
        )
    return out


def _one_pass_code_arrays(code_coefficients, b_bits, n_keys, offsets):
    """The code arguments of the one-pass kernels: coefficients, b_bits, offsets."""
    if not codes_in_one_pass(b_bits, n_keys):
        raise ValueError(
            f"b_bits={b_bits} codes of {n_keys} keys need a 64-bit word: "
            "use the positions and bbit_codes."
        )
    return (
        kernel_array(code_coefficients, np.uint64), b_bits or 0,
        kernel_array(offsets, np.uint64),
    )


def codes_in_one_pass(b_bits, n_keys):
    """Whether :func:`oph_codes` serves codes of ``b_bits`` for keys below ``n_keys``.

    True for ``b_bits=None`` (the locations themselves) and for b-bit codes
    computed in a 32-bit word (see ``utils._hashing.bbit_codes``).
    """
    return b_bits is None or bbit_word(b_bits, n_keys)[0] == 32


def oph_codes(
    indices, indptr, hash_coefficients, tables, code_coefficients, b_bits, n_keys,
    offsets, out,
):
    """One-permutation hashing straight to the output columns.

    What :func:`oph_positions` followed by ``bbit_codes`` of the positions'
    locations gives, in one pass over the rows: the positions are never
    written. Only where :func:`codes_in_one_pass`; :func:`oph_positions`
    serves the others.

    Parameters
    ----------
    indices, indptr, hash_coefficients, tables
        As in :func:`oph_positions`.
    code_coefficients : ndarray of shape (k, 2), dtype uint64
        The multiply-add-shift hashes of the codes (``bbit_codes``).
    b_bits : int or None
    n_keys : int
        An upper bound on the locations (exclusive).
    offsets : ndarray of shape (k,), dtype uint64
        Added to the codes of bin ``j`` (the start of its block).
    out : ndarray of shape (n_nonempty_rows, k)
        Integer columns of the output.

    Returns
    -------
    out : ndarray of shape (n_nonempty_rows, k)
    """
    coefficients, b_bits, offsets = _one_pass_code_arrays(
        code_coefficients, b_bits, n_keys, offsets
    )
    if out.shape[0] == 0:
        return out
    hashes = minwise_hashes(hash_coefficients[None], indices)[0]
    arrays = (hashes, np.ascontiguousarray(indices), coefficients, b_bits, offsets)
    return _run_binned(_oph_codes_kernel, arrays, indptr, tables, out)


def binned_positions(bin_hashes, order, indptr, tables, out=None):
    """The entry of smallest ``order`` in each bin of each row, empty bins densified.

    One-permutation hashing's second step, open to any binned scheme:
    entries go to the bins their ``bin_hashes`` give, each (row, bin) keeps
    its entry of smallest ``order`` (the first of equal ones), and empty
    bins are filled by optimal densification.

    Parameters
    ----------
    bin_hashes : ndarray of uint32 of shape (nnz,)
        The bin of an entry is ``(bin_hash * k) >> 32`` (multiply-shift
        range reduction to ``k`` bins).
    order : ndarray of shape (nnz,)
        Keys ordering the entries within a bin (any numeric dtype).
    indptr : ndarray
        Row pointers: ``bin_hashes`` and ``order`` hold the entries from
        position ``indptr[0]`` on.
    tables : tuple
        :func:`densification_tables` for the ``k`` bins.
    out : ndarray of shape (n_nonempty_rows, k), default=None
        Integer array for the positions (int64 if None).

    Returns
    -------
    positions : ndarray of shape (n_nonempty_rows, k)
        Counted like ``indptr``.
    """
    from ._minwise_kernels import _binned_positions

    arrays = (np.ascontiguousarray(bin_hashes), np.ascontiguousarray(order))
    return _run_binned(_binned_positions, arrays, indptr, tables, out)


def _run_binned(kernel, arrays, indptr, tables, out):
    """Call a binned kernel of ``_minwise_kernels`` on the arrays of the entries."""
    n_attempts, n_bins = tables[0].shape
    if out is None:
        out = np.empty((np.count_nonzero(np.diff(indptr)), n_bins), dtype=np.int64)
    if out.shape[0]:
        sparse_bins = int(np.ceil(SPARSE_FILL_FRACTION * n_bins / np.sqrt(n_attempts)))
        # indptr as int64 (a few values per piece): one dtype to compile for.
        kernel(*arrays, kernel_array(indptr, np.int64), *tables, sparse_bins, out)
    return out


def densification_probes(probe_coefficients, n_bins, n_attempts):
    """Bin to borrow from at each attempt, for every bin: ``(n_bins, n_attempts)``.

    The probe of bin ``j`` at attempt ``t`` is a pairwise independent
    polynomial hash of the key ``j * n_attempts + t``, passed through
    SplitMix64's finalizer (:func:`~sklearn_sketch.utils._hashing.mix64`, a
    fixed bijection) and reduced to a bin. It depends on neither the row nor
    the data, which is what keeps the collision probability equal to the
    resemblance (Shrivastava 2017).

    The mixing is what keeps the variance that of optimal densification,
    whose analysis takes the probe sequences of different bins to be
    independent. A linear hash of the keys alone makes them an arithmetic
    progression modulo ``P``: every bin's sequence is then bin 0's shifted
    by one of two constants at each attempt, the empty bins of a row copy
    correlated sources, and the estimator's variance grows the more bins are
    empty (``k`` beyond the set sizes). The table is the same at every
    transform of a fitted hasher, so the last few are kept (read-only)
    rather than hashed again each time.
    """
    key = tuple(int(c) for c in probe_coefficients)
    return _densification_probes(key, int(n_bins), int(n_attempts))


@functools.lru_cache(maxsize=4)
def _densification_probes(probe_coefficients, n_bins, n_attempts):
    probes = _probe_table(probe_coefficients, n_bins, n_attempts).T
    probes.flags.writeable = False
    return probes


def _probe_table(probe_coefficients, n_bins, n_attempts):
    """The probes attempt-major, ``(n_attempts, n_bins)`` uint32: hashed in that order.

    The hash is linear (``PROBE_HASH_INDEPENDENCE = 2``), so the keys of one
    attempt, ``n_attempts`` apart from bin to bin, have values a constant
    apart: the kernel adds it where Horner's rule would multiply, and mixes
    and reduces each value in the same pass (the tables are built at every
    draw of a hasher, the pilots of ``n_components="auto"`` included).
    """
    from ._minwise_kernels import _probe_table as probe_table_kernel

    slope, intercept = (np.uint64(c) for c in probe_coefficients)
    starts = polynomial_hash(np.array([slope, intercept]), np.arange(n_attempts))
    step = polynomial_hash(np.array([slope, 0], dtype=np.uint64), n_attempts)
    out = np.empty((n_attempts, n_bins), dtype=np.uint32)
    probe_table_kernel(starts, np.uint64(step), out)
    return out


def invert_probes(probe_table):
    """The probes grouped by the bin they hit, in attempt order.

    Parameters
    ----------
    probe_table : ndarray of shape (n_attempts, n_bins)
        ``probe_table[t, j]``: the bin probed by bin ``j`` at attempt ``t``
        (:func:`densification_probes`, transposed).

    Returns
    -------
    probe_pairs : ndarray of shape (n_bins * n_attempts,), dtype uint64
        The pairs ``(j, t)``, packed as ``t << 32 | j``, sorted by the bin
        ``f = probe_table[t, j]`` they probe, then by the attempt ``t``, then
        by ``j``.
    pair_starts : ndarray of shape (n_bins + 1,), dtype int64
        The pairs probing bin ``f`` are ``probe_pairs[pair_starts[f] :
        pair_starts[f + 1]]``.
    """
    from ._minwise_kernels import _invert_probes

    n_attempts, n_bins = probe_table.shape
    probe_pairs = np.empty(n_bins * n_attempts, dtype=np.uint64)
    pair_starts = np.empty(n_bins + 1, dtype=np.int64)
    _invert_probes(np.ascontiguousarray(probe_table), probe_pairs, pair_starts)
    return probe_pairs, pair_starts


def densification_tables(probe_coefficients, n_bins):
    """The probe sequences of ``n_bins`` bins and their inverse, for the kernels.

    ``min(n_bins, MAX_PROBES)`` attempts per bin; the tables are kept
    between transforms.

    Returns
    -------
    probe_table : ndarray of shape (n_attempts, n_bins), dtype uint32
        ``probe_table[t, j]``: the bin probed by bin ``j`` at attempt ``t``
        (:func:`densification_probes`, transposed: an attempt's probes are
        read together).
    probe_pairs, pair_starts : ndarray
        As in :func:`invert_probes`.
    """
    key = tuple(int(c) for c in probe_coefficients)
    return _densification_tables(key, int(n_bins), min(int(n_bins), MAX_PROBES))


@functools.lru_cache(maxsize=2)
def _densification_tables(probe_coefficients, n_bins, n_attempts):
    probe_table = _probe_table(probe_coefficients, n_bins, n_attempts)
    tables = (probe_table, *invert_probes(probe_table))
    for table in tables:
        table.flags.writeable = False
    return tables
