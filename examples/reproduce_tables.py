"""
====================================================
Reproduce the papers' accuracy tables in one command
====================================================

The main job of sklearn-sketch: for each of its three methods, the table of
its paper in the paper's layout, with the published figures beside ours where
the paper has them, and one plot of quality against sketch size with the
exact kernel machine as a line.

* Tensor Sketch (Pham & Pagh 2013, Table 1): polynomial kernels, sketch +
  linear SVM, training and test accuracy over 4 kernels.
* CoRE kernels (Li 2014): linear SVM on original and binarized data, exact
  CoRE type 1 / type 2 / resemblance kernel SVMs, and ``CoREHasher`` + linear
  SVM as the number of hashes k grows.
* K-JL (Kpotufe & Sriperumbudur 2020): KMeans on ``KernelJL`` features
  (uncentered as in the paper, and centered) against Nystroem, random Fourier
  features, plain KMeans and exact kernel k-means (NMI, ARI).

``--dataset digits`` (default) runs all three on scikit-learn's bundled digits
(1797 x 64): no download, about a minute. The papers report no digits figures,
so the exact kernel machines are the reference. The full reproductions run on
the real data in ``--data-home`` (default ``$SKLEARN_SKETCH_DATA``, else the
shared data folder beside the checkout):

* ``--dataset mnist``: Pham & Pagh's MNIST rows, Li's MNIST10k table and
  K-JL clustering of MNIST;
* ``--dataset a9a``: Pham & Pagh's Adult rows;
* ``--dataset sector``: Li's sector tables (raw counts and tf-idf);
* ``--dataset 20news``: Li's Figure 3 (hashed estimators' MSE against theory).

On digits each row is printed as soon as it is computed (one line per
step), beside its reference, the exact kernel machine, and with the time of
the sketch pipeline beside the exact kernel's; a labelled result closes the
run. At this size (1257 training rows) the exact kernel machines are still
fast: the sketches' speed pays off as rows grow (see the benchmarks in the
user guide). Tables go to ``--output-dir`` as Markdown and CSV, next to the
figure (test accuracy or NMI against n_components, the exact kernel machine
as a dashed line).

Run::

    python examples/reproduce_tables.py [--dataset digits|mnist|a9a|sector|20news] [--quick]
"""

import argparse
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
import numpy as np
from sklearn.cluster import KMeans
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.kernel_approximation import Nystroem, RBFSampler
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer, normalize
from sklearn.svm import SVC, LinearSVC

from sklearn_sketch import CoREHasher, KernelJL, TensorSketch
from sklearn_sketch.datasets import get_data_home
from sklearn_sketch.metrics import core_kernel, resemblance_kernel


# %%
# Command line and data
# ---------------------
# Run as a script, ``--quick`` selects the small settings this page shows
# (seconds) and no flag the paper-size run; in a notebook the quick settings
# apply. ``--data-home`` names the folder of the real data sets (default
# ``$SKLEARN_SKETCH_DATA``, see :func:`sklearn_sketch.datasets.get_data_home`);
# without them the example runs on stand-in data and says so. ``--download``
# fetches the missing ones instead, and ``--output-dir`` receives the tables
# and figures.

HERE = Path(globals().get("__file__", "example.py")).resolve().parent
# In a checkout of the project, the prepared data sets sit beside it.
SHARED_DATA_HOME = HERE.parent.parent / "shared" / "datasets"
DOWNLOAD = False  # set from --download


def example_parser(description):
    """An argument parser with the options every example accepts."""
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
    global DOWNLOAD
    args, _ = parser.parse_known_args(argv)
    args.quick = args.quick or "ipykernel" in sys.modules
    DOWNLOAD = args.download
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

# %%
# Building blocks
# ---------------
# The fits shared with the single-paper examples of this gallery, repeated
# here so that this script runs on its own.

