"""Error, accuracy and cost of every estimator of a kernel, on real data.

The measurements behind the user guide's "Choosing a sketch" page: each
estimator of a kernel at several ``n_components`` (``--seeds`` seeds), with
``gram_error`` (``||Z Z^T - K||_F / ||K||_F`` on the first 1000 test rows),
``accuracy`` (test accuracy of ``LinearSVC(C=1)`` on the features) and the
costs ``fit_transform_s`` (fit, transform of the training rows),
``svc_fit_s`` (the LinearSVC fit) and ``predict_s`` (transform and predict of
the test rows); anchors: the exact ``SVC(C=1)`` (a precomputed kernel's
computation counted in its ``svc_fit_s`` and ``predict_s``) and
``LinearSVC(C=1)`` on the input. ``--family``:

* ``polynomial``: MNIST rows of unit norm, (<x, y> + c)^p, p = 2, 3, c = 0, 1:
  the five polynomial sketches, scikit-learn's PolynomialCountSketch; ``rbf``:
  MNIST pixels, gamma = 1 / (784 Var X): OrthogonalRBFSampler, RBFSampler, Nystroem;
* ``hashing``: 20 Newsgroups counts, sector tf-idf: MinMaxHasher (codes
  "full", "0bit"), CoREHasher (core1, core2, resemblance), the exact kernels
  of ``sklearn_sketch.metrics`` precomputed for the SVC;
* ``kernel_jl``: NMI of KMeans(10) on KernelJL and Nystroem features and on
  the input (MNIST, pendigits); fit and transform time of KernelJL against
  Nystroem at n = 1000..8000; alignment of the top 5 principal components of
  the features with exact kernel PCA's (3000 MNIST test rows).

Times: ``time.process_time()`` under ``threadpool_limits(1)``, ``n_jobs=None``,
CPU seconds of one thread, which other processes' load barely changes. Writes
``choosing_<family>.csv`` and ``.txt`` (command, machine, versions, date) to
``--output-dir``. Run::

    python benchmarks/bench_choosing.py [--family polynomial rbf hashing kernel_jl] [--seeds 1]
        [--train 20000] [--test 10000] [--sizes 512 1024 2048 4096] [--output-dir DIR]
"""

import argparse
import csv
import shlex
import sys
import time
import warnings
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.cluster import KMeans
from sklearn.decomposition import PCA, KernelPCA
from sklearn.exceptions import ConvergenceWarning
from sklearn.kernel_approximation import Nystroem, PolynomialCountSketch, RBFSampler
from sklearn.metrics import normalized_mutual_info_score as nmi
from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel
from sklearn.preprocessing import normalize
from sklearn.svm import SVC, LinearSVC
from threadpoolctl import threadpool_limits

# The script's folder; importing it puts this source tree first on sys.path.
from _bench import ROOT, default_data_home, environment

import sklearn_sketch as sks
from sklearn_sketch import datasets, metrics

COLUMNS = ["dataset", "kernel", "estimator", "n_components", "seed", "n_train", "n_test",
           "gram_error", "accuracy", "fit_transform_s", "svc_fit_s", "predict_s"]
JL_COLUMNS = ["experiment", "dataset", "estimator", "n_subsample", "n_components", "seed",
              "nmi_fit", "nmi_held_out", "mean_cosine", "fit_s", "transform_s", "kmeans_s"]
N_GRAM = 1000  # held-out rows of the Gram matrix compared
clock = time.process_time


def timed(function, *args):
    start = clock()
    return function(*args), clock() - start


def gram_error(Z, K):
    Z = Z.astype(np.float64)
    K_hat = Z @ Z.T
    K_hat = K_hat.toarray() if sp.issparse(K_hat) else K_hat
    return np.linalg.norm(K_hat - K) / np.linalg.norm(K)


def linear_svc(Z, y):
    with warnings.catch_warnings():  # a cell that stops at max_iter is still measured
        warnings.simplefilter("ignore", ConvergenceWarning)
        return LinearSVC(C=1.0, random_state=0).fit(Z, y)


