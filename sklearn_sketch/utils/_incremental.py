"""Incremental fitting: reservoir sampling of ``partial_fit`` batches."""

import numpy as np


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
