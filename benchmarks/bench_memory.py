"""Peak memory of transform beyond its output, every estimator, up to 1,000,000 rows.

Each public estimator transforms ``n_rows`` rows of narrow float32 data:
dense rows of 20 features, and for the sparse-input paths (TensorSketch,
CoREHasher) CSR rows with 20 stored values among 1000 features. The peak
that ``tracemalloc`` sees during ``transform`` (numpy and scipy report
their buffers to it) minus the size of the output is what the row chunks
must keep bounded: it should be flat in ``n_rows``. (A CSR input that is
not canonical, with duplicate entries or stored zeros, is copied once into
canonical form before the chunks: the input's size, not the transform's.) Run::

    python benchmarks/bench_memory.py [--rows 100000 1000000]

Every case is also checked, at a smaller size, by
``tests/test_chunking.py``.
"""

import argparse

import numpy as np
import scipy.sparse as sp

# The script's folder; importing it puts this source tree first on sys.path.
from _bench import nbytes, peak_beyond_output

from sklearn_sketch import (
    ComplexToRealSketch,
    CoREHasher,
    KernelJL,
    MaclaurinSketch,
    PolynomialTreeSketch,
    TensorSketch,
    TensorSRHT,
)

N_FEATURES = 20
N_SPARSE_FEATURES = 1000
MIB = 2**20

# (name, estimator, input kind). n_components is small enough that the
# output of 1,000,000 rows stays near 64 MB.
CASES = [
    ("TensorSketch", lambda: TensorSketch(16, degree=2, coef0=1.0, random_state=0), "dense"),
    ("TensorSketch", lambda: TensorSketch(16, degree=2, coef0=1.0, random_state=0), "sparse"),
    ("TensorSRHT", lambda: TensorSRHT(16, degree=2, coef0=1.0, random_state=0), "dense"),
    (
        "ComplexToRealSketch(srht)",
        lambda: ComplexToRealSketch(16, degree=2, coef0=1.0, random_state=0),
        "dense",
    ),
    (
        "ComplexToRealSketch(rademacher)",
        lambda: ComplexToRealSketch(16, degree=2, projection="rademacher", random_state=0),
        "dense",
    ),
    (
        "PolynomialTreeSketch(tensorsrht)",
        lambda: PolynomialTreeSketch(
            16, degree=4, coef0=1.0, base="tensorsrht", random_state=0
        ),
        "dense",
    ),
    (
        "PolynomialTreeSketch(tensorsketch)",
        lambda: PolynomialTreeSketch(16, degree=4, base="tensorsketch", random_state=0),
        "dense",
    ),
    ("MaclaurinSketch", lambda: MaclaurinSketch(16, degree=3, coef0=1.0, random_state=0), "dense"),
    ("MaclaurinSketch", lambda: MaclaurinSketch(16, degree=3, coef0=1.0, random_state=0), "sparse"),
    ("KernelJL", lambda: KernelJL(16, n_subsample=100, gamma=0.05, random_state=0), "dense"),
    ("CoREHasher", lambda: CoREHasher(8, random_state=0), "dense"),
    ("CoREHasher", lambda: CoREHasher(8, random_state=0), "sparse"),
    ("CoREHasher(oph)", lambda: CoREHasher(8, hashing="oph", random_state=0), "sparse"),
]


def make_input(kind, n_rows, seed=0):
    """Narrow float32 rows: dense (20 features) or CSR (20 of 1000 features)."""
    rng = np.random.default_rng(seed)
    if kind == "dense":
        # Non-negative values: CoREHasher's sets are then all 20 features.
        return rng.random((n_rows, N_FEATURES), dtype=np.float32)
    indices = rng.integers(0, N_SPARSE_FEATURES, size=(n_rows, N_FEATURES), dtype=np.int32)
    indices.sort(axis=1)
    indptr = np.arange(0, N_FEATURES * (n_rows + 1), N_FEATURES, dtype=np.int32)
    # In (0, 1]: a stored zero (random() draws 0.0 about once in 2**24) makes
    # the input non-canonical, and the estimators then copy it whole once.
    data = 1 - rng.random(n_rows * N_FEATURES, dtype=np.float32)
    X = sp.csr_matrix((data, indices.ravel(), indptr), shape=(n_rows, N_SPARSE_FEATURES))
    X.sum_duplicates()  # canonical, as most sparse inputs are
    return X


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    args = parser.parse_args()
    print("| estimator | input | rows | input MiB | output MiB | peak beyond output MiB | seconds |")
    print("|---|---|---|---|---|---|---|")
    for name, make, kind in CASES:
        X_fit = make_input(kind, 1000, seed=1)
        estimator = make().fit(X_fit)
        estimator.transform(X_fit[:10])  # warm-up: imports and caches
        for n_rows in args.rows:
            X = make_input(kind, n_rows)
            beyond, output, seconds = peak_beyond_output(lambda: estimator.transform(X))
            print(
                f"| {name} | {kind} | {n_rows:,} | {nbytes(X) / MIB:.0f} | {output / MIB:.0f} "
                f"| {beyond / MIB:.1f} | {seconds:.1f} |",
                flush=True,
            )
            del X


if __name__ == "__main__":
    main()
