"""Outputs stay the same numbers across refactorings.

A fixed grid (every estimator and option of the registry, dense and sparse
input, float64 and float32) is transformed and compared with values stored
in ``tests/data/golden_outputs.npz``, to 1e-9 relative (float64) or 1e-5
(float32). A change of the numbers is then a decision, never an accident:
regenerate the file with ``python tests/test_golden_outputs.py`` and say
why in the commit.
"""

import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest import ESTIMATOR_REGISTRY, make_estimator  # noqa: E402

GOLDEN = Path(__file__).resolve().parent / "data" / "golden_outputs.npz"
CASES = [
    (name, kind, dtype)
    for name in sorted(ESTIMATOR_REGISTRY)
    for kind in ("dense", "sparse")
    for dtype in ("float64", "float32")
]


def _input(kind, dtype):
    rng = np.random.RandomState(42)
    X = rng.rand(12, 9) * (rng.rand(12, 9) < 0.6)
    X[4] = 0.0
    X = X.astype(dtype)
    return sp.csr_matrix(X) if kind == "sparse" else X


def _output(name, kind, dtype):
    X = _input(kind, dtype)
    result = make_estimator(name, random_state=7).fit(X).transform(X)
    if sp.issparse(result):
        result = result.tocsr()
        result.sort_indices()
        return {"data": result.data, "indices": result.indices, "indptr": result.indptr}
    return {"dense": np.asarray(result)}


def _key(name, kind, dtype):
    return f"{name}|{kind}|{dtype}"


@pytest.fixture(scope="module")
def golden():
    with np.load(GOLDEN) as stored:
        return dict(stored)


@pytest.mark.parametrize("name, kind, dtype", CASES)
def test_outputs_are_unchanged(golden, name, kind, dtype):
    rtol = 1e-9 if dtype == "float64" else 1e-5
    for part, value in _output(name, kind, dtype).items():
        expected = golden[f"{_key(name, kind, dtype)}|{part}"]
        if part in ("indices", "indptr"):
            np.testing.assert_array_equal(value, expected)
        else:
            scale = np.abs(expected).max(initial=1.0)
            assert_allclose(value, expected, rtol=rtol, atol=rtol * scale)


def main():
    arrays = {}
    for case in CASES:
        for part, value in _output(*case).items():
            arrays[f"{_key(*case)}|{part}"] = value
    GOLDEN.parent.mkdir(exist_ok=True)
    np.savez_compressed(GOLDEN, **arrays)
    print(f"Wrote {len(arrays)} arrays to {GOLDEN}")


if __name__ == "__main__":
    main()
