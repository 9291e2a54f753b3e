"""Which calls of a chunk's transform release the GIL: each alone, in one thread and in two.

Each call is timed ``2 * n`` times in one thread, then ``n`` times in each of
two threads at once. A call that releases the GIL runs about twice as fast in
two threads (on two idle cores); one that holds it gains nothing. The calls
are those the transforms of ``TensorSketch`` and ``CoREHasher`` spend their
time in, on arrays of a chunk's size. Run on an idle machine::

    python benchmarks/bench_gil.py [--repeats 5]
"""

import argparse
import threading
import time

import numpy as np
import scipy.fft
import scipy.sparse as sp


def calls():
    rng = np.random.RandomState(0)
    X = rng.rand(2000, 784).astype(np.float32) * (rng.rand(2000, 784) < 0.19)
    bins = rng.randint(0, 100_000, 2_000_000)
    keys = rng.randint(0, 2**62, 2_000_000).astype(np.uint64)
    table = np.full(100_000, np.iinfo(np.uint64).max, dtype=np.uint64)
    A = sp.random(20_000, 2_000, density=0.01, format="csr", random_state=0, dtype=np.float32)
    G = rng.rand(2_000, 64).astype(np.float32)
    S = sp.random(2_000, 512, density=0.05, format="csr", random_state=0, dtype=np.float32)
    spectrum_input = rng.rand(2_000, 512).astype(np.float32)
    return {
        "np.flatnonzero (dense to CSR)": lambda: np.flatnonzero(X),
        "ndarray.take (gathers)": lambda: keys.take(bins),
        "np.minimum.at (OPH bin minima)": lambda: np.minimum.at(table.copy(), bins, keys),
        "CSR @ dense (CoREHasher projection)": lambda: A @ G,
        "CSR.toarray (Count Sketch scatter)": lambda: S.toarray(),
        "scipy.fft.rfft (TensorSketch)": lambda: scipy.fft.rfft(spectrum_input, axis=1),
    }


def two_thread_speedup(function, n):
    function()
    start = time.perf_counter()
    for _ in range(2 * n):
        function()
    one = time.perf_counter() - start

    def work():
        for _ in range(n):
            function()

    threads = [threading.Thread(target=work) for _ in range(2)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return one / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="measurements per call (median)")
    parser.add_argument("-n", type=int, default=5, help="calls per thread in one measurement")
    args = parser.parse_args()
    print("| call | two threads vs one (median) |\n|---|---|")
    for name, function in calls().items():
        ratios = [two_thread_speedup(function, args.n) for _ in range(args.repeats)]
        print(f"| {name} | {np.median(ratios):.2f}x |")


if __name__ == "__main__":
    main()
