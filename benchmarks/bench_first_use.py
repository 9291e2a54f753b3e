"""What a user waits for before the first result: import and first fit + transform.

Each figure is a fresh Python process, so nothing is imported or compiled
beforehand:

* ``import sklearn_sketch`` against ``import sklearn.base`` (the floor: every
  estimator subclasses it), best of ``--repeats`` each, interleaved; nothing
  compiles at import, so the ratio stays near 1;
* the first ``fit`` + ``transform`` of all nine estimators (default
  parameters but ``n_components``, on 300 nonnegative rows of 64 features,
  dense and CSR) in one process, with numba's compile cache empty (a new
  ``NUMBA_CACHE_DIR``: everything compiles once) and then warm (the same
  folder again: the compiled kernels are loaded from disk).

Run::

    python benchmarks/bench_first_use.py [--repeats 5]
"""

import argparse
import os
import subprocess
import sys
import tempfile

# The script's folder; ROOT is this source tree, whose package the children import.
from _bench import ROOT, best_time, best_times

FIRST_USE = """
import numpy as np, scipy.sparse as sp
import sklearn_sketch as sk
rng = np.random.RandomState(0)
X = rng.rand(300, 64) * (rng.rand(300, 64) < 0.3)
estimators = [
    sk.TensorSketch(n_components=256), sk.TensorSRHT(n_components=256),
    sk.ComplexToRealSketch(n_components=256), sk.PolynomialTreeSketch(n_components=256),
    sk.MaclaurinSketch(n_components=256), sk.CoREHasher(n_components=64),
    sk.MinMaxHasher(n_components=64), sk.KernelJL(n_components=32),
    sk.OrthogonalRBFSampler(n_components=256),
]
for estimator in estimators:
    for data in (X, sp.csr_matrix(X), X.astype(np.float32)):
        estimator.fit(data).transform(data)
"""


def _run(code, env=None):
    """A function running ``code`` in a fresh Python process."""
    return lambda: subprocess.run(
        [sys.executable, "-c", code], check=True, cwd=ROOT, capture_output=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
    )


def import_ratio(repeats):
    """Best-of-``repeats`` seconds of both imports in fresh processes, interleaved."""
    times = best_times({
        "floor": _run("import sklearn.base"),
        "ours": _run("import sklearn_sketch"),
    }, repeats)
    return times["ours"], times["floor"]


def first_use(repeats):
    """Seconds of the first fit + transform of every estimator, cache empty then warm."""
    with tempfile.TemporaryDirectory() as cache:
        env = {"NUMBA_CACHE_DIR": cache}
        cold = best_time(_run(FIRST_USE, env), 1)
        warm = best_time(_run(FIRST_USE, env), repeats)
    return cold, warm


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    ours, floor = import_ratio(args.repeats)
    print(f"import sklearn.base      {floor:6.3f} s (fresh process, best of {args.repeats})")
    print(f"import sklearn_sketch    {ours:6.3f} s   ratio {ours / floor:.2f} (target <= 1.35)")
    cold, warm = first_use(args.repeats)
    print("first fit + transform of all nine estimators, fresh process (import included):")
    print(f"  compile cache empty  {cold:6.1f} s (target <= 60)")
    print(f"  compile cache warm   {warm:6.1f} s (target <= 3, best of {args.repeats})")


if __name__ == "__main__":
    main()
