"""
===============================================================
Min-max kernel: hashed features (CWS) vs CoRE hashing vs exact
===============================================================

The min-max kernel ``sum_i min(x_i, y_i) / sum_i max(x_i, y_i)`` of
nonnegative data, linearized by :class:`~sklearn_sketch.MinMaxHasher`
(consistent weighted sampling: the full samples by default, Li's 0-bit
scheme with ``--codes 0bit``, both with ``--codes full 0bit``): LinearSVC on its sparse features for
growing ``k``, beside LinearSVC on the raw features,
:class:`~sklearn_sketch.CoREHasher` (type 1, one-permutation hashing) at the
same ``k``, and the exact min-max kernel in ``SVC(kernel="precomputed")``
(:func:`sklearn_sketch.metrics.min_max_kernel`). Each model reports its best
test accuracy over a grid of C.

By default (and with ``--quick``) it runs in seconds on scikit-learn's
digits (no download) and draws accuracy against ``k``. ``--full`` runs the
table of the real data sets (``--datasets``, default mnist10k, sector counts
and tf-idf, 20 Newsgroups, a9a; ``--ks`` 256 1024 4096; ``--no-exact`` skips
the exact kernel, which costs ``O(n_train * n_test)`` l1 distances). MNIST10k
trains on the 10000 t10k images and tests on the 60000 training images
(``--test-size`` cuts the test set, ``--train-size`` the training set, to
their first rows; ``--Cs`` sets LinearSVC's grid; ``--hashers`` picks the
hashed features, ``--no-raw`` skips the raw features, ``--codes`` the
codes of MinMaxHasher).

Run::

    python scripts/min_max_svm_table.py [--quick] [--output-dir DIR]
    python scripts/min_max_svm_table.py --full [--data-home DIR]
        [--datasets mnist10k sector_counts sector_tfidf news20 a9a]
        [--ks 256 1024 4096] [--test-size N] [--train-size N] [--Cs 0.1 1 10]
        [--no-exact] [--no-raw] [--hashers [minmax] [core]] [--codes full 0bit]
"""

import time

import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC, LinearSVC

from sklearn_sketch import CoREHasher, MinMaxHasher
from sklearn_sketch.datasets import (
    fetch_20newsgroups_counts,
    fetch_a9a,
    fetch_mnist,
    fetch_sector,
)
from sklearn_sketch.metrics import min_max_kernel

from _common import data_home_and_output_dir, parse_settings, script_parser


def load(name, data_home, test_size, train_size=None):
    """Train and test splits of a data set, as float32 CSR (digits: dense)."""
    if name == "digits":
        X, y = load_digits(return_X_y=True)
        return train_test_split(X.astype(np.float32), y, test_size=0.5, random_state=0)
    fetch, options, subsets = fetch_a9a, {}, ("train", "test")
    if name == "mnist10k":  # trains on the 10000 t10k images
        fetch, subsets = fetch_mnist, ("test", "train")
    elif name.startswith("sector"):
        fetch, options = fetch_sector, {"values": name.split("_")[1]}
    elif name == "news20":
        fetch = fetch_20newsgroups_counts
    (X_train, y_train), (X_test, y_test) = (
        fetch(data_home, subset=subset, return_X_y=True, **options) for subset in subsets
    )
    X_train, X_test = (sp.csr_matrix(A, dtype=np.float32) for A in (X_train, X_test))
    if test_size:
        X_test, y_test = X_test[:test_size], y_test[:test_size]
    if train_size:
        X_train, y_train = X_train[:train_size], y_train[:train_size]
    return X_train, X_test, y_train, y_test


def best_linear(X_train, y_train, X_test, y_test, Cs):
    scores = []
    for C in Cs:
        model = LinearSVC(C=C, max_iter=5000, random_state=0).fit(X_train, y_train)
        scores.append(100 * model.score(X_test, y_test))
    return max(scores)


