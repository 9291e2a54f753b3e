"""Compiled loops of minwise hashing over the rows of a CSR chunk.

They consume the hash values of the chunk's entries, computed by
``utils._hash_kernels`` (the home of the compiled hash primitives; a kernel
never calls a jitted function of another module, since numba checks only
the caller's file when it decides a cached compile is stale), and the
densification tables of ``_positions``, which validates and prepares every
argument. Each loop is a pass over the rows: bin minima and densification
of one-permutation hashing (to positions, or straight to the output's
columns), the rounds of the fast similarity sketch (likewise), or the
minima of ``k`` independent hashes.
Positions are absolute: those of ``indptr``, whose first value is the
position of the first entry of the value arrays.

The fast similarity sketch (Dahlgaard, Knudsen and Thorup, FOCS 2017),
written from the paper: ``2k`` hash functions, each mapping a coordinate
to a bin and to a value in ``[i, i + 1)`` for round ``i``. In rounds
``i < k`` every element of the row goes to a random bin; in round ``k + j``
every element goes to bin ``j``. Bin ``j`` keeps the element of smallest
value over all rounds; since values grow with the round, it is the element
of smallest hash among those the first round that reaches bin ``j`` sends
there, and the rounds stop once every bin is filled (no later round can
change a bin).

Its hashing: element ``x`` has the key ``z = mix64(x + s0)`` and round
``i`` the 64-bit hash ``h = a_i * z mod 2**64``, with the odd multiplier
``a_i = mix64(s1 + (i + 1) * golden_gamma) | 1`` (output ``i`` of the
SplitMix64 stream seeded by ``s1``, made odd) and ``(s0, s1)`` the
row-independent seeds. The bin of ``h`` in the rounds ``i < k`` is
``((h >> 32) * k) >> 32``, and the order within a bin that of ``h >> 32``,
ties to the smaller coordinate (the first in the row). Whatever the rounds'
hashes, a bin's element is the one of the row minimizing a fixed function
of its coordinate (its first round in the bin, then its hash), and the keys
of distinct coordinates are as independent uniform 64-bit words (``mix64``
is a bijection), so each element of a union is as likely as any other to
be the bin's element of the union: the codes of two rows collide with
probability their resemblance (up to ties of 32-bit hashes, which a fixed
tie-break keeps consistent). One multiplication per element and round
(each key mixed once) keeps the rounds cheap; a multiplier of its own per
round decorrelates the rounds' bins, which the variance (not the collision
probability) relies on; the tests check it against MinHash's.
``_mix64`` is SplitMix64's finalizer, ``utils._hashing.mix64`` written
out here for the same reason as the b-bit code of :func:`_write_codes`
(the tests compare the two bit for bit).
"""

import numpy as np

from ..utils._numba import kernel

_U27 = np.uint64(27)
_U30 = np.uint64(30)
_U31 = np.uint64(31)
_U32 = np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)
_HIGH32 = np.uint64(0xFFFFFFFF00000000)
_EMPTY = np.uint64(0xFFFFFFFFFFFFFFFF)
_ONE = np.uint32(1)
_ODD = np.uint64(1)
_P = np.uint64((1 << 61) - 1)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)


