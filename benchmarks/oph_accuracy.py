"""How well one-permutation hashing estimates the resemblance, against its theory.

``CoREHasher(kernel="resemblance", hashing="oph", b_bits=None)`` on pairs of
rows taken as sets of columns, with Jaccard similarity ``0.05 < J < 0.95``:
``--pairs`` random pairs of sector training documents (the columns of their
term counts) and of MNIST training images (the pixels above one half). The
estimate of a pair is the fraction of its ``k`` codes that are equal; over
``--seeds`` fits (``random_state = 0, 1, ...``, all rows transformed at once
per fit) the table gives its root mean squared error against the exact J
(with the standard error of that RMSE over the seeds) and its bias, beside

* the RMSE that OPH with optimal densification should give with a fully
  random hash and fully random probe sequences
  (``densified_oph_variance`` of ``tests/_minwise_helpers.py``, averaged
  over the pairs);
* the RMSE of ``k`` independent minwise hashes, ``sqrt(J (1 - J) / k)``.

Usage::

    python benchmarks/oph_accuracy.py [--data-home DIR] [--seeds 200] [--pairs 300]
"""

import argparse
import sys

import numpy as np
import scipy.sparse as sp

# The script's folder; importing it puts this source tree first on sys.path.
import _bench

from sklearn_sketch import CoREHasher
from sklearn_sketch.datasets import fetch_mnist, fetch_sector

# The formula, from the tests' helpers.
sys.path.insert(0, str(_bench.ROOT / "tests"))
from _minwise_helpers import densified_oph_variance  # noqa: E402


def random_pairs(X, n_pairs, seed=0):
    """Rows of random pairs of rows of ``X`` (as sets) with ``0.05 < J < 0.95``.

    Returns the CSR matrix of the pairs' rows (row ``2 i`` and ``2 i + 1``
    form pair ``i``), and each pair's intersection and union sizes.
    """
    X = sp.csr_matrix(X)
    X.eliminate_zeros()
    rng = np.random.default_rng(seed)
    rows, sizes = [], []
    while len(sizes) < n_pairs:
        i, j = rng.integers(0, X.shape[0], 2)
        u, v = (X.indices[X.indptr[r] : X.indptr[r + 1]] for r in (i, j))
        common, union = np.intersect1d(u, v).size, np.union1d(u, v).size
        if i != j and union and 0.05 < common / union < 0.95:
            rows += [i, j]
            sizes.append((common, union))
    pairs = X[rows]
    pairs.data[:] = 1.0
    return pairs, np.array(sizes)


def accuracy(X, sizes, k, seeds):
    """RMSE (and its standard error over seeds) and bias of the estimates."""
    J = sizes[:, 0] / sizes[:, 1]
    errors = np.empty((seeds, J.size))
    for seed in range(seeds):
        hasher = CoREHasher(k, kernel="resemblance", hashing="oph", b_bits=None,
                            random_state=seed)
        codes = hasher.fit_transform(X).indices.reshape(X.shape[0], k)
        errors[seed] = np.mean(codes[0::2] == codes[1::2], axis=1) - J
    mse = np.mean(errors**2, axis=1)
    rmse = np.sqrt(mse.mean())
    return rmse, mse.std(ddof=1) / np.sqrt(seeds) / (2 * rmse), errors.mean()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--pairs", type=int, default=300)
    parser.add_argument("--k", type=int, nargs="+", default=[128, 256, 1024])
    args = parser.parse_args()
    sector = fetch_sector(args.data_home, subset="train", values="counts").data
    mnist = fetch_mnist(args.data_home).data
    data = {
        "sector terms": sector,
        "MNIST pixels > 0.5": sp.csr_matrix(mnist > 0.5, dtype=np.float64),
    }
    print(f"{args.pairs} pairs per data set, {args.seeds} seeds")
    header = ("data", "k", "RMSE", "bias", "theory", "MinHash")
    print("{:20s} {:>5s} {:>17s} {:>9s} {:>7s} {:>8s}".format(*header))
    for name, rows in data.items():
        X, sizes = random_pairs(rows, args.pairs)
        J = sizes[:, 0] / sizes[:, 1]
        for k in args.k:
            rmse, se, bias = accuracy(X, sizes, k, args.seeds)
            variances = [densified_oph_variance(a, f, k) for a, f in sizes]
            theory = np.sqrt(np.mean(variances))
            minhash = np.sqrt(np.mean(J * (1 - J) / k))
            print(f"{name:20s} {k:5d} {rmse:.4f} +- {se:.4f} {bias:+.5f} "
                  f"{theory:7.4f} {minhash:8.4f}")


if __name__ == "__main__":
    main()
