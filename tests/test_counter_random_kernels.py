"""Counter-generated random matrices against their plain references, bit for bit.

Rule: a row of the Gaussian matrix is a fixed function of (seed, feature,
number of columns): the words of NumPy's Philox-4x64 stream of its feature
block, turned into Gaussians by the Box-Muller transform in float32
(``_counter_random_reference.py``). The compiled kernel that computes the
words of the rows asked for must give exactly NumPy's words, for any key,
block, offset and width, and the rows must not depend on which other rows
are generated with them, nor in which order.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from _counter_random_reference import gaussian_rows as reference_rows
from _counter_random_reference import philox_words
from numpy.testing import assert_array_equal

from sklearn_sketch import CoREHasher
from sklearn_sketch.utils import _counter_random
from sklearn_sketch.utils._counter_random import FEATURE_BLOCK, gaussian_rows

SEEDS = [0, 1, 2**32 + 7, 2**63 + 5, 2**64 - 1]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n_words", [1, 3, 4, 5, 8, 9, 64])
def test_kernel_words_are_numpy_philox_words(seed, n_words):
    from sklearn_sketch.utils._counter_random_kernels import _box_muller_inputs

    # Offsets on and off the groups of 4 (and 8) words; blocks up to 2**63.
    blocks = np.array([0, 1, 3, 2**40 + 1, 2**63 + 3], dtype=np.uint64)
    for first in [0, 1, 2, 3, 4, 6, 7, 123]:
        radius = np.empty((blocks.size, n_words), dtype=np.float32)
        angle = np.empty_like(radius)
        firsts = np.full(blocks.size, first, dtype=np.uint64)
        rows = np.arange(blocks.size)[::-1].copy()  # written in reverse order
        key = (np.uint64(seed), np.uint64(0))
        _box_muller_inputs(*key, blocks, firsts, rows, radius, angle)
        for i, block in enumerate(blocks.tolist()):
            words = philox_words(seed, block, first, n_words)
            low = ((words & np.uint64(0xFFFFFFFF)) >> np.uint64(8)).astype(np.float32)
            high = (words >> np.uint64(40)).astype(np.float32)
            uniform = (low + np.float32(1)) * np.float32(2.0**-24)
            assert_array_equal(radius[rows[i]], uniform)
            assert_array_equal(angle[rows[i]], high * np.float32(2 * np.pi * 2.0**-24))


@pytest.mark.parametrize("seed", [0, 2**63 + 5, 2**64 - 1])
@pytest.mark.parametrize("n_columns", [1, 2, 3, 7, 64, 130])
def test_rows_are_the_reference_rows_in_any_order(seed, n_columns):
    rng = np.random.RandomState(n_columns)
    # Rows from both halves of several blocks (the cosine and the sine
    # parts), block edges, repeats, an unsorted order, a far block.
    features = np.concatenate([
        rng.randint(0, 4 * FEATURE_BLOCK, size=40),
        [0, FEATURE_BLOCK // 2 - 1, FEATURE_BLOCK // 2, FEATURE_BLOCK - 1, 5, 5],
        [2**40 * FEATURE_BLOCK + 200],
    ])
    expected = reference_rows(seed, features, n_columns)
    for dtype in (np.float32, np.float64):
        rows = gaussian_rows(seed, features, n_columns, dtype)
        assert rows.dtype == dtype
        assert_array_equal(rows, expected.astype(dtype))
        stacked, where = gaussian_rows(seed, features, n_columns, dtype, any_order=True)
        assert sorted(where.tolist()) == list(range(features.size))
        assert_array_equal(stacked[where], rows)
    # One row alone is the same row.
    alone = gaussian_rows(seed, features[-1:], n_columns, np.float32)
    assert_array_equal(alone, expected[-1:])


def test_no_rows():
    rows = gaussian_rows(3, np.array([], dtype=np.int64), 5, np.float32)
    assert rows.shape == (0, 5) and rows.dtype == np.float32


@pytest.mark.parametrize("projection", ["gaussian", "rademacher"])
def test_projection_generates_the_rows_of_the_touched_features_only(
    monkeypatch, projection
):
    # The cost of generating R is that of the distinct features the data
    # have, never that of the feature blocks (or the columns) they fall in:
    # a few entries spread over many blocks ask for a few rows.
    asked = []
    name = "gaussian_rows" if projection == "gaussian" else "rademacher_rows"
    original = getattr(_counter_random, name)
    from sklearn_sketch.minwise import _projection

    def counting(seed, features, *args, **kwargs):
        asked.append(np.asarray(features).copy())
        return original(seed, features, *args, **kwargs)

    monkeypatch.setattr(_projection, name, counting)
    rng = np.random.RandomState(0)
    n_features = 2**20
    columns = rng.choice(n_features, size=30, replace=False)
    X = sp.csr_matrix(
        (rng.rand(60) + 0.5, (np.repeat(np.arange(30), 2), np.tile(columns, 2))),
        shape=(30, n_features),
    )
    CoREHasher(64, projection=projection, random_state=0).fit(X).transform(X)
    generated = np.concatenate(asked)
    assert sorted(generated.tolist()) == sorted(columns.tolist())
