"""Cost of very wide sparse input: a CSR of 4 rows x 2**31 columns, 40 nonzeros.

Hashed text features (for example scikit-learn's ``FeatureHasher`` at
``n_features=2**31``) are as wide as that, and a sketch must cost what their
nonzeros cost, not what their width would. Each estimator (with its default
parameters, plus the options that take another code path) is fitted and
applied in a fresh process, first to a narrower copy of the input (2**20
columns, the same dtypes), which loads numba and the compiled kernels (the
one-time cost of a process's first use, the table's last column), then to
the wide input, which reports

* the wall times of ``fit`` and of ``transform``;
* the peak resident memory of the process beyond its peak before fitting
  the wide input (the interpreter with numpy, scipy, scikit-learn, the
  package and its kernels loaded, and the input built);
* the size of the fitted estimator, pickled.

Run::

    python benchmarks/bench_wide_input.py [--n-features 2147483648]
"""

import argparse
import json
import os
import subprocess
import sys

# The script's folder; ROOT is this source tree, whose package the children import.
from _bench import ROOT

CASES = {
    "TensorSketch": "TensorSketch()",
    "TensorSRHT": "TensorSRHT()",
    "ComplexToRealSketch": "ComplexToRealSketch()",
    "ComplexToRealSketch(rademacher)": "ComplexToRealSketch(projection='rademacher')",
    "PolynomialTreeSketch": "PolynomialTreeSketch()",
    "PolynomialTreeSketch(tensorsrht)": "PolynomialTreeSketch(base='tensorsrht')",
    "MaclaurinSketch": "MaclaurinSketch(coef0=1.0)",
    "CoREHasher": "CoREHasher()",
    "CoREHasher(oph, rademacher)": "CoREHasher(hashing='oph', projection='rademacher')",
    "CoREHasher(hashed_gaussian)": "CoREHasher(projection='hashed_gaussian')",
    "CoREHasher(resemblance, b_bits=None)": "CoREHasher(kernel='resemblance', b_bits=None)",
    "MinMaxHasher": "MinMaxHasher()",
    "MinMaxHasher(gmm, b_bits=4)": "MinMaxHasher(kernel='gmm', b_bits=4)",
    "KernelJL": "KernelJL(n_subsample=4)",
    "KernelJL(laplacian)": "KernelJL(n_subsample=4, kernel='laplacian')",
    "OrthogonalRBFSampler": "OrthogonalRBFSampler()",
    "OrthogonalRBFSampler(orf)": "OrthogonalRBFSampler(method='orf')",
    "OrthogonalRBFSampler(fastfood)": "OrthogonalRBFSampler(method='fastfood')",
}

CHILD = r"""
import json, pickle, resource, sys, time
import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn_sketch import *

n_features = int(sys.argv[1])
rng = np.random.RandomState(0)
rows = np.repeat(np.arange(4), 10)
X = sp.csr_matrix((rng.rand(40) + 0.1, (rows, rng.randint(0, n_features, 40))),
                  shape=(4, n_features))
estimator = eval(sys.argv[2])
estimator.set_params(random_state=0)
# First use in the process, on a narrower copy with the same dtypes (still
# wide enough to be hashed where an estimator hashes wide input): loads numba
# and the compiled kernels, once.
width = min(n_features, 2**20)
narrow = sp.csr_matrix((X.data, X.indices % width, X.indptr), shape=(4, width))
narrow.indices = narrow.indices.astype(X.indices.dtype)
narrow.indptr = narrow.indptr.astype(X.indptr.dtype)
start = time.perf_counter()
clone(estimator).fit(narrow).transform(narrow)
first_use = time.perf_counter() - start
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
estimator.fit(X)
fitted = time.perf_counter()
estimator.transform(X)
done = time.perf_counter()
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"first_use": first_use, "fit": fitted - start,
                  "transform": done - fitted, "extra_mib": (after - before) / 1024,
                  "state_kib": len(pickle.dumps(estimator)) / 1024}))
"""


def run_case(expression, n_features, timeout):
    try:
        result = subprocess.run(
            [sys.executable, "-c", CHILD, str(n_features), expression],
            capture_output=True, text=True, timeout=timeout,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    except subprocess.TimeoutExpired:
        return None, f"over {timeout} s"
    if result.returncode != 0:
        return None, (result.stderr.strip().splitlines() or ["killed"])[-1][:80]
    return json.loads(result.stdout.strip().splitlines()[-1]), None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-features", type=int, default=2**31)
    parser.add_argument("--timeout", type=float, default=120)
    args = parser.parse_args()
    print(f"4 rows x {args.n_features} columns, 40 nonzeros")
    print("| estimator | fit (s) | transform (s) | peak RSS beyond the peak before "
          "(MiB) | fitted state (KiB) | first use in a process (s) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, expression in CASES.items():
        figures, error = run_case(expression, args.n_features, args.timeout)
        if error:
            print(f"| {name} | failed: {error} | | | | |")
        else:
            print(f"| {name} | {figures['fit']:.3f} | {figures['transform']:.3f} "
                  f"| {figures['extra_mib']:.0f} | {figures['state_kib']:.1f} "
                  f"| {figures['first_use']:.2f} |")


if __name__ == "__main__":
    main()
