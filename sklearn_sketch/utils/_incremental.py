"""Incremental fitting: reservoir sampling of ``partial_fit`` batches."""

import numpy as np
import scipy.sparse as sp

from ._validation import canonical_csr


def reservoir_update(n_seen, n_reservoir, n_batch, random_state):
    """One batch of reservoir sampling (Vitter's Algorithm R), vectorized.

    The reservoir holds up to ``n_reservoir`` slots. Of the stream's items
    numbered ``0, 1, ...``, ``n_seen`` have been offered before this batch,
    and ``min(n_seen, n_reservoir)`` slots are filled. Item ``t`` (0-based)
    fills the next free slot while ``t < n_reservoir``; afterwards it draws
    ``u`` uniform in ``{0, ..., t}`` and replaces slot ``u`` when ``u <
    n_reservoir``. Applied to a whole batch at once (a later item of the
    batch wins a slot drawn twice), this is exactly Algorithm R, so after
    any sequence of batches the reservoir is a uniform random subset of
    size ``min(n_reservoir, n_seen_total)`` of all items seen: each item is
    in it with probability ``n_reservoir / n_seen_total``.

    Parameters
    ----------
    n_seen : int
        Items offered before this batch.
    n_reservoir : int
        Number of slots.
    n_batch : int
        Items in this batch, numbered ``n_seen, ..., n_seen + n_batch - 1``.
    random_state : RandomState
        Source of the draws.

    Returns
    -------
    slots : ndarray of shape (n_new,), dtype int64
        The slots (re)filled by this batch, distinct, in increasing order.
        Slots ``>= min(n_seen, n_reservoir)`` are new ones, to append.
    items : ndarray of shape (n_new,), dtype int64
        Position in the batch (0-based) of the item that ends up in each slot.
    """
    t = n_seen + np.arange(n_batch, dtype=np.int64)
    slots = t.copy()
    full = t >= n_reservoir
    if full.any():
        # randint draws each u in [0, t] for its own t.
        slots[full] = random_state.randint(0, t[full] + 1, dtype=np.int64)
    kept = slots < n_reservoir
    slots, items = slots[kept], np.flatnonzero(kept)
    # The last item of the batch drawn into a slot is the one that stays.
    reversed_slots = slots[::-1]
    slots, last = np.unique(reversed_slots, return_index=True)
    items = items[::-1][last]
    return slots, items


class RowReservoir:
    """A uniform sample of ``n_slots`` rows of a stream of batches, in stream order.

    Parameters
    ----------
    n_slots : int
        Number of rows kept.
    empty : {ndarray, csr_matrix} of shape (0, n_features)
        No rows, in the format and dtype of the sample: later batches are
        converted to it (a dense batch into a canonical CSR matrix, or a
        sparse one into dense rows), so the sample keeps one format whatever
        mix of batches follows.
    random_state : RandomState
        Source of the draws.

    Attributes
    ----------
    rows : {ndarray, csr_matrix}
        The sample: the rows kept from earlier batches, then the new ones in
        batch order, so the sample stays in the order of the stream.
    indices : ndarray of int64
        Position of each row of the sample in the stream.
    n_seen : int
        Number of rows offered so far.
    """

    def __init__(self, n_slots, empty, random_state):
        self.n_slots = n_slots
        self.rows = empty
        self.indices = np.empty(0, dtype=np.int64)
        self.n_seen = 0
        self.random_state = random_state

    def offer(self, X):
        """Offer the rows of ``X`` (Algorithm R); whether any slot was (re)filled."""
        slots, items = reservoir_update(
            self.n_seen, self.n_slots, X.shape[0], self.random_state
        )
        n_filled = self.indices.size
        kept = np.ones(n_filled, dtype=bool)
        kept[slots[slots < n_filled]] = False
        new_items = np.sort(items)
        new_rows = _rows_like(X[new_items], self.rows)
        self.rows = _stack_rows(self.rows[kept], new_rows)
        self.indices = np.concatenate([self.indices[kept], self.n_seen + new_items])
        self.n_seen += X.shape[0]
        return slots.size > 0


def _rows_like(rows, sample):
    """Rows of a batch in the format and dtype of ``sample``."""
    if sp.issparse(sample):
        rows = canonical_csr(rows)
    elif sp.issparse(rows):
        rows = rows.toarray()
    return rows.astype(sample.dtype, copy=False)


def _stack_rows(top, bottom):
    """``top`` above ``bottom``, both dense or both canonical CSR."""
    if sp.issparse(top):
        return canonical_csr(sp.vstack([top, bottom], format="csr"))
    return np.concatenate([top, bottom])