def best_exact(X_train, y_train, X_test, y_test, Cs):
    K_train = min_max_kernel(X_train)
    models = [SVC(kernel="precomputed", C=C).fit(K_train, y_train) for C in Cs]
    del K_train
    correct = np.zeros(len(Cs))
    for start in range(0, X_test.shape[0], 5000):  # bounded test kernel blocks
        K_test = min_max_kernel(X_test[start : start + 5000], X_train)
        y_block = y_test[start : start + 5000]
        correct += [np.sum(model.predict(K_test) == y_block) for model in models]
    return 100 * correct.max() / X_test.shape[0]


# The hashed features compared, by their --hashers name (MinMaxHasher once
# per --codes).
HASHERS = {
    "minmax": ("MinMaxHasher", lambda k, codes: MinMaxHasher(k, codes=codes, random_state=0)),
    "core": ("CoREHasher(core1, oph)", lambda k: CoREHasher(k, hashing="oph", random_state=0)),
}


def hashers(args):
    """``(label, make)`` of each hashed model of the run; ``make(k)`` an estimator."""
    chosen = []
    for name in args.hashers:
        label, make = HASHERS[name]
        if name != "minmax":
            chosen.append((label, make))
            continue
        for codes in args.codes:
            suffix = "" if codes == "full" else f"({codes})"
            chosen.append((label + suffix, lambda k, make=make, codes=codes: make(k, codes)))
    return chosen


def run(name, data_home, args, record):
    X_train, X_test, y_train, y_test = load(name, data_home, args.test_size, args.train_size)
    print(f"\n{name}: train {X_train.shape}, test {X_test.shape}", flush=True)
    Cs = args.Cs or ([0.1, 1.0, 10.0] if args.full else [1.0])
    if not args.no_raw:
        t = time.perf_counter()
        record(name, "LinearSVC, raw features", None,
               best_linear(X_train, y_train, X_test, y_test, Cs), time.perf_counter() - t)
    if not args.no_exact:
        t = time.perf_counter()
        record(name, "min-max kernel, exact SVC", None,
               best_exact(X_train, y_train, X_test, y_test, [1.0, 10.0, 100.0]),
               time.perf_counter() - t)
    for label, make in hashers(args):
        for k in args.ks:
            t = time.perf_counter()
            hasher = make(k).fit(X_train)
            accuracy = best_linear(hasher.transform(X_train), y_train,
                                   hasher.transform(X_test), y_test, Cs)
            record(name, label, k, accuracy, time.perf_counter() - t)


