"""Scaling of transform: rows, threads (n_jobs) and peak memory, every estimator.

MNIST training rows (float32, 784 pixels, density 0.19) are repeated to
``n_rows`` rows. For TensorSketch, CoREHasher and KernelJL, measured in one run:

* transform time (median over ``--repeats``) with ``n_jobs=1`` and
  ``n_jobs=2``, the throughput in rows per second, and the speed-up of two
  jobs; throughput flat in ``n_rows`` means time linear in ``n_rows``;
* the peak memory that transform allocates beyond its output
  (``tracemalloc``, one job and two jobs), which the row chunks keep flat in
  ``n_rows``.

The machine's other load makes timings noisy: the two settings of ``n_jobs``
are interleaved, so that load affects both alike. What two threads can gain
at all is measured in the same run and printed first: the speed-up of two
threads over one on a compute-bound call that releases the GIL and stays in
a core's cache (``np.sin`` of 256 KiB), the ceiling for any transform on
this machine at this moment. Run::

    python benchmarks/bench_scaling.py [--quick] [--data-home DIR] [--rows 10000 20000 40000]
"""

import argparse
import time
import tracemalloc

import numpy as np
import scipy.sparse as sp

from bench_gil import in_cache_sines, two_thread_speedup  # the script's folder

from sklearn_sketch import CoREHasher, KernelJL, TensorSketch
from sklearn_sketch.datasets import load_mnist

ESTIMATORS = {
    "TensorSketch(n_components=512)": lambda n_jobs: TensorSketch(
        n_components=512, degree=2, random_state=0, n_jobs=n_jobs
    ),
    "CoREHasher(n_components=128, oph)": lambda n_jobs: CoREHasher(
        n_components=128, hashing="oph", random_state=0, n_jobs=n_jobs
    ),
    "KernelJL(n_subsample=300)": lambda n_jobs: KernelJL(
        n_components=100, n_subsample=300, gamma=0.02, random_state=0, n_jobs=n_jobs
    ),
}


def nbytes(X):
    if sp.issparse(X):
        return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    return X.nbytes


def peak_beyond_output_mib(estimator, X):
    tracemalloc.start()
    tracemalloc.reset_peak()
    X_new = estimator.transform(X)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return (peak - nbytes(X_new)) / 2**20


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, one repeat")
    parser.add_argument("--data-home", default=None, help="data folder (default $SKLEARN_SKETCH_DATA)")
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000, 20_000, 40_000])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if args.quick:
        args.rows, args.repeats = [2_000, 4_000], 1

    X_mnist, _ = load_mnist(args.data_home, subset="train")
    ceiling = np.median([two_thread_speedup(in_cache_sines, 20) for _ in range(5)])
    print(f"reference: two threads vs one on in-cache np.sin: {ceiling:.2f}x")
    rows = []
    for name, make in ESTIMATORS.items():
        fitted = {n_jobs: make(n_jobs).fit(X_mnist[:1000]) for n_jobs in (1, 2)}
        for n_rows in args.rows:
            X = np.resize(X_mnist, (n_rows, X_mnist.shape[1]))  # rows repeated
            fitted[1].transform(X[:100])  # warm-up
            times = {1: [], 2: []}
            for _ in range(args.repeats):
                for n_jobs in (1, 2):
                    start = time.perf_counter()
                    fitted[n_jobs].transform(X)
                    times[n_jobs].append(time.perf_counter() - start)
            t1, t2 = np.median(times[1]), np.median(times[2])
            rows.append(
                {
                    "estimator": name,
                    "n_rows": n_rows,
                    "rows/s n_jobs=1": f"{n_rows / t1:,.0f}",
                    "rows/s n_jobs=2": f"{n_rows / t2:,.0f}",
                    "speed-up 2 jobs": f"{t1 / t2:.2f}",
                    "peak beyond output MiB (1 job)": f"{peak_beyond_output_mib(fitted[1], X):.1f}",
                    "peak beyond output MiB (2 jobs)": f"{peak_beyond_output_mib(fitted[2], X):.1f}",
                }
            )
            print(rows[-1], flush=True)

    columns = list(rows[0])
    print()
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for row in rows:
        print("| " + " | ".join(str(row[c]) for c in columns) + " |")


if __name__ == "__main__":
    main()