# The four kernels of Table 1: (label, degree, coef0), gamma = 1.
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
        # scikit-learn's tighter default tolerance costs 4x the time on MNIST
        # for the same training accuracy (97.64 vs 97.65 at degree 2).
        LinearSVC(dual=True, tol=0.1, random_state=0),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X_train, y_train)
    return 100 * model.score(X_train, y_train), 100 * model.score(X_test, y_test)


def best_linear(X_train, y_train, X_test, y_test, Cs):
    scores = {}
    for C in Cs:
        model = LinearSVC(C=C, dual=True, max_iter=5000, random_state=0).fit(X_train, y_train)
        scores[C] = 100 * model.score(X_test, y_test)
    return max(scores.values()), scores


def best_kernel(kernel, X_train, y_train, X_test, y_test, Cs):
    K_train = kernel(X_train, X_train)
    models = {C: SVC(kernel="precomputed", C=C).fit(K_train, y_train) for C in Cs}
    del K_train
    correct = dict.fromkeys(Cs, 0)
    # Test kernel rows in blocks (the full 60000 x 10000 matrix is 4.8 GB),
    # each computed once and scored by every C's model.
    for start in range(0, X_test.shape[0], 5000):
        K_test = kernel(X_test[start : start + 5000], X_train)
        for C, model in models.items():
            correct[C] += np.sum(model.predict(K_test) == y_test[start : start + 5000])
    scores = {C: 100 * correct[C] / X_test.shape[0] for C in Cs}
    return max(scores.values()), scores


N_CLUSTERS = 10


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
    return normalized_mutual_info_score(y, labels), adjusted_rand_score(y, labels)


def write_csv(path, rows):
    """Write a list of dicts as CSV, columns in first-seen order."""
    columns = list(dict.fromkeys(key for row in rows for key in row))
    lines = [",".join(columns)]
    lines += [",".join(str(row.get(column, "")) for column in columns) for row in rows]
    Path(path).write_text("\n".join(lines) + "\n")

# The papers publish no digits figures: the exact kernel machine is the reference
# here, and ``--dataset mnist`` prints the published figures beside ours.
NO_PAPER = "no published digits figures (--dataset mnist puts the paper's beside ours)"


def load_digits_split():
    """Digits scaled to [0, 1], split 70/30 with stratification."""
    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X / 16.0, y, test_size=0.3, stratify=y, random_state=0
    )
    return X_train, y_train, X_test, y_test


def timed(function, *args, **kwargs):
    """``function(*args, **kwargs)`` and its wall-clock time in seconds."""
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - start


def pm(mean, std, digits=2):
    """``mean +- std`` with a fixed number of decimals."""
    return f"{mean:.{digits}f} +- {std:.{digits}f}"


# ---------------------------------------------------------------------------
# Tensor Sketch

TS_LINE = "  {:<12} {:>5}  {:>14} {:>7}  {:>14} {:>7}  {:>6} {:>6}"


def exact_polynomial_svm(data, degree, coef0):
    """Train/test accuracy (%) of the exact polynomial-kernel SVM (C = 1)."""
    X_train, y_train, X_test, y_test = data
    model = make_pipeline(Normalizer(), SVC(kernel="poly", degree=degree, gamma=1.0, coef0=coef0))
    model.fit(X_train, y_train)
    return 100 * model.score(X_train, y_train), 100 * model.score(X_test, y_test)


def tensor_sketch_row(data, label, degree, coef0, n_components, n_runs):
    """One kernel: TensorSketch + LinearSVC over ``n_runs`` sketches, and the exact SVC."""
    runs, seconds = timed(
        lambda: np.array(
            [
                sketch_svm_accuracies(*data, degree, coef0, n_components, seed)
                for seed in range(n_runs)
            ]
        )
    )
    (exact_train, exact_test), exact_seconds = timed(exact_polynomial_svm, data, degree, coef0)
    return dict(
        section="TensorSketch",
        model=f"TensorSketch {label} + LinearSVC",
        kernel=label,
        n_components=n_components,
        runs=n_runs,
        train_mean=runs[:, 0].mean(),
        train_std=runs[:, 0].std(),
        test_mean=runs[:, 1].mean(),
        test_std=runs[:, 1].std(),
        seconds=seconds / n_runs,
        reference="exact polynomial SVC",
        reference_train=exact_train,
        reference_test=exact_test,
        reference_seconds=exact_seconds,
    )


