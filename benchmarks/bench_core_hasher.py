"""Benchmark CoREHasher on 20 Newsgroups train counts (11314 x 130107, 1.79M nonzeros).

Target 1. Resemblance hashing, k = 256, including building the sparse feature
   matrix (8-bit codes), against datasketch's ``MinHash.bulk`` with an
   identity hash over the column indices (plus the same CSR construction from
   its hash values): CoREHasher(hashing="oph") should be >= 10x faster.
Target 2. The CoRE type 1 transform (hashing="oph") against a bare Gaussian
   projection ``X @ G`` with the same k and G precomputed: within 1.5x. The
   reference is the faster of one CSR @ dense product and the same product
   done as CoREHasher does it (a sum over 8 MiB groups of rows of G, each with
   its column slice of X), so that both sides use the same layout rules.

The k independent minwise hashes (hashing="minwise") are reported too.

Usage::

    python benchmarks/bench_core_hasher.py [--data-home DIR] [--repeats 5]

The timed functions run in turn within each repeat (so that load on the
machine hits all of them alike); the tables give medians of the repeats, in
wall-clock and in CPU (process) seconds, and ratios computed within this run.
"""

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

# Import the package of this source tree, installed or not.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sklearn_sketch import CoREHasher  # noqa: E402
from sklearn_sketch._core_hasher import PROJECTION_BLOCK_BYTES  # noqa: E402
from sklearn_sketch.datasets import load_20newsgroups_counts  # noqa: E402


def median_times(functions, repeats):
    """Median (wall, cpu) seconds of each function, run in turn per repeat.

    ``functions`` maps a name to ``(function, n_repeats)``.
    """
    times = {name: ([], []) for name in functions}
    for repeat in range(repeats):
        for name, (function, n_repeats) in functions.items():
            if repeat >= n_repeats:
                continue
            wall, cpu = time.perf_counter(), time.process_time()
            function()
            times[name][0].append(time.perf_counter() - wall)
            times[name][1].append(time.process_time() - cpu)
    return {
        name: (float(np.median(wall)), float(np.median(cpu)))
        for name, (wall, cpu) in times.items()
    }


def datasketch_features(X, k, b_bits):
    from datasketch import MinHash

    sets = np.split(X.indices, X.indptr[1:-1])
    minhashes = MinHash.bulk(sets, num_perm=k, hashfunc=lambda i: int(i))
    values = np.vstack([m.hashvalues for m in minhashes])
    # b-bit codes, one block per hash, as CoREHasher(kernel="resemblance").
    codes = (values & ((1 << b_bits) - 1)).astype(np.int64) + np.arange(k) * 2**b_bits
    indptr = np.arange(0, k * (X.shape[0] + 1), k)
    data = np.full(codes.size, 1 / np.sqrt(k), dtype=np.float32)
    shape = (X.shape[0], k * 2**b_bits)
    return sp.csr_matrix((data, codes.ravel(), indptr), shape=shape)


def blocked_product(X, G):
    """``X @ G`` as CoREHasher computes ``X @ R``: 8 MiB groups of rows of G."""
    group = PROJECTION_BLOCK_BYTES // (G.shape[1] * G.itemsize) // 256 * 256
    group = max(256, group)
    if group >= X.shape[1]:
        return X @ G
    X = X.tocsc()
    out = np.zeros((X.shape[0], G.shape[1]), dtype=G.dtype)
    for start in range(0, X.shape[1], group):
        out += X[:, start : start + group].tocsr() @ G[start : start + group]
    return out


def print_table(title, reference, rows, times, target):
    ref_wall, ref_cpu = times[reference]
    header = f"{'wall s':>7s} {'cpu s':>7s} {'ratio wall':>11s} {'ratio cpu':>10s}"
    print(f"{title:42s} {header}")
    for name in rows:
        wall, cpu = times[name]
        wall_ratio, cpu_ratio = target(wall, ref_wall), target(cpu, ref_cpu)
        print(f"{name:42s} {wall:7.3f} {cpu:7.3f} {wall_ratio:11.2f} {cpu_ratio:10.2f}")
    print()


def main():
    default_home = os.environ.get(
        "SKLEARN_SKETCH_DATA",
        str(Path(__file__).resolve().parents[2] / "shared" / "datasets"),
    )
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default=default_home)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--n-components", type=int, default=256)
    args = parser.parse_args()

    X, _ = load_20newsgroups_counts(args.data_home, subset="train")
    X = X.astype(np.float32)
    k, r = args.n_components, args.repeats
    slow = max(1, min(r, 3))  # repeats of the slow O(nnz * k) runs
    print(f"20 Newsgroups train: {X.shape}, nnz={X.nnz}, float32, k={k}, "
          f"medians of {r} repeats ({slow} for datasketch and minwise)\n")

    def hasher(**params):
        return CoREHasher(k, random_state=0, **params).fit(X[:1])

    G = np.random.default_rng(0).standard_normal((X.shape[1], k), dtype=np.float32)

    def draw_and_project():
        G = np.random.default_rng(0).standard_normal((X.shape[1], k), dtype=np.float32)
        return X @ G

    functions = {
        "datasketch MinHash.bulk + CSR": (lambda: datasketch_features(X, k, 8), slow)
    }
    for hashing in ("oph", "minwise"):
        h = hasher(kernel="resemblance", hashing=hashing)
        functions[f"resemblance, {hashing}"] = (
            lambda h=h: h.transform(X), r if hashing == "oph" else slow
        )
    functions["X @ G (one CSR product)"] = (lambda: X @ G, r)
    functions["X @ G (8 MiB groups, as CoREHasher)"] = (
        lambda: blocked_product(X, G),
        r,
    )
    functions["draw G (ziggurat) + X @ G"] = (draw_and_project, r)
    for hashing in ("oph", "minwise"):
        for projection in ("gaussian", "rademacher"):
            h = hasher(kernel="core1", hashing=hashing, projection=projection)
            functions[f"core1, {hashing}, {projection}"] = (
                lambda h=h: h.transform(X), r if hashing == "oph" else slow
            )
    times = median_times(functions, r)

    print("Target 1: resemblance hashing >= 10x faster than datasketch "
          "(speed-up = datasketch / row)")
    rows = ["datasketch MinHash.bulk + CSR", "resemblance, oph", "resemblance, minwise"]
    print_table("resemblance hashing", rows[0], rows, times, lambda t, ref: ref / t)

    references = ["X @ G (one CSR product)", "X @ G (8 MiB groups, as CoREHasher)"]
    reference = min(references, key=lambda name: times[name][0])
    print(f"Target 2: core1 (oph) within 1.5x of X @ G (ratio = row / reference; "
          f"reference = the faster X @ G, {reference!r})")
    print_table("type 1 transform", reference,
                references + ["draw G (ziggurat) + X @ G", "core1, oph, gaussian",
                              "core1, oph, rademacher", "core1, minwise, gaussian",
                              "core1, minwise, rademacher"],
                times, lambda t, ref: t / ref)


if __name__ == "__main__":
    main()
