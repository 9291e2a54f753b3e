"""Minwise hashing of the nonzero patterns of CSR rows, fully vectorized.

Two schemes give, for every nonempty row and every hash ``j = 0 .. k-1``, the
position (in the CSR ``indices``/``data`` arrays) of the row's minimal element
under a random order of the coordinates:

* :func:`minwise_positions`: ``k`` independent orders, ``O(nnz * k)`` work.
* :func:`oph_positions`: one order split into ``k`` bins (one-permutation
  hashing, Li, Owen and Zhang 2012) with optimal densification of empty bins
  (Shrivastava 2017), ``O(nnz + k)`` work per row.

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
import sys

import numpy as np

from ..utils._hashing import (
    fmix32,
    hash_to_buckets,
    multiply_add_shift_high,
    polynomial_hash,
)
from ..utils._sparse import gather

_LOW32 = np.uint64(0xFFFFFFFF)
_U32 = np.uint64(32)
_EMPTY = np.iinfo(np.uint64).max

# Largest number of stored entries hashed at once: the positions of a chunk's
# entries must fit the 32 low bits of a uint64 sort key, and the temporaries
# (a few uint64 arrays of this length) stay near 8 MiB each.
MAX_CHUNK_NNZ = 1 << 20
# Pairwise independence is all the densification probes need.
PROBE_HASH_INDEPENDENCE = 2
# Densification probes per empty bin before the circular fallback; after 256
# probes a bin stays empty only when its row fills under ~2% of the bins.
MAX_PROBES = 256
# Peak bytes per densification probe (the table, its inverse and their
# sort), for the size checks of fit.
BYTES_PER_PROBE = 48
# One-permutation hashing densifies a row by whole-table steps while more
# than this fraction of its bins is expected to stay empty, then on the list
# of the bins left.
DENSE_EMPTY_FRACTION = 0.02
# Densification works from the filled bins of a row (rather than by steps over
# all its bins) when fewer than this fraction of its bins are filled.
SPARSE_FILL_FRACTION = 0.15


def nnz_chunks(indptr, max_nnz=MAX_CHUNK_NNZ, max_rows=None):
    """Row ranges ``(start, stop)`` holding at most ``max_nnz`` stored entries.

    A row with more entries than ``max_nnz`` gets a chunk of its own.
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


