"""Benchmark MinMaxHasher (consistent weighted sampling) against its anchors.

Target 1. 1500 rows of sector tf-idf (train, first rows), k = 128: the
   MinMaxHasher transform (ICWS samples, the default full codes, and the
   sparse 8-bit one-hot features) against datasketch's
   ``WeightedMinHashGenerator`` on the same rows, which gives the ICWS
   samples only:
   * ``minhash`` (its documented per-vector method, dense over the 55197
     dimensions): timed on the first ``--per-row`` rows and scaled to 1500
     (it is linear in the rows: a full run takes minutes);
   * ``minhash_many`` (marked experimental; vectorized over a sparse
     matrix, in batches of 250 rows to bound its k x nnz temporaries).
   The datasketch generator's construction (its k x n_features tables) is
   not timed. Target: >= 50x datasketch.
Target 2. 20 Newsgroups train counts (11314 x 130107), k = 128: MinMaxHasher
   against CoREHasher(hashing="oph") at the same k, resemblance (hashing
   and the sparse output only) and type 1 (the default kernel). Target:
   within 5x.

Usage::

    python benchmarks/bench_min_max_hasher.py [--data-home DIR] [--repeats 3] [--per-row 20]

The timed functions run in turn within each repeat (so that load on the
machine hits all of them alike); the tables give medians of the repeats,
wall-clock and CPU (process) seconds, and ratios computed within this run.
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

# Import the package of this source tree, installed or not.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sklearn_sketch import CoREHasher, MinMaxHasher  # noqa: E402
from sklearn_sketch.datasets import load_20newsgroups_counts, load_sector  # noqa: E402

K = 128
N_ROWS = 1500


def median_times(functions, repeats):
    """Median wall and CPU seconds of each function, run in turn per repeat."""
    times = {name: ([], []) for name in functions}
    for _ in range(repeats):
        for name, function in functions.items():
            wall, cpu = time.perf_counter(), time.process_time()
            function()
            times[name][0].append(time.perf_counter() - wall)
            times[name][1].append(time.process_time() - cpu)
    return {name: (float(np.median(w)), float(np.median(c))) for name, (w, c) in times.items()}


def print_table(title, reference, times, scale=None):
    scale = scale or {}
    print(f"\n{title}")
    print(f"{'method':46s} {'wall s':>9s} {'cpu s':>9s} {'ratio to ' + reference:>18s}")
    ref_wall = times[reference][0] * scale.get(reference, 1)
    for name, (wall, cpu) in times.items():
        factor = scale.get(name, 1)
        label = name + (f" (x{factor:g})" if factor != 1 else "")
        print(f"{label:46s} {wall * factor:9.3f} {cpu * factor:9.3f} "
              f"{wall * factor / ref_wall:18.2f}")


def sector_against_datasketch(data_home, repeats, per_row):
    from datasketch import WeightedMinHashGenerator

    X, _ = load_sector(data_home, subset="train", values="tfidf")
    X = X[:N_ROWS]
    print(f"sector tf-idf: {X.shape[0]} rows x {X.shape[1]}, {X.nnz} nonzeros, "
          f"{X.dtype}, k = {K}, medians of {repeats} repeats")
    hasher = MinMaxHasher(K, random_state=0).fit(X)
    generator = WeightedMinHashGenerator(X.shape[1], sample_size=K, seed=0)
    dense_rows = [X[i].toarray().ravel() for i in range(per_row)]

    def many():
        for start in range(0, X.shape[0], 250):
            generator.minhash_many(X[start : start + 250])

    def per_vector():
        for row in dense_rows:
            generator.minhash(row)

    times = median_times({
        "MinMaxHasher.transform": lambda: hasher.transform(X),
        "datasketch minhash_many (batches of 250)": many,
        "datasketch minhash (per row)": per_vector,
    }, repeats)
    print_table("Target 1: sector tf-idf", "MinMaxHasher.transform", times,
                scale={"datasketch minhash (per row)": X.shape[0] / per_row})


def newsgroups_against_core(data_home, repeats):
    X, _ = load_20newsgroups_counts(data_home, subset="train")
    X = X.astype(np.float64)
    print(f"\n20 Newsgroups counts: {X.shape[0]} rows x {X.shape[1]}, {X.nnz} "
          f"nonzeros, k = {K}, medians of {repeats} repeats")
    minmax = MinMaxHasher(K, random_state=0).fit(X)
    resemblance = CoREHasher(K, kernel="resemblance", random_state=0).fit(X)
    core1 = CoREHasher(K, random_state=0).fit(X)
    times = median_times({
        "MinMaxHasher.transform": lambda: minmax.transform(X),
        "CoREHasher(oph, resemblance).transform": lambda: resemblance.transform(X),
        "CoREHasher(oph, core1).transform": lambda: core1.transform(X),
    }, repeats)
    print_table("Target 2: 20 Newsgroups", "MinMaxHasher.transform", times)
    for name in ("CoREHasher(oph, core1).transform", "CoREHasher(oph, resemblance).transform"):
        print(f"MinMaxHasher time / {name[:-10]} time: "
              f"{times['MinMaxHasher.transform'][0] / times[name][0]:.2f}x (wall), "
              f"{times['MinMaxHasher.transform'][1] / times[name][1]:.2f}x (cpu)"
              + ("; target <= 5x" if "core1" in name else ""))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--per-row", type=int, default=20,
                        help="rows timed with datasketch's per-vector minhash")
    args = parser.parse_args()
    sector_against_datasketch(args.data_home, args.repeats, args.per_row)
    newsgroups_against_core(args.data_home, args.repeats)


if __name__ == "__main__":
    main()
