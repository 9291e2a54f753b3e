"""What MinMaxHasher's two codes estimate: full DartMinHash samples against their 0-bit codes.

For pairs of rows of several kinds, the exact min-max kernel beside the mean
fraction of agreeing codes over ``--seeds`` fits at ``k = --k`` hashes, for
the full samples (the darts, ``codes="full"``, ``b_bits=32``: two
different samples share a code with probability about ``2**-31``) and for
the darts' coordinates alone (``codes="0bit"``, ``b_bits=None``: exact).
The standard error of a mean is at most ``0.5 / sqrt(k * seeds)``. Real
rows: 15 sector tf-idf documents (every fifth of the first 75 of the
training set), the mean and largest absolute error over their 105 pairs.

Usage::

    python benchmarks/min_max_codes_bias.py [--data-home DIR] [--k 1024] [--seeds 20]
"""

import argparse

import numpy as np

# The script's folder; importing it puts this source tree first on sys.path.
import _bench  # noqa: F401

from sklearn_sketch import MinMaxHasher
from sklearn_sketch.datasets import fetch_sector
from sklearn_sketch.metrics import min_max_kernel

CODES = {"0-bit": dict(codes="0bit", b_bits=None), "full": dict(codes="full", b_bits=32)}


def pairs():
    """Named pairs of nonnegative rows (one width: padded with zeros)."""
    rng = np.random.RandomState(0)
    x = rng.lognormal(0, 1, 30)
    short = [rng.rand(10) for _ in range(2)]
    mask = rng.rand(2000) < 0.02
    long_x = rng.lognormal(0, 1, 2000) * mask
    long_y = np.where(rng.rand(2000) < 0.5, long_x, rng.lognormal(0, 1, 2000) * mask)
    return {
        "x and 1.5 x (30 entries)": (x, 1.5 * x),
        "x and 2.5 x (30 entries)": (x, 2.5 * x),
        "x and 10 x (30 entries)": (x, 10 * x),
        "[1, 0] and [5, 0]": ([1.0, 0.0], [5.0, 0.0]),
        "short dense rows (10 entries)": tuple(short),
        "long sparse rows (2000 features, 2%)": (long_x, long_y),
    }


def agreement(X, k, seeds, params):
    """Mean over seeds of the fraction of hashes whose codes agree, all pairs."""
    total = np.zeros((X.shape[0], X.shape[0]))
    for seed in range(seeds):
        codes = MinMaxHasher(k, random_state=seed, **params).fit_transform(X).indices
        codes = codes.reshape(X.shape[0], k)
        total += (codes[:, None, :] == codes[None, :, :]).mean(axis=2)
    return total / seeds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--k", type=int, default=1024)
    parser.add_argument("--seeds", type=int, default=20)
    args = parser.parse_args()
    print(f"k = {args.k}, mean over {args.seeds} seeds "
          f"(standard error <= {0.5 / np.sqrt(args.k * args.seeds):.4f})\n")
    print(f"| {'pair':38s} | exact | 0-bit | full |")
    print(f"|{'-' * 40}|-------|-------|------|")
    for name, (x, y) in pairs().items():
        X = np.zeros((2, max(len(x), len(y))))
        X[0, : len(x)], X[1, : len(y)] = x, y
        exact = min_max_kernel(X)[0, 1]
        estimates = [agreement(X, args.k, args.seeds, p)[0, 1] for p in CODES.values()]
        print(f"| {name:38s} | {exact:.3f} | {estimates[0]:.3f} | {estimates[1]:.3f} |")
    X, _ = fetch_sector(args.data_home, subset="train", values="tfidf", return_X_y=True)
    X = X[:75:5]
    K = min_max_kernel(X)
    off = ~np.eye(X.shape[0], dtype=bool)
    errors = [np.abs(agreement(X, args.k, args.seeds, p) - K)[off] for p in CODES.values()]
    print(f"\nsector tf-idf, {X.shape[0]} rows, {off.sum() // 2} pairs (exact kernel "
          f"{K[off].mean():.3f} on average): |estimate - exact| mean / largest")
    for name, error in zip(CODES, errors):
        print(f"  {name:6s} {error.mean():.4f} / {error.max():.4f}")


if __name__ == "__main__":
    main()
