"""Which node sketches make the best degree-``p`` tree? A standalone model.

``PolynomialTreeSketch`` uses one base for every node. This script models
the tree of Ahle et al. (SODA 2020) directly in numpy (float64, numpy's
random generator, fully independent signs) to compare every pairing of a
level-1 ("leaf") node sketch with an upper ("inner") node sketch:

* ``cs``: Count Sketch with uniform random buckets, nodes combined by FFT
  convolution (TensorSketch nodes);
* ``perm``: Count Sketch with balanced buckets (a random permutation mod D,
  so keys never share a bucket when the input has at most D keys);
* ``srht``: subsampled randomized Hadamard transform blocks, nodes combined
  by the elementwise product / sqrt(D) (TensorSRHT nodes).

The degree is padded to a power of two with a unit vector ``e`` on an extra
coordinate. Setup of ``bench_polynomial_sketches.py``: unit-normalized MNIST
test images, ``(0.5 + 0.5 <x, y>)^p``, error ``||K_hat - K||_F / ||K||_F``
(mean over seeds), with TensorSketch (the estimator) as the reference.

Run::

    python benchmarks/tree_combinations.py [--degree 7] [--D 2048] [--images 1000] [--seeds 4]
"""

import argparse

import numpy as np
import scipy.sparse as sp

# The script's folder; importing it puts this source tree first on sys.path.
from _bench import default_data_home

from sklearn_sketch import TensorSketch
from sklearn_sketch.datasets import fetch_mnist

COMBINATIONS = [
    ("cs", "cs"), ("perm", "perm"), ("srht", "srht"),
    ("srht", "perm"), ("perm", "srht"), ("cs", "srht"), ("srht", "cs"),
]


def next_power_of_two(n):
    """The smallest power of two >= ``n`` (1 for ``n <= 1``)."""
    return 1 << max(int(n) - 1, 0).bit_length()


def fwht(U):
    """``U @ H`` along the last axis, ``H`` the Sylvester-ordered +-1 Hadamard matrix.

    The butterflies ``(a + b, a - b)`` of spans 1, 2, ..., d / 2, each level
    one vectorized pass over all rows.
    """
    d = U.shape[-1]
    U = np.array(U, dtype=np.float64)
    half = 1
    while half < d:
        pairs = U.reshape(*U.shape[:-1], d // (2 * half), 2, half)
        a, b = pairs[..., 0, :].copy(), pairs[..., 1, :]
        pairs[..., 0, :] += b
        a -= b
        pairs[..., 1, :] = a
        half *= 2
    return U


def degree_one_sketch(kind, U, D, rng):
    """The degree-1 sketch of the rows U (n, width) into D coordinates."""
    width = U.shape[1]
    if kind in ("cs", "perm"):
        if kind == "cs":
            buckets = rng.randint(D, size=width)
        else:
            buckets = rng.permutation(max(D, width))[:width] % D
        signs = rng.choice([-1.0, 1.0], size=width)
        # One sparse (width, D) matrix product: no loop over rows or keys.
        C = sp.csr_matrix((signs, buckets, np.arange(width + 1)), shape=(width, D))
        return np.asarray((C.T @ U.T).T)
    d = next_power_of_two(width)
    n_blocks = -(-D // d)
    padded = np.zeros((U.shape[0], d))
    padded[:, :width] = U
    blocks = fwht(padded[:, None, :] * rng.choice([-1.0, 1.0], size=(n_blocks, d)))
    coordinates = (np.argsort(rng.rand(n_blocks, d), axis=1) + d * np.arange(n_blocks)[:, None])
    return blocks.reshape(U.shape[0], -1)[:, coordinates.ravel()[:D]]


def combine(kind, a, b, D):
    if kind in ("cs", "perm"):
        return np.fft.irfft(np.fft.rfft(a, axis=1) * np.fft.rfft(b, axis=1), n=D, axis=1)
    return a * b / np.sqrt(D)


def tree_features(X_aug, e, D, degree, leaf, inner, rng):
    q = next_power_of_two(degree)
    leaves = [X_aug] * degree + [e] * (q - degree)
    nodes = [
        combine(leaf, *(degree_one_sketch(leaf, leaves[2 * k + i], D, rng) for i in (0, 1)), D)
        for k in range(q // 2)
    ]
    while len(nodes) > 1:
        nodes = [
            combine(inner, *(degree_one_sketch(inner, nodes[2 * k + i], D, rng) for i in (0, 1)), D)
            for k in range(len(nodes) // 2)
        ]
    return np.broadcast_to(nodes[0], (X_aug.shape[0], D))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--degree", type=int, default=7)
    parser.add_argument("--D", type=int, default=2048)
    parser.add_argument("--images", type=int, default=1000)
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--data-home", default=None)
    args = parser.parse_args(argv)
    data_home = args.data_home or default_data_home()
    X, _ = fetch_mnist(data_home, subset="test", return_X_y=True)
    X = X[: args.images].astype(np.float64)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    n = X.shape[0]
    # x' = [sqrt(0.5) x, sqrt(0.5), 0]; the last coordinate is that of e.
    X_aug = np.hstack([np.sqrt(0.5) * X, np.full((n, 1), np.sqrt(0.5)), np.zeros((n, 1))])
    e = np.zeros((1, X_aug.shape[1]))
    e[0, -1] = 1.0
    K = (X_aug @ X_aug.T) ** args.degree
    norm_K = np.linalg.norm(K)

    def error(Z):
        return np.linalg.norm(Z @ Z.T - K) / norm_K

    reference = np.mean([
        error(TensorSketch(args.D, degree=args.degree, gamma=0.5, coef0=0.5, random_state=s)
              .fit_transform(X))
        for s in range(args.seeds)
    ])
    print(f"p={args.degree} D={args.D} {n} images, {args.seeds} seeds; "
          f"TensorSketch error {reference:.4f}")
    print("| leaf nodes | inner nodes | error (mean ± s.e.) | error / TS |")
    print("| --- | --- | ---: | ---: |")
    for leaf, inner in COMBINATIONS:
        errors = [
            error(tree_features(X_aug, e, args.D, args.degree, leaf, inner, np.random.RandomState(s)))
            for s in range(args.seeds)
        ]
        sem = np.std(errors, ddof=1) / np.sqrt(args.seeds)
        print(f"| {leaf} | {inner} | {np.mean(errors):.4f} ± {sem:.4f} | "
              f"{np.mean(errors) / reference:.2f} |", flush=True)


if __name__ == "__main__":
    main()
