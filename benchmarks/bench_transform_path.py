"""The cost of one transform call, estimator by estimator: the path around the kernels.

Every public estimator (parameters below, ``n_jobs=1``) is fitted once, then
its ``transform`` is timed (best of ``--repeats`` CPU times):

* on 10 rows, called 200 times: the fixed cost of a call (validation, the
  size of the chunks, the per-call state, the output), which the design of
  the estimator base decides;
* on 4000 rows: the cost the kernels dominate.

Dense float32 rows (784 columns, values in [0, 1)) for the polynomial
sketches, the RBF features and KernelJL; sparse float64 rows (2**16 columns,
about 100 stored entries each) for the hashers. Another checkout's package
can be timed by the same script (``--package-root``), so that two versions
are compared on one machine in one session::

    python benchmarks/bench_transform_path.py [--repeats 5] [--package-root PATH]
"""

import argparse
import sys

import numpy as np
import scipy.sparse as sp

# The script's folder; importing it puts this source tree first on sys.path.
import _bench

ESTIMATORS = [
    ("TensorSketch", dict(n_components=1024, degree=2), "dense"),
    ("TensorSRHT", dict(n_components=1024, degree=2), "dense"),
    ("PolynomialTreeSketch", dict(n_components=1024, degree=4), "dense"),
    ("MaclaurinSketch", dict(n_components=1024, degree=3, coef0=1.0), "dense"),
    ("ComplexToRealSketch", dict(n_components=1024, degree=2), "dense"),
    ("OrthogonalRBFSampler", dict(n_components=1024), "dense"),
    ("KernelJL", dict(n_components=100, n_subsample=300), "dense"),
    ("CoREHasher", dict(n_components=256), "sparse"),
    ("MinMaxHasher", dict(n_components=256), "sparse"),
]


def inputs(n_rows, seed=0):
    rng = np.random.RandomState(seed)
    dense = rng.rand(n_rows, 784).astype(np.float32)
    sparse = sp.random(
        n_rows, 2**16, density=100 / 2**16, format="csr", random_state=rng, dtype=np.float64
    )
    return {"dense": dense, "sparse": sparse}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--package-root", help="time the package of this checkout")
    args = parser.parse_args()
    if args.package_root:
        sys.path.insert(0, args.package_root)
    import sklearn_sketch

    print(f"sklearn_sketch from {sklearn_sketch.__file__}")
    small, large = inputs(10), inputs(4000, seed=1)
    print(f"{'estimator':24s} {'10 rows x 200 (ms)':>20s} {'4000 rows (ms)':>16s}")
    for name, params, kind in ESTIMATORS:
        estimator = getattr(sklearn_sketch, name)(random_state=0, n_jobs=1, **params)
        estimator.fit(large[kind])
        estimator.transform(small[kind])  # the kernels' first use

        def calls(X=small[kind]):
            for _ in range(200):
                estimator.transform(X)

        fixed = _bench.best_time(calls, args.repeats, clock="cpu")
        bulk = _bench.best_time(
            lambda X=large[kind]: estimator.transform(X), args.repeats, clock="cpu"
        )
        print(f"{name:24s} {1e3 * fixed:20.1f} {1e3 * bulk:16.1f}")


if __name__ == "__main__":
    main()