def tensor_sketch_section(data, quick, log=print):
    n_runs, n_components = (2 if quick else 3), 1000
    log(f"\n[1/3] Pham & Pagh (2013), Table 1 layout: TensorSketch(D={n_components}) + LinearSVC,")
    log(f"      mean +- std over {n_runs} sketches, beside the exact polynomial-kernel SVC;")
    log(f"      {NO_PAPER}.")
    log(
        TS_LINE.format(
            "kernel", "D", "train sketch", "exact", "test sketch", "exact", "time s", "exact"
        )
    )
    rows = []
    for label, degree, coef0 in KERNELS:
        row = tensor_sketch_row(data, label, degree, coef0, n_components, n_runs)
        rows.append(row)
        log(
            TS_LINE.format(
                label,
                n_components,
                pm(row["train_mean"], row["train_std"]),
                f"{row['reference_train']:.2f}",
                pm(row["test_mean"], row["test_std"]),
                f"{row['reference_test']:.2f}",
                f"{row['seconds']:.2f}",
                f"{row['reference_seconds']:.2f}",
            )
        )
    lines = [
        "### Pham & Pagh (2013), Table 1 layout: TensorSketch + LinearSVC on digits",
        "",
        f"Accuracy (%), mean ± std over {n_runs} sketches; reference: the exact polynomial-kernel "
        f"SVC; time: seconds per fit + scoring. {NO_PAPER[0].upper() + NO_PAPER[1:]}.",
        "",
        "| kernel | D | train (sketch) | train (exact) | test (sketch) | test (exact) "
        "| time s (sketch) | time s (exact) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    lines += [
        f"| {r['kernel']} | {r['n_components']} | {pm(r['train_mean'], r['train_std'])} "
        f"| {r['reference_train']:.2f} | {pm(r['test_mean'], r['test_std'])} "
        f"| {r['reference_test']:.2f} | {r['seconds']:.2f} | {r['reference_seconds']:.2f} |"
        for r in rows
    ]
    return (
        rows,
        "\n".join(lines).replace("+-", "±") + "\n",
        tensor_sketch_panel(data, quick, rows, log),
    )


def tensor_sketch_panel(data, quick, rows, log):
    """Test accuracy against D for the kernel (1 + <x,y>)^2, one line per D."""
    sizes = [50, 200, 1000] if quick else [50, 100, 200, 500, 1000, 2000]
    label, degree, coef0 = KERNELS[1]
    curve = []
    for size in sizes:
        curve.append(sketch_svm_accuracies(*data, degree, coef0, size, seed=0)[1])
        log(f"  sweep {label}: D = {size:<5} test accuracy {curve[-1]:.2f}")
    return dict(
        title=f"TensorSketch, kernel {label}",
        xlabel="n_components (D)",
        ylabel="test accuracy (%)",
        x=sizes,
        y=curve,
        exact=next(r for r in rows if r["kernel"] == label)["reference_test"],
        exact_label="exact polynomial SVC",
    )


# ---------------------------------------------------------------------------
# CoRE kernels

CORE_LINE = "  {:<38} {:>8}  {:<22} {:>7}  {:>6} {:>6}"
CORE_KERNELS = (
    ("CoRE type 1", lambda A, B: core_kernel(A, B, kind=1)),
    ("CoRE type 2", lambda A, B: core_kernel(A, B, kind=2)),
    ("resemblance", resemblance_kernel),
)


