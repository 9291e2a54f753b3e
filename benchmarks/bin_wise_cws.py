"""Bin-wise consistent weighted sampling: fast, but not the min-max kernel.

Ioffe's ICWS hashes every stored entry with every one of its ``k`` hashes,
``O(nnz k)``, where CoREHasher's one-permutation hashing costs
``O(nnz + k)`` (MinMaxHasher's DartMinHash ``O(nnz + k log k)``). Bin-wise CWS (Li, Li and Zhang, NeurIPS 2019) carries OPH
over to weighted data: one hash splits the features into ``k`` bins, every
feature has one set of ICWS variables, the sample of a bin is the ICWS
sample of the row restricted to it, and empty bins borrow by optimal
densification. This script builds it from the package's own pieces (the
bins and densification of ``minwise._positions``; the ICWS variables are
generated here) as a subclass of MinMaxHasher, and measures what it would
give:

1. Speed: the transform of 20 Newsgroups train (11314 x 130107 counts, k =
   128) against MinMaxHasher (DartMinHash) and CoREHasher (OPH, type 1), in
   turn in one run (medians of ``--repeats``).
2. The kernel: the fraction of agreeing samples (``b_bits=None``) against
   the exact min-max kernel on 30 sector tf-idf rows, for k = 64 .. 4096,
   beside MinMaxHasher's: mean and largest difference, correlation.
3. Accuracy: LinearSVC (C = 1) on digits (898 / 899), k = 64 / 256 / 1024.

Within a bin, ICWS collides at the min-max kernel of the bin's part of
the two rows; but the estimate averages bins with equal weight, and once
``k`` approaches a row's number of nonzeros most bins hold a single
feature, whose 0-bit sample is that feature whatever its weight: the
estimate drifts from the min-max kernel to the resemblance of the nonzero
patterns. That is why MinMaxHasher does not offer it.

Usage::

    python benchmarks/bin_wise_cws.py [--data-home DIR] [--repeats 3]
"""

import argparse
import sys
import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.svm import LinearSVC
from sklearn.utils import check_random_state

# The script's folder; importing it puts this source tree first on sys.path.
from _bench import median_times, print_table

from sklearn_sketch import CoREHasher, MinMaxHasher
from sklearn_sketch.datasets import fetch_20newsgroups_counts, fetch_sector
from sklearn_sketch.metrics import min_max_kernel
from sklearn_sketch.minwise._dart_codes import DartCodesMap

# The scheme is built from the package's own bins, densification and hashes.
from sklearn_sketch.minwise._positions import (
    MAX_CHUNK_NNZ,
    PROBE_HASH_INDEPENDENCE,
    binned_positions,
    densification_tables,
    nnz_chunks,
)
from sklearn_sketch.utils._hashing import (
    draw_multiply_shift,
    draw_polynomial_hashes,
    minwise_hashes,
    mix64,
    splitmix64,
)

# Rows hashed at once, as the bytes of their (k x rows) uint64 table of bin
# minima: near the size of a core's L2 cache.
OPH_TABLE_BYTES = 2 * 2**20

# Halves of a uint64 key seen as two uint32: (low, high) on a little-endian
# machine.
_HIGH_HALF = 1 if sys.byteorder == "little" else 0


def icws_variables(seed, features):
    """Ioffe's variables of one hash: ``r, c ~ Gamma(2, 1)`` (``ln c``), ``beta ~ U[0, 1)``.

    Feature ``i`` takes output ``i`` of three SplitMix64 streams of
    ``seed``; ``r`` and ``c`` are ``-ln(u v)`` of the uniforms ``(h + 1/2)
    2**-32`` of the two halves ``h`` of a word, ``beta`` the low half of the
    third word over ``2**32``.
    """
    counters = (np.asarray(features).astype(np.uint64) + np.uint64(1)) * np.uint64(
        0x9E3779B97F4A7C15
    )
    stream_seeds = splitmix64(seed, np.arange(1, 4, dtype=np.uint64))
    words = [mix64(counters + stream_seeds[s]) for s in range(3)]

    def minus_log_product(word):
        halves = word.reshape(-1).view(np.uint32).astype(np.float64).reshape(-1, 2) + 0.5
        return -np.log(halves[:, 0] * halves[:, 1] * 2.0**-64)

    beta = (words[2] & np.uint64(0xFFFFFFFF)).astype(np.float64) * 2.0**-32
    return minus_log_product(words[0]), np.log(minus_log_product(words[1])), beta


