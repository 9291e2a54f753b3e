"""Reservoir sampling (``utils/_incremental.py``), the subsample behind
``KernelJL.partial_fit``: every item is kept with the same probability, and
the check of that can fail.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import chi_square_uniform_inclusion, statistical_seeds
from numpy.testing import assert_array_equal

from sklearn_sketch.utils._incremental import RowReservoir, reservoir_update


def _reservoir(batches, n_reservoir, seed):
    """Item numbers in the reservoir after feeding ``batches`` (sizes)."""
    random_state = np.random.RandomState(seed)
    reservoir = np.full(n_reservoir, -1)
    n_seen = 0
    for n_batch in batches:
        slots, items = reservoir_update(n_seen, n_reservoir, n_batch, random_state)
        assert np.all(np.diff(slots) > 0)  # distinct slots
        reservoir[slots] = n_seen + items
        n_seen += n_batch
    return reservoir


@pytest.mark.slow
@pytest.mark.statistical
def test_reservoir_is_a_uniform_subsample():
    # Batches of uneven sizes, smaller and larger than the reservoir.
    batches, n_reservoir = [7, 1, 0, 20, 3, 9], 10
    n_items, n_trials = sum(batches), 2000
    counts = np.zeros(n_items)
    pair_first_two = 0
    for seed in statistical_seeds(n_trials):
        reservoir = _reservoir(batches, n_reservoir, seed)
        assert np.unique(reservoir).size == n_reservoir and reservoir.min() >= 0
        counts[reservoir] += 1
        pair_first_two += {0, n_items - 1} <= set(reservoir)
    # Each item is kept with probability n / N.
    assert chi_square_uniform_inclusion(counts, n_trials, n_reservoir / n_items) > 1e-3
    # And a pair with probability n (n - 1) / (N (N - 1)) (within 4 standard errors).
    p_pair = n_reservoir * (n_reservoir - 1) / (n_items * (n_items - 1))
    assert abs(pair_first_two / n_trials - p_pair) < 4 * np.sqrt(p_pair * (1 - p_pair) / n_trials)


@pytest.mark.slow
@pytest.mark.statistical
def test_reservoir_chi_square_detects_a_biased_sampler():
    # The same statistic on a sampler that favours later items (each item of a
    # batch replaces a slot with probability n / n_seen_before_batch, too
    # often) has a tiny p-value: the test above can fail.
    batches, n_reservoir = [7, 1, 0, 20, 3, 9], 10
    n_items, n_trials = sum(batches), 2000
    counts = np.zeros(n_items)
    for seed in statistical_seeds(n_trials):
        rng = np.random.RandomState(seed)
        reservoir = np.arange(n_reservoir)
        n_seen = 0
        for n_batch in batches:
            t = n_seen + np.arange(n_batch)
            fill = t < n_reservoir
            draws = rng.randint(0, max(n_seen, n_reservoir), size=n_batch)
            slots = np.where(fill, t, draws)
            kept = slots < n_reservoir
            reservoir[slots[kept]] = t[kept]
            n_seen += n_batch
        counts[reservoir] += 1
    assert chi_square_uniform_inclusion(counts, n_trials, n_reservoir / n_items) < 1e-6


@pytest.mark.parametrize("first_sparse", [False, True], ids=["dense", "sparse"])
def test_row_reservoir_keeps_the_rows_of_its_slots_in_stream_order(first_sparse):
    # The rows are those of the slots reservoir_update fills, in stream
    # order, in the format and dtype of the first batch whatever the others.
    rng = np.random.RandomState(0)
    X = rng.rand(40, 5) * (rng.rand(40, 5) < 0.5)
    batches = [7, 1, 20, 3, 9]
    empty = sp.csr_matrix(X[:0]) if first_sparse else X[:0].astype(np.float32)
    reservoir = RowReservoir(10, empty, np.random.RandomState(1))
    start = 0
    for i, n_batch in enumerate(batches):
        batch = X[start : start + n_batch]
        reservoir.offer(sp.csr_matrix(batch) if i % 2 else batch)
        start += n_batch
    assert reservoir.n_seen == 40
    # A slot is a position in the rows: a batch's new rows replace those of
    # its slots and go after the rows kept, in batch order.
    expected, n_seen = np.empty(0, dtype=np.int64), 0
    random_state = np.random.RandomState(1)
    for n_batch in batches:
        slots, items = reservoir_update(n_seen, 10, n_batch, random_state)
        kept = np.delete(expected, slots[slots < expected.size])
        expected = np.concatenate([kept, n_seen + np.sort(items)])
        n_seen += n_batch
    assert_array_equal(reservoir.indices, expected)
    assert np.all(np.diff(expected) > 0) and expected.size == 10
    rows = reservoir.rows
    assert sp.issparse(rows) == first_sparse
    assert rows.dtype == empty.dtype
    dense_rows = rows.toarray() if first_sparse else rows
    assert_array_equal(dense_rows, X[reservoir.indices].astype(empty.dtype))
    if first_sparse:
        assert rows.has_canonical_format
