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
  (uncentered as in the paper, and centered) against Nystroem, random Fourier features, plain KMeans and exact kernel
  k-means (NMI, ARI).

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

Tables go to ``--output-dir`` as Markdown and CSV, next to the plots.

Run::

    python examples/reproduce_tables.py [--dataset digits|mnist|a9a|sector|20news] [--quick]
"""

import time
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from _common import data_home_and_output_dir, example_parser, write_csv  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import Normalizer, normalize  # noqa: E402
from sklearn.svm import SVC  # noqa: E402

import core_figure3_mse  # noqa: E402
import core_svm_table  # noqa: E402
import kernel_jl_clustering  # noqa: E402
import pham_pagh_table1  # noqa: E402
from sklearn_sketch import CoREHasher  # noqa: E402
from sklearn_sketch.metrics import core_kernel, resemblance_kernel  # noqa: E402


def load_digits_split():
    """Digits scaled to [0, 1], split 70/30 with stratification."""
    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X / 16.0, y, test_size=0.3, stratify=y, random_state=0
    )
    return X_train, y_train, X_test, y_test


# ---------------------------------------------------------------------------
# Tensor Sketch


def exact_polynomial_svm(data, degree, coef0):
    """Train/test accuracy (%) of the exact polynomial-kernel SVM (C = 1)."""
    X_train, y_train, X_test, y_test = data
    model = make_pipeline(Normalizer(), SVC(kernel="poly", degree=degree, gamma=1.0, coef0=coef0))
    model.fit(X_train, y_train)
    return 100 * model.score(X_train, y_train), 100 * model.score(X_test, y_test)


def tensor_sketch_section(data, quick, log=print):
    n_runs = 2 if quick else 3
    log(f"\n[1/3] Tensor Sketch -> LinearSVC, D = 1000, {n_runs} runs")
    rows = pham_pagh_table1.run_table(data, 1000, n_runs, log=log)
    exact = {
        label: exact_polynomial_svm(data, degree, coef0)
        for label, degree, coef0 in pham_pagh_table1.KERNELS
    }
    for row in rows:
        row["exact_train"], row["exact_test"] = exact[row["kernel"]]
    markdown = pham_pagh_table1.markdown_table(
        "Pham & Pagh (2013), Table 1 layout: Tensor Sketch + linear SVM", rows
    )
    markdown += "\n| kernel | exact-kernel SVC train | exact-kernel SVC test |\n| --- | ---: | ---: |\n"
    markdown += "".join(f"| {k} | {tr:.2f} | {te:.2f} |\n" for k, (tr, te) in exact.items())

    sizes = [50, 200, 1000] if quick else [50, 100, 200, 500, 1000, 2000]
    X_train, y_train, X_test, y_test = data
    label, degree, coef0 = pham_pagh_table1.KERNELS[1]  # (1 + <x,y>)^2
    curve = [
        pham_pagh_table1.sketch_svm_accuracies(
            X_train, y_train, X_test, y_test, degree, coef0, size, seed=0
        )[1]
        for size in sizes
    ]
    log("  sweep " + "  ".join(f"D={s}: {a:.1f}" for s, a in zip(sizes, curve)))
    panel = dict(
        title=f"TensorSketch, kernel {label}",
        xlabel="n_components (D)",
        ylabel="test accuracy (%)",
        x=sizes,
        y=curve,
        exact=exact[label][1],
        exact_label="exact polynomial SVC",
    )
    for row in rows:
        row["section"] = "TensorSketch"
    return rows, markdown, panel


# ---------------------------------------------------------------------------
# CoRE kernels


def core_section(data, quick, log=print):
    X_train, y_train, X_test, y_test = data
    linear_Cs, kernel_Cs = ([1.0], [10.0]) if quick else ([0.1, 1.0, 10.0], [1.0, 10.0, 100.0])
    ks = [64, 256] if quick else [64, 128, 256, 512, 1024]
    log(f"\n[2/3] CoRE kernels: linear SVM, exact kernel SVMs, CoREHasher for k in {ks}")
    rows = []

    def record(model, accuracy):
        rows.append({"section": "CoRE", "model": model, "test_accuracy": accuracy})
        log(f"  {model:<32} {accuracy:6.2f}")

    for label, transform in (("original", lambda A: A), ("binarized", lambda A: (A != 0) * 1.0)):
        A, B = normalize(transform(X_train)), normalize(transform(X_test))
        record(f"linear SVM, {label}", core_svm_table.best_linear(A, y_train, B, y_test, linear_Cs)[0])
    exact = {}
    for label, kernel in (
        ("CoRE type 1", lambda A, B: core_kernel(A, B, kind=1)),
        ("CoRE type 2", lambda A, B: core_kernel(A, B, kind=2)),
        ("resemblance", resemblance_kernel),
    ):
        exact[label] = core_svm_table.best_kernel(
            kernel, X_train, y_train, X_test, y_test, kernel_Cs
        )[0]
        record(f"exact {label} kernel SVM", exact[label])
    curve = []
    for k in ks:
        hasher = CoREHasher(k, kernel="core1", hashing="oph", random_state=0).fit(X_train)
        accuracy = core_svm_table.best_linear(
            hasher.transform(X_train), y_train, hasher.transform(X_test), y_test, linear_Cs
        )[0]
        curve.append(accuracy)
        record(f"CoREHasher(core1), k={k}", accuracy)

    lines = [
        "### Li (2014) layout: CoRE kernels, test accuracy (%), best over C",
        "",
        "| model | test accuracy |",
        "| --- | ---: |",
    ]
    lines += [f"| {row['model']} | {row['test_accuracy']:.2f} |" for row in rows]
    panel = dict(
        title="CoREHasher (type 1, OPH, 8 bits)",
        xlabel="n_components (k hashes)",
        ylabel="test accuracy (%)",
        x=ks,
        y=curve,
        exact=exact["CoRE type 1"],
        exact_label="exact CoRE type 1 SVC",
    )
    return rows, "\n".join(lines) + "\n", panel


# ---------------------------------------------------------------------------
# K-JL


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
    log(f"\n[3/3] K-JL: KMeans on sketched features, rbf gamma={gamma:.3f}, seeds {seeds}")
    kernel_jl_clustering.N_INIT = 1 if quick else 3
    raw = kernel_jl_clustering.clustering("digits", X, y, gamma, grid, seeds, n_exact=X.shape[0])
    table = kernel_jl_clustering.summarize(
        kernel_jl_clustering.pd.DataFrame(raw), ["method", "n", "d"], ["nmi", "ari", "time"]
    )
    log(table.to_string(index=False))
    markdown = "### Kpotufe & Sriperumbudur (2020) use: kernel k-means through sketches (NMI, ARI: mean +- std over seeds; time: preprocessing seconds)\n\n"
    markdown += kernel_jl_clustering.to_markdown(table)

    frame = kernel_jl_clustering.pd.DataFrame(raw)
    kjl = frame[frame.method == "KernelJL"].groupby("d").nmi.mean()
    centered = frame[frame.method == "KernelJL centered"].groupby("d").nmi.mean()
    nystroem = frame[frame.method == "Nystroem"].groupby("d").nmi.mean()
    exact = frame[frame.method.str.startswith("exact")].nmi.mean()
    panel = dict(
        title="KernelJL + KMeans",
        label="KernelJL (as in the paper)",
        others={
            "KernelJL(center=True)": (list(centered.index), list(centered.values)),
            "Nystroem (n = d)": (list(nystroem.index), list(nystroem.values)),
        },
        xlabel="n_components (d)",
        ylabel="NMI",
        x=list(kjl.index),
        y=list(kjl.values),
        exact=exact,
        exact_label="exact kernel k-means",
    )
    rows = [dict(section="KernelJL", **row) for row in raw]
    return rows, markdown, panel


def plot_panels(panels, path):
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 3.8))
    for ax, panel in zip(np.atleast_1d(axes), panels):
        ax.plot(panel["x"], panel["y"], "o-", label=panel.get("label", "sketch"))
        for label, (x, y) in panel.get("others", {}).items():
            ax.plot(x, y, "s:", label=label)
        ax.axhline(panel["exact"], color="k", linestyle="--", label=panel["exact_label"])
        ax.set_xscale("log")
        ax.set_title(panel["title"])
        ax.set_xlabel(panel["xlabel"])
        ax.set_ylabel(panel["ylabel"])
        ax.legend(fontsize=8)
    fig.suptitle("Sketch quality against sketch size on digits (dashed: exact kernel machine)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)  # left open: the documentation gallery shows it


def run_digits(quick, output_dir):
    data = load_digits_split()
    print(f"digits: {data[0].shape[0]} training rows, {data[2].shape[0]} test rows")
    all_rows, markdown, panels = [], ["# sklearn-sketch: the papers' tables on digits\n"], []
    for section in (tensor_sketch_section, core_section, kernel_jl_section):
        start = time.perf_counter()
        rows, text, panel = section(data, quick)
        print(f"  ({time.perf_counter() - start:.0f} s)")
        all_rows += rows
        markdown.append(text)
        panels.append(panel)
    plot_panels(panels, output_dir / "tables_digits.png")
    (output_dir / "tables_digits.md").write_text("\n".join(markdown))
    write_csv(output_dir / "tables_digits.csv", all_rows)
    return "\n".join(markdown)


def run_full(dataset, quick, data_home, output_dir):
    """The full reproductions: each paper's example script on the real data."""
    common = ["--data-home", str(data_home), "--output-dir", str(output_dir)]
    common += ["--quick"] if quick else []
    if dataset in ("mnist", "a9a"):
        pham_pagh_table1.main(common + ["--datasets", dataset])
    if dataset == "mnist":
        core_svm_table.main(common + ["--datasets", "mnist10k"])
        kernel_jl_clustering.main(common + ["--datasets", "mnist"])
    if dataset == "sector":
        core_svm_table.main(common + ["--datasets", "sector_counts", "sector_tfidf"])
    if dataset == "20news":
        core_figure3_mse.main(common)


def main(argv=None):
    parser = example_parser("Reproduce the papers' accuracy tables.")
    parser.add_argument(
        "--dataset", default="digits", choices=["digits", "mnist", "a9a", "sector", "20news"]
    )
    args = parser.parse_args(argv)
    data_home, output_dir = data_home_and_output_dir(args)

    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        if args.dataset == "digits":
            print("\n" + run_digits(args.quick, output_dir))
        else:
            run_full(args.dataset, args.quick, data_home, output_dir)
    print(f"Wrote the tables and plots to {output_dir} in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
