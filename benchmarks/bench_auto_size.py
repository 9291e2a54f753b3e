"""``n_components="auto"``: the size chosen for ``eps``, its error, and what sizing costs.

For each estimator (a line per option) and data set of ``--rows`` rows
(default 10,000), and each ``eps`` of ``--eps`` (default 0.1 and 0.03):

* the size ``n_components_`` that ``fit`` chooses, and its predicted error
  ``expected_error_``, both the mean over the fits (seeds 0, 1, ...);
* the measured error, ``kernel_approximation_error`` of each fitted sketch
  on 1000 of the rows (``n_samples=1000``, the entries weighed as in the
  Gram matrix of all of them): its mean over the fits with its standard
  error, and its root mean square. ``--seeds`` fits at least, more (up to
  ``--most-seeds``) while the standard error exceeds ``--precision`` of the
  mean: where one fit's error is skewed (rare fits far above the others),
  the mean of a few fits misses the rare ones;
* the sizing's seconds, the best of ``--repeats`` interleaved runs of
  ``fit`` with ``n_components="auto"`` less the best of ``fit`` with
  ``n_components=n_components_`` (seed 0), against the seconds of that
  fit and of ``transform`` of all the rows, and their ratio.

Data: MNIST's first training digits (784 pixels in [0, 1]) and 20
Newsgroups' first training documents (word counts of about 130,000 terms);
the polynomial sketches take the rows scaled to unit norm, as do the RBF
features on 20 Newsgroups; the hashers take the pixels and counts as they
are. BLAS runs on ``--blas-threads`` threads (default 1), which also keeps
the timings of a loaded machine comparable.

Run::

    python benchmarks/bench_auto_size.py [--data-home DIR] [--datasets mnist 20ng]
        [--estimators NAME ...] [--eps 0.1 0.03] [--rows 10000] [--seeds 3]
        [--most-seeds 40] [--precision 0.05] [--repeats 3] [--blas-threads 1]
"""

import argparse
import functools

import numpy as np
import scipy.sparse as sp
from sklearn.preprocessing import normalize
from threadpoolctl import threadpool_limits

# The script's folder; importing it puts this source tree first on sys.path.
from _bench import best_times, default_data_home, print_rows

from sklearn_sketch import (
    ComplexToRealSketch,
    CoREHasher,
    MaclaurinSketch,
    MinMaxHasher,
    OrthogonalRBFSampler,
    PolynomialTreeSketch,
    TensorSketch,
    TensorSRHT,
)
from sklearn_sketch.datasets import fetch_20newsgroups_counts, fetch_mnist
from sklearn_sketch.metrics import kernel_approximation_error

P = functools.partial
# name: (factory, rows ("unit": scaled to unit norm), data sets)
ESTIMATORS = {
    "TensorSketch(degree=2, coef0=1)": (P(TensorSketch, degree=2, coef0=1.0), "unit",
                                        ("mnist", "20ng")),
    "TensorSRHT(degree=2, coef0=1)": (P(TensorSRHT, degree=2, coef0=1.0), "unit",
                                      ("mnist", "20ng")),
    "ComplexToRealSketch(degree=2, coef0=1)": (
        P(ComplexToRealSketch, degree=2, coef0=1.0), "unit", ("mnist", "20ng")),
    "ComplexToRealSketch(degree=3, rademacher)": (
        P(ComplexToRealSketch, degree=3, coef0=0.5, projection="rademacher"), "unit",
        ("mnist",)),
    "PolynomialTreeSketch(degree=4, coef0=1)": (
        P(PolynomialTreeSketch, degree=4, coef0=1.0), "unit", ("mnist", "20ng")),
    "PolynomialTreeSketch(degree=3, tensorsrht)": (
        P(PolynomialTreeSketch, degree=3, coef0=1.0, base="tensorsrht"), "unit", ("mnist",)),
    "MaclaurinSketch(degree=3, coef0=1)": (
        P(MaclaurinSketch, degree=3, coef0=1.0), "unit", ("mnist", "20ng")),
    "OrthogonalRBFSampler(orf)": (P(OrthogonalRBFSampler, method="orf"), "raw", ("mnist",)),
    "OrthogonalRBFSampler(sorf)": (P(OrthogonalRBFSampler, method="sorf"), "rbf",
                                   ("mnist", "20ng")),
    "OrthogonalRBFSampler(fastfood)": (P(OrthogonalRBFSampler, method="fastfood"), "raw",
                                       ("mnist",)),
    "CoREHasher(core1, fss)": (CoREHasher, "raw", ("mnist", "20ng")),
    "CoREHasher(core1, minwise)": (P(CoREHasher, hashing="minwise"), "raw",
                                   ("mnist", "20ng")),
    "CoREHasher(core2, oph)": (P(CoREHasher, kernel="core2", hashing="oph"), "raw",
                               ("mnist", "20ng")),
    "CoREHasher(resemblance, fss)": (P(CoREHasher, kernel="resemblance"), "raw",
                                     ("mnist", "20ng")),
    "MinMaxHasher(full)": (MinMaxHasher, "raw", ("mnist", "20ng")),
    "MinMaxHasher(0bit)": (P(MinMaxHasher, codes="0bit"), "raw", ("mnist", "20ng")),
}


