"""What a transform of one row costs as the model grows: the per-call overhead.

A model serving predictions one row at a time pays each ``transform`` call's
fixed work (validation, the map's per-call state) besides the row's
product. That work should not grow with the model: the time of a one-row
transform at ``n_components=8192`` over that at 256 should stay near the
ratio of the rows' own work, which scikit-learn's RBFSampler (one product
with its weights) shows.

For every estimator of the package (default parameters but
``n_components``) and RBFSampler, fit on 200 rows of 784 features in [0, 1]
(MNIST's shape, float32, nonnegative) and time ``transform`` of one row,
median of ``--repeats`` calls, all models interleaved.

Run::

    python benchmarks/bench_call_overhead.py [--repeats 200] [--sizes 256 8192]
"""

import argparse

import numpy as np
from sklearn.kernel_approximation import RBFSampler

# The script's folder; importing _bench puts this source tree first on the path.
from _bench import median_times

import sklearn_sketch as sk

ESTIMATORS = {
    "TensorSketch": sk.TensorSketch,
    "TensorSRHT": sk.TensorSRHT,
    "ComplexToRealSketch": sk.ComplexToRealSketch,
    "PolynomialTreeSketch": sk.PolynomialTreeSketch,
    "MaclaurinSketch": sk.MaclaurinSketch,
    "CoREHasher": sk.CoREHasher,
    "MinMaxHasher": sk.MinMaxHasher,
    "KernelJL": sk.KernelJL,
    "OrthogonalRBFSampler orf": lambda n_components: sk.OrthogonalRBFSampler(
        n_components, method="orf"),
    "OrthogonalRBFSampler sorf": lambda n_components: sk.OrthogonalRBFSampler(
        n_components, method="sorf"),
    "OrthogonalRBFSampler fastfood": lambda n_components: sk.OrthogonalRBFSampler(
        n_components, method="fastfood"),
    "RBFSampler (scikit-learn)": lambda n_components: RBFSampler(
        gamma=0.01, n_components=n_components),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--sizes", type=int, nargs=2, default=[256, 8192])
    args = parser.parse_args()
    X = np.random.RandomState(0).rand(200, 784).astype(np.float32)
    row = X[:1]
    calls = {}
    for name, make in ESTIMATORS.items():
        for size in args.sizes:
            model = make(n_components=size).set_params(random_state=0).fit(X)
            model.transform(row)  # compiled and cached before the timing
            calls[(name, size)] = lambda model=model: model.transform(row)
    times = median_times(calls, args.repeats)
    small, large = args.sizes
    print(f"one-row transform, median of {args.repeats} calls (ms)")
    print(f"{'estimator':32s} {f'D={small}':>9s} {f'D={large}':>9s} {'ratio':>7s}")
    for name in ESTIMATORS:
        a, b = times[(name, small)], times[(name, large)]
        print(f"{name:32s} {a * 1e3:9.3f} {b * 1e3:9.3f} {b / a:7.2f}")


if __name__ == "__main__":
    main()