def core_row(model, accuracy, seconds, k="", reference=None):
    """A row of the CoRE table; ``reference`` is (name, accuracy, seconds) or None."""
    name, ref_accuracy, ref_seconds = reference or ("", "", "")
    return dict(
        section="CoRE",
        model=model,
        n_components=k,
        test_mean=accuracy,
        seconds=seconds,
        reference=name,
        reference_test=ref_accuracy,
        reference_seconds=ref_seconds,
    )


def format_core_row(row):
    reference = row["reference"]
    return CORE_LINE.format(
        row["model"],
        f"{row['test_mean']:.2f}",
        reference or "-",
        f"{row['reference_test']:.2f}" if reference else "",
        f"{row['seconds']:.2f}",
        f"{row['reference_seconds']:.2f}" if reference else "",
    )


def core_hashed_rows(data, ks, linear_Cs, exact, log):
    """CoREHasher(core1) + LinearSVC for each k, beside the exact CoRE type 1 SVC."""
    X_train, y_train, X_test, y_test = data
    rows = []
    for k in ks:

        def pipeline(k=k):
            hasher = CoREHasher(k, kernel="core1", hashing="oph", random_state=0).fit(X_train)
            return best_linear(
                hasher.transform(X_train), y_train, hasher.transform(X_test), y_test, linear_Cs
            )[0]

        accuracy, seconds = timed(pipeline)
        rows.append(
            core_row(
                f"CoREHasher(core1) + LinearSVC, k={k}",
                accuracy,
                seconds,
                k,
                ("exact CoRE type 1 SVC",) + exact,
            )
        )
        log(format_core_row(rows[-1]))
    return rows


def core_section(data, quick, log=print):
    X_train, y_train, X_test, y_test = data
    linear_Cs, kernel_Cs = ([1.0], [10.0]) if quick else ([0.1, 1.0, 10.0], [1.0, 10.0, 100.0])
    ks = [64, 256] if quick else [64, 128, 256, 512, 1024]
    log("\n[2/3] Li (2014) layout: CoRE kernels, test accuracy (%), best over C;")
    log("      reference of the hashed features: the exact CoRE type 1 SVC;")
    log(f"      {NO_PAPER}.")
    log(CORE_LINE.format("model", "test acc", "reference", "ref acc", "time s", "ref"))
    rows = []
    for label, transform in (("original", lambda A: A), ("binarized", lambda A: (A != 0) * 1.0)):
        A, B = normalize(transform(X_train)), normalize(transform(X_test))
        accuracy, seconds = timed(best_linear, A, y_train, B, y_test, linear_Cs)
        rows.append(core_row(f"LinearSVC, {label} rows", accuracy[0], seconds))
        log(format_core_row(rows[-1]))
    exact = {}
    for label, kernel in CORE_KERNELS:
        accuracy, seconds = timed(best_kernel, kernel, *data, kernel_Cs)
        exact[label] = (accuracy[0], seconds)
        rows.append(core_row(f"exact {label} kernel SVC", accuracy[0], seconds))
        log(format_core_row(rows[-1]))
    hashed = core_hashed_rows(data, ks, linear_Cs, exact["CoRE type 1"], log)
    rows += hashed
    lines = [
        "### Li (2014) layout: CoRE kernels on digits",
        "",
        "Test accuracy (%), best over C; time: seconds for the search over C, features "
        f"included. {NO_PAPER[0].upper() + NO_PAPER[1:]}.",
        "",
        "| model | test accuracy | reference | reference accuracy | time s | reference time s |",
        "| --- | ---: | --- | ---: | ---: | ---: |",
    ]
    for r in rows:
        ref = r["reference"]
        lines.append(
            f"| {r['model']} | {r['test_mean']:.2f} | {ref} | "
            + (
                f"{r['reference_test']:.2f} | {r['seconds']:.2f} | {r['reference_seconds']:.2f} |"
                if ref
                else f" | {r['seconds']:.2f} | |"
            )
        )
    panel = dict(
        title="CoREHasher (type 1, OPH, 8 bits)",
        xlabel="n_components (k hashes)",
        ylabel="test accuracy (%)",
        x=ks,
        y=[r["test_mean"] for r in hashed],
        exact=exact["CoRE type 1"][0],
        exact_label="exact CoRE type 1 SVC",
    )
    return rows, "\n".join(lines) + "\n", panel


