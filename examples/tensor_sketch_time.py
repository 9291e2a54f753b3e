"""
===========================================================
TensorSketch's time against the rows: Pham & Pagh's setting
===========================================================

The time of ``fit_transform`` on a growing number of rows, at the sketch
size D of Pham & Pagh's Table 1 (the previous example,
``pham_pagh_table1.py``) and for their kernel ``(1 + <x,y>)^2``:
``TensorSketch`` beside scikit-learn's ``PolynomialCountSketch`` (the same
sketch) and ``Nystroem(kernel="poly")``, each the best of 3 runs. The
sketches' time grows linearly with the rows.

Data: MNIST (60000 x 784, D = 1000) and Adult (a9a, 32561 x 123, D = 200)
from ``--data-home``; without them (a fresh clone) scikit-learn's bundled
digits (1797 x 64, D = 1000). ``--quick`` (used by the documentation build)
takes 500 training rows; drop it for the whole training sets. Run
``python examples/tensor_sketch_time.py --help`` for the options.
"""

import argparse
import os
import sys
import time
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.kernel_approximation import Nystroem, PolynomialCountSketch
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import normalize

from sklearn_sketch import TensorSketch
from sklearn_sketch.datasets import fetch_a9a, fetch_mnist, get_data_home


# %%
# Command line and data
# ---------------------
# ``--quick`` selects the small settings this page shows (also in a
# notebook); ``--data-home`` names the folder of the real data sets (default
# ``$SKLEARN_SKETCH_DATA``, see :func:`sklearn_sketch.datasets.get_data_home`),
# without which the example runs on stand-in data and says so;
# ``--download`` fetches them instead; ``--output-dir`` gets the results.

HERE = Path(globals().get("__file__", "example.py")).resolve().parent
# In a checkout of the project, the prepared data sets sit beside it.
SHARED_DATA_HOME = HERE.parent.parent / "shared" / "datasets"
DOWNLOAD = False  # set from --download


def example_parser(description):
    """An argument parser with the options every example accepts."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="small settings: seconds")
    parser.add_argument("--data-home", default=None, help="folder of the real data sets")
    parser.add_argument("--download", action="store_true", help="fetch missing data sets")
    parser.add_argument("--output-dir", default=str(HERE / "output"), help="for the results")
    return parser


def parse_settings(parser, argv=None):
    """The settings; in a notebook, whose kernel passes ``-f ...`` (ignored), the quick ones."""
    global DOWNLOAD
    args, _ = parser.parse_known_args(argv)
    args.quick = args.quick or "ipykernel" in sys.modules
    DOWNLOAD = args.download
    return args


def data_home_and_output_dir(args):
    """``--data-home``, else ``$SKLEARN_SKETCH_DATA``, else the folder beside a
    checkout, else the fetchers' default; and the output folder, made."""
    unset = args.data_home is None and not os.environ.get("SKLEARN_SKETCH_DATA")
    use_shared = unset and SHARED_DATA_HOME.is_dir()
    data_home = SHARED_DATA_HOME if use_shared else get_data_home(args.data_home)
    Path(args.output_dir).mkdir(parents=True, exist_ok=True)
    return data_home, Path(args.output_dir)


# %%
# The data and the methods
# ------------------------

# Sketch sizes of the paper (and ours on the digits).
PAPER_N_COMPONENTS = {"mnist": 1000, "a9a": 200, "digits": 1000}
TITLES = {"mnist": "MNIST", "a9a": "Adult (a9a)", "digits": "Digits (bundled with scikit-learn)"}


def training_rows(name, data_home, n_max=None, seed=0):
    """The training rows of MNIST, a9a or the digits (the stand-in, scaled to
    [0, 1]), optionally ``n_max`` random ones."""
    if name == "digits":
        X, y = load_digits(return_X_y=True)
        X = train_test_split(
            (X / 16.0).astype(np.float32), y, test_size=0.3, stratify=y, random_state=0)[0]
    else:
        fetch = fetch_mnist if name == "mnist" else fetch_a9a
        X = fetch(data_home, subset="train", return_X_y=True)[0]
    if n_max is not None:
        X = X[np.random.RandomState(seed).permutation(X.shape[0])[:n_max]]
    return X


def seconds_against_rows(X, row_counts, degree, coef0, n_components):
    """Best-of-3 seconds of fit_transform on the first n rows, for each method."""
    X = normalize(X)
    # Nystroem cannot have more components than the smallest row count.
    n_nystroem = min(n_components, row_counts[0])
    poly = dict(degree=degree, gamma=1.0, coef0=coef0, random_state=0)
    methods = {
        "TensorSketch": lambda: TensorSketch(
            n_components, degree=degree, coef0=coef0, random_state=0),
        "PolynomialCountSketch (scikit-learn)": lambda: PolynomialCountSketch(
            n_components=n_components, **poly),
        f"Nystroem, poly, {n_nystroem} components (scikit-learn)": lambda: Nystroem(
            kernel="poly", n_components=n_nystroem, **poly),
    }
    seconds = {name: [] for name in methods}
    for n in row_counts:
        for name, make in methods.items():
            times = []
            for _ in range(3):
                start = time.perf_counter()
                make().fit_transform(X[:n])
                times.append(time.perf_counter() - start)
            seconds[name].append(min(times))
    return seconds


# %%
# Settings
# --------
# ``--quick`` (this page, a notebook): 500 training rows of each data set.
# Without it: the whole training sets. ``--datasets`` picks the data sets.

parser = example_parser("TensorSketch's time against the rows, at Pham & Pagh's D.")
parser.add_argument("--datasets", nargs="+", default=None, choices=["mnist", "a9a", "digits"],
                    help="default: mnist a9a (those present in --data-home), else digits")
args = parse_settings(parser)
data_home, output_dir = data_home_and_output_dir(args)
present = [name for name in ("mnist", "a9a") if DOWNLOAD or Path(data_home, name).is_dir()]
if not (args.datasets or present):
    print(f"No MNIST or a9a in {data_home}: running on the digits bundled with scikit-learn.")
datasets = args.datasets or present or ["digits"]
degree, coef0 = 2, 1.0  # the kernel (1+<x,y>)^2

# %%
# Time against the rows
# ---------------------
# One panel per data set, log-log: the seconds of ``fit_transform`` on an
# eighth, a quarter, a half and all of the rows. TensorSketch and its
# scikit-learn twin ``PolynomialCountSketch`` grow linearly with the rows.

fig, axes = plt.subplots(len(datasets), 1, figsize=(9, 4.5 * len(datasets)), squeeze=False)
for ax, name in zip(axes[:, 0], datasets):
    X = training_rows(name, data_home, 500 if args.quick else None)
    D = PAPER_N_COMPONENTS[name]
    row_counts = [X.shape[0] // 8, X.shape[0] // 4, X.shape[0] // 2, X.shape[0]]
    for method, values in seconds_against_rows(X, row_counts, degree, coef0, D).items():
        print(f"{name}, {method}: " + ", ".join(
            f"{n} rows {s:.3f} s" for n, s in zip(row_counts, values)))
        ax.plot(row_counts, values, "o-", label=method)
    ax.set(xscale="log", yscale="log", xlabel="rows", ylabel="fit_transform seconds",
           title=f"{TITLES[name]}: D = {D}")
    ax.legend(fontsize=9)
fig.tight_layout()
fig.savefig(output_dir / "pham_pagh_time.png", dpi=100)
