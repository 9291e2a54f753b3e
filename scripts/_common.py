"""What the reproduction scripts of this folder share.

The command line every script accepts (``--quick``, ``--data-home``,
``--download``, ``--output-dir``), the data folder, the digits split, the
SVM fits and the clustering scores the papers' tables repeat, timing and the
table and figure output. The gallery examples in ``examples/`` stand alone
and do not import this.
"""

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer
from sklearn.svm import SVC, LinearSVC

from sklearn_sketch import TensorSketch
from sklearn_sketch.datasets import get_data_home

HERE = Path(__file__).resolve().parent
# In a checkout of the project, the prepared data sets sit beside it.
SHARED_DATA_HOME = HERE.parent.parent / "shared" / "datasets"


def script_parser(description):
    """An argument parser with the options every script accepts."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--quick", action="store_true", help="small settings: seconds, not minutes"
    )
    parser.add_argument("--data-home", default=None, help="folder of the real data sets")
    parser.add_argument(
        "--download", action="store_true",
        help="download the missing real data sets instead of using stand-in data",
    )
    parser.add_argument(
        "--output-dir",
        default=str(HERE / "output"),
        help="where tables and figures are written",
    )
    return parser


def parse_settings(parser, argv=None):
    """The command line's settings; in a notebook, the quick ones.

    A notebook's kernel passes arguments of its own (``-f ...``): they are ignored.
    """
    args, _ = parser.parse_known_args(argv)
    args.quick = args.quick or "ipykernel" in sys.modules
    return args


def data_home_and_output_dir(args):
    """``--data-home``, else ``$SKLEARN_SKETCH_DATA``, else the prepared folder
    beside a checkout of the project, else the fetchers' default folder."""
    unset = args.data_home is None and not os.environ.get("SKLEARN_SKETCH_DATA")
    if unset and SHARED_DATA_HOME.is_dir():
        data_home = SHARED_DATA_HOME
    else:
        data_home = get_data_home(args.data_home)
    output_dir = Path(args.output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    return data_home, output_dir


def has_data(args, data_home, folder):
    """Whether to run on the real data set ``folder``: present, or ``--download`` given."""
    return args.download or Path(data_home, folder).is_dir()


def load_digits_split():
    """Digits scaled to [0, 1], split 70/30 with stratification."""
    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X / 16.0, y, test_size=0.3, stratify=y, random_state=0
    )
    return X_train, y_train, X_test, y_test


# The papers publish no digits figures: the exact kernel machine is the reference
# here, and ``--dataset mnist`` prints the published figures beside ours.
NO_PAPER = "no published digits figures (--dataset mnist puts the paper's beside ours)"

# The four kernels of Pham & Pagh's Table 1: (label, degree, coef0), gamma = 1.
KERNELS = [
    ("<x,y>^2", 2, 0.0),
    ("(1+<x,y>)^2", 2, 1.0),
    ("<x,y>^4", 4, 0.0),
    ("(1+<x,y>)^4", 4, 1.0),
]


def sketch_svm_accuracies(X_train, y_train, X_test, y_test, degree, coef0, n_components, seed):
    """Train/test accuracy (%) of Normalizer -> TensorSketch -> LinearSVC."""
    model = make_pipeline(
        Normalizer(),
        TensorSketch(n_components, degree=degree, coef0=coef0, random_state=seed),
        # The paper ran LIBLINEAR with its defaults: the dual coordinate
        # descent solver of the L2-regularized squared-hinge SVM, C = 1,
        # stopping tolerance 0.1. That is LinearSVC(dual=True, tol=0.1);
        # scikit-learn's tighter default tolerance costs far more time for
        # the same training accuracy.
        LinearSVC(dual=True, tol=0.1, random_state=0),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X_train, y_train)
    return 100 * model.score(X_train, y_train), 100 * model.score(X_test, y_test)


def best_linear(X_train, y_train, X_test, y_test, Cs):
    """Best test accuracy (%) of LinearSVC over ``Cs``, and each C's."""
    scores = {}
    for C in Cs:
        model = LinearSVC(C=C, dual=True, max_iter=5000, random_state=0).fit(X_train, y_train)
        scores[C] = 100 * model.score(X_test, y_test)
    return max(scores.values()), scores


def best_kernel(kernel, X_train, y_train, X_test, y_test, Cs):
    """Best test accuracy (%) of ``SVC(kernel="precomputed")`` over ``Cs``, and each C's."""
    K_train = kernel(X_train, X_train)
    models = {C: SVC(kernel="precomputed", C=C).fit(K_train, y_train) for C in Cs}
    del K_train
    correct = dict.fromkeys(Cs, 0)
    # Test kernel rows in blocks (a full MNIST test-by-train matrix does not
    # fit in memory), each computed once and scored by every C's model.
    for start in range(0, X_test.shape[0], 5000):
        K_test = kernel(X_test[start : start + 5000], X_train)
        for C, model in models.items():
            correct[C] += np.sum(model.predict(K_test) == y_test[start : start + 5000])
    scores = {C: 100 * correct[C] / X_test.shape[0] for C in Cs}
    return max(scores.values()), scores


def kernel_kmeans(K, n_clusters, seed, n_iter=100):
    """Exact kernel k-means (Lloyd iterations on the Gram matrix)."""
    rng = np.random.RandomState(seed)
    n = K.shape[0]
    labels = rng.randint(n_clusters, size=n)
    diag = np.diag(K)
    for _ in range(n_iter):
        onehot = np.zeros((n, n_clusters))
        onehot[np.arange(n), labels] = 1
        sizes = np.maximum(onehot.sum(axis=0), 1)
        KH = K @ onehot / sizes  # mean kernel to each cluster
        within = np.einsum("ic,ic->c", onehot, KH) / sizes
        dist = diag[:, None] - 2 * KH + within[None, :]
        dist[:, onehot.sum(axis=0) == 0] = np.inf
        new = dist.argmin(axis=1)
        if np.array_equal(new, labels):
            break
        labels = new
    return labels


def score(y, labels):
    """NMI and ARI of a clustering."""
    return normalized_mutual_info_score(y, labels), adjusted_rand_score(y, labels)


def timed(function, *args, **kwargs):
    """``function(*args, **kwargs)`` and its wall-clock time in seconds."""
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - start


def pm(mean, std, digits=2):
    """``mean +- std`` with a fixed number of decimals."""
    return f"{mean:.{digits}f} +- {std:.{digits}f}"


def write_csv(path, rows):
    """Write a list of dicts as CSV, columns in first-seen order."""
    columns = list(dict.fromkeys(key for row in rows for key in row))
    lines = [",".join(columns)]
    lines += [",".join(str(row.get(column, "")) for column in columns) for row in rows]
    Path(path).write_text("\n".join(lines) + "\n")


def draw_panel(ax, panel):
    """One quality-against-size panel: the sketch, the others, the exact machine dashed."""
    ax.plot(panel["x"], panel["y"], "o-", label=panel.get("label", "sketch"))
    for label, (x, y) in panel.get("others", {}).items():
        ax.plot(x, y, "s:", label=label)
    ax.axhline(panel["exact"], color="k", linestyle="--", label=panel["exact_label"])
    ax.set_xscale("log")
    ax.set(title=panel["title"], xlabel=panel["xlabel"], ylabel=panel["ylabel"])
    ax.legend(fontsize=9)


def save_panels(panels, path, title):
    """The panels side by side in one figure file."""
    fig = Figure(figsize=(5 * len(panels), 3.8))
    for ax, panel in zip(np.atleast_1d(fig.subplots(1, len(panels))), panels):
        draw_panel(ax, panel)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