def sketch_row(make, data, K_gram):
    """One estimator at one size: its error, accuracy and costs."""
    X, y, X_test, y_test = data
    estimator = make()
    Z, t_fit = timed(lambda: estimator.fit(X).transform(X))
    model, t_svc = timed(linear_svc, Z, y)
    predicted, t_predict = timed(lambda: model.predict(estimator.transform(X_test)))
    error = gram_error(estimator.transform(X_test[:N_GRAM]), K_gram)
    return dict(gram_error=error, accuracy=np.mean(predicted == y_test),
                fit_transform_s=t_fit, svc_fit_s=t_svc, predict_s=t_predict)


def exact_row(data, kernel, params, n_exact):
    """The exact kernel SVC on the first n_exact training rows (precomputed if
    ``kernel`` is a function)."""
    X, y, X_test, y_test = data
    X, y = X[:n_exact], y[:n_exact]
    if callable(kernel):
        K, t_kernel = timed(kernel, X)
        model, t_fit = timed(SVC(kernel="precomputed", C=1.0).fit, K, y)
        del K
        predicted, t_predict = timed(lambda: model.predict(kernel(X_test, X)))
        t_fit += t_kernel
    else:
        model, t_fit = timed(SVC(kernel=kernel, C=1.0, cache_size=2000, **params).fit, X, y)
        predicted, t_predict = timed(model.predict, X_test)
    return dict(estimator="exact SVC", n_train=len(y), accuracy=np.mean(predicted == y_test),
                gram_error=0.0, svc_fit_s=t_fit, predict_s=t_predict)


def run_family(writer, dataset, kernels, data, sizes, seeds, n_exact, linear_data=None):
    """kernels: name -> (exact kernel of two arrays; the SVC's kernel and its
    parameters, or None to give it the exact kernel precomputed; {estimator
    name: maker of (n_components, seed)}). The linear anchor sees
    ``linear_data`` (default: ``data``)."""
    X, y, X_test, y_test = data
    base = dict(dataset=dataset, n_train=len(y), n_test=len(y_test))
    X_linear, _, X_linear_test, _ = linear_data or data
    model, t_svc = timed(linear_svc, X_linear, y)
    predicted, t_predict = timed(model.predict, X_linear_test)
    writer(dict(base, kernel="linear", estimator="LinearSVC on the input", svc_fit_s=t_svc,
                accuracy=np.mean(predicted == y_test), predict_s=t_predict))
    for kernel_name, (kernel, svc, makers) in kernels.items():
        row = dict(base, kernel=kernel_name)
        svc_kernel, svc_params = svc or (kernel, {})
        writer(dict(row, **exact_row(data, svc_kernel, svc_params, n_exact)))
        K_gram = kernel(X_test[:N_GRAM], X_test[:N_GRAM])
        for name, make in makers.items():
            make(sizes[0], 0).fit(X[:sizes[0]]).transform(X_test[:10])  # compiled at first use
            for n in sizes:
                for seed in seeds:
                    cells = sketch_row(lambda: make(n, seed), data, K_gram)
                    writer(dict(row, estimator=name, n_components=n, seed=seed, **cells))


def mnist(data_home, n_train, n_test):
    X, y = datasets.fetch_mnist(data_home, subset="train", return_X_y=True)
    X_test, y_test = datasets.fetch_mnist(data_home, subset="test", return_X_y=True)
    return X[:n_train], y[:n_train], X_test[:n_test], y_test[:n_test]


def polynomial(writer, args):
    X, y, X_test, y_test = mnist(args.data_home, args.train, args.test)
    data = (normalize(X), y, normalize(X_test), y_test)
    sketches = {
        "TensorSketch": sks.TensorSketch, "TensorSRHT": sks.TensorSRHT,
        "ComplexToRealSketch": sks.ComplexToRealSketch,
        "PolynomialTreeSketch": sks.PolynomialTreeSketch,
        "MaclaurinSketch": sks.MaclaurinSketch, "PolynomialCountSketch": PolynomialCountSketch,
    }
    kernels = {}
    for degree in (2, 3):
        for coef0 in (0.0, 1.0):
            p = dict(degree=degree, gamma=1.0, coef0=coef0)
            kernels[f"polynomial p={degree} c={coef0:g}"] = (
                lambda A, B, p=p: polynomial_kernel(A, B, **p), ("poly", p),
                {name: lambda n, s, c=cls, p=p: c(n_components=n, random_state=s, **p)
                 for name, cls in sketches.items()})
    run_family(writer, "MNIST", kernels, data, args.sizes, args.seeds, args.train)


