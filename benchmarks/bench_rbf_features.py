"""OrthogonalRBFSampler (ORF, SORF, Fastfood) against scikit-learn's RBFSampler.

Two measurements, each in one run:

* kernel error ``||K_hat - K||_F / ||K||_F`` of the 1000 x 1000 Gram matrix
  at D = 2**9 .. 2**13 output features, mean over ``--seeds`` seeds, on
  the first 1000 MNIST t10k images (784 pixels in [0, 1]) and on 1000
  20 Newsgroups test documents (tf-idf of the term counts, rows of unit
  norm, hashed to ``--hash-width`` (default 1024) signed buckets by a fixed
  Count Sketch so that every method, RBFSampler included, sees the same
  columns); ``gamma`` by
  the median heuristic, ``1 / (2 median ||x - y||^2)``. The ratio column is
  the method's error over RBFSampler's at the same D;
* transform time on all 10000 MNIST t10k images in float32 at D = 4096
  (``--time-d``), medians over ``--repeats`` interleaved runs: each method,
  RBFSampler, and the floor of SORF, the cosines and sines of its
  ``n x D / 2`` projections alone (``np.cos`` and ``np.sin`` of a
  precomputed float32 array into the output). The ratios are medians of the
  per-repeat ratios. ``--blas-threads 1`` runs every BLAS call on one thread,
  as the floor's numpy ufuncs run (default: the BLAS library's own count);
* ``--scaling``: SORF at D = 4096 on ``--rows`` MNIST rows (training images
  after the t10k ones; default 10000 and 40000) against ``np.cos`` in place
  over an ``n x 4096`` float32 array, best of ``--repeats``, with
  ``n_jobs=1`` and ``n_jobs=2``, and the machine's two-thread ceiling
  (two threads vs one on an in-cache ``np.sin``, ``median_speedup`` of
  benchmarks/_bench.py).

Run::

    python benchmarks/bench_rbf_features.py [--data-home DIR] [--seeds 20]
        [--datasets mnist 20ng] [--hash-width 1024] [--skip-errors] [--skip-timing]
        [--blas-threads N] [--scaling] [--rows 10000 40000]
"""

import argparse

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.kernel_approximation import RBFSampler
from sklearn.metrics.pairwise import euclidean_distances, rbf_kernel
from threadpoolctl import threadpool_limits

# The script's folder; importing it puts this source tree first on sys.path.
from _bench import (
    best_time,
    default_data_home,
    median_speedup,
    print_table,
    repeat_times,
)

from sklearn_sketch import OrthogonalRBFSampler
from sklearn_sketch.datasets import fetch_20newsgroups_counts, fetch_mnist

METHODS = ["orf", "sorf", "fastfood"]


def median_gamma(X):
    """The median heuristic: ``1 / (2 median ||x - y||^2)`` over distinct pairs."""
    squared = euclidean_distances(X, squared=True)
    return 1.0 / (2.0 * np.median(squared[np.triu_indices(X.shape[0], 1)]))


def hashed_tfidf(data_home, n_rows, width, seed=0):
    """tf-idf rows of 20 Newsgroups test documents, Count-Sketched to ``width`` columns."""
    X_train, _ = fetch_20newsgroups_counts(data_home, subset="train", return_X_y=True)
    X_test, _ = fetch_20newsgroups_counts(data_home, subset="test", return_X_y=True)
    tfidf = TfidfTransformer().fit(X_train)
    X = tfidf.transform(X_test[:n_rows]).astype(np.float64)
    rng = np.random.RandomState(seed)
    buckets = rng.randint(0, width, size=X.shape[1])
    signs = rng.choice([-1.0, 1.0], size=X.shape[1])
    sketch = sp.csr_matrix((signs, (np.arange(X.shape[1]), buckets)), shape=(X.shape[1], width))
    return (X @ sketch).tocsr()


def make(method, n_components, gamma, seed):
    if method == "RBFSampler":
        return RBFSampler(n_components=n_components, gamma=gamma, random_state=seed)
    return OrthogonalRBFSampler(n_components, gamma=gamma, method=method, random_state=seed)


def kernel_errors(X, dims, seeds):
    """Mean relative Frobenius error of every method at every D."""
    gamma = median_gamma(X)
    K = rbf_kernel(X, gamma=gamma)
    norm = np.linalg.norm(K)
    errors = {}
    for d in dims:
        for method in ["RBFSampler", *METHODS]:
            values = []
            for seed in range(seeds):
                Z = make(method, d, gamma, seed).fit_transform(X)
                values.append(np.linalg.norm(Z @ Z.T - K) / norm)
            errors[method, d] = float(np.mean(values))
    return gamma, errors


def print_errors(name, gamma, errors, dims):
    print(f"\n{name}: gamma = {gamma:.4g} (median heuristic); mean relative error")
    print(f"{'D':>6} {'RBFSampler':>11} " + " ".join(f"{m:>16}" for m in METHODS))
    for d in dims:
        base = errors["RBFSampler", d]
        cells = " ".join(f"{errors[m, d]:.4f} ({errors[m, d] / base:.2f}x)" for m in METHODS)
        print(f"{d:>6} {base:>11.4f} {cells}")