@kernel
def _oph_rows(
    hashes, indices, indptr, probe_table, probe_pairs, pair_starts, sparse_bins,
    coefficients, b_bits, offsets, out,
):
    """One-permutation hashing with optimal densification, row by row.

    Entry ``p`` falls in bin ``(hashes[p] * k) >> 32``; each bin of a row
    keeps its entry of smallest hash (ties: the first, i.e. the smallest
    coordinate). Every nonempty row writes, into the next row of ``out``,
    for each bin (an empty bin: the bin its probe sequence hits first,
    :func:`_densify_row`) the position of its entry (``b_bits < 0``), or
    its output column at once: the b-bit code of its location
    ``indices[position]`` by hash ``j`` (``coefficients[j]``) in a 32-bit
    word, plus ``offsets[j]``; ``b_bits = 0`` keeps the location. The code
    is that of ``utils._hash_kernels._code_row_32`` (the 32-bit word),
    written out here (:func:`_write_codes`) because a kernel calls jitted
    functions of its own module only (the tests compare the two bit for
    bit); the wrapper asks for codes only where the 32-bit word applies.
    """
    n_bins = probe_table.shape[1]
    n_bins_64 = np.uint64(n_bins)
    # (hash, offset in the row) packed in one uint64: its minimum is the
    # bin's entry, found without a branch. The bins a row fills are listed
    # as it fills them, and only those are reset after it: a row touches
    # far fewer bins than k when k is large.
    best = np.full(n_bins, _EMPTY, dtype=np.uint64)
    # 0/1 flags as wide as the bin numbers: the densification counts the
    # bins left empty by adding flipped flags, with no conversion.
    filled = np.zeros(n_bins, dtype=np.uint32)
    source = np.empty(n_bins, dtype=np.uint32)
    pending = np.empty(n_bins, dtype=np.uint32)
    first_hits = np.full(n_bins, _EMPTY, dtype=np.uint64)
    # One spare slot: every entry writes its bin to the next slot, which
    # only a bin filled for the first time keeps.
    filled_bins = np.empty(n_bins + 1, dtype=np.uint32)
    base = indptr[0]
    row = 0
    for r in range(indptr.size - 1):
        start, stop = indptr[r] - base, indptr[r + 1] - base
        if start == stop:
            continue
        n_filled = 0
        for p in range(start, stop):
            h = np.uint64(hashes[p])
            b = (h * n_bins_64) >> _U32
            old = best[b]
            best[b] = min(old, (h << _U32) | np.uint64(p - start))
            filled_bins[n_filled] = b
            n_filled += old == _EMPTY
            filled[b] = 1
        _densify_row(
            filled, filled_bins[:n_filled], probe_table, probe_pairs, pair_starts,
            sparse_bins, first_hits, source, pending,
        )
        # The offset in the row of bin j's entry: best[source[j]] & _LOW32.
        out_row = out[row]
        if b_bits < 0:
            first = base + start
            for j in range(n_bins):
                out_row[j] = first + np.int64(best[source[j]] & _LOW32)
        else:
            _write_codes(
                best, source, indices[start:stop], coefficients, b_bits, offsets, out_row
            )
        for f in filled_bins[:n_filled]:
            best[f] = _EMPTY
            filled[f] = 0
        row += 1


@kernel(inline="always")
def _write_codes(best, source, row_indices, coefficients, b_bits, offsets, out_row):
    """One row of the codes of :func:`_oph_rows` or :func:`_fss_rows`: the column of every bin."""
    if b_bits == 0:
        for j in range(out_row.size):
            location = np.uint64(row_indices[best[source[j]] & _LOW32])
            out_row[j] = location + offsets[j]
    else:
        shift = _U32 - np.uint64(b_bits)
        for j in range(out_row.size):
            location = np.uint64(row_indices[best[source[j]] & _LOW32])
            a, b = coefficients[j, 0] & _LOW32, coefficients[j, 1] & _LOW32
            out_row[j] = (((a * location + b) & _LOW32) >> shift) + offsets[j]


@kernel
def _binned_positions(
    bin_hashes, order, indptr, probe_table, probe_pairs, pair_starts, sparse_bins,
    out,
):
    """:func:`_oph_positions` with the order within a bin given by ``order``.

    Entry ``p`` falls in bin ``(bin_hashes[p] * k) >> 32`` and each bin
    keeps its entry of smallest ``order[p]`` (ties: the first).
    """
    n_bins = probe_table.shape[1]
    n_bins_64 = np.uint64(n_bins)
    base = indptr[0]
    best = np.empty(n_bins, dtype=order.dtype)
    best_position = np.full(n_bins, -1, dtype=np.int64)
    filled = np.zeros(n_bins, dtype=np.uint32)
    source = np.empty(n_bins, dtype=np.uint32)
    pending = np.empty(n_bins, dtype=np.uint32)
    first_hits = np.full(n_bins, _EMPTY, dtype=np.uint64)
    filled_bins = np.empty(n_bins, dtype=np.uint32)
    row = 0
    for r in range(indptr.size - 1):
        start, stop = indptr[r] - base, indptr[r + 1] - base
        if start == stop:
            continue
        n_filled = 0
        for p in range(start, stop):
            b = (np.uint64(bin_hashes[p]) * n_bins_64) >> _U32
            if best_position[b] < 0:
                filled_bins[n_filled] = b
                n_filled += 1
                filled[b] = 1
            elif order[p] >= best[b]:
                continue
            best[b] = order[p]
            best_position[b] = p
        _densify_row(
            filled, filled_bins[:n_filled], probe_table, probe_pairs, pair_starts,
            sparse_bins, first_hits, source, pending,
        )
        for j in range(n_bins):
            out[row, j] = base + best_position[source[j]]
        for f in filled_bins[:n_filled]:
            best_position[f] = -1
            filled[f] = 0
        row += 1


