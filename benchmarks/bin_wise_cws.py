"""Bin-wise consistent weighted sampling: fast, but not the min-max kernel.

Ioffe's ICWS hashes every stored entry with every one of its ``k`` hashes,
``O(nnz k)``, where CoREHasher's one-permutation hashing costs
``O(nnz + k)`` (MinMaxHasher's DartMinHash ``O(nnz + k log k)``). Bin-wise
CWS (Li, Li and Zhang, NeurIPS 2019) carries OPH over to weighted data: one
hash splits the features into ``k`` bins, every feature has one set of ICWS
variables, the sample of a bin is the ICWS sample of the row restricted to
it, and empty bins borrow by optimal densification. This script builds it
on its own, with the public interface of MinMaxHasher (a compiled loop over
rows; SplitMix64 hashes of the features for the bins and the ICWS
variables; random probe sequences for the densification), and measures
what it would give:

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
import time

import numba
import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.svm import LinearSVC
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_array, check_is_fitted, check_non_negative

# The script's folder; importing it puts this source tree first on sys.path.
from _bench import median_times, print_table

from sklearn_sketch import CoREHasher, MinMaxHasher
from sklearn_sketch.datasets import fetch_20newsgroups_counts, fetch_sector
from sklearn_sketch.metrics import min_max_kernel

# Densification probes per empty bin before the circular fallback.
MAX_PROBES = 256

# SplitMix64 (Steele, Lea and Flood 2014): output n of the stream of seed s
# is mix64(s + (n + 1) * golden_gamma).
_GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_LOW_HALF = np.uint64(0xFFFFFFFF)
_U27, _U30, _U31, _U32 = np.uint64(27), np.uint64(30), np.uint64(31), np.uint64(32)


@numba.njit(nogil=True, cache=False)
def _mix64(z):
    z = (z ^ (z >> _U30)) * _M1
    z = (z ^ (z >> _U27)) * _M2
    return z ^ (z >> _U31)


@numba.njit(nogil=True, cache=False)
def _gamma2(word):
    """``-ln(u v)``, Gamma(2, 1), of the uniforms ``(h + 1/2) 2**-32`` of a word's halves."""
    low = (np.float64(word & _LOW_HALF) + 0.5) * 2.0**-32
    high = (np.float64(word >> _U32) + 0.5) * 2.0**-32
    return -np.log(low * high)


@numba.njit(nogil=True, cache=False)
def _icws_key(feature, log_x, seeds):
    """Ioffe's ``ln a`` of one entry; the bin's sample is its entry of least ``ln a``.

    ``r, c ~ Gamma(2, 1)``, ``beta ~ U[0, 1)`` of the feature (outputs of
    three streams); ``t = floor(ln x / r + beta)``, ``ln a = ln c - r (t -
    beta) - r``.
    """
    counter = (feature + np.uint64(1)) * _GOLDEN_GAMMA
    r = _gamma2(_mix64(counter + seeds[0]))
    ln_c = np.log(_gamma2(_mix64(counter + seeds[1])))
    beta = np.float64(_mix64(counter + seeds[2]) & _LOW_HALF) * 2.0**-32
    y = log_x / r + beta
    return ln_c - r * (np.floor(y) - beta) - r


@numba.njit(nogil=True, cache=False)
def _densified(sample, probes, j):
    """The sample of bin ``j``: its own, else that of the first filled bin it probes."""
    if sample[j] >= 0:
        return sample[j]
    for t in range(probes.shape[1]):
        if sample[probes[j, t]] >= 0:
            return sample[probes[j, t]]
    k = sample.size
    for step in range(1, k):
        if sample[(j + step) % k] >= 0:
            return sample[(j + step) % k]
    return -1


