"""Benchmark MinMaxHasher (DartMinHash) against its anchors.

Rows: the first 1500 rows of sector tf-idf (train).

Target 1. k = 128: the MinMaxHasher transform (DartMinHash samples, the
   default full codes, and the sparse 8-bit one-hot features) against
   datasketch's ``WeightedMinHashGenerator`` on the same rows, which gives
   ICWS samples only:
   * ``minhash`` (its documented per-vector method, dense over the 55197
     dimensions): timed on the first ``--per-row`` rows and scaled to 1500
     (it is linear in the rows: a full run takes minutes);
   * ``minhash_many`` (marked experimental; vectorized over a sparse
     matrix, in batches of 250 rows to bound its k x nnz temporaries).
   The datasketch generator's construction (its k x n_features tables) is
   not timed. Target: >= 1000x datasketch.
Target 2. k = 256 and 1024: MinMaxHasher against
   ``CoREHasher(kernel="resemblance", hashing="oph")`` at the same k on the
   same rows (the same sparse one-hot output), with microseconds per row.
   Target: <= 30x.
Target 3. k = 256: ``n_jobs=2`` against ``n_jobs=1`` on the rows repeated
   to 6000, beside the machine's two-thread ceiling (two threads against
   one on in-cache ``np.sin``, ``median_speedup`` of ``benchmarks/_bench.py``).
   Target: >= 1.8x, or >= 0.9 of the ceiling.

Usage::

    python benchmarks/bench_min_max_hasher.py [--data-home DIR] [--repeats 5] [--per-row 20]

The timed functions run in turn within each repeat (so that load on the
machine hits all of them alike); the tables give medians of the repeats,
wall-clock and CPU (process) seconds, and ratios computed within this run:
row / MinMaxHasher's in Target 1, row / CoREHasher's in Target 2.
"""

import argparse

import scipy.sparse as sp

# The script's folder; importing it puts this source tree first on sys.path.
from _bench import median_speedup, median_times, print_table

from sklearn_sketch import CoREHasher, MinMaxHasher
from sklearn_sketch.datasets import fetch_sector

K = 128
N_ROWS = 1500
CLOCK = ("wall", "cpu")


def sector_rows(data_home):
    X, _ = fetch_sector(data_home, subset="train", values="tfidf", return_X_y=True)
    return X[:N_ROWS]


def sector_against_datasketch(X, repeats, per_row):
    from datasketch import WeightedMinHashGenerator

    print(f"sector tf-idf: {X.shape[0]} rows x {X.shape[1]}, {X.nnz} nonzeros, "
          f"{X.dtype}, k = {K}, medians of {repeats} repeats")
    hasher = MinMaxHasher(K, random_state=0).fit(X)
    hasher.transform(X[:5])  # load the compiled kernel
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
    }, repeats, CLOCK)
    print()
    print_table(f"Target 1: sector tf-idf, k = {K}", times, "MinMaxHasher.transform",
                clock=CLOCK, scale={"datasketch minhash (per row)": X.shape[0] / per_row})


def sector_against_oph(X, repeats):
    for k in (256, 1024):
        minmax = MinMaxHasher(k, random_state=0).fit(X)
        oph = CoREHasher(k, kernel="resemblance", hashing="oph", random_state=0).fit(X)
        minmax.transform(X[:5]), oph.transform(X[:5])
        times = median_times({
            "MinMaxHasher.transform": lambda: minmax.transform(X),
            "CoREHasher(resemblance, oph).transform": lambda: oph.transform(X),
        }, repeats, CLOCK)
        print()
        print_table(f"Target 2: sector tf-idf, k = {k}", times,
                    "CoREHasher(resemblance, oph).transform", clock=CLOCK)
        for name, (wall, _) in times.items():
            print(f"  {name}: {1e6 * wall / X.shape[0]:.1f} us per row")


def two_jobs(X, repeats):
    X = sp.vstack([X] * 4, format="csr")
    ceiling = median_speedup()
    hashers = {n: MinMaxHasher(256, random_state=0, n_jobs=n).fit(X) for n in (1, 2)}
    hashers[1].transform(X[:5])
    times = median_times({f"n_jobs={n}": (lambda h=h: h.transform(X)) for n, h in
                          hashers.items()}, repeats, CLOCK)
    speedup = times["n_jobs=1"][0] / times["n_jobs=2"][0]
    print(f"\nTarget 3: {X.shape[0]} sector rows, k = 256: n_jobs=2 vs 1: {speedup:.2f}x "
          f"(wall); two-thread ceiling (in-cache np.sin): {ceiling:.2f}x; "
          f"ratio {speedup / ceiling:.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--per-row", type=int, default=20,
                        help="rows timed with datasketch's per-vector minhash")
    args = parser.parse_args()
    X = sector_rows(args.data_home)
    sector_against_datasketch(X, args.repeats, args.per_row)
    sector_against_oph(X, args.repeats)
    two_jobs(X, args.repeats)


if __name__ == "__main__":
    main()