@kernel(inline="always")
def _densify_row(
    filled, filled_bins, probe_table, probe_pairs, pair_starts, sparse_bins, first_hits,
    source, pending,
):
    """Source bin of every bin of a row: itself if filled, else its first probe hit.

    ``filled_bins`` lists the filled bins (in any order). The probe of bin
    ``j`` at attempt ``t`` is ``probe_table[t, j]``; an empty bin takes the
    first filled bin of its sequence, or, when every attempt misses, the
    first filled bin after it (circularly). A row with fewer than
    ``sparse_bins`` filled bins is settled from its filled bins, through
    the inverse lists of the probes (``probe_pairs``, see
    :func:`_invert_probes`; each of its empty bins would need many
    attempts); the others attempt by attempt over the list of the bins
    still empty, without a branch. The two ways give the same sources.
    """
    n_bins = probe_table.shape[1]
    # Unsigned indices throughout: numba then skips the negative-index
    # wraparound of every access.
    if filled_bins.size < sparse_bins:
        n_pending = _settle_from_filled_bins(
            filled, filled_bins, probe_pairs, pair_starts, first_hits, source, pending,
        )
    else:
        # Every bin its own source, the empty ones listed for the attempts.
        n_pending = 0
        for j in range(n_bins):
            source[j] = j
        for j in range(n_bins):
            pending[n_pending] = j
            n_pending += filled[j] ^ _ONE
        if n_pending:
            n_pending = _settle_by_attempts(
                filled, probe_table, source, pending, n_pending
            )
    if n_pending:
        _settle_circularly(filled, filled_bins, source, pending[:n_pending])


@kernel
def _settle_circularly(filled, filled_bins, source, pending):
    """Bins whose probes all missed: the first filled bin after them, circularly.

    ``pending`` is in increasing order: one downward sweep over the bins
    keeps the first filled bin after the sweep's position, so the row
    costs ``O(k)`` however far apart its filled bins are.
    """
    after = filled_bins.min()  # after the last filled bin: the first one
    cursor = source.size - 1
    for q in range(pending.size - 1, -1, -1):
        j = pending[q]
        while cursor > j:
            if filled[cursor]:
                after = cursor
            cursor -= 1
        source[j] = after


@kernel
def _settle_from_filled_bins(
    filled, filled_bins, probe_pairs, pair_starts, first_hits, source, pending,
):
    """Sources from the inverse lists of the filled bins; the bins left go to ``pending``.

    Each filled bin's list holds the pairs ``t << 32 | j`` probing it:
    one sequential read per filled bin. Bin ``j`` keeps the smallest
    ``(t, f)`` of its pairs, packed in ``first_hits[j]`` (all ``_EMPTY``
    on entry and on return), without a branch: its first hit. Returns the
    number of empty bins left (all probes missed).
    """
    for f in filled_bins:
        bin_f = np.uint64(f)
        for pair in range(pair_starts[f], pair_starts[f + 1]):
            probe = probe_pairs[pair]
            j = probe & _LOW32
            first_hits[j] = min(first_hits[j], (probe & _HIGH32) | bin_f)
    n_pending = 0
    for j in range(source.size):
        hit = first_hits[j]
        first_hits[j] = _EMPTY
        if filled[j]:
            source[j] = j
        else:
            source[j] = hit & _LOW32
            pending[n_pending] = j
            n_pending += hit == _EMPTY
    return n_pending


