"""Scaling of transform with threads (``n_jobs``) and rows, beside the machine's ceiling.

Rows are repeated to ``n_rows``: sector tf-idf training documents (sparse,
about 160 stored entries a row) for the hashers, MNIST training digits
(dense float32, 784 pixels) for the others. Measured in one run:

* transform time (median over ``--repeats``) with ``n_jobs=1`` and with
  ``n_jobs=J`` (``--jobs``, default 2), the rows per second and the speed-up;
  the two settings are interleaved, so that other load hits both alike;
  throughput flat in ``n_rows`` means time linear in ``n_rows``;
* the peak memory transform allocates beyond its output (``tracemalloc``,
  one job and J jobs), which the row chunks keep flat in ``n_rows``.

What J threads can gain at all on this machine at this moment is measured
in the same run and printed first, two ways: J threads against one of an
in-cache ``np.sin`` (256 KiB, compute-bound, releases the GIL), and of a
compiled loop that releases the GIL (numba, ``nogil=True``) over the stored
entries of the same sector rows, hashing each entry. No transform can scale
better than these. A third figure bounds the FFT sketches: J threads against
one of the FFT work of one TensorSketch chunk (``scipy.fft.rfft`` of two
421 x 512 float32 arrays, their product and ``irfft``, each thread on its own
arrays, allocating its results as scipy.fft does); a fourth, memory itself: J
threads against one of filling fresh 7 MB arrays (``np.ones``), whose pages
the system maps at first touch, as it does every transform's output. Run::

    python benchmarks/bench_scaling.py [--quick] [--jobs 2] [--rows 10000 40000] [--repeats 5]
"""

import argparse

import numba
import numpy as np
import scipy.fft
import scipy.sparse as sp

# The script's folder; importing it puts this source tree first on sys.path.
from _bench import in_cache_sines, median_speedup, median_times, peak_beyond_output

from sklearn_sketch import CoREHasher, KernelJL, MinMaxHasher, OrthogonalRBFSampler, TensorSketch
from sklearn_sketch.datasets import fetch_mnist, fetch_sector

ESTIMATORS = {
    "TensorSketch(n_components=512)": ("mnist", lambda n_jobs: TensorSketch(
        n_components=512, degree=2, random_state=0, n_jobs=n_jobs)),
    "OrthogonalRBFSampler(sorf, 4096)": ("mnist", lambda n_jobs: OrthogonalRBFSampler(
        n_components=4096, random_state=0, n_jobs=n_jobs)),
    "CoREHasher(resemblance, oph, 256)": ("sector", lambda n_jobs: CoREHasher(
        n_components=256, kernel="resemblance", hashing="oph", random_state=0, n_jobs=n_jobs)),
    "CoREHasher(core1, oph, 256)": ("sector", lambda n_jobs: CoREHasher(
        n_components=256, hashing="oph", random_state=0, n_jobs=n_jobs)),
    "MinMaxHasher(256)": ("sector", lambda n_jobs: MinMaxHasher(
        n_components=256, random_state=0, n_jobs=n_jobs)),
    "KernelJL(n_subsample=300)": ("mnist", lambda n_jobs: KernelJL(
        n_components=100, n_subsample=300, random_state=0, n_jobs=n_jobs)),
}


@numba.njit(nogil=True)
def _hash_entries(indices, data, rounds):
    total = np.uint64(0)
    for _ in range(rounds):
        for position in range(indices.shape[0]):
            z = np.uint64(indices[position]) * np.uint64(0x9E3779B97F4A7C15)
            z ^= z >> np.uint64(31)
            total += z * np.uint64(0xBF58476D1CE4E5B9) + np.uint64(data[position] > 0)
    return total


def fft_chunk():
    sketch = np.random.RandomState(0).rand(421, 512).astype(np.float32)

    def run():
        spectrum = scipy.fft.rfft(sketch, axis=1)
        spectrum *= scipy.fft.rfft(sketch, axis=1)
        return scipy.fft.irfft(spectrum, n=512, axis=1, overwrite_x=True)

    return run