# ---------------------------------------------------------------------------
# K-JL

KJL_LINE = "  {:<22} {:>4} {:>4}  {:>14} {:>14}  {:>6} {:>6}"


def clustering_pipelines(grid, gamma):
    """(method, n, d, features of (X, seed)) of every KMeans pipeline."""
    pipelines = [("KMeans on the rows", "", 64, lambda X, seed: X)]
    for n, d in grid:
        for center, method in ((False, "KernelJL"), (True, "KernelJL(center=True)")):
            pipelines.append(
                (
                    method,
                    n,
                    d,
                    lambda X, seed, n=n, d=d, center=center: KernelJL(
                        d, n_subsample=n, gamma=gamma, center=center, random_state=seed
                    ).fit_transform(X),
                )
            )
    for n in sorted({n for n, _ in grid}):
        pipelines.append(
            (
                "Nystroem",
                n,
                n,
                lambda X, seed, n=n: Nystroem(
                    gamma=gamma, n_components=n, random_state=seed
                ).fit_transform(X),
            )
        )
    for d in sorted({d for _, d in grid}):
        pipelines.append(
            (
                "RBFSampler",
                "",
                d,
                lambda X, seed, d=d: RBFSampler(
                    gamma=gamma, n_components=d, random_state=seed
                ).fit_transform(X),
            )
        )
    return pipelines


def cluster_runs(cluster, X, y, seeds):
    """NMI, ARI and seconds of ``cluster(X, seed) -> labels`` for each seed."""
    runs = []
    for seed in seeds:
        labels, seconds = timed(cluster, X, seed)
        runs.append(score(y, labels) + (seconds,))
    runs = np.array(runs)
    return dict(
        nmi_mean=runs[:, 0].mean(),
        nmi_std=runs[:, 0].std(),
        ari_mean=runs[:, 1].mean(),
        ari_std=runs[:, 1].std(),
        seconds=runs[:, 2].mean(),
    )


def kernel_jl_rows(X, y, gamma, grid, seeds, n_init, log):
    """One row per pipeline (features + KMeans), then exact kernel k-means."""
    n_clusters = N_CLUSTERS
    exact = cluster_runs(
        lambda X, seed: kernel_kmeans(
            rbf_kernel(X, gamma=gamma), n_clusters, seed
        ),
        X,
        y,
        seeds,
    )
    reference = dict(
        reference="exact kernel k-means",
        reference_nmi=exact["nmi_mean"],
        reference_seconds=exact["seconds"],
    )
    rows = []
    for method, n, d, features in clustering_pipelines(grid, gamma):
        scores = cluster_runs(
            lambda X, seed, features=features: KMeans(
                n_clusters, n_init=n_init, random_state=seed
            ).fit_predict(features(X, seed)),
            X,
            y,
            seeds,
        )
        rows.append(
            dict(
                section="KernelJL",
                model=method,
                n_subsample=n,
                n_components=d,
                **scores,
                **reference,
            )
        )
        log(format_kjl_row(rows[-1]))
    rows.append(
        dict(
            section="KernelJL",
            model="exact kernel k-means",
            n_subsample=X.shape[0],
            n_components="",
            **exact,
        )
    )
    log(format_kjl_row(rows[-1]))
    return rows


def format_kjl_row(row):
    return KJL_LINE.format(
        row["model"],
        row["n_subsample"],
        row["n_components"],
        pm(row["nmi_mean"], row["nmi_std"], 3),
        pm(row["ari_mean"], row["ari_std"], 3),
        f"{row['seconds']:.3f}",
        f"{row['reference_seconds']:.3f}" if "reference" in row else "",
    )