@kernel(inline="always")
def _settle_by_attempts(filled, probe_table, source, pending, n_pending):
    """Sources attempt by attempt over the list of the ``n_pending`` bins still empty.

    Two attempts per visit of a bin, without a branch: the bin takes the
    probe of the first if it hits, else that of the second (its first hit,
    or a miss that a later visit overwrites), and leaves the list when
    either hits. Half the visits of one attempt at a time: the list's
    bookkeeping costs more than a probe. Returns the number of bins left.
    """
    n_attempts = probe_table.shape[0]
    for t in range(0, n_attempts, 2):
        # An odd last attempt is its own second one.
        first, second = probe_table[t], probe_table[min(t + 1, n_attempts - 1)]
        kept = 0
        for q in range(n_pending):
            j = pending[q]
            f, g = first[j], second[j]
            hit = filled[f]
            source[j] = f if hit else g
            pending[kept] = j
            kept += (hit | filled[g]) ^ _ONE
        n_pending = kept
        if n_pending == 0:
            break
    return n_pending


@kernel
def _minwise_positions(hashes, indptr, first, out):
    """Position of each nonempty row's minimum under hashes ``first ..``.

    ``hashes[j, p]`` is the value of entry ``p`` under hash ``first + j``;
    ties go to the first entry (the smallest coordinate).
    """
    base = indptr[0]
    row = 0
    for r in range(indptr.size - 1):
        start, stop = indptr[r] - base, indptr[r + 1] - base
        if start == stop:
            continue
        for j in range(hashes.shape[0]):
            best = hashes[j, start]
            best_p = start
            for p in range(start + 1, stop):
                if hashes[j, p] < best:
                    best = hashes[j, p]
                    best_p = p
            out[row, first + j] = base + best_p
        row += 1


@kernel(inline="always")
def _mix64(z):
    """SplitMix64's finalizer (uint64 in, out)."""
    z = (z ^ (z >> _U30)) * _M1
    z = (z ^ (z >> _U27)) * _M2
    return z ^ (z >> _U31)


def fss_work_arrays(indptr, n_bins):
    """The work arrays of :func:`_fss_rows` (allocated by the caller: each
    allocation in a kernel is one more compilation at first use): a row's
    keys, candidates and bins (scratch of :func:`_sketch_row`), 1 while a
    bin is empty, the packed element of each bin, ``_EMPTY`` while it is
    empty, and each bin as its own source (:func:`_write_codes`)."""
    longest = int(np.max(np.diff(indptr), initial=0))
    return (
        np.empty(longest, dtype=np.uint64), np.empty(longest, dtype=np.int64),
        np.empty(longest, dtype=np.uint32), np.ones(n_bins, dtype=np.uint8),
        np.full(n_bins, _EMPTY, dtype=np.uint64), np.arange(n_bins, dtype=np.uint32),
    )


@kernel
def _fss_rows(indices, indptr, seeds, coefficients, b_bits, offsets, out,
              keys, candidates, bins, empty, best, own_bin):
    """The fast similarity sketch of every nonempty row, as positions or codes.

    ``indices`` holds the entries from position ``indptr[0]`` on; row ``r``
    is ``indices[indptr[r] - indptr[0] : indptr[r + 1] - indptr[0]]``. The
    next row of ``out`` (shape ``(n_nonempty_rows, k)``) gets, for every
    bin, the position (counted like ``indptr``) of the bin's element
    (``b_bits < 0``), or its output column at once, as :func:`_oph_rows`
    writes it (:func:`_write_codes`). The arrays after ``out`` are
    :func:`fss_work_arrays`; the packed element of a bin is the high half
    of its hash and its offset in the row, in one word whose minimum is the
    bin's element.
    """
    n_bins = out.shape[1]
    base = indptr[0]
    s0, s1 = seeds[0], seeds[1]
    row = 0
    for r in range(indptr.size - 1):
        start, stop = indptr[r] - base, indptr[r + 1] - base
        if start == stop:
            continue
        for p in range(stop - start):
            keys[p] = _mix64(np.uint64(indices[start + p]) + s0)
        _sketch_row(keys[: stop - start], s1, candidates, bins, empty, best)
        out_row = out[row]
        if b_bits < 0:
            first = base + start
            for j in range(n_bins):
                out_row[j] = first + np.int64(best[j] & _LOW32)
        else:
            _write_codes(
                best, own_bin, indices[start:stop], coefficients, b_bits, offsets, out_row
            )
        for j in range(n_bins):
            empty[j] = 1
            best[j] = _EMPTY
        row += 1


@kernel(inline="always")
def _multiplier(s1, round_):
    """The odd multiplier of round ``round_``."""
    return _mix64(s1 + np.uint64(round_ + 1) * _GOLDEN_GAMMA) | _ODD


