"""TensorSketch against scikit-learn's PolynomialCountSketch and the FFT floor.

For each case, in one run of this script:

* ``sklearn / ours``: time of ``PolynomialCountSketch.transform`` over the time
  of ``TensorSketch.transform`` on the same input (both fitted beforehand);
* ``ours / floor``: our time over the FFT work no Tensor Sketch can avoid on
  the output's shape and dtype: ``degree`` real FFTs of an (n_samples,
  n_components) array, their product and one inverse real FFT;
* peak memory of each transform beyond its output (``tracemalloc``, which
  numpy reports its buffers to);
* on dense MNIST, ``n_jobs=2 / 1``: the speed-up of two threads over one,
  next to the two-thread ceiling of the machine measured in the same run
  (``np.sin`` in cache, ``median_speedup`` of ``_bench.py``): a transform
  that holds the GIL little gets close to it.

Times are medians over ``--repeats`` runs, ours and the floor (and the two
settings of ``n_jobs``) timed in turn within each repeat so that the
machine's other load hits them alike (scikit-learn's sparse transform is so
slow that it runs once unless ``--sklearn-repeats`` says otherwise).

Run::

    python benchmarks/bench_tensor_sketch.py [--data-home DIR] [--quick] [--no-sklearn]
"""

import argparse

import numpy as np
import scipy.fft
from sklearn.kernel_approximation import PolynomialCountSketch

# The script's folder; importing it puts this source tree first on sys.path.
from _bench import (
    default_data_home,
    median_speedup,
    median_time,
    median_times,
    peak_beyond_output,
)

from sklearn_sketch import TensorSketch
from sklearn_sketch.datasets import fetch_20newsgroups_counts, fetch_mnist


def fft_floor(n_samples, n_components, degree, dtype):
    """The unavoidable FFT work on the output's shape and dtype, as a function to time."""
    sketches = np.random.RandomState(0).randn(degree, n_samples, n_components).astype(dtype)

    def run():
        spectrum = scipy.fft.rfft(sketches[0], axis=1)
        for j in range(1, degree):
            spectrum *= scipy.fft.rfft(sketches[j], axis=1)
        return scipy.fft.irfft(spectrum, n=n_components, axis=1, overwrite_x=True)

    run()  # warm-up: plan caches, page faults
    return run


def bench_case(name, X, n_components, degree, repeats, sklearn_repeats):
    ours = TensorSketch(n_components, degree=degree, random_state=0).fit(X)
    theirs = PolynomialCountSketch(
        n_components=n_components, degree=degree, random_state=0
    ).fit(X)
    ours.transform(X[:10])  # warm-up (and the kernels' compile, if not cached)
    floor = fft_floor(X.shape[0], n_components, degree, X.dtype)
    times = median_times({"ours": lambda: ours.transform(X), "floor": floor}, repeats)
    t_ours, t_floor = times["ours"], times["floor"]
    del floor
    t_sklearn = np.nan
    if sklearn_repeats:
        t_sklearn = median_time(lambda: theirs.transform(X), sklearn_repeats)
    mem_ours = max(peak_beyond_output(lambda: ours.transform(X))[0], 0)
    out_bytes = X.shape[0] * n_components * X.dtype.itemsize
    row = {
        "case": name,
        "shape": f"{X.shape[0]}x{X.shape[1]}",
        "dtype": X.dtype.name,
        "degree": degree,
        "ours_s": t_ours,
        "sklearn_s": t_sklearn,
        "floor_s": t_floor,
        "sklearn/ours": t_sklearn / t_ours,
        "ours/floor": t_ours / t_floor,
        "ours_extra_MiB": mem_ours / 2**20,
        "output_MiB": out_bytes / 2**20,
    }
    print(
        f"{name:<24} {row['dtype']:<8} p={degree}  ours {t_ours:7.3f}s  "
        f"sklearn {t_sklearn:8.2f}s  floor {t_floor:7.3f}s  "
        f"sklearn/ours {row['sklearn/ours']:7.1f}x  ours/floor {row['ours/floor']:5.2f}  "
        f"extra memory {row['ours_extra_MiB']:6.1f} MiB (output {row['output_MiB']:.0f} MiB)",
        flush=True,
    )
    return row


def bench_threads(name, X, n_components, degree, repeats):
    """Transform time with ``n_jobs=1`` and ``n_jobs=2``, timed in turn."""
    fitted = {
        n_jobs: TensorSketch(n_components, degree=degree, random_state=0, n_jobs=n_jobs).fit(X)
        for n_jobs in (1, 2)
    }
    functions = {n_jobs: (lambda e=e: e.transform(X)) for n_jobs, e in fitted.items()}
    times = median_times(functions, repeats)
    t1, t2 = times[1], times[2]
    print(
        f"{name:<24} {X.dtype.name:<8} p={degree}  n_jobs=1 {t1:7.3f}s  n_jobs=2 {t2:7.3f}s  "
        f"n_jobs=2/1 speed-up {t1 / t2:5.2f}x",
        flush=True,
    )
    return {"case": name, "dtype": X.dtype.name, "degree": degree, "speedup": t1 / t2}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--quick", action="store_true", help="small subsets, a smoke run")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sklearn-repeats", type=int, default=1)
    parser.add_argument(
        "--no-sklearn", action="store_true", help="skip scikit-learn's (slow) transform"
    )
    args = parser.parse_args()
    sklearn_repeats = 0 if args.no_sklearn else args.sklearn_repeats
    data_home = args.data_home or default_data_home()

    n_mnist, n_news, n_components = (500, 100, 1024) if args.quick else (10000, 2000, 4096)
    repeats = 1 if args.quick else args.repeats

    X_mnist, _ = fetch_mnist(data_home, subset="test", return_X_y=True)
    X_mnist = X_mnist[:n_mnist]
    X_news, _ = fetch_20newsgroups_counts(data_home, subset="train", return_X_y=True)
    X_news = X_news[:n_news].astype(np.float64)
    if args.quick:
        # scikit-learn loops over features in Python: a minute on all 130107.
        X_news = X_news[:, :2000]

    print(f"n_components={n_components}, repeats={repeats}")
    rows = []
    for dtype in (np.float64, np.float32):
        for degree in (2, 3):
            rows.append(
                bench_case(
                    "MNIST t10k",
                    X_mnist.astype(dtype),
                    n_components,
                    degree,
                    repeats,
                    sklearn_repeats,
                )
            )
    rows.append(
        bench_case(
            "20 Newsgroups (sparse)", X_news, n_components, 2, repeats, sklearn_repeats
        )
    )
    ceiling = median_speedup()
    print(f"reference: two threads vs one on in-cache np.sin: {ceiling:.2f}x")
    for dtype in (np.float64, np.float32):
        for degree in (2, 3):
            row = bench_threads("MNIST t10k", X_mnist.astype(dtype), n_components, degree, repeats)
            row["of the ceiling"] = row["speedup"] / ceiling
            print(f"{'':<24} n_jobs=2/1 over the ceiling: {row['of the ceiling']:.2f}")
            rows.append(row)
    return rows


if __name__ == "__main__":
    main()