def plot(rows, datasets, path):
    fig, axes = plt.subplots(len(datasets), 1, figsize=(9, 5 * len(datasets)), squeeze=False)
    for ax, name in zip(axes[:, 0], datasets):
        mine = [r for r in rows if r["dataset"] == name]
        for model, style in (("MinMaxHasher", "o-"), ("MinMaxHasher(0bit)", "^-"),
                             ("CoREHasher(core1, oph)", "s--")):
            points = [(r["k"], r["accuracy"]) for r in mine if r["model"] == model]
            if points:
                ax.plot(*zip(*points), style, label=f"{model} + LinearSVC")
        baselines = (("min-max kernel, exact SVC", "r:"), ("LinearSVC, raw features", "k-."))
        for model, style in baselines:
            for r in mine:
                if r["model"] == model:
                    ax.axhline(r["accuracy"], ls=style[1:], color=style[0], label=model)
        ax.set_xscale("log", base=2)
        ax.set(xlabel="k (number of hashes)", ylabel="test accuracy (%)", title=name)
        ax.legend(fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


# %%
# Settings
# --------
# By default and with ``--quick`` (also in a notebook): scikit-learn's
# digits split in halves, k = 16, 64, 256 and C = 1. ``--full``: the real data
# sets' table, k = 256, 1024, 4096 and a grid of C. The other flags pick one
# cell of the table.

parser = script_parser("Min-max kernel: hashed features (CWS) vs CoRE hashing vs exact.")
parser.add_argument("--full", action="store_true", help="the real data sets' table")
parser.add_argument("--datasets", nargs="+", default=None,
                    help="default: digits; with --full mnist10k sector_counts "
                    "sector_tfidf news20 a9a")
parser.add_argument("--ks", type=int, nargs="+", default=None,
                    help="numbers of hashes k (default 16 64 256; 256 1024 4096 with --full)")
parser.add_argument("--test-size", type=int, default=None, help="cut the test set to N rows")
parser.add_argument("--train-size", type=int, help="cut the training set to its first N rows")
parser.add_argument("--Cs", type=float, nargs="+", default=None,
                    help="LinearSVC's grid of C (default 0.1 1 10 with --full, else 1)")
parser.add_argument("--no-exact", action="store_true", help="skip the exact kernel SVM")
parser.add_argument("--no-raw", action="store_true", help="skip LinearSVC on the raw features")
parser.add_argument("--hashers", nargs="*", choices=sorted(HASHERS), default=["minmax", "core"],
                    help="hashed features to compare (default: both; none: exact and raw only)")
parser.add_argument("--codes", nargs="+", choices=["full", "0bit"], default=["full"],
                    help="MinMaxHasher's codes, one model each (default: full)")
args = parse_settings(parser)
data_home, out = data_home_and_output_dir(args)
if args.quick:
    args.full = False
if args.datasets is None:
    args.datasets = (["mnist10k", "sector_counts", "sector_tfidf", "news20", "a9a"]
                     if args.full else ["digits"])
args.ks = args.ks or ([256, 1024, 4096] if args.full else [16, 64, 256])

# %%
# The models
# ----------
# For each data set: LinearSVC on the raw features, the exact min-max kernel
# in ``SVC(kernel="precomputed")``, then each hasher at each k followed by
# LinearSVC. Each line gives the best test accuracy over C and the seconds
# spent, with the run's progress.

rows = []
n_cells = len(args.datasets) * (
    (not args.no_raw) + (not args.no_exact) + len(hashers(args)) * len(args.ks)
)
start = time.perf_counter()


def record(dataset, model, k, accuracy, seconds):
    """Keep one cell of the table and print it with the run's progress."""
    rows.append({"dataset": dataset, "model": model, "k": k,
                 "accuracy": round(accuracy, 2), "seconds": round(seconds, 1)})
    label = model if k is None else f"{model}, k={k}"
    elapsed = time.perf_counter() - start
    left = elapsed / len(rows) * (n_cells - len(rows))
    print(f"[{len(rows)}/{n_cells}] {dataset}: {label:36s} {accuracy:6.2f} {seconds:7.1f} s "
          f"(elapsed {elapsed:.0f} s, about {left:.0f} s left)", flush=True)


for name in args.datasets:
    run(name, data_home, args, record)

# %%
# Accuracy against k
# ------------------
# One panel per data set: the hashed features' test accuracy against the
# number of hashes k, the exact min-max kernel SVC and LinearSVC on the raw
# features as horizontal lines. On the digits both hashers climb past the
# raw features as k grows and approach the exact kernel; at small k the
# min-max hashes lose less than CoRE's on some data sets and more on others
# (the Benchmarks page has the real data sets' table).

plot(rows, args.datasets, out / "min_max_svm_table.png")

# %%
# The table
# ---------

csv = [",".join(rows[0])] + [",".join(str(value) for value in r.values()) for r in rows]
(out / "min_max_svm_table.csv").write_text("\n".join(csv) + "\n")
lines = ["| dataset | model | k | accuracy (%) | seconds |", "|---|---|---|---|---|"]
lines += [f"| {r['dataset']} | {r['model']} | {r['k'] or ''} | {r['accuracy']:.2f} | "
          f"{r['seconds']} |" for r in rows]
(out / "min_max_svm_table.md").write_text("\n".join(lines) + "\n")
print("\n".join(lines))
print(f"\nWrote {out / 'min_max_svm_table.md'}, .csv and .png")