def positions_by_chunks(indices, data, indptr, n_columns, fill, max_rows=None):
    """Sample positions of the nonempty rows of a CSR matrix, chunk by chunk.

    ``fill(indices, data, indptr, out=out)`` writes the positions within one
    chunk (``indptr[0] == 0``) into ``out``; they are offset here to
    positions in ``indices``.
    """
    nonempty_before = np.concatenate([[0], np.cumsum(np.diff(indptr) > 0)])
    positions = np.empty((nonempty_before[-1], n_columns), dtype=np.int64)
    for start, stop in nnz_chunks(indptr, MAX_CHUNK_NNZ, max_rows):
        first, last = indptr[start], indptr[stop]
        chunk = positions[nonempty_before[start] : nonempty_before[stop]]
        fill(
            indices[first:last], data[first:last], indptr[start : stop + 1] - first,
            out=chunk,
        )
        chunk += first
    return positions


def packed_keys(high, low):
    """uint64 keys of two uint32 arrays: ``high`` in the high bits, ``low`` below."""
    keys = np.empty(np.shape(high), dtype=np.uint64)
    halves = keys.view(np.uint32)
    halves[_HIGH_HALF::2] = high
    halves[1 - _HIGH_HALF :: 2] = low
    return keys


class BinWiseMinMaxHasher(MinMaxHasher):
    """MinMaxHasher whose samples are bin-wise CWS (one ICWS per bin).

    A 0-bit scheme (it draws the coordinates only): ``codes="0bit"``.
    """

    def _make_map(self, X):
        if self.codes != "0bit":
            raise ValueError("BinWiseMinMaxHasher draws coordinates only: codes='0bit'.")
        return BinWiseCodesMap(
            None if self.random_state is None else self.random_state + 1,
            self.n_components, X.shape[1], b_bits=self.b_bits, codes=self.codes,
            kernel=self.kernel,
        )


