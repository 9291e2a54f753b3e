"""Whether the public transforms release the GIL: each alone, in one thread and in two.

Each transform (``n_jobs=1``, a fitted estimator of its own per thread) is
timed ``2 * n`` times in one thread, then ``n`` times in each of two threads
at once. A transform that releases the GIL for most of its time runs about
twice as fast in two threads (on two idle cores); one that holds it gains
nothing. The inputs are the size of a chunk: 2000 MNIST-like dense rows
(784 columns, 19% nonzero) for the dense sketches, 2000 sector-like count
rows (55197 columns, 0.3% nonzero) for the hashers. Two references bound
what two threads can gain on this machine: a compute-bound call on data
that stays in a core's cache (``np.sin`` of 256 KiB, 20 times) and a
memory-bound one (a copy of 64 MiB). Run on an idle machine::

    python benchmarks/bench_gil.py [--repeats 5] [-n 5]
"""

import argparse

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone

# The script's folder; importing it puts this source tree first on sys.path.
from _bench import in_cache_sines, median_speedup

from sklearn_sketch import (
    CoREHasher,
    MinMaxHasher,
    OrthogonalRBFSampler,
    PolynomialTreeSketch,
    TensorSketch,
    TensorSRHT,
)


def inputs():
    """Chunk-sized inputs: dense pixels-like rows and sparse count rows."""
    rng = np.random.RandomState(0)
    dense = rng.rand(2000, 784).astype(np.float32) * (rng.rand(2000, 784) < 0.19)
    counts = sp.random(
        2000, 55197, density=0.003, format="csr", random_state=0, dtype=np.float32,
        data_rvs=lambda n: rng.randint(1, 5, n),
    )
    return dense, counts


def calls():
    """Each call's maker: a fresh closure with its own fitted estimator and
    its own copy of the input, one per thread, so that two threads share no
    writable memory."""
    dense, counts = inputs()
    big = np.random.RandomState(1).rand(2**24).astype(np.float32)

    def copy():
        out = np.empty_like(big)
        return lambda: np.copyto(out, big)

    def transform(estimator, X):
        def make():
            fitted = clone(estimator).fit(X)
            X_own = X.copy()
            fitted.transform(X_own[:10])  # compiles (or loads) the kernels first
            return lambda: fitted.transform(X_own)

        return make

    return {
        "reference: np.sin in cache (compute-bound)": in_cache_sines,
        "reference: 64 MiB copy (memory-bound)": copy,
        "TensorSketch(512)": transform(TensorSketch(512, random_state=0), dense),
        "TensorSRHT(512)": transform(TensorSRHT(512, random_state=0), dense),
        "PolynomialTreeSketch(512, degree=4)": transform(
            PolynomialTreeSketch(512, degree=4, random_state=0), dense
        ),
        "OrthogonalRBFSampler(512, sorf)": transform(
            OrthogonalRBFSampler(512, random_state=0), dense
        ),
        "CoREHasher(256, resemblance, oph)": transform(
            CoREHasher(256, kernel="resemblance", hashing="oph", random_state=0), counts
        ),
        "CoREHasher(256, resemblance, fss)": transform(
            CoREHasher(256, kernel="resemblance", random_state=0), counts
        ),
        "CoREHasher(256, core1, oph)": transform(
            CoREHasher(256, hashing="oph", random_state=0), counts
        ),
        "MinMaxHasher(256)": transform(MinMaxHasher(256, random_state=0), counts),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="measurements per call (median)")
    parser.add_argument("-n", type=int, default=5, help="calls per thread in one measurement")
    args = parser.parse_args()
    print("| transform (n_jobs=1) | two threads vs one (median) |\n|---|---|")
    for name, make in calls().items():
        speedup = median_speedup(make, 2, args.n, args.repeats)
        print(f"| {name} | {speedup:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
