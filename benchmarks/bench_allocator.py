"""Whether CoREHasher's transform time depends on the allocator's state.

A transform whose temporaries are fresh memory at every call pays the page
faults of that memory in a fresh process (glibc returns large freed blocks
to the system at once), and not where glibc is told to keep freed memory
(``MALLOC_MMAP_THRESHOLD_=1000000000 MALLOC_TRIM_THRESHOLD_=1000000000``).
Where the scratch memory is reused across calls, and the output is the only
fresh memory, the two settings take the same time.

For every kernel and hashing of CoREHasher (``n_components=256``, 8-bit
codes, the default projection), each in a fresh process under each setting:
fit on the first 3000 rows of sector (term counts, train), then the median
of ``--calls`` transforms of those rows after one warm-up call. The
processes of the two settings alternate, ``--repeats`` times; the table
gives the medians (wall and CPU milliseconds), the fresh memory a call
faults in (minor page faults per call, in MiB; the output is 8.8 MiB), and
the ratio of the default setting's time to the kept-memory one's (target: at
most 1.25).

Run::

    python benchmarks/bench_allocator.py [--data-home DIR] [--repeats 3] [--calls 20]
"""

import argparse
import json
import os
import subprocess
import sys

import numpy as np

from _bench import ROOT, default_data_home

KEEP_MEMORY = {"MALLOC_MMAP_THRESHOLD_": "1000000000", "MALLOC_TRIM_THRESHOLD_": "1000000000"}
CASES = [
    (kernel, hashing)
    for kernel in ("resemblance", "core1", "core2")
    for hashing in ("fss", "oph", "minwise")
]

CHILD = """
import json, resource, time
import numpy as np
from sklearn_sketch import CoREHasher
from sklearn_sketch.datasets import fetch_sector
X = fetch_sector({data_home!r}, subset="train", return_X_y=True)[0][:3000]
results = {{}}
for kernel, hashing in {cases!r}:
    hasher = CoREHasher(n_components=256, kernel=kernel, hashing=hashing, random_state=0).fit(X)
    hasher.transform(X)
    wall, cpu = [], []
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range({calls}):
        w, c = time.perf_counter(), time.process_time()
        hasher.transform(X)
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
    fresh = faults * resource.getpagesize() / {calls}
    results[f"{{kernel}} {{hashing}}"] = [float(np.median(wall)), float(np.median(cpu)), fresh]
print(json.dumps(results))
"""


def run(code, keep_memory):
    """The child's results under the default allocator or the kept-memory one."""
    env = {key: value for key, value in os.environ.items() if key not in KEEP_MEMORY}
    if keep_memory:
        env.update(KEEP_MEMORY)
    env["PYTHONPATH"] = str(ROOT)
    completed = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, check=True,
        capture_output=True, text=True,
    )
    return json.loads(completed.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-home", default=default_data_home())
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args()
    code = CHILD.format(data_home=args.data_home, cases=CASES, calls=args.calls)
    runs = {False: [], True: []}
    for _ in range(args.repeats):
        for keep_memory in (False, True):
            runs[keep_memory].append(run(code, keep_memory))
    print(f"CoREHasher(n_components=256).transform of 3000 sector rows, median of "
          f"{args.repeats} processes x {args.calls} calls (ms; fresh: MiB faulted in per call)")
    print(f"{'kernel hashing':22s} {'default':>22s} {'memory kept':>22s} {'ratio':>12s}")
    print(f"{'':22s}" + f"{'wall':>8s}{'cpu':>8s}{'fresh':>7s}" * 2 + f" {'wall':>6s}{'cpu':>6s}")
    for kernel, hashing in CASES:
        key = f"{kernel} {hashing}"
        default, kept = (
            np.median([r[key] for r in runs[setting]], axis=0) * [1e3, 1e3, 2.0**-20]
            for setting in (False, True)
        )
        ratio = default[:2] / kept[:2]
        print(f"{key:22s}" + "".join(
            f"{values[0]:8.2f}{values[1]:8.2f}{values[2]:7.1f}" for values in (default, kept)
        ) + f" {ratio[0]:6.2f}{ratio[1]:6.2f}")

if __name__ == "__main__":
    main()
