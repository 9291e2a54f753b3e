"""Feature names and the output's width, for every estimator.

The rules (issue 25):

* ``get_feature_names_out`` returns scikit-learn's object array of ``str``,
  the lowercased class name followed by the column number, for an output
  of up to ``MAX_FEATURE_NAMES`` columns, in under 3 s and 1 GiB at that
  width; a wider output (a hasher with ``b_bits=16`` and 512 hashes, or
  ``b_bits=32``) gets a ValueError in well under a second that names the
  width and says what to do, never a MemoryError after exhausting memory;
* a hasher whose output could not be indexed by int64 (``n_components *
  block width`` beyond ``2**63 - 1``, as with ``b_bits=None`` on very wide
  input) is refused at fit with a ValueError naming the width and
  ``b_bits``, before anything is drawn; every width up to ``2**63 - 1`` is
  fitted and transformed.
"""

import time
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import ESTIMATOR_REGISTRY, legal_input, make_estimator

from sklearn_sketch import CoREHasher, MinMaxHasher
from sklearn_sketch import _base

INT64_MAX = 2**63 - 1
MIB = 2**20
NAMES = sorted(ESTIMATOR_REGISTRY)
# Every kernel and hashing scheme of the hashers, each a code path to the width.
HASHERS = [
    (CoREHasher, dict(kernel="core1", hashing="oph")),
    (CoREHasher, dict(kernel="core1", hashing="minwise", projection="hashed_gaussian")),
    (CoREHasher, dict(kernel="core2", hashing="oph")),
    (CoREHasher, dict(kernel="resemblance", hashing="minwise")),
    # b_bits=None (the coordinate itself) is the 0-bit scheme's alone.
    (MinMaxHasher, dict(kernel="minmax", codes="0bit")),
    (MinMaxHasher, dict(kernel="gmm", codes="0bit")),
]
HASHER_IDS = [f"{cls.__name__}-{'-'.join(p.values())}" for cls, p in HASHERS]
ALL_HASHERS = pytest.mark.parametrize("cls, params", HASHERS, ids=HASHER_IDS)


def expected_names(estimator, width):
    """The oracle: scikit-learn's class-prefixed names, one Python string each."""
    prefix = type(estimator).__name__.lower()
    return [f"{prefix}{i}" for i in range(width)]


def sparse_rows(n_features, dtype=np.float64):
    """2 x n_features CSR: row 0 with the first and last columns, row 1 negative."""
    return sp.csr_matrix(
        (np.array([1.0, 2.0, -3.0], dtype=dtype), np.array([0, n_features - 1, 5]),
         np.array([0, 2, 3])),
        shape=(2, n_features),
    )


def timed(call):
    """``(seconds, peak traced bytes, exception)`` of ``call()``."""
    tracemalloc.start()
    start = time.perf_counter()
    try:
        call()
        error = None
    except (ValueError, MemoryError) as exc:
        error = exc
    finally:
        seconds = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return seconds, peak, error


# -- the names ------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_names_are_the_class_prefixed_column_numbers(name):
    X = legal_input(name, np.random.RandomState(0).rand(6, 5))
    estimator = make_estimator(name).fit(X)
    names = estimator.get_feature_names_out()
    width = estimator.transform(X).shape[1]
    assert isinstance(names, np.ndarray) and names.dtype == object
    assert all(type(n) is str for n in names)
    assert names.tolist() == expected_names(estimator, width)
    # input_features is validated as scikit-learn does, and changes nothing.
    same = estimator.get_feature_names_out([f"x{i}" for i in range(5)])
    assert same.tolist() == names.tolist()
    with pytest.raises(ValueError, match="input_features"):
        estimator.get_feature_names_out(["a", "b"])


@ALL_HASHERS
@pytest.mark.parametrize("b_bits", [9, None])
def test_names_of_several_chunks(cls, params, b_bits):
    # Wider than one chunk of names, with a partial last chunk.
    n_features = 2**14 + 3
    X = sparse_rows(n_features)
    X = abs(X) if params["kernel"] == "minmax" else X
    n_components = 300 if b_bits else 5
    estimator = cls(n_components=n_components, b_bits=b_bits, random_state=0, **params)
    names = estimator.fit(X).get_feature_names_out()
    width = estimator.transform(X).shape[1]
    assert width > 2**16 and width % 2**16
    assert names.tolist() == expected_names(estimator, width)