def kernel_jl_section(data, quick, log=print):
    X = np.vstack([data[0], data[2]])
    y = np.concatenate([data[1], data[3]])
    # RBF bandwidth: the inverse of the median squared distance between rows.
    rng = np.random.RandomState(0)
    sample = X[rng.choice(X.shape[0], 300, replace=False)]
    squared = ((sample[:, None, :] - sample[None, :, :]) ** 2).sum(-1)
    gamma = 1.0 / np.median(squared[squared > 0])
    seeds = [0, 1] if quick else [0, 1, 2]
    grid = [(50, 25), (100, 50)] if quick else [(25, 25), (50, 50), (100, 100), (200, 100)]
    log(
        f"\n[3/3] Kpotufe & Sriperumbudur (2020) use: KMeans on sketched features of all "
        f"{X.shape[0]} rows,"
    )
    log(
        f"      rbf gamma = {gamma:.3f}, NMI / ARI mean +- std over {len(seeds)} seeds; reference: "
        "exact kernel k-means;"
    )
    log("      time: features + KMeans, beside exact kernel k-means; no published digits figures.")
    log(KJL_LINE.format("method", "n", "d", "NMI", "ARI", "time s", "exact"))
    rows = kernel_jl_rows(X, y, gamma, grid, seeds, 1 if quick else 3, log)
    lines = [
        "### Kpotufe & Sriperumbudur (2020) use: kernel k-means through sketches on digits",
        "",
        f"NMI and ARI, mean ± std over {len(seeds)} seeds; n: subsample size, d: n_components; "
        "time: seconds for features + KMeans. Reference: exact kernel k-means "
        f"(NMI {rows[-1]['nmi_mean']:.3f}, {rows[-1]['seconds']:.3f} s). "
        "No published digits figures.",
        "",
        "| method | n | d | NMI | ARI | time s |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    lines += [
        f"| {r['model']} | {r['n_subsample']} | {r['n_components']} | "
        f"{pm(r['nmi_mean'], r['nmi_std'], 3)} | {pm(r['ari_mean'], r['ari_std'], 3)} | "
        f"{r['seconds']:.3f} |".replace("+-", "±")
        for r in rows
    ]
    return rows, "\n".join(lines) + "\n", kernel_jl_panel(rows)


def kernel_jl_panel(rows):
    """NMI against d: per d the largest subsample n, for each sketch."""

    def curve(method):
        best = {r["n_components"]: r["nmi_mean"] for r in rows if r["model"] == method}
        return sorted(best), [best[d] for d in sorted(best)]

    x, y = curve("KernelJL")
    return dict(
        title="KernelJL + KMeans",
        label="KernelJL (as in the paper)",
        others={
            "KernelJL(center=True)": curve("KernelJL(center=True)"),
            "Nystroem (n = d)": curve("Nystroem"),
        },
        xlabel="n_components (d)",
        ylabel="NMI",
        x=x,
        y=y,
        exact=rows[-1]["nmi_mean"],
        exact_label="exact kernel k-means",
    )


# ---------------------------------------------------------------------------
# The figure, the labelled result, the command line


def draw_panel(ax, panel):
    """One quality-against-size panel: the sketch, the others, the exact machine dashed."""
    ax.plot(panel["x"], panel["y"], "o-", label=panel.get("label", "sketch"))
    for label, (x, y) in panel.get("others", {}).items():
        ax.plot(x, y, "s:", label=label)
    ax.axhline(panel["exact"], color="k", linestyle="--", label=panel["exact_label"])
    ax.set_xscale("log")
    ax.set(title=panel["title"], xlabel=panel["xlabel"], ylabel=panel["ylabel"])
    ax.legend(fontsize=9)


def show_panel(panel):
    """The panel as a figure of its own, at page width."""
    fig, ax = plt.subplots(figsize=(9, 5))
    draw_panel(ax, panel)
    fig.tight_layout()


