"""How long a fit and transform that cannot succeed take to say so.

Each case runs in a fresh Python process (its compile cache warmed first by
an ordinary fit, so that compilation is not counted), fits on 10 rows of
``rand(10, 20)`` and transforms them, and reports the seconds (wall and
CPU) until the error, its type and the start of its message, or "no error"
/ "timeout" (``--timeout`` seconds):

* ``OrthogonalRBFSampler(n_components=4e8)`` (sorf, fastfood): an output of
  10 x 4e8 float64 values, more than a machine's memory;
* ``degree=10**6`` on the polynomial sketches: rows of norm about 2, whose
  features ``|x'|**degree`` are far beyond float64.

Run::

    python benchmarks/bench_fail_fast.py [--timeout 600]
"""

import argparse
import json
import os
import subprocess
import sys

from _bench import ROOT

CASES = {
    "OrthogonalRBFSampler sorf n_components=4e8":
        "OrthogonalRBFSampler(n_components=400_000_000, method='sorf')",
    "OrthogonalRBFSampler fastfood n_components=4e8":
        "OrthogonalRBFSampler(n_components=400_000_000, method='fastfood')",
    "TensorSketch degree=10**6": "TensorSketch(degree=10**6)",
    "TensorSRHT degree=10**6": "TensorSRHT(degree=10**6)",
    "ComplexToRealSketch degree=10**6": "ComplexToRealSketch(degree=10**6)",
    "PolynomialTreeSketch degree=10**6": "PolynomialTreeSketch(degree=10**6)",
    "MaclaurinSketch degree=10**6": "MaclaurinSketch(degree=10**6)",
}

CASE = """
import json, sys, time
import numpy as np
import sklearn_sketch as sk
X = np.random.RandomState(0).rand(10, 20)
getattr(sk, {name!r})(random_state=0).fit(X).transform(X)  # compiled beforehand
estimator = sk.{constructor}
wall, cpu = time.perf_counter(), time.process_time()
try:
    estimator.set_params(random_state=0).fit(X).transform(X)
    outcome = "no error"
except Exception as error:
    outcome = f"{{type(error).__name__}}: {{str(error)[:90]}}"
print(json.dumps([time.perf_counter() - wall, time.process_time() - cpu, outcome]))
"""


def run_case(constructor, timeout):
    """``(wall seconds, CPU seconds, outcome)`` of one case in a fresh process."""
    code = CASE.format(name=constructor.split("(")[0], constructor=constructor)
    try:
        completed = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
            timeout=timeout, env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    except subprocess.TimeoutExpired:
        return float(timeout), float("nan"), f"timeout after {timeout} s"
    if completed.returncode:
        return float("nan"), float("nan"), completed.stderr.strip().splitlines()[-1]
    return tuple(json.loads(completed.stdout.strip().splitlines()[-1]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--timeout", type=int, default=600)
    args = parser.parse_args()
    print(f"{'case':48s} {'wall s':>8s} {'cpu s':>8s}  outcome")
    for label, constructor in CASES.items():
        wall, cpu, outcome = run_case(constructor, args.timeout)
        print(f"{label:48s} {wall:8.2f} {cpu:8.2f}  {outcome}", flush=True)


if __name__ == "__main__":
    main()