@pytest.mark.parametrize("name", NAMES)
def test_names_beyond_the_limit_refused_for_every_estimator(name, monkeypatch):
    X = legal_input(name, np.random.RandomState(0).rand(6, 5))
    estimator = make_estimator(name).fit(X)
    width = estimator.transform(X).shape[1]
    monkeypatch.setattr(_base, "MAX_FEATURE_NAMES", width)
    assert len(estimator.get_feature_names_out()) == width
    monkeypatch.setattr(_base, "MAX_FEATURE_NAMES", width - 1)
    with pytest.raises(ValueError, match=rf"{width} output features.*n_components"):
        estimator.get_feature_names_out()


@ALL_HASHERS
@pytest.mark.parametrize(
    "n_components, b_bits", [(512, 16), (2**10, 14), (4, 32), (64, 32)]
)
def test_huge_widths_refused_at_once(cls, params, n_components, b_bits):
    X = sparse_rows(100)
    X = abs(X) if params["kernel"] == "minmax" else X
    estimator = cls(n_components=n_components, b_bits=b_bits, random_state=0, **params)
    seconds, peak, error = timed(lambda: estimator.fit(X).get_feature_names_out())
    width = n_components * 2**b_bits
    assert isinstance(error, ValueError), error
    assert f"{width} output features" in str(error) and f"b_bits={b_bits}" in str(error)
    assert "smaller b_bits" in str(error)
    assert seconds < 1.0 and peak < 16 * MIB, (seconds, peak / MIB)
    # The output itself is sparse: the hasher transforms at that width.
    Z = estimator.transform(X)
    assert Z.shape == (2, width) and Z.nnz == 2 * n_components


@ALL_HASHERS
def test_names_of_a_full_width_output_refused(cls, params):
    # b_bits=None on 2**40 features: a valid output, far too wide to name.
    X = sparse_rows(2**40)
    X = abs(X) if params["kernel"] == "minmax" else X
    estimator = cls(n_components=16, b_bits=None, random_state=0, **params).fit(X)
    width = estimator.transform(X).shape[1]
    seconds, _, error = timed(estimator.get_feature_names_out)
    assert isinstance(error, ValueError) and seconds < 1.0
    assert f"{width} output features" in str(error) and "b_bits=None" in str(error)


def test_names_cost_a_bounded_amount_per_column():
    # Memory grows with the width: at most 2**30 / MAX_FEATURE_NAMES bytes a
    # name keeps the widest named output under 1 GiB.
    estimator = CoREHasher(n_components=16, b_bits=16, random_state=0)
    estimator.fit(sparse_rows(10))
    names = []
    _, peak, error = timed(lambda: names.append(estimator.get_feature_names_out()))
    width = 16 * 2**16
    assert error is None and len(names[0]) == width
    assert peak <= width * 2**30 / _base.MAX_FEATURE_NAMES, peak / width