def load(name, data_home, n_rows):
    """The first ``n_rows`` training rows of ``name`` ("mnist" or "20ng"), float64."""
    if name == "mnist":
        X, _ = fetch_mnist(data_home, return_X_y=True)
        return np.asarray(X[:n_rows], dtype=np.float64)
    X, _ = fetch_20newsgroups_counts(data_home, return_X_y=True)
    return sp.csr_matrix(X[:n_rows], dtype=np.float64)


def rows_for(X, rows, dataset):
    """The rows an estimator takes (see the module's docstring)."""
    if rows == "unit" or (rows == "rbf" and dataset == "20ng"):
        return normalize(X)
    return X


def errors(factory, X, eps, args):
    """Sizes, predicted and measured errors of fits with seeds 0, 1, ...: at least
    ``args.seeds``, more while the measured mean's standard error exceeds
    ``args.precision`` of it, at most ``args.most_seeds``."""
    sizes, predicted, measured = [], [], []
    for seed in range(args.most_seeds):
        estimator = factory(n_components="auto", eps=eps, random_state=seed).fit(X)
        sizes.append(estimator.n_components_)
        predicted.append(estimator.expected_error_)
        measured.append(kernel_approximation_error(estimator, X, n_samples=1000,
                                                   random_state=0))
        if len(measured) >= args.seeds and standard_error(measured) <= (
            args.precision * np.mean(measured)
        ):
            break
    return sizes, np.array(predicted), np.array(measured)


def standard_error(values):
    """The standard error of the mean of ``values``."""
    return np.std(values, ddof=1) / np.sqrt(len(values)) if len(values) > 1 else np.inf


def timings(factory, X, eps, n_components, repeats):
    """Best seconds of the sizing (auto fit less fixed fit), the fixed fit and transform."""
    fixed = factory(n_components=n_components, random_state=0).fit(X)
    functions = {
        "auto": lambda: factory(n_components="auto", eps=eps, random_state=0).fit(X),
        "fixed": lambda: factory(n_components=n_components, random_state=0).fit(X),
        "transform": lambda: fixed.transform(X),
    }
    best = best_times(functions, repeats)
    return best["auto"] - best["fixed"], best["fixed"] + best["transform"]


def warm_up(factory, X):
    """Compile and load the estimator's kernels on a few rows (not timed)."""
    small = X[:200]
    factory(n_components=16, random_state=0).fit(small).transform(small)
    factory(n_components="auto", eps=0.3, random_state=0).fit(small)


def row(name, dataset, factory, X, eps, args):
    """One line of the table, or the refusal of an eps no size reaches."""
    try:
        sizes, predicted, measured = errors(factory, X, eps, args)
    except ValueError as error:
        return [name, dataset, eps, "refused", "", "", "", "", "", "", str(error)[:60]]
    sizing, work = timings(factory, X, eps, sizes[0], args.repeats)
    return [
        name, dataset, eps, int(np.mean(sizes)), f"{predicted.mean():.4f}",
        f"{measured.mean():.4f} ± {standard_error(measured):.4f}", measured.size,
        f"{np.sqrt(np.mean(measured**2)):.4f}",
        f"{sizing:.3f}", f"{work:.3f}", f"{sizing / work:.2f}",
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default=default_data_home())
    parser.add_argument("--datasets", nargs="+", default=["mnist", "20ng"])
    parser.add_argument("--estimators", nargs="+", default=list(ESTIMATORS))
    parser.add_argument("--eps", nargs="+", type=float, default=[0.1, 0.03])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--most-seeds", type=int, default=40)
    parser.add_argument("--precision", type=float, default=0.05)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--blas-threads", type=int, default=1)
    args = parser.parse_args()
    data = {name: load(name, args.data_home, args.rows) for name in args.datasets}
    print(f"{args.rows} rows, {args.seeds} to {args.most_seeds} fits (the measured mean "
          f"within {args.precision:.0%}), best of {args.repeats} runs, "
          f"{args.blas_threads} BLAS thread(s)\n")
    headers = ["estimator", "data", "eps", "size", "predicted", "measured (mean ± se)",
               "fits", "measured (rms)", "sizing s", "fit+transform s", "ratio"]
    lines = []
    with threadpool_limits(args.blas_threads, user_api="blas"):
        for name in args.estimators:
            factory, rows, datasets = ESTIMATORS[name]
            for dataset in (d for d in datasets if d in data):
                X = rows_for(data[dataset], rows, dataset)
                warm_up(factory, X)
                for eps in args.eps:
                    lines.append(row(name, dataset, factory, X, eps, args))
                    print_rows(headers, lines[-1:], header=len(lines) == 1)
    print()
    print_rows(headers, lines)


if __name__ == "__main__":
    main()
