"""Expected kernel error of the SRHT sketches from their closed-form variances.

Same setup as ``bench_polynomial_sketches.py`` (unit-normalized MNIST test
images, ``((1 - 2/a^2) + (2/a^2) <x, y>)^p`` with ``a = 2``). For
``TensorSRHT``, ``ComplexToRealSketch`` ("srht" and "rademacher") the
variance of every kernel entry is known exactly (derived and checked against
the estimators in ``tests/test_polynomial_common.py``), so the root mean
square of ``||K_hat - K||_F / ||K||_F`` over random states,
``sqrt(sum_ij Var_ij) / ||K||_F``, needs no sampling. Comparing it with the
measured errors separates a property of the method on this data from noise
of the measurement or a defect of the implementation.

Run::

    python benchmarks/polynomial_closed_forms.py [--images 1000] [--data-home DIR]
"""

import argparse

import numpy as np

# The script's folder; importing it puts this source tree first on sys.path.
from _bench import default_data_home

from sklearn_sketch.datasets import fetch_mnist

A = 2.0
GAMMA, COEF0 = 2 / A**2, 1 - 2 / A**2


def within_block_pairs(n_features, block_size):
    """Ordered pairs of distinct features sharing a block of ``block_size``."""
    full, rest = divmod(n_features, block_size)
    return full * block_size * (block_size - 1) + rest * (rest - 1)


def variances(method, rho, s, n, degree, D, d):
    """Variance of every kernel entry (arrays rho, s, n of the augmented rows)."""
    p = degree
    if method == "TensorSRHT":
        V1 = (n + 2 * rho**2 - 2 * s) ** p - rho ** (2 * p)
        C = (rho**2 - (n + rho**2 - 2 * s) / (d - 1)) ** p - rho ** (2 * p)
        return (D * V1 + within_block_pairs(D, d) * C) / D**2
    m = D // 2
    a, b = n + rho**2 - s, 2 * rho**2 - s
    total = m * (a**p + b**p - 2 * rho ** (2 * p))
    if method == "CtR-SRHT":
        c1, c2 = rho**2 - (n - s) / (d - 1), rho**2 - (rho**2 - s) / (d - 1)
        total = total + within_block_pairs(m, d) * (c1**p + c2**p - 2 * rho ** (2 * p))
    return total / (2 * m**2)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=1000)
    parser.add_argument("--data-home", default=None)
    args = parser.parse_args(argv)
    data_home = args.data_home or default_data_home()
    X, _ = fetch_mnist(data_home, subset="test", return_X_y=True)
    X = X[: args.images].astype(np.float64)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    # Augmented rows x' = [sqrt(gamma) x, sqrt(coef0)]: their inner products,
    # sums of squared products and squared norms.
    rho = GAMMA * X @ X.T + COEF0
    s = GAMMA**2 * (X**2) @ (X**2).T + COEF0**2
    n = (GAMMA + COEF0) ** 2  # |x'|^2 |y'|^2 for unit rows
    d = 1 << (X.shape[1] + 1 - 1).bit_length()  # 785 -> 1024
    print(f"{args.images} images; Hadamard length {d}; rms relative error sqrt(sum Var) / ||K||_F")
    print("| p | D | TensorSRHT | CtR-SRHT | CtR-Rademacher |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for degree in (3, 7):
        norm_K = np.linalg.norm(rho**degree)
        for D in [2**k for k in range(9, 14)]:
            cells = [
                np.sqrt(np.sum(variances(m, rho, s, n, degree, D, d))) / norm_K
                for m in ("TensorSRHT", "CtR-SRHT", "CtR-Rademacher")
            ]
            print(f"| {degree} | {D} | " + " | ".join(f"{c:.4f}" for c in cells) + " |")


if __name__ == "__main__":
    main()
