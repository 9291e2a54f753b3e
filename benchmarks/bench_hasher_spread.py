"""The spread of one fit's error: CoREHasher at a fixed size over random states.

For each ``--kernels`` entry, ``--fits`` fits of ``CoREHasher(n_components,
kernel=..., hashing=...)`` (random states 0, 1, ...) on the first ``--rows``
training rows of 20 Newsgroups (word counts), and the error of each,
``kernel_approximation_error`` on 1,000 of the rows: their values, mean and
range. It shows where one fit's error is heavy-tailed (the type 2 CoRE
kernel with one permutation hashing, once the hashes far outnumber a
document's words), which ``n_components="auto"`` cannot size reliably.

Run::

    python benchmarks/bench_hasher_spread.py [--data-home DIR] [--n-components 7330]
        [--hashing oph] [--kernels core2 resemblance core1] [--fits 12] [--rows 10000]
"""

import argparse

import numpy as np
import scipy.sparse as sp

from _bench import default_data_home

from sklearn_sketch import CoREHasher
from sklearn_sketch.datasets import fetch_20newsgroups_counts
from sklearn_sketch.metrics import kernel_approximation_error


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default=default_data_home())
    parser.add_argument("--n-components", type=int, default=7330)
    parser.add_argument("--hashing", default="oph")
    parser.add_argument("--kernels", nargs="+", default=["core2", "resemblance", "core1"])
    parser.add_argument("--fits", type=int, default=12)
    parser.add_argument("--rows", type=int, default=10_000)
    args = parser.parse_args()
    X, _ = fetch_20newsgroups_counts(args.data_home, return_X_y=True)
    X = sp.csr_matrix(X[: args.rows], dtype=np.float64)
    print(f"20 Newsgroups, {X.shape[0]} rows, n_components={args.n_components}, "
          f"hashing={args.hashing!r}, {args.fits} fits, error on 1000 rows")
    for kernel in args.kernels:
        errors = np.array([
            kernel_approximation_error(
                CoREHasher(args.n_components, kernel=kernel, hashing=args.hashing,
                           random_state=seed).fit(X),
                X, n_samples=1000, random_state=0)
            for seed in range(args.fits)
        ])
        print(f"{kernel:12s} mean {errors.mean():.3f}  range {errors.min():.3f} to "
              f"{errors.max():.3f}  fits {np.round(errors, 3).tolist()}", flush=True)


if __name__ == "__main__":
    main()