def rbf(writer, args):
    data = mnist(args.data_home, args.train, args.test)
    gamma = float(1.0 / (data[0].shape[1] * data[0].var()))
    makers = {f"OrthogonalRBFSampler({m})": (lambda n, s, m=m: sks.OrthogonalRBFSampler(
        n_components=n, gamma=gamma, method=m, random_state=s))
        for m in ("orf", "sorf", "fastfood")}
    makers["RBFSampler"] = lambda n, s: RBFSampler(n_components=n, gamma=gamma, random_state=s)
    makers["Nystroem"] = lambda n, s: Nystroem(n_components=n, gamma=gamma, random_state=s)
    kernels = {f"rbf gamma={gamma:.4g}": (lambda A, B: rbf_kernel(A, B, gamma=gamma),
                                          ("rbf", dict(gamma=gamma)), makers)}
    run_family(writer, "MNIST", kernels, data, args.sizes, args.seeds, args.train)


def hashing(writer, args):
    loads = {
        "20 Newsgroups counts": lambda s: datasets.fetch_20newsgroups_counts(
            args.data_home, subset=s, return_X_y=True),
        "sector tf-idf": lambda s: datasets.fetch_sector(
            args.data_home, subset=s, values="tfidf", return_X_y=True),
    }
    mh, ch = sks.MinMaxHasher, sks.CoREHasher
    kernels = {
        "min-max": (metrics.min_max_kernel, None, {
            'MinMaxHasher(codes="full")': lambda n, s: mh(n_components=n, random_state=s),
            'MinMaxHasher(codes="0bit")': lambda n, s: mh(n_components=n, codes="0bit",
                                                          random_state=s)}),
        **{name: (kernel, None, {f'CoREHasher(kernel="{name}")': (
            lambda n, s, k=name: ch(n_components=n, kernel=k, random_state=s))})
           for name, kernel in (
               ("core1", lambda A, B=None: metrics.core_kernel(A, B, kind=1)),
               ("core2", lambda A, B=None: metrics.core_kernel(A, B, kind=2)),
               ("resemblance", metrics.resemblance_kernel))},
    }
    for dataset in args.hash_data:
        X, y = loads[dataset]("train")
        X_test, y_test = loads[dataset]("test")
        X, X_test = X.astype(np.float64), X_test.astype(np.float64)
        # The linear anchor sees rows of unit norm (as CoRE does); the sketches the input.
        run_family(writer, dataset, kernels, (X, y, X_test, y_test), args.hash_sizes,
                   args.seeds, len(y), (normalize(X), y, normalize(X_test), y_test))


def jl_makers(gamma):
    """name -> (sizes n, maker of (n, seed)): KernelJL's 100 features from n rows,
    Nystroem's n features, RBFSampler's 100."""
    return {
        "KernelJL": ([300, 1000], lambda n, s: sks.KernelJL(
            100, n_subsample=n, gamma=gamma, random_state=s)),
        "Nystroem": ([100, 300, 1000], lambda n, s: Nystroem(
            n_components=n, gamma=gamma, random_state=s)),
        "RBFSampler": ([100], lambda n, s: RBFSampler(
            n_components=n, gamma=gamma, random_state=s)),
    }