@pytest.mark.slow
def test_names_at_the_limit_are_built_in_seconds():
    estimator = MinMaxHasher(n_components=_base.MAX_FEATURE_NAMES // 2**16, b_bits=16)
    estimator.fit(abs(sparse_rows(10, np.float32)))
    start = time.perf_counter()
    names = estimator.get_feature_names_out()
    seconds = time.perf_counter() - start
    assert len(names) == _base.MAX_FEATURE_NAMES
    assert names[-1] == f"minmaxhasher{_base.MAX_FEATURE_NAMES - 1}"
    # Seconds, not minutes: a bound loose enough for a loaded machine (the
    # names take about 2 s on an idle one), tight enough to catch work that
    # grows faster than the number of names.
    assert seconds < 30, seconds


# -- widths beyond int64 --------------------------------------------------------


def _too_wide_cases():
    # (n_features, n_components, b_bits): the output one column past int64,
    # far past it, and huge hash counts with b-bit blocks.
    return [
        ((INT64_MAX // 7) + 1, 7, None),
        (2**60, 8, None),
        (2**40, 2**23, None),
        (2**61 - 2, 2**40, None),
        (10, 2**31, 32),
        (10, 2**62, 1),
    ]


@ALL_HASHERS
@pytest.mark.parametrize("n_features, n_components, b_bits", _too_wide_cases())
@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_output_wider_than_int64_refused_at_fit(
    cls, params, n_features, n_components, b_bits, method
):
    X = sparse_rows(n_features)
    X = abs(X) if params["kernel"] == "minmax" else X
    keys = n_features * (2 if params["kernel"] == "gmm" else 1)
    block = 2**b_bits if b_bits else keys
    width = n_components * block
    assert width > INT64_MAX
    estimator = cls(n_components=n_components, b_bits=b_bits, random_state=0, **params)
    seconds, peak, error = timed(lambda: getattr(estimator, method)(X))
    assert isinstance(error, ValueError), error
    assert f"= {width} columns" in str(error) and f"b_bits={b_bits}" in str(error)
    assert ("Set b_bits" if b_bits is None else "smaller b_bits") in str(error)
    assert seconds < 1.0 and peak < 16 * MIB, (seconds, peak / MIB)
    # Refused before anything is drawn.
    assert not hasattr(estimator, "bucket_coefficients_")


def _widest_cases():
    # Outputs of exactly 2**63 - 1 columns (7 * 1317624576693539401), and
    # the widest "gmm" one (2 * 2 * (2**61 - 2)).
    return [
        (CoREHasher, dict(kernel="core1", hashing="oph"), INT64_MAX // 7, 7),
        (CoREHasher, dict(kernel="core2", hashing="minwise"), INT64_MAX // 7, 7),
        (MinMaxHasher, dict(kernel="minmax", codes="0bit"), INT64_MAX // 7, 7),
        (MinMaxHasher, dict(kernel="gmm", codes="0bit"), 2**61 - 2, 2),
    ]


@pytest.mark.parametrize(
    "cls, params, n_features, n_components", _widest_cases(),
    ids=["CoREHasher-core1-oph", "CoREHasher-core2-minwise", "MinMaxHasher-minmax",
         "MinMaxHasher-gmm"],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_widest_indexable_output_is_transformed(
    cls, params, n_features, n_components, dtype
):
    X = sparse_rows(n_features, dtype)
    X = abs(X) if params["kernel"] == "minmax" else X
    estimator = cls(n_components=n_components, b_bits=None, random_state=0, **params)
    Z = estimator.fit(X).transform(X)
    gmm = params["kernel"] == "gmm"
    block = n_features * (2 if gmm else 1)
    assert Z.shape == (2, n_components * block) and Z.dtype == dtype
    assert Z.indices.dtype == np.int64 and Z.nnz == 2 * n_components
    # The oracle: block j of a row holds, at j * block + key, a key of the
    # row (its column; for "gmm" 2 * column, + 1 where the value is negative).
    for row in range(2):
        start, stop = Z.indptr[row], Z.indptr[row + 1]
        blocks, keys = zip(*(divmod(int(c), block) for c in Z.indices[start:stop]))
        assert list(blocks) == list(range(n_components))
        x = X[row]
        if gmm:
            row_keys = {2 * int(c) + int(v < 0) for c, v in zip(x.indices, x.data)}
        else:
            row_keys = {int(c) for c in x.indices}
        assert set(keys) <= row_keys
    # Rows alone give the same columns.
    assert (estimator.transform(X[1:]) != Z[1:]).nnz == 0


@ALL_HASHERS
@pytest.mark.parametrize("b_bits", [4, 9, None])
def test_output_width_is_a_public_attribute(cls, params, b_bits):
    # n_output_features_ is the width of what transform returns and the
    # number of feature names; unfitted, the attribute does not exist yet.
    X = sparse_rows(37)
    X = abs(X) if params["kernel"] == "minmax" else X
    estimator = cls(n_components=6, b_bits=b_bits, random_state=0, **params)
    assert not hasattr(estimator, "n_output_features_")
    width = estimator.fit(X).transform(X).shape[1]
    block = 2**b_bits if b_bits else 37 * (2 if params["kernel"] == "gmm" else 1)
    assert estimator.n_output_features_ == width == 6 * block
    assert len(estimator.get_feature_names_out()) == width
