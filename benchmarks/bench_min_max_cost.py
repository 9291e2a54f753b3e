"""MinMaxHasher's time per (stored entry, hash) across k and the number of rows.

DartMinHash costs ``O(nnz + k log k)`` per row in expectation, so the figure
per (entry, hash) falls as ``k`` grows past a row's entries; across
``n_samples`` it must not drift (no per-chunk overhead that grows as chunks
shrink, no per-row cost that grows with the input). It times
``MinMaxHasher(k).transform(X[:n])`` on the first ``n`` rows of a data set,
for ``k`` in ``--ks`` and ``n`` in ``--ns``, skipping the cells of more
than ``--max-pairs`` (entry, hash) pairs (fewer rows at large k: the figure
per pair is what is compared), and prints, per cell, the median over
``--repeats`` of the wall-clock time divided by ``nnz * k``, in
nanoseconds, and the largest over the smallest figure of the table. The
cells run in turn within each repeat, so that load on the machine hits them
alike; the compiled kernel is loaded before the first timing.

Data (``--dataset``): "mnist" (the 60000 training images, float32 CSR, 150
stored pixels a row), "news20" (20 Newsgroups counts, train then test,
18846 documents, float64) or "sector" (sector tf-idf, train then test, 9619
documents, float64).

Usage::

    python benchmarks/bench_min_max_cost.py [--data-home DIR] [--dataset mnist]
        [--ks 128 512 2048 8192] [--ns 1000 10000 60000] [--repeats 3]
        [--max-pairs 1.6e9] [--codes full]
"""

import argparse

import numpy as np
import scipy.sparse as sp

# The script's folder; importing it puts this source tree first on sys.path.
from _bench import median_times

from sklearn_sketch import MinMaxHasher
from sklearn_sketch.datasets import (
    fetch_20newsgroups_counts,
    fetch_mnist,
    fetch_sector,
)


def load(name, data_home):
    """The rows of a data set as one CSR matrix (train, then test)."""
    if name == "mnist":
        X, _ = fetch_mnist(data_home, subset="train", return_X_y=True)
        return sp.csr_matrix(X)
    if name == "news20":
        parts = [fetch_20newsgroups_counts(data_home, subset=s, return_X_y=True)[0] for s in ("train", "test")]
    else:
        parts = [fetch_sector(data_home, subset=s, values="tfidf", return_X_y=True)[0] for s in ("train", "test")]
    return sp.vstack(parts, format="csr").astype(np.float64)


def make_hasher(k, codes):
    return MinMaxHasher(k, random_state=0) if codes is None else MinMaxHasher(
        k, codes=codes, random_state=0
    )


def time_cells(X, ks, ns, max_pairs, repeats, codes):
    """Median ns per (entry, hash) of each cell (k, n) within ``max_pairs``."""
    cells = [(k, n) for k in ks for n in ns
             if n <= X.shape[0] and X[:n].nnz * k <= max_pairs]
    make_hasher(8, codes).fit(X[:10]).transform(X[:10])  # load the kernel
    rows = {n: X[:n] for _, n in cells}  # sliced once, outside the timings
    hashers = {(k, n): make_hasher(k, codes).fit(rows[n]) for k, n in cells}
    functions = {
        (k, n): (lambda hasher=hashers[k, n], X=rows[n]: hasher.transform(X))
        for k, n in cells
    }
    times = median_times(functions, repeats)
    return {(k, n): 1e9 * t / (rows[n].nnz * k) for (k, n), t in times.items()}


def print_grid(figures, ks, ns):
    print(f"{'k / n':>8s}" + "".join(f"{n:>10d}" for n in ns))
    for k in ks:
        row = [f"{figures[k, n]:10.2f}" if (k, n) in figures else f"{'-':>10s}"
               for n in ns]
        print(f"{k:8d}" + "".join(row))
    values = list(figures.values())
    print(f"\nlargest / smallest: {max(values) / min(values):.2f} "
          f"({max(values):.2f} / {min(values):.2f} ns)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--dataset", choices=["mnist", "news20", "sector"], default="mnist")
    parser.add_argument("--ks", type=int, nargs="+", default=[128, 512, 2048, 8192])
    parser.add_argument("--ns", type=int, nargs="+", default=[1000, 10000, 60000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-pairs", type=float, default=1.6e9,
                        help="skip the cells of more (entry, hash) pairs")
    parser.add_argument("--codes", default=None,
                        help="MinMaxHasher's codes (default: its default)")
    args = parser.parse_args()
    X = load(args.dataset, args.data_home)
    print(f"{args.dataset}: {X.shape[0]} rows x {X.shape[1]}, "
          f"{X.nnz / X.shape[0]:.0f} stored entries a row, {X.dtype}; MinMaxHasher"
          f"(codes={args.codes or 'default'}).transform, ns per (entry, hash), "
          f"medians of {args.repeats} repeats")
    figures = time_cells(X, args.ks, args.ns, args.max_pairs, args.repeats, args.codes)
    print_grid(figures, args.ks, args.ns)


if __name__ == "__main__":
    main()