@numba.njit(nogil=True, cache=False)
def _bin_wise_rows(indices, data, indptr, seeds, probes, out):
    """The sampled feature of every bin of every nonempty row, into ``out``."""
    k = out.shape[1]
    best = np.empty(k)
    sample = np.empty(k, dtype=np.int64)
    row_out = 0
    for row in range(indptr.size - 1):
        if indptr[row] == indptr[row + 1]:
            continue
        best[:] = np.inf
        sample[:] = -1
        for p in range(indptr[row], indptr[row + 1]):
            feature = np.uint64(indices[p])
            bin_hash = _mix64(feature * _GOLDEN_GAMMA + seeds[3]) >> _U32
            j = (bin_hash * np.uint64(k)) >> _U32
            key = _icws_key(feature, np.log(data[p]), seeds)
            if key < best[j]:
                best[j] = key
                sample[j] = indices[p]
        for j in range(k):
            out[row_out, j] = _densified(sample, probes, j)
        row_out += 1


def _uniform_words(random_state, shape):
    """Uniform 64-bit words (uint64), each from two 32-bit draws."""
    halves = random_state.randint(0, 2**32, size=(*np.atleast_1d(shape), 2))
    halves = halves.astype(np.uint64)
    return (halves[..., 0] << _U32) | halves[..., 1]


class BinWiseMinMaxHasher(TransformerMixin, BaseEstimator):
    """Bin-wise CWS features, in the output format of MinMaxHasher.

    A 0-bit scheme (it draws the coordinates only): ``codes="0bit"``. The
    output row has one block per bin with a single nonzero ``1 / sqrt(k)``
    at the b-bit code of the bin's sampled feature (``b_bits=None``: the
    feature itself, blocks ``n_features_in_`` wide); all-zero rows stay
    empty.
    """

    def __init__(self, n_components=256, *, b_bits=8, codes="0bit", random_state=None):
        self.n_components = n_components
        self.b_bits = b_bits
        self.codes = codes
        self.random_state = random_state

    def fit(self, X, y=None):
        """Draw the hashes' keys, the probe sequences and the code hashes."""
        if self.codes != "0bit":
            raise ValueError("BinWiseMinMaxHasher draws coordinates only: codes='0bit'.")
        X = self._validated(X, reset=True)
        k = self.n_components
        random_state = check_random_state(self.random_state)
        self.seeds_ = _uniform_words(random_state, 4)
        self.probes_ = random_state.randint(0, k, size=(k, min(k, MAX_PROBES)))
        self.code_coefficients_ = _uniform_words(random_state, (k, 2))
        return self

    def _validated(self, X, reset):
        X = check_array(X, accept_sparse="csr", dtype=[np.float64, np.float32])
        X = sp.csr_matrix(X)
        X.sum_duplicates()
        X.eliminate_zeros()
        check_non_negative(X, "BinWiseMinMaxHasher")
        if reset:
            self.n_features_in_ = X.shape[1]
        elif X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, not {self.n_features_in_}.")
        return X

    def transform(self, X):
        """One b-bit code (or feature) per bin and nonempty row, as sparse features."""
        check_is_fitted(self)
        X = self._validated(X, reset=False)
        k = self.n_components
        lengths = np.diff(X.indptr)
        features = np.empty((np.count_nonzero(lengths), k), dtype=np.int64)
        _bin_wise_rows(
            X.indices.astype(np.int64), X.data.astype(np.float64),
            X.indptr.astype(np.int64), self.seeds_, self.probes_, features,
        )
        width = self.n_features_in_ if self.b_bits is None else 2**self.b_bits
        codes = features if self.b_bits is None else self._bbit_codes(features)
        codes += np.arange(k) * width
        indptr = np.concatenate([[0], np.cumsum(np.where(lengths > 0, k, 0))])
        values = np.full(codes.size, 1.0 / np.sqrt(k), dtype=X.dtype)
        return sp.csr_matrix((values, codes.ravel(), indptr), shape=(X.shape[0], k * width))

    def _bbit_codes(self, features):
        """Multiply-add-shift ``((a_j f + b_j) mod 2**64) >> (64 - b)`` of bin ``j``'s feature."""
        a, b = self.code_coefficients_.T
        codes = features.astype(np.uint64) * a + b
        return (codes >> np.uint64(64 - self.b_bits)).astype(np.int64)


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
        model.transform(X[:10])  # compiles (or loads) the kernels before timing
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