def save_panels(panels, path):
    """The three panels side by side in one file (not shown: each was shown alone)."""
    fig = Figure(figsize=(5 * len(panels), 3.8))
    for ax, panel in zip(np.atleast_1d(fig.subplots(1, len(panels))), panels):
        draw_panel(ax, panel)
    fig.suptitle("Sketch quality against sketch size on digits (dashed: exact kernel machine)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


RESULT_LINE = "  {:<46} {:<14} {:>14} {:>7}  {:>7} {:>7}"


def result_lines(rows, n_train, n_test):
    """The labelled result: the headline row of each method beside the exact kernel."""
    ts = next(r for r in rows if r["section"] == "TensorSketch" and r["kernel"] == "(1+<x,y>)^4")
    core = [r for r in rows if r["section"] == "CoRE"]
    kjl = [r for r in rows if r["section"] == "KernelJL"]
    n, d = max((r["n_subsample"], r["n_components"]) for r in kjl if r["model"] == "KernelJL")
    at_n_d = {r["model"]: r for r in kjl if r["n_subsample"] == n and r["n_components"] in (d, n)}
    centered, exact = at_n_d["KernelJL(center=True)"], kjl[-1]
    hashed = core[-1]
    return [
        f"Result on digits ({n_train} training / {n_test} test rows), "
        "each sketch beside the exact kernel machine",
        RESULT_LINE.format("pipeline", "score", "sketch", "exact", "time s", "exact"),
        RESULT_LINE.format(
            f"TensorSketch (1+<x,y>)^4, D={ts['n_components']} + LinearSVC",
            "test accuracy",
            pm(ts["test_mean"], ts["test_std"]),
            f"{ts['reference_test']:.2f}",
            f"{ts['seconds']:.2f}",
            f"{ts['reference_seconds']:.2f}",
        ),
        RESULT_LINE.format(
            f"CoREHasher type 1, k={hashed['n_components']} + LinearSVC",
            "test accuracy",
            f"{hashed['test_mean']:.2f}",
            f"{hashed['reference_test']:.2f}",
            f"{hashed['seconds']:.2f}",
            f"{hashed['reference_seconds']:.2f}",
        ),
        RESULT_LINE.format(
            f"KernelJL(center=True), n={n}, d={d} + KMeans",
            "NMI",
            pm(centered["nmi_mean"], centered["nmi_std"]),
            f"{exact['nmi_mean']:.2f}",
            f"{centered['seconds']:.2f}",
            f"{exact['seconds']:.2f}",
        ),
        f"  Baselines: linear SVC {core[0]['test_mean']:.2f}; KernelJL uncentered (as in the "
        f"paper) NMI {at_n_d['KernelJL']['nmi_mean']:.2f}; Nystroem (n={n}) NMI "
        f"{at_n_d['Nystroem']['nmi_mean']:.2f}.",
    ]


def run_full(dataset, quick, data_home, output_dir):
    """The full reproductions: each paper's example script on the real data.

    They run the sibling scripts of the project's ``examples/`` folder.
    """
    common = ["--data-home", str(data_home), "--output-dir", str(output_dir)]
    common += ["--quick"] if quick else []
    runs = {
        "mnist": [
            ("pham_pagh_table1", ["--datasets", "mnist"]),
            ("core_svm_table", ["--datasets", "mnist10k"]),
            ("kernel_jl_clustering", ["--datasets", "mnist"]),
        ],
        "a9a": [("pham_pagh_table1", ["--datasets", "a9a"])],
        "sector": [("core_svm_table", ["--datasets", "sector_counts", "sector_tfidf"])],
        "20news": [("core_figure3_mse", [])],
    }[dataset]
    for name, options in runs:
        script = HERE / f"{name}.py"
        if not script.is_file():
            raise SystemExit(
                f"--dataset {dataset} runs {script.name}, which is not beside this script"
            )
        subprocess.run([sys.executable, str(script), *common, *options], check=True)


# %%
# Settings
# --------
# ``--dataset digits`` (the default) runs the three papers' tables on the
# digits, here; any other ``--dataset`` runs the full reproductions of the
# paper examples of this gallery on the real data, and stops. ``--quick``
# takes fewer runs and sizes.

parser = example_parser("Reproduce the papers' accuracy tables.")
parser.add_argument(
    "--dataset", default="digits", choices=["digits", "mnist", "a9a", "sector", "20news"]
)
args = parse_settings(parser)
data_home, output_dir = data_home_and_output_dir(args)
start = time.perf_counter()
warnings.simplefilter("ignore", ConvergenceWarning)
if args.dataset != "digits":
    run_full(args.dataset, args.quick, data_home, output_dir)
    print(f"\nWrote the tables (Markdown, CSV) and the figures to {output_dir} "
          f"in {time.perf_counter() - start:.0f} s")
    sys.exit()

# %%
# The digits
# ----------
# scikit-learn's digits, scaled to [0, 1] and split 70/30. LinearSVC and SVC
# draw their solvers' seeds from numpy's global random state when given no
# random_state: it is seeded, so that two runs print the same figures.

np.random.seed(0)
data = load_digits_split()
n_train, n_test = data[0].shape[0], data[2].shape[0]
print(
    f"Digits: {n_train} training rows, {n_test} test rows, {data[0].shape[1]} features"
    + (" (--quick: fewer runs and sizes)" if args.quick else "")
)
all_rows, markdown, panels = [], ["# sklearn-sketch: the papers' tables on digits\n"], []


def run_section(section):
    """Run one paper's section, keep its rows, table and panel, and draw the panel."""
    (rows, text, panel), seconds = timed(section, data, args.quick)
    print(f"  done in {seconds:.0f} s")
    all_rows.extend(rows)
    markdown.append(text)
    panels.append(panel)
    show_panel(panel)


# %%
# Tensor Sketch: Pham & Pagh (2013), Table 1
# ------------------------------------------
# ``Normalizer -> TensorSketch -> LinearSVC`` for the four polynomial kernels
# of the paper's Table 1, training and test accuracy over a few sketches,
# beside the exact polynomial-kernel SVC and its time. The figure sweeps the
# sketch size D for ``(1 + <x,y>)^2``: the test accuracy climbs to the exact
# kernel's (dashed) as D grows.

run_section(tensor_sketch_section)

# %%
# CoRE kernels: Li (2014)
# -----------------------
# A linear SVM on the original and binarized rows, the exact CoRE type 1,
# type 2 and resemblance kernels in ``SVC(kernel="precomputed")``, then
# ``CoREHasher`` features + LinearSVC as the number of hashes k grows. The
# figure: the hashed features' accuracy against k, approaching the exact
# CoRE type 1 kernel (dashed).

run_section(core_section)

# %%
# K-JL: Kpotufe & Sriperumbudur (2020)
# ------------------------------------
# KMeans on ``KernelJL`` features (uncentered as in the paper, and
# centered) against Nystroem, random Fourier features, plain KMeans and
# exact kernel k-means, scored by NMI and ARI. The figure: NMI against the
# output dimension d: Nystroem reaches the exact kernel k-means (dashed);
# the centered features come closer to it than the paper's uncentered ones,
# more so at the full run's larger n and d.

run_section(kernel_jl_section)

# %%
# The result
# ----------
# The headline row of each method beside its exact kernel machine, and the
# tables and figure written to ``--output-dir``.

save_panels(panels, output_dir / "tables_digits.png")
result = result_lines(all_rows, n_train, n_test)
markdown.append(f"### Result\n\n{result[0]}:\n\n```text\n" + "\n".join(result[1:]) + "\n```\n")
(output_dir / "tables_digits.md").write_text("\n".join(markdown))
write_csv(output_dir / "tables_digits.csv", all_rows)
print("\n" + "\n".join(result))
print(
    f"\nWrote the tables (Markdown, CSV) and the figure to {output_dir} "
    f"in {time.perf_counter() - start:.0f} s"
)