@kernel(inline="always")
def _sketch_row(keys, s1, candidates, bins, empty, best):
    """Fill ``best`` with the packed hash and offset of each bin's element.

    ``empty`` is all ones and ``best`` all ``_EMPTY`` on entry; ``empty`` is
    all zeros on return. Each later round computes every element's bin in
    a loop LLVM vectorizes, lists without a branch the elements that reach
    a bin still empty (few, once most bins are filled: the rounds then cost
    their hashing only), then settles those bins. ``candidates`` and
    ``bins`` are scratch of at least ``keys.size`` entries.
    """
    n_bins = empty.size
    n_bins_64 = np.uint64(n_bins)
    n = keys.size
    if n == 1:
        # Every round sends the one element somewhere: it fills every bin.
        best[:] = 0
        return
    # Round 0 meets every bin empty: each element settles its bin at once.
    a = _multiplier(s1, 0)
    n_filled = 0
    for p in range(n):
        h = a * keys[p]
        b = ((h >> _U32) * n_bins_64) >> _U32
        best[b] = min(best[b], (h & _HIGH32) | np.uint64(p))
        n_filled += empty[b]
        empty[b] = 0
    if n_filled == n_bins:
        return
    for i in range(1, n_bins):
        a = _multiplier(s1, i)
        for p in range(n):
            bins[p] = np.uint32((((a * keys[p]) >> _U32) * n_bins_64) >> _U32)
        n_candidates = 0
        for p in range(n):
            candidates[n_candidates] = p
            n_candidates += empty[bins[p]]
        for q in range(n_candidates):
            p = candidates[q]
            h = a * keys[p]
            b = ((h >> _U32) * n_bins_64) >> _U32
            best[b] = min(best[b], (h & _HIGH32) | np.uint64(p))
            n_filled += empty[b]
            empty[b] = 0
        if n_filled == n_bins:
            return
    # Round k + j sends every element to bin j: only the bins still empty
    # take theirs from it.
    for j in range(n_bins):
        if not empty[j]:
            continue
        a = _multiplier(s1, n_bins + j)
        for p in range(n):
            best[j] = min(best[j], ((a * keys[p]) & _HIGH32) | np.uint64(p))


@kernel
def _probe_table(starts, step, out):
    """The densification probes, attempt-major: ``out[t, j] = mix64(v_tj) mod n_bins``.

    ``v_tj`` is the probes' linear hash modulo ``P = 2**61 - 1`` of the key
    ``j * n_attempts + t``: ``starts[t]`` at bin 0 (fully reduced), then
    ``step`` (the hash's slope times ``n_attempts``, fully reduced) more at
    each bin, an addition modulo ``P`` where Horner's rule multiplies. The
    values are those of ``utils._hashing.polynomial_hash`` and ``mix64``
    (the tests compare them with the reference's).
    """
    n_attempts, n_bins = out.shape
    bins = np.uint64(n_bins)
    for t in range(n_attempts):
        value = starts[t]
        row = out[t]
        for j in range(n_bins):
            row[j] = _mix64(value) % bins
            value += step
            if value >= _P:
                value -= _P


@kernel
def _invert_probes(probe_table, probe_pairs, pair_starts):
    """The inverse lists of the densification probes, by a counting sort.

    ``probe_table[t, j]`` is the bin that bin ``j`` probes at attempt ``t``.
    The pairs ``(j, t)``, packed as ``t << 32 | j``, are written to
    ``probe_pairs`` grouped by the bin they probe, in attempt order, then bin
    order; those probing bin ``f`` are ``probe_pairs[pair_starts[f] :
    pair_starts[f + 1]]``. Two passes over the table, where a sort would take
    several.
    """
    n_attempts, n_bins = probe_table.shape
    position = np.zeros(n_bins, dtype=np.int64)
    for t in range(n_attempts):
        for j in range(n_bins):
            position[probe_table[t, j]] += 1
    start = 0
    for f in range(n_bins):
        count = position[f]
        position[f] = start
        pair_starts[f] = start
        start += count
    pair_starts[n_bins] = start
    for t in range(n_attempts):
        attempt = np.uint64(t) << _U32
        for j in range(n_bins):
            f = probe_table[t, j]
            at = position[f]
            probe_pairs[at] = attempt | np.uint64(j)
            position[f] = at + 1