def kernel_jl(writer, args):
    mn = mnist(args.data_home, args.train, args.test)
    pen = [a / np.float32(100) if a.ndim == 2 else a for s in ("train", "test")
           for a in datasets.fetch_pendigits(args.data_home, subset=s, return_X_y=True)]
    for dataset, (X, y, X_test, y_test) in (("MNIST", mn), ("pendigits", pen)):
        makers = {"KMeans on the input": ([None], lambda n, s: None),
                  **jl_makers(float(1.0 / (X.shape[1] * X.var())))}
        for name, (sizes, make) in makers.items():
            for n, seed in ((n, seed) for n in sizes for seed in range(3)):
                estimator = make(n, seed)
                (Z, Z_test), t_fit = timed(lambda: (X, X_test) if estimator is None else (
                    estimator.fit(X).transform(X), estimator.transform(X_test)))
                kmeans, t_kmeans = timed(KMeans(10, n_init=3, random_state=seed).fit, Z)
                writer(dict(experiment="clustering", dataset=dataset, estimator=name,
                            n_subsample=n, n_components=Z.shape[1], seed=seed,
                            nmi_fit=nmi(y, kmeans.labels_), kmeans_s=t_kmeans,
                            nmi_held_out=nmi(y_test, kmeans.predict(Z_test)), fit_s=t_fit))
    X, X_test = mn[0], mn[2]
    gamma = float(1.0 / (X.shape[1] * X.var()))
    for n in args.jl_sizes:
        for name, est in (("KernelJL", sks.KernelJL(n_subsample=n, gamma=gamma, random_state=0)),
                          ("Nystroem", Nystroem(n_components=n, gamma=gamma, random_state=0))):
            _, t_fit = timed(est.fit, X)
            Z, t_transform = timed(est.transform, X_test)
            writer(dict(experiment="fit cost", dataset="MNIST", estimator=name, n_subsample=n,
                        n_components=Z.shape[1], seed=0, fit_s=t_fit, transform_s=t_transform))
    A = X_test[:3000].astype(np.float64)
    exact = KernelPCA(5, kernel="rbf", gamma=gamma, random_state=0).fit_transform(A)
    q_exact = np.linalg.qr(exact - exact.mean(axis=0))[0]
    for name, (sizes, make) in jl_makers(gamma).items():
        for n, seed in ((n, seed) for n in sizes for seed in range(3)):
            features, t_fit = timed(make(n, seed).fit_transform, A)
            scores, t_pca = timed(PCA(5, random_state=0).fit_transform, features)
            q = np.linalg.qr(scores - scores.mean(axis=0))[0]
            cosines = np.linalg.svd(q_exact.T @ q, compute_uv=False)
            writer(dict(experiment="kernel PCA", dataset="MNIST test[:3000]", estimator=name,
                        n_subsample=n, n_components=features.shape[1], seed=seed,
                        mean_cosine=cosines.mean(), fit_s=t_fit + t_pca))


FAMILIES = {"polynomial": polynomial, "rbf": rbf, "hashing": hashing, "kernel_jl": kernel_jl}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", nargs="+", choices=list(FAMILIES), default=list(FAMILIES))
    parser.add_argument("--data-home", default=default_data_home())
    parser.add_argument("--output-dir", default=str(ROOT / "benchmarks" / "results"))
    parser.add_argument("--train", type=int, default=20000, help="MNIST training rows")
    parser.add_argument("--test", type=int, default=10000, help="MNIST test rows")
    parser.add_argument("--sizes", type=int, nargs="+", default=[512, 1024, 2048, 4096])
    parser.add_argument("--hash-sizes", type=int, nargs="+", default=[128, 256, 512, 1024])
    parser.add_argument("--hash-data", nargs="+", default=["20 Newsgroups counts", "sector tf-idf"])
    parser.add_argument("--jl-sizes", type=int, nargs="+", default=[1000, 2000, 4000, 8000])
    parser.add_argument("--seeds", type=int, default=1)
    args = parser.parse_args(argv)
    args.seeds = list(range(args.seeds))
    out = Path(args.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    for family in args.family:
        path, start = out / f"choosing_{family}.csv", time.perf_counter()
        columns = JL_COLUMNS if family == "kernel_jl" else COLUMNS
        with open(path, "w", newline="") as f, threadpool_limits(1):
            table = csv.DictWriter(f, columns)
            table.writeheader()

            def writer(row):
                row = {k: f"{v:.6g}" if isinstance(v, float) else v for k, v in row.items()}
                table.writerow(row)
                f.flush()
                print(family, row, flush=True)

            cpu_start = clock()
            FAMILIES[family](writer, args)
        (out / f"choosing_{family}.txt").write_text(
            f"command: python benchmarks/bench_choosing.py {shlex.join(sys.argv[1:])}\n"
            f"date: {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC\n{environment()}"
            "times: CPU seconds of one thread (time.process_time under "
            "threadpoolctl.threadpool_limits(1), n_jobs=None)\n"
            f"run: {clock() - cpu_start:.0f} CPU s, {time.perf_counter() - start:.0f} wall s\n")

if __name__ == "__main__":
    main()