def fresh_arrays():
    return lambda: np.ones((421, 4096), dtype=np.float32)


def entry_loop(X):
    indices, data = X.indices.copy(), X.data.copy()
    return lambda: _hash_entries(indices, data, 4)


def peak_beyond_output_mib(estimator, X):
    return peak_beyond_output(lambda: estimator.transform(X))[0] / 2**20


def repeated(X, n_rows):
    if sp.issparse(X):
        return sp.vstack([X] * (-(-n_rows // X.shape[0])), format="csr")[:n_rows]
    return np.resize(X, (n_rows, X.shape[1]))


def time_estimator(make, X_fit, X, jobs, repeats):
    fitted = {n_jobs: make(n_jobs).fit(X_fit) for n_jobs in (1, jobs)}
    fitted[1].transform(X[:100])  # compile and warm up
    functions = {n_jobs: (lambda e=e: e.transform(X)) for n_jobs, e in fitted.items()}
    times = median_times(functions, repeats)
    return fitted, times[1], times[jobs]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, one repeat")
    parser.add_argument("--data-home", default=None, help="data folder (default $SKLEARN_SKETCH_DATA)")
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000, 40_000])
    parser.add_argument("--jobs", type=int, default=2, help="n_jobs compared with 1")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", nargs="+", default=None, help="estimator names starting so")
    args = parser.parse_args()
    if args.quick:
        args.rows, args.repeats = [2_000], 1
    data = {
        "mnist": fetch_mnist(args.data_home, subset="train", return_X_y=True)[0],
        "sector": fetch_sector(args.data_home, subset="train", values="tfidf", return_X_y=True)[0],
    }
    jobs = args.jobs
    sines = median_speedup(in_cache_sines, jobs, 4)
    loop = median_speedup(lambda: entry_loop(data["sector"]), jobs, 4)
    fft = median_speedup(fft_chunk, jobs, 10)
    fresh = median_speedup(fresh_arrays, jobs, 10)
    print(f"ceiling: {jobs} threads vs one, in-cache np.sin {sines:.2f}x; "
          f"nogil compiled loop over the sector entries {loop:.2f}x; "
          f"FFTs of a TensorSketch chunk {fft:.2f}x; fresh arrays filled {fresh:.2f}x")
    rows = []
    for name, (dataset, make) in ESTIMATORS.items():
        if args.only and not any(name.startswith(prefix) for prefix in args.only):
            continue
        for n_rows in args.rows:
            X = repeated(data[dataset], n_rows)
            fitted, t1, tj = time_estimator(make, data[dataset][:1000], X, jobs, args.repeats)
            rows.append({
                "estimator": name, "n_rows": n_rows,
                "rows/s n_jobs=1": f"{n_rows / t1:,.0f}",
                f"rows/s n_jobs={jobs}": f"{n_rows / tj:,.0f}",
                f"speed-up {jobs} jobs": f"{t1 / tj:.2f}",
                "of the loop ceiling": f"{t1 / tj / loop:.2f}",
                "peak beyond output MiB (1 job)": f"{peak_beyond_output_mib(fitted[1], X):.1f}",
                f"peak beyond output MiB ({jobs} jobs)":
                    f"{peak_beyond_output_mib(fitted[jobs], X):.1f}",
            })
            print(rows[-1], flush=True)
    columns = list(rows[0])
    print(f"\nceiling ({jobs} threads vs one): np.sin {sines:.2f}x, compiled loop {loop:.2f}x, "
          f"FFTs of a TensorSketch chunk {fft:.2f}x, fresh arrays filled {fresh:.2f}x")
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for row in rows:
        print("| " + " | ".join(str(row[c]) for c in columns) + " |")


if __name__ == "__main__":
    main()