def transform_times(X, n_components, repeats):
    """Transform seconds of each method and of SORF's floor, interleaved, per repeat."""
    gamma = median_gamma(X[:1000])
    fitted = {m: make(m, n_components, gamma, 0).fit(X) for m in ["RBFSampler", *METHODS]}
    projections = np.random.RandomState(0).rand(X.shape[0], n_components // 2)
    projections = projections.astype(np.float32)
    out = np.empty((X.shape[0], n_components), dtype=np.float32)

    def floor():
        np.cos(projections, out=out[:, : n_components // 2])
        np.sin(projections, out=out[:, n_components // 2 :])

    tasks = {m: (lambda e=e: e.transform(X)) for m, e in fitted.items()}
    tasks["floor (cos/sin only)"] = floor
    return repeat_times(tasks, repeats)


def sorf_scaling(data_home, rows, repeats, n_components=4096):
    """SORF's transform against ``np.cos`` in place, at each row count, 1 and 2 jobs."""
    X_test, _ = fetch_mnist(data_home, subset="test", return_X_y=True)
    X_train, _ = fetch_mnist(data_home, subset="train", return_X_y=True)
    X_all = np.vstack([X_test, X_train]).astype(np.float32)
    gamma = median_gamma(X_all[:1000])
    ceiling = median_speedup(measurements=3)
    print(f"\nSORF at D = {n_components}, float32 MNIST, best of {repeats}; "
          f"two threads vs one on in-cache np.sin: {ceiling:.2f}x")
    for n in rows:
        X = X_all[:n]
        angles = np.random.RandomState(0).rand(n, n_components).astype(np.float32)
        floor = best_time(lambda: np.cos(angles, out=angles), repeats)
        sorf = make("sorf", n_components, gamma, 0).fit(X[:1000])
        one = best_time(lambda: sorf.transform(X), repeats)
        two = best_time(lambda: sorf.set_params(n_jobs=2).transform(X), repeats)
        sorf.set_params(n_jobs=None)
        print(f"  {n:>6} rows: np.cos {floor:.3f} s, SORF {one:.3f} s ({one / floor:.2f}x), "
              f"n_jobs=2 {two:.3f} s ({one / two:.2f}x faster; "
              f"{one / two / ceiling:.2f} of the ceiling)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default=default_data_home())
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--dims", type=int, nargs="+", default=[2**k for k in range(9, 14)])
    parser.add_argument("--time-d", type=int, default=4096)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--datasets", nargs="+", default=["mnist", "20ng"],
                        choices=["mnist", "20ng"])
    parser.add_argument("--hash-width", type=int, default=1024)
    parser.add_argument("--skip-errors", action="store_true")
    parser.add_argument("--skip-timing", action="store_true")
    parser.add_argument("--blas-threads", type=int, default=None,
                        help="BLAS threads of the timing (default: the library's)")
    parser.add_argument("--scaling", action="store_true")
    parser.add_argument("--rows", type=int, nargs="+", default=[10000, 40000])
    args = parser.parse_args(argv)
    if args.scaling:
        sorf_scaling(args.data_home, args.rows, args.repeats)
        return

    X_mnist, _ = fetch_mnist(args.data_home, subset="test", return_X_y=True)
    if not args.skip_errors and "mnist" in args.datasets:
        X = X_mnist[:1000].astype(np.float64)
        print_errors("MNIST t10k[:1000], d = 784", *kernel_errors(X, args.dims, args.seeds),
                     args.dims)
    if not args.skip_errors and "20ng" in args.datasets:
        X = hashed_tfidf(args.data_home, 1000, args.hash_width)
        print_errors(f"20 Newsgroups tf-idf[:1000], hashed to d = {args.hash_width}",
                     *kernel_errors(X, args.dims, args.seeds), args.dims)
    if args.skip_timing:
        return

    with threadpool_limits(args.blas_threads):
        times = transform_times(X_mnist, args.time_d, args.repeats)
    threads = "the BLAS default" if args.blas_threads is None else args.blas_threads
    print(f"\nTransform of MNIST t10k (10000 x 784 float32) at D = {args.time_d}, "
          f"median of {args.repeats}, BLAS threads: {threads}:")
    medians = {name: float(np.median(seconds)) for name, seconds in times.items()}
    print_table("transform", medians)
    floor = times["floor (cos/sin only)"]
    print(f"  RBFSampler / SORF: {np.median(times['RBFSampler'] / times['sorf']):.2f}x; "
          f"SORF / floor: {np.median(times['sorf'] / floor):.2f}x; "
          f"Fastfood / floor: {np.median(times['fastfood'] / floor):.2f}x; "
          f"ORF speed / RBFSampler's: {np.median(times['RBFSampler'] / times['orf']):.2f}x "
          f"(medians of the per-repeat ratios)")


if __name__ == "__main__":
    main()
