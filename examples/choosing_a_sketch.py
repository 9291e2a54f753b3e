"""
=================================================
Choosing a sketch: error, accuracy and time
=================================================

For each kernel family, every estimator that approximates it is fitted at
several sizes on the same data and measured three ways:

* the relative error of the approximate Gram matrix,
  :math:`\\|Z Z^\\top - K\\|_F / \\|K\\|_F`, on held-out rows;
* the test accuracy of :class:`~sklearn.svm.LinearSVC` on the features;
* the time of ``transform`` on the training rows.

The families are the polynomial kernel :math:`(\\langle x, y\\rangle + 1)^3`
(normalized rows), the RBF kernel (``gamma`` from the median heuristic) and
the min-max kernel of nonnegative data. The user guide's
:doc:`/user_guide/choosing` reads the figures and gives the decision table.

The quick settings (this page, a notebook, ``--quick``) use scikit-learn's
digits; from the command line without ``--quick`` the example runs on 10000
MNIST training rows when the data set is in the data folder.
"""

# sphinx_gallery_multi_image = "single"

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.kernel_approximation import Nystroem, PolynomialCountSketch, RBFSampler
from sklearn.metrics.pairwise import euclidean_distances, polynomial_kernel, rbf_kernel
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import normalize
from sklearn.svm import LinearSVC

from sklearn_sketch import (
    ComplexToRealSketch,
    MaclaurinSketch,
    MinMaxHasher,
    OrthogonalRBFSampler,
    PolynomialTreeSketch,
    TensorSketch,
    TensorSRHT,
)
from sklearn_sketch.datasets import fetch_mnist, get_data_home
from sklearn_sketch.metrics import min_max_kernel

# %%
# Settings and data
# -----------------
# ``--quick`` (and a notebook) use the digits and three sizes; otherwise
# MNIST, when present in the data folder (``--data-home``, else
# ``$SKLEARN_SKETCH_DATA``), and five sizes.

parser = argparse.ArgumentParser(description="Error, accuracy and time of every sketch.")
parser.add_argument("--quick", action="store_true", help="digits, three sizes: seconds")
parser.add_argument("--data-home", default=None, help="folder of the real data sets")
parser.add_argument("--output-dir", default="output", help="where the figure is written")
# A notebook's kernel passes arguments of its own (-f ...): they are ignored.
args, _ = parser.parse_known_args()
quick = args.quick or "ipykernel" in sys.modules
data_home = args.data_home or os.environ.get("SKLEARN_SKETCH_DATA")
use_mnist = not quick and data_home is not None and Path(data_home, "mnist").is_dir()

if use_mnist:
    X, y = fetch_mnist(get_data_home(data_home), subset="train", return_X_y=True)
    X, y = X[:12000], y[:12000]
    dataset = "MNIST (10000 training rows)"
else:
    X, y = load_digits(return_X_y=True)
    X = (X / 16.0).astype(np.float32)
    dataset = "digits"
X_train, X_test, y_train, y_test = train_test_split(
    X, y, test_size=2000 if use_mnist else 0.3, stratify=y, random_state=0
)
sizes = [64, 256, 1024] if quick else [64, 256, 1024, 4096, 8192]
n_error = min(500, X_test.shape[0])  # rows of the Gram matrix compared
print(f"{dataset}: {X_train.shape[0]} training rows, sizes {sizes}")

# %%
# The families and their estimators
# ---------------------------------
# Each entry builds the estimator at a size; each family names its exact
# kernel and the preprocessing its estimators expect.

degree = 3
gamma = 1.0 / np.median(euclidean_distances(X_train[:500], squared=True))
poly = dict(degree=degree, gamma=1.0, coef0=1.0)
families = {
    "polynomial (<x,y>+1)^3": dict(
        prepare=normalize,
        kernel=lambda A, B: polynomial_kernel(A, B, **poly),
        estimators={
            "PolynomialCountSketch": lambda n: PolynomialCountSketch(n_components=n, **poly),
            "TensorSketch": lambda n: TensorSketch(n_components=n, **poly),
            "TensorSRHT": lambda n: TensorSRHT(n_components=n, **poly),
            "ComplexToRealSketch": lambda n: ComplexToRealSketch(n_components=n, **poly),
            "PolynomialTreeSketch": lambda n: PolynomialTreeSketch(n_components=n, **poly),
            "MaclaurinSketch": lambda n: MaclaurinSketch(n_components=n, **poly),
        },
    ),
    "RBF": dict(
        prepare=lambda A: A,
        kernel=lambda A, B: rbf_kernel(A, B, gamma=gamma),
        estimators={
            "RBFSampler": lambda n: RBFSampler(n_components=n, gamma=gamma),
            "Nystroem": lambda n: Nystroem(n_components=n, gamma=gamma),
            "OrthogonalRBFSampler(orf)": lambda n: OrthogonalRBFSampler(
                n_components=n, gamma=gamma, method="orf"
            ),
            "OrthogonalRBFSampler(sorf)": lambda n: OrthogonalRBFSampler(
                n_components=n, gamma=gamma, method="sorf"
            ),
            "OrthogonalRBFSampler(fastfood)": lambda n: OrthogonalRBFSampler(
                n_components=n, gamma=gamma, method="fastfood"
            ),
        },
    ),
    "min-max": dict(
        prepare=lambda A: A,
        kernel=min_max_kernel,
        estimators={
            "MinMaxHasher": lambda n: MinMaxHasher(n_components=n),
            "MinMaxHasher(0bit)": lambda n: MinMaxHasher(n_components=n, codes="0bit"),
        },
    ),
}