class BinWiseCodesMap(DartCodesMap):
    """MinMaxHasher's map with the bins' ICWS samples in place of the darts."""

    def __init__(self, bin_seed, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.bin_seed = bin_seed

    def draw(self, random_state, X):
        super().draw(random_state, X)
        random_state = check_random_state(self.bin_seed)
        self.bin_hash = draw_multiply_shift(random_state, 1)[0]
        self.probe_coefficients = draw_polynomial_hashes(
            random_state, 1, PROBE_HASH_INDEPENDENCE
        )[0]

    def fitted_attributes(self):
        return {
            **super().fitted_attributes(),
            "bin_hash_": self.bin_hash,
            "probe_coefficients_": self.probe_coefficients,
        }

    def positions(self, keys, weights, indptr):
        k = self.n_components
        tables = densification_tables(self.probe_coefficients, k)

        def fill(features, data, chunk_indptr, out):
            bin_hashes = minwise_hashes(self.bin_hash[None], features)[0]
            sort_keys = self._sort_keys(features, data, chunk_indptr)
            out[...] = binned_positions(bin_hashes, sort_keys, chunk_indptr, tables)

        return positions_by_chunks(
            keys, weights, indptr, k, fill, max_rows=max(1, OPH_TABLE_BYTES // (8 * k))
        )

    def _sort_keys(self, features, data, indptr):
        """ICWS ``ln a`` of every entry (one hash), minus its row's largest ``ln x``.

        Compared as float32, order-preserving in the high 32 bits; the
        entry's position in the low ones.
        """
        lengths = np.diff(indptr)
        log_x = np.log(data)
        peaks = np.maximum.reduceat(log_x, indptr[:-1][lengths > 0])
        ln_a = np.repeat(peaks, lengths[lengths > 0]) - log_x
        r, ln_c, beta = (v.astype(data.dtype) for v in icws_variables(self.hash_seed, features))
        y = log_x / r + beta
        ln_a += (y - np.floor(y)) * r + ln_c - r
        bits = ln_a.astype(np.float32).view(np.int32)
        bits ^= (bits >> 31) & np.int32(0x7FFFFFFF)
        ordered = bits.view(np.uint32) ^ np.uint32(0x80000000)
        return packed_keys(ordered, np.arange(ordered.size, dtype=np.uint32))


def speed(data_home, repeats):
    X, _ = fetch_20newsgroups_counts(data_home, subset="train", return_X_y=True)
    X = X.astype(np.float64)
    print(f"20 Newsgroups counts: {X.shape[0]} rows x {X.shape[1]}, {X.nnz} nonzeros, "
          f"k = 128, medians of {repeats} repeats")
    models = {
        "bin-wise CWS": BinWiseMinMaxHasher(128, codes="0bit", random_state=0),
        "MinMaxHasher (0-bit DartMinHash)": MinMaxHasher(128, codes="0bit", random_state=0),
        "CoREHasher(oph, core1)": CoREHasher(128, hashing="oph", random_state=0),
    }
    for model in models.values():
        model.fit(X)
    functions = {name: (lambda m=m: m.transform(X)) for name, m in models.items()}
    clock = ("wall", "cpu")
    times = median_times(functions, repeats, clock)
    print("\nratio = row / CoREHasher's")
    print_table("Transform time", times, "CoREHasher(oph, core1)", clock=clock)


def kernel_error(data_home):
    X, _ = fetch_sector(data_home, subset="train", values="tfidf", return_X_y=True)
    X = X[:600:20]
    K = min_max_kernel(X)
    off = ~np.eye(X.shape[0], dtype=bool)
    print(f"\nSector tf-idf, {X.shape[0]} rows ({X.nnz / X.shape[0]:.0f} nonzeros a row): "
          "agreeing samples minus the min-max kernel, off the diagonal")
    print(f"{'k':>5s} {'scheme':>14s} {'mean':>8s} {'largest':>8s} {'correlation':>12s}")
    for k in (64, 256, 1024, 4096):
        for name, cls in (("DartMinHash", MinMaxHasher), ("bin-wise CWS", BinWiseMinMaxHasher)):
            codes = cls(k, b_bits=None, codes="0bit", random_state=1).fit_transform(X).indices
            codes = codes.reshape(X.shape[0], k)
            agree = (codes[:, None, :] == codes[None, :, :]).mean(axis=2)
            diff = (agree - K)[off]
            corr = np.corrcoef(agree[off], K[off])[0, 1]
            print(f"{k:5d} {name:>14s} {diff.mean():8.4f} {np.abs(diff).max():8.4f} "
                  f"{corr:12.4f}")


def accuracy():
    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, random_state=0)
    print("\nDigits (898 / 899), LinearSVC(C=1) test accuracy (%)")
    print(f"{'k':>5s} {'Dart':>8s} {'bin-wise CWS':>13s}")
    for k in (64, 256, 1024):
        scores = []
        for cls in (MinMaxHasher, BinWiseMinMaxHasher):
            hasher = cls(k, codes="0bit", random_state=0).fit(X_train)
            model = LinearSVC(C=1.0).fit(hasher.transform(X_train), y_train)
            scores.append(100 * model.score(hasher.transform(X_test), y_test))
        print(f"{k:5d} {scores[0]:8.2f} {scores[1]:13.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    start = time.perf_counter()
    speed(args.data_home, args.repeats)
    kernel_error(args.data_home)
    accuracy()
    print(f"\n{time.perf_counter() - start:.0f} s in all")


if __name__ == "__main__":
    main()
