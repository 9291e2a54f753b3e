"""Which calls of a chunk's transform release the GIL: each alone, in one thread and in two.

Each call is timed ``2 * n`` times in one thread, then ``n`` times in each of
two threads at once. A call that releases the GIL runs about twice as fast in
two threads (on two idle cores); one that holds it gains nothing. The calls
are those the transforms of ``TensorSketch`` and ``CoREHasher`` spend their
time in, on arrays of a chunk's size, and two references that bound what
two threads can gain on this machine: a compute-bound call on data that
stays in a core's cache (``np.sin`` of 256 KiB, 20 times) and a
memory-bound one (a copy of 64 MiB). Run on an idle machine::

    python benchmarks/bench_gil.py [--repeats 5]
"""

import argparse

import numpy as np
import scipy.fft
import scipy.sparse as sp

# The script's folder; importing it puts this source tree first on sys.path.
from _bench import in_cache_sines, median_speedup

# The Count Sketch scatter itself: the call whose GIL release is measured.
from sklearn_sketch.utils._compat import csr_todense


def calls():
    """Each call's maker: a fresh closure with its own output buffers, one per
    thread, so that two threads never write the same cache lines."""
    rng = np.random.RandomState(0)
    X = rng.rand(2000, 784).astype(np.float32) * (rng.rand(2000, 784) < 0.19)
    bins = rng.randint(0, 100_000, 2_000_000)
    keys = rng.randint(0, 2**62, 2_000_000).astype(np.uint64)
    table = np.full(100_000, np.iinfo(np.uint64).max, dtype=np.uint64)
    A = sp.random(20_000, 2_000, density=0.01, format="csr", random_state=0, dtype=np.float32)
    G = rng.rand(2_000, 64).astype(np.float32)
    S = sp.random(2_000, 512, density=0.05, format="csr", random_state=0, dtype=np.float32)
    spectrum_input = rng.rand(2_000, 512).astype(np.float32)
    big = rng.rand(2**24).astype(np.float32)

    def copy():
        out = np.empty_like(big)
        return lambda: np.copyto(out, big)

    def scatter():
        out = np.zeros(S.shape, dtype=np.float32)
        return lambda: csr_todense(*S.shape, S.indptr, S.indices, S.data, out)

    def bin_minima():
        out = table.copy()
        return lambda: np.minimum.at(out, bins, keys)

    return {
        "reference: np.sin in cache (compute-bound)": in_cache_sines,
        "reference: 64 MiB copy (memory-bound)": copy,
        "np.flatnonzero of a mask (dense to CSR)": lambda: lambda: np.flatnonzero(X != 0),
        "ndarray.take (gathers)": lambda: lambda: keys.take(bins),
        "np.minimum.at (OPH bin minima)": bin_minima,
        "CSR @ dense (CoREHasher projection)": lambda: lambda: A @ G,
        "csr_todense (Count Sketch scatter)": scatter,
        "scipy.fft.rfft (TensorSketch)": lambda: lambda: scipy.fft.rfft(spectrum_input, axis=1),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="measurements per call (median)")
    parser.add_argument("-n", type=int, default=5, help="calls per thread in one measurement")
    args = parser.parse_args()
    print("| call | two threads vs one (median) |\n|---|---|")
    for name, make in calls().items():
        speedup = median_speedup(make, 2, args.n, args.repeats)
        print(f"| {name} | {speedup:.2f}x |")


if __name__ == "__main__":
    main()