def minwise_positions(indices, indptr, hash_coefficients):
    """Position of each row's minimum under each of ``k`` independent hashes.

    Parameters
    ----------
    indices, indptr : ndarray
        A chunk of a canonical CSR matrix (sorted indices, no duplicates, no
        stored zeros), ``indptr[0] == 0`` and fewer than ``2**32`` entries.
    hash_coefficients : ndarray of shape (k, 2), dtype uint64
        From :func:`draw_multiply_shift`.

    Returns
    -------
    positions : ndarray of shape (n_nonempty_rows, k), dtype int64
        For every nonempty row (in order), the position in ``indices`` of
        its minimal coordinate under hash ``j``.
    """
    row_nnz = np.diff(indptr)
    starts = indptr[:-1][row_nnz > 0]
    n_hashes = hash_coefficients.shape[0]
    positions = np.empty((starts.size, n_hashes), dtype=np.int64)
    if starts.size == 0:
        return positions
    # Hash each distinct coordinate once and gather, unless the chunk has
    # about as many distinct coordinates as entries.
    columns, inverse = np.unique(indices, return_inverse=True)
    use_table = columns.size * 2 < indices.size
    mixed = fmix32(columns if use_table else indices)
    position_bits = np.arange(indices.size, dtype=np.uint64)
    # Several hashes per step when rows are short, so that the Python loop
    # runs over blocks of about MAX_CHUNK_NNZ values rather than every hash.
    block = max(1, min(n_hashes, MAX_CHUNK_NNZ // max(indices.size, 1)))
    for first in range(0, n_hashes, block):
        keys = multiply_add_shift_high(hash_coefficients[first : first + block], mixed)
        if use_table:
            keys = keys[:, inverse]
        # (hash value, position) packed in one uint64: the minimum gives the
        # argmin, ties going to the smaller position (= smaller coordinate).
        keys |= position_bits
        minima = np.minimum.reduceat(keys, starts, axis=1)
        positions[:, first : first + block] = (minima & _LOW32).T
    return positions


def densification_probes(probe_coefficients, n_bins, n_attempts):
    """Bin to borrow from at each attempt, for every bin: ``(n_bins, n_attempts)``.

    The probe of bin ``j`` at attempt ``t`` is a pairwise independent hash of
    ``(j, t)`` (Shrivastava 2017). It depends on neither the row nor the data,
    which is what keeps the collision probability equal to the resemblance.
    The table is the same at every transform of a fitted hasher, so the last
    few are kept (read-only) rather than hashed again each time.
    """
    key = tuple(int(c) for c in probe_coefficients)
    return _densification_probes(key, int(n_bins), int(n_attempts))


@functools.lru_cache(maxsize=4)
def _densification_probes(probe_coefficients, n_bins, n_attempts):
    keys = np.arange(n_bins * n_attempts, dtype=np.uint64)
    values = polynomial_hash(np.array(probe_coefficients, dtype=np.uint64), keys)
    probes = hash_to_buckets(values, n_bins).reshape(n_bins, n_attempts)
    probes.flags.writeable = False
    return probes


def invert_probes(probes):
    """The probes grouped by the bin they hit, in attempt order.

    Parameters
    ----------
    probes : ndarray of shape (n_bins, n_attempts)
        From :func:`densification_probes`.

    Returns
    -------
    probing_bins : ndarray of shape (n_bins * n_attempts,), dtype int32
        The bins ``j`` of all pairs ``(j, t)``, sorted by the bin ``f =
        probes[j, t]`` they probe, then by the attempt ``t``.
    attempts : ndarray of shape (n_bins * n_attempts,), dtype int32
        The attempts ``t`` of the same pairs.
    bounds : ndarray of shape (n_bins, n_attempts + 1), dtype int32
        The pairs probing bin ``f`` at attempts below ``s`` are
        ``bounds[f, 0] : bounds[f, s]``.
    """
    n_bins, n_attempts = probes.shape
    # Pair (j, t) is entry j * n_attempts + t of the flat table; its sort
    # key is f * n_attempts + t.
    keys = probes.astype(np.int64).ravel() * n_attempts
    keys += np.tile(np.arange(n_attempts), n_bins)
    order = np.argsort(keys, kind="stable")
    probing_bins = (order // n_attempts).astype(np.int32)
    attempts = (order % n_attempts).astype(np.int32)
    all_keys = np.arange(n_bins * (n_attempts + 1)).reshape(n_bins, n_attempts + 1)
    all_keys -= np.arange(n_bins)[:, None]  # f * n_attempts + s, s = 0 .. n_attempts
    bounds = np.searchsorted(keys[order], all_keys).astype(np.int32)
    return probing_bins, attempts, bounds


def densification_inverse(probe_coefficients, n_bins, n_attempts):
    """:func:`invert_probes` of :func:`densification_probes`, kept like it."""
    key = tuple(int(c) for c in probe_coefficients)
    return _densification_inverse(key, int(n_bins), int(n_attempts))


@functools.lru_cache(maxsize=2)
def _densification_inverse(probe_coefficients, n_bins, n_attempts):
    tables = invert_probes(_densification_probes(probe_coefficients, n_bins, n_attempts))
    for table in tables:
        table.flags.writeable = False
    return tables


def densification_tables(probe_coefficients, n_bins):
    """The probes of :func:`densification_probes` and their inverse, for ``n_bins``.

    ``min(n_bins, MAX_PROBES)`` attempts per bin; both tables are kept
    between transforms.
    """
    n_attempts = min(n_bins, MAX_PROBES)
    return (
        densification_probes(probe_coefficients, n_bins, n_attempts),
        densification_inverse(probe_coefficients, n_bins, n_attempts),
    )


def oph_key_table(hash_coefficients, n_features):
    """Sort keys of all ``n_features`` columns for :func:`oph_sort_keys`.

    Worth building when there are at least as many stored entries as
    features: the entries then gather their key (one pass instead of the ten
    of the hash).
    """
    return multiply_add_shift_high(hash_coefficients, fmix32(np.arange(n_features)))


def oph_sort_keys(hash_coefficients, indices, table=None):
    """Sort keys (hash value in the high 32 bits) of stored entries for OPH.

    Parameters
    ----------
    hash_coefficients : ndarray of shape (2,), dtype uint64
        The one multiply-add-shift hash (the permutation).
    indices : ndarray of non-negative integers
        Column indices of the stored entries.
    table : ndarray of uint64, default=None
        The :func:`oph_key_table` of the same hash, to gather the keys from
        rather than hash the indices (the values are the same either way).

    Returns
    -------
    keys : ndarray of the shape of ``indices``, dtype uint64
    """
    if table is not None:
        return gather(table, indices)
    return multiply_add_shift_high(hash_coefficients, fmix32(indices))


def oph_positions(indices, indptr, hash_coefficients, probes, key_table=None, inverse=None):
    """One-permutation hashing with optimal densification.

    Parameters
    ----------
    indices, indptr : ndarray
        A chunk of a canonical CSR matrix, as in :func:`minwise_positions`,
        with fewer than ``2**31`` entries.
    hash_coefficients : ndarray of shape (2,), dtype uint64
        The one multiply-add-shift hash (the permutation).
    probes : ndarray of shape (k, n_attempts), dtype intp
        From :func:`densification_probes`.
    key_table : ndarray of uint64, default=None
        The :func:`oph_key_table` of the hash, if built.
    inverse : tuple of three ndarrays, default=None
        The :func:`invert_probes` of ``probes``, if kept (computed when
        needed otherwise).

    Returns
    -------
    positions : ndarray of shape (n_nonempty_rows, k), dtype int32
    """
    keys = oph_sort_keys(hash_coefficients, indices, key_table)
    # Within a bin the order is the hash order (see binned_positions).
    keys |= np.arange(indices.size, dtype=np.uint64)  # keys is ours
    return binned_positions(keys, keys, indptr, probes, inverse)


def binned_positions(bin_keys, keys, indptr, probes, inverse=None):
    """The entry of smallest key in each bin of each row, empty bins densified.

    One-permutation hashing's second step, open to any binned scheme:
    entries go to the bins their ``bin_keys`` give, each (row, bin) keeps
    its smallest key, and empty bins are filled by optimal densification.

    Parameters
    ----------
    bin_keys : ndarray of uint64 of shape (nnz,)
        The bin of an entry is the top of the high 32 bits (multiply-shift
        range reduction to ``n_bins``).
    keys : ndarray of uint64 of shape (nnz,)
        Distinct keys holding the entry's position in their low 32 bits.
    indptr : ndarray
        Row pointers of the chunk, ``indptr[0] == 0``, fewer than ``2**31``
        entries.
    probes, inverse
        As in :func:`oph_positions`.

    Returns
    -------
    positions : ndarray of shape (n_nonempty_rows, n_bins), dtype int32
    """
    n_bins = probes.shape[0]
    row_nnz = np.diff(indptr)
    nonempty = row_nnz > 0
    n_rows = int(nonempty.sum())
    if n_rows == 0:
        return np.empty((0, n_bins), dtype=np.int32)
    row_nnz = row_nnz[nonempty]
    # The table of bin minima is bin-major (flat index bin * n_rows +
    # column): a probe of bin j, the same for every row, then reads one
    # contiguous row of the table. Its columns hold the rows by increasing
    # number of entries, so that the rows densification still has to work
    # on (the short ones) form a prefix of every table row.
    rank = np.empty(n_rows, dtype=np.int64)
    rank[np.argsort(row_nnz, kind="stable")] = np.arange(n_rows)
    # The flat indices are int32 when the table allows (half the traffic of
    # int64).
    index_dtype = np.int32 if n_bins * n_rows < 2**31 else np.int64
    high = bin_keys.view(np.uint32)[1 if sys.byteorder == "little" else 0 :: 2]
    flat = np.multiply(high, np.uint64(n_bins), dtype=np.uint64)
    flat >>= _U32
    flat = flat.astype(index_dtype)
    flat *= index_dtype(n_rows)
    flat += np.repeat(rank.astype(index_dtype), row_nnz)
    best = np.full(n_bins * n_rows, _EMPTY, dtype=np.uint64)
    np.minimum.at(best, flat, keys)
    del flat
    # Positions fit 31 bits (a chunk holds fewer than 2**31 entries); the
    # low 32 bits of an empty bin read -1.
    low = 0 if sys.byteorder == "little" else 1
    positions = best.reshape(n_bins, n_rows).view(np.int32)[:, low::2].copy()
    del best
    # Densification decides, for every bin, which bin it takes its minimum
    # from (a bin-major table of source bins); one gather then reads the
    # positions, in the bin-major order (a source's row of the table is read
    # in sequence), and one transposition puts the rows back in input order.
    sources = _densify(positions >= 0, probes, inverse)
    flat = sources.astype(np.intp)
    flat *= n_rows
    flat += np.arange(n_rows)
    positions = gather(positions, flat)
    return positions.T[rank]


def _next_filled_bins(filled, bins, rows):
    """The first filled bin after ``bins[i]`` in column ``rows[i]``, circularly.

    A running minimum up the bin axis of the columns concerned gives, for
    every bin, the first filled bin at or after it, in one pass.
    """
    n_bins = filled.shape[0]
    columns, column_of = np.unique(rows, return_inverse=True)
    never = 2 * n_bins  # above every answer, wrapped ones included
    index = np.where(filled[:, columns], np.arange(n_bins)[:, None], never)
    at_or_after = np.minimum.accumulate(index[::-1], axis=0)[::-1]
    # After the last bin comes the first filled one, n_bins further on; each
    # of these columns has a filled bin, so the minimum is always a bin.
    after = np.full_like(index, never)
    after[:-1] = at_or_after[1:]
    np.minimum(after, at_or_after[0] + n_bins, out=after)
    return after[bins, column_of.ravel()] % n_bins


def _sparse_first_hits(filled, steps, inverse):
    """First hits of the probe sequences of every bin, from the filled bins.

    Parameters
    ----------
    filled : ndarray of bool, shape (n_bins, n_columns)
    steps : ndarray of int, shape (n_columns,)
        Attempts to cover in each column.
    inverse : tuple
        :func:`invert_probes` of the probes.

    Returns
    -------
    hits : ndarray of int32, shape (n_bins, n_columns)
        ``t * 2**bin_bits + f`` for the first attempt ``t < steps`` at which
        bin ``j``'s probe is a filled bin ``f``; ``-1`` if there is none or
        ``j`` is filled itself.
    """
    probing_bins, attempts, bounds = inverse
    n_bins, n_columns = filled.shape
    bin_bits = max(1, (n_bins - 1).bit_length())
    # int32 arithmetic throughout (half the traffic) when the table allows.
    index_dtype = np.int32 if n_bins * n_columns < 2**31 else np.int64
    columns, bins = np.nonzero(filled.T)  # the filled bins, column by column
    columns, bins = columns.astype(index_dtype), bins.astype(np.int32)
    # The pairs (j, t) probing each filled bin at the attempts to cover,
    # flattened: entry n of filled bin c's list is pair first[c] + n.
    flat_bounds = bounds.ravel()
    row_start = bins.astype(np.intp) * bounds.shape[1]
    first = flat_bounds.take(row_start)
    row_start += steps.take(columns)
    counts = flat_bounds.take(row_start)
    counts -= first
    ends = np.cumsum(counts, dtype=np.int64)
    first -= (ends - counts).astype(np.int32)
    pairs = np.repeat(first, counts)
    pairs += np.arange(pairs.size, dtype=np.int32)
    pairs = pairs.astype(np.intp)
    targets = probing_bins.take(pairs).astype(index_dtype)
    targets *= index_dtype(n_columns)
    targets += np.repeat(columns, counts)
    keys = attempts.take(pairs)
    keys <<= bin_bits
    keys += np.repeat(bins, counts)
    never = np.iinfo(np.int32).max
    hits = np.full(n_bins * n_columns, never, dtype=np.int32)
    np.minimum.at(hits, targets, keys)
    hits[hits == never] = -1
    hits = hits.reshape(n_bins, n_columns)
    hits[filled] = -1
    return hits


def _dense_steps(n_filled, n_bins, n_attempts):
    """Densification steps (probe attempts) to cover for each table column.

    A column with ``e`` empty bins and a fraction ``p`` filled expects ``e
    (1 - p)**t`` of them left after ``t`` steps. Steps continue while more
    than ``DENSE_EMPTY_FRACTION`` of the bins would still be empty; the bins
    left then go to the list phase, whose cost per bin is several times a
    whole-table step's per entry (measured).
    """
    n_empty = n_bins - n_filled
    target = DENSE_EMPTY_FRACTION * n_bins
    keep = n_empty > target
    steps = np.zeros(n_filled.shape, dtype=np.int64)
    p = n_filled[keep] / n_bins
    with np.errstate(divide="ignore"):
        # p == 0 (an empty row never reaches the table) would need infinity.
        needed = np.log(target / n_empty[keep]) / np.log1p(-p)
    steps[keep] = np.minimum(np.ceil(needed), n_attempts)
    return steps


def _densify(filled, probes, inverse=None):
    """Source bin of every bin of a bin-major table (optimal densification).

    Parameters
    ----------
    filled : ndarray of bool, shape (n_bins, n_rows)
        Which bins of each row (column) hold a minimum. A column has at
        least one filled bin.
    probes : ndarray of shape (n_bins, n_attempts)
        From :func:`densification_probes`.
    inverse : tuple of three ndarrays, default=None
        :func:`invert_probes` of ``probes`` (computed if needed and None).

    Returns
    -------
    sources : ndarray of int, shape (n_bins, n_rows)
        A filled bin's own number; for an empty bin, the first originally
        filled bin its probe sequence hits.
    """
    n_bins, n_attempts = probes.shape
    n_rows = filled.shape[1]
    n_filled = filled.sum(axis=0, dtype=np.int64)  # faster than count_nonzero
    steps = _dense_steps(n_filled, n_bins, n_attempts)
    active = np.maximum.accumulate(steps[::-1])[::-1]
    # The columns are sorted by row length, so the sparsely filled ones come
    # first: they take their steps from their filled bins, the others by
    # whole-table steps.
    sparse = n_filled < SPARSE_FILL_FRACTION * n_bins
    n_sparse = n_rows if sparse.all() else int(np.argmin(sparse))
    dense_steps = int(active[n_sparse]) if n_sparse < n_rows else 0
    table = _whole_table_steps(filled, probes, active, n_sparse, dense_steps)
    bin_bits = max(1, (n_bins - 1).bit_length())
    if n_sparse:
        if inverse is None:
            inverse = invert_probes(probes)
        _filled_bin_steps(table, filled, active, n_sparse, inverse, bin_bits)
    table_flat = table.ravel()
    pending = np.flatnonzero(table_flat == 0)
    table_flat &= table.dtype.type((1 << bin_bits) - 1)  # the source bins
    _probe_pending_bins(table_flat, pending, filled, probes, active)
    return table


def _whole_table_steps(filled, probes, active, n_sparse, dense_steps):
    """The first ``dense_steps`` densification steps, by whole-table steps.

    Applied to the columns that are worth them (a prefix of the dense ones,
    from ``n_sparse`` on; a longer row that still needs work extends the
    prefix). A step is one gather of the probed table rows and one maximum,
    thanks to an encoding of each table entry as (priority, source bin): the
    bins filled from the start have the top priority, a bin settled at step
    t the priority top - 1 - t, and an empty bin is 0, so the maximum keeps
    the earliest hit. Candidates are the encoded filled bins minus (t + 1)
    priority units; an empty candidate goes negative and never wins.

    Returns
    -------
    table : ndarray of int16 or int32, shape (n_bins, n_rows)
        ``priority << bin_bits | source``; int16 when the priorities fit
        (k = 256: up to 126 steps).
    """
    n_bins = filled.shape[0]
    bin_bits = max(1, (n_bins - 1).bit_length())
    dtype = np.int16 if dense_steps <= 2 ** (15 - bin_bits) - 2 else np.int32
    top = dense_steps + 1
    encoded = np.multiply(
        filled, (np.arange(n_bins) + (top << bin_bits)).astype(dtype)[:, None], dtype=dtype
    )
    table = encoded.copy()
    widths = np.searchsorted(-active, -np.arange(dense_steps), side="left")
    for attempt in range(dense_steps):
        width = int(widths[attempt])
        candidates = encoded[probes[:, attempt], n_sparse:width]
        candidates -= dtype((attempt + 1) << bin_bits)
        columns = table[:, n_sparse:width]
        np.maximum(columns, candidates, out=columns)
    return table


def _filled_bin_steps(table, filled, active, n_sparse, inverse, bin_bits):
    """The steps of the first ``n_sparse`` columns, from their filled bins.

    A whole-table step costs a pass over all k bins of a column, most of
    them already settled, and a column of fill p needs about 4 / p steps
    (k = 4096 on 20 Newsgroups: 400k entries per row). Working from the
    filled bins instead costs p k entries per step, about 5 k in all
    whatever p is: for every filled bin f and attempt t, the bins whose
    probe at t is f (one on average; the inverse lists of the probes) take
    the earliest such t, by a minimum over the (t, f) codes. Settled bins
    get priority 1 in ``table`` (modified in place), above empty ones.
    """
    hits = _sparse_first_hits(filled[:, :n_sparse], active[:n_sparse], inverse)
    settled = hits >= 0
    hits &= (1 << bin_bits) - 1
    hits += 1 << bin_bits
    np.copyto(table[:, :n_sparse], hits, where=settled, casting="unsafe")


def _probe_pending_bins(table_flat, pending, filled, probes, active):
    """Settle the bins still empty after the steps, in ``table_flat`` (in place).

    The same probe sequence continues on the list of the bins left, each
    from the attempt its column reached, several probes at a time (twice as
    many at each round, for the bins that keep missing); a bin whose probes
    all miss takes the next filled bin after it (:func:`_next_filled_bins`).

    Parameters
    ----------
    table_flat : ndarray of shape (n_bins * n_rows,)
        The source bins, bin-major.
    pending : ndarray of int
        Flat indices of the bins left.
    filled, probes, active
        As in :func:`_densify`.
    """
    n_attempts = probes.shape[1]
    n_rows = filled.shape[1]
    filled_flat = filled.ravel()
    if filled_flat.size < 2**31:
        pending = pending.astype(np.int32)  # halves the traffic of the loop
    pending_rows = pending % n_rows
    pending_bins = pending // n_rows
    next_attempt = active[pending_rows].astype(pending.dtype)
    n_probes = 2
    while pending.size:
        tried = next_attempt[:, None] + np.arange(n_probes, dtype=pending.dtype)
        np.minimum(tried, n_attempts - 1, out=tried)
        candidates = probes[pending_bins[:, None], tried].astype(pending.dtype)
        candidates *= n_rows
        candidates += pending_rows[:, None]
        hits = filled_flat[candidates]
        first = np.argmax(hits, axis=1)
        rows = np.arange(pending.size)
        # A probe past the last attempt repeats the last one: a miss there
        # is a miss of the whole sequence.
        found = hits[rows, first]
        chosen = candidates[rows, first]
        table_flat[pending[found]] = chosen[found] // n_rows
        next_attempt += n_probes
        missed = ~found
        retry = missed & (next_attempt < n_attempts)
        exhausted = missed & ~retry
        if exhausted.any():
            # Rare after the probes: continue the same (row-independent)
            # sequence with the bins j + 1, j + 2, ... (circularly), which
            # ends for sure.
            table_flat[pending[exhausted]] = _next_filled_bins(
                filled, pending_bins[exhausted], pending_rows[exhausted]
            )
        pending, pending_bins = pending[retry], pending_bins[retry]
        pending_rows, next_attempt = pending_rows[retry], next_attempt[retry]
        n_probes *= 2