# %%
# Measuring one cell
# ------------------
# A cell is one estimator at one size. Nystroem cannot have more components
# than training rows; such cells are skipped.


def measure(family, make, n_components, data):
    A_train, A_test, K_test = data
    if n_components > A_train.shape[0]:
        return None
    estimator = make(n_components).set_params(random_state=0)
    estimator.fit(A_train)
    seconds = np.inf
    for _ in range(3):  # best of three: one timing on a busy machine is noise
        start = time.perf_counter()
        Z_train = estimator.transform(A_train)
        seconds = min(seconds, time.perf_counter() - start)
    Z_test = estimator.transform(A_test)
    Z = Z_test[:n_error]
    K_hat = Z @ Z.T
    K_hat = K_hat.toarray() if hasattr(K_hat, "toarray") else K_hat
    error = np.linalg.norm(K_hat - K_test) / np.linalg.norm(K_test)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = LinearSVC(C=1.0, dual="auto", max_iter=2000, random_state=0).fit(Z_train, y_train)
    return dict(error=error, accuracy=100 * model.score(Z_test, y_test), seconds=seconds)


# %%
# The measurements
# ----------------
# Each cell prints its place in the run, the time spent and an estimate of the
# time left.

n_cells = sum(len(f["estimators"]) for f in families.values()) * len(sizes)
results, done, start = {}, 0, time.perf_counter()
for family_name, family in families.items():
    A_train, A_test = family["prepare"](X_train), family["prepare"](X_test)
    K_test = family["kernel"](A_test[:n_error], A_test[:n_error])
    for name, make in family["estimators"].items():
        for n_components in sizes:
            cell = measure(family_name, make, n_components, (A_train, A_test, K_test))
            results[family_name, name, n_components] = cell
            done += 1
            elapsed = time.perf_counter() - start
            left = elapsed / done * (n_cells - done)
            shown = "skipped" if cell is None else (
                f"error {cell['error']:.3f}, accuracy {cell['accuracy']:.1f}, "
                f"transform {cell['seconds']:.3f} s"
            )
            print(
                f"[{done}/{n_cells}] {family_name}: {name}, n_components={n_components}: "
                f"{shown} (elapsed {elapsed:.0f} s, about {left:.0f} s left)"
            )

# %%
# Error and accuracy against transform time
# -----------------------------------------
# One figure per family: kernel error (left, lower is better) and test
# accuracy (right, higher is better) against the transform time of the
# training rows, each line one estimator, its points the sizes from left to
# right. The best estimators sit low (left panel) or high (right panel) and
# to the left. The times are the best of three transforms in this run, on
# this machine; on the digits' 1257 rows they are milliseconds, and
# differences of a few milliseconds are noise, so a line may step back in
# time from one size to the next.

output_dir = Path(args.output_dir)
output_dir.mkdir(parents=True, exist_ok=True)
for family_name, family in families.items():
    # 9 inches at 100 dpi: the page shows the figure at about its drawn size,
    # so the legends and labels stay readable.
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 4), layout="constrained")
    for name in family["estimators"]:
        cells = [results[family_name, name, n] for n in sizes]
        cells = [c for c in cells if c is not None]
        t = [c["seconds"] for c in cells]
        left.loglog(t, [c["error"] for c in cells], "o-", label=name)
        right.semilogx(t, [c["accuracy"] for c in cells], "o-", label=name)
    left.set(title="kernel error", xlabel="transform time (s)",
             ylabel="relative Frobenius error")
    right.set(title="LinearSVC test accuracy", xlabel="transform time (s)",
              ylabel="accuracy (%)")
    left.legend(fontsize=8)
    sizes_shown = ", ".join(map(str, sizes))
    fig.suptitle(f"{family_name} on {dataset}, n_components {sizes_shown}")
    path = output_dir / f"choosing_a_sketch_{family_name.split()[0].lower()}.png"
    fig.savefig(path, dpi=100)
    print(f"Wrote {path}")
