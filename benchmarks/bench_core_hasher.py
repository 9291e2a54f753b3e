"""Benchmark CoREHasher on 20 Newsgroups train counts (11314 x 130107, 1.79M nonzeros).

1. Resemblance hashing, k = 256, including building the sparse feature matrix
   (8-bit codes), against datasketch's ``MinHash.bulk`` with an identity hash
   over the column indices (plus the same CSR construction from its hash
   values).
2. The CoRE type 1 transform against a bare Gaussian projection ``X @ G`` with
   the same k (G precomputed; and G drawn + product).

Usage::

    python benchmarks/bench_core_hasher.py [--data-home DIR] [--repeats 5]

Timings are medians over repeats; ratios are computed within one run.
"""

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sklearn_sketch import CoREHasher  # noqa: E402
from sklearn_sketch.datasets import load_20newsgroups_counts  # noqa: E402


def median_time(function, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def datasketch_features(X, k, b_bits):
    from datasketch import MinHash

    sets = np.split(X.indices, X.indptr[1:-1])
    minhashes = MinHash.bulk(sets, num_perm=k, hashfunc=lambda i: int(i))
    values = np.vstack([m.hashvalues for m in minhashes])
    # b-bit codes, one block per hash, as CoREHasher(kernel="resemblance").
    codes = (values & ((1 << b_bits) - 1)).astype(np.int64) + np.arange(k) * 2**b_bits
    indptr = np.arange(0, k * (X.shape[0] + 1), k)
    data = np.full(codes.size, 1 / np.sqrt(k), dtype=np.float32)
    return sp.csr_matrix((data, codes.ravel(), indptr), shape=(X.shape[0], k * 2**b_bits))


def main():
    default_home = os.environ.get(
        "SKLEARN_SKETCH_DATA", str(Path(__file__).resolve().parents[2] / "shared" / "datasets")
    )
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default=default_home)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--n-components", type=int, default=256)
    args = parser.parse_args()

    X, _ = load_20newsgroups_counts(args.data_home, subset="train")
    X = X.astype(np.float32)
    k, r = args.n_components, args.repeats
    print(f"20 Newsgroups train: {X.shape}, nnz={X.nnz}, k={k}, median of {r} runs\n")

    def hasher(**params):
        return CoREHasher(k, random_state=0, **params).fit(X[:1])

    t_ds = median_time(lambda: datasketch_features(X, k, 8), max(1, min(r, 3)))
    rows = [("datasketch MinHash.bulk + CSR", t_ds, None)]
    for hashing in ("oph", "minwise"):
        h = hasher(kernel="resemblance", hashing=hashing)
        t = median_time(lambda: h.transform(X), r)
        rows.append((f"CoREHasher resemblance, {hashing}", t, t_ds / t))
    print(f"{'resemblance hashing':45s} {'seconds':>8s} {'speed-up':>9s}")
    for name, t, ratio in rows:
        print(f"{name:45s} {t:8.3f} {'' if ratio is None else f'{ratio:8.1f}x':>9s}")

    G = np.random.default_rng(0).standard_normal((X.shape[1], k), dtype=np.float32)
    t_proj = median_time(lambda: X @ G, r)

    def draw_and_project():
        G = np.random.default_rng(0).standard_normal((X.shape[1], k), dtype=np.float32)
        return X @ G

    t_draw = median_time(draw_and_project, r)
    print(f"\n{'type 1 transform':45s} {'seconds':>8s} {'/ X@G':>7s} {'/ draw+X@G':>11s}")
    print(f"{'X @ G (G precomputed)':45s} {t_proj:8.3f} {1:7.2f} {t_proj / t_draw:11.2f}")
    print(f"{'draw G + X @ G':45s} {t_draw:8.3f} {t_draw / t_proj:7.2f} {1:11.2f}")
    for hashing in ("oph", "minwise"):
        for projection in ("gaussian", "rademacher"):
            h = hasher(kernel="core1", hashing=hashing, projection=projection)
            t = median_time(lambda: h.transform(X), r)
            name = f"CoREHasher core1, {hashing}, {projection}"
            print(f"{name:45s} {t:8.3f} {t / t_proj:7.2f} {t / t_draw:11.2f}")


if __name__ == "__main__":
    main()
