"""
====================================================
Reproduce the papers' accuracy tables in one command
====================================================

The main job of sklearn-sketch: for each method, the accuracy table of its
paper in the paper's layout, with the published figures beside ours, and a
plot of accuracy against sketch size with the exact kernel's accuracy as a
line.

* ``--dataset digits`` (default): scikit-learn's bundled digits (1797 x 64),
  no download, about a minute. The papers have no digits figures, so the
  exact kernel machine is the reference.
* ``--dataset mnist`` / ``--dataset a9a``: the full-size rows of Pham & Pagh
  (2013), Table 1, from the data in ``--data-home`` (default
  ``$SKLEARN_SKETCH_DATA``, else the shared data folder beside the checkout).

Tables go to ``--output-dir`` as Markdown and CSV, next to the plot.

Run::

    python examples/reproduce_tables.py [--dataset digits|mnist|a9a] [--quick]
"""

import time
import warnings
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from _common import data_home_and_output_dir, example_parser, write_csv  # noqa: E402
from pham_pagh_table1 import (  # noqa: E402
    KERNELS,
    PAPER_N_COMPONENTS,
    PUBLISHED,
    load_table_data,
    markdown_table,
    run_table,
    sketch_svm_accuracies,
)
from sklearn.datasets import load_digits  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import Normalizer  # noqa: E402
from sklearn.svm import SVC  # noqa: E402


def load_digits_split():
    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, stratify=y, random_state=0
    )
    return X_train, y_train, X_test, y_test


def exact_kernel_accuracies(data, degree, coef0):
    """Train/test accuracy (%) of the exact polynomial-kernel SVM (C = 1)."""
    X_train, y_train, X_test, y_test = data
    model = make_pipeline(Normalizer(), SVC(kernel="poly", degree=degree, gamma=1.0, coef0=coef0))
    model.fit(X_train, y_train)
    return 100 * model.score(X_train, y_train), 100 * model.score(X_test, y_test)


def tensor_sketch_section(dataset, data_home, quick, output_dir, log=print):
    """The Tensor Sketch table (and the accuracy-vs-D plot on digits)."""
    n_runs = 2 if quick else 5
    if dataset == "digits":
        data = load_digits_split()
        n_components, published = 1000, None
    else:
        data = load_table_data(dataset, data_home, 2000 if quick else None)
        n_components, published = PAPER_N_COMPONENTS[dataset], PUBLISHED[dataset]
    log(
        f"Tensor Sketch -> LinearSVC on {dataset}: {data[0].shape[0]} training rows, "
        f"{data[2].shape[0]} test rows, {n_runs} runs"
    )
    rows = run_table(data, n_components, n_runs, published, log=log)
    title = f"Pham & Pagh (2013), Table 1 layout: Tensor Sketch + linear SVM, {dataset}"
    markdown = markdown_table(title, rows)

    if dataset == "digits":
        # Exact kernel SVMs are affordable here: they are the reference line.
        exact = {label: exact_kernel_accuracies(data, d, c) for label, d, c in KERNELS}
        for row in rows:
            row["exact_train"], row["exact_test"] = exact[row["kernel"]]
        markdown += "\n| kernel | exact-kernel SVC train | exact-kernel SVC test |\n"
        markdown += "| --- | ---: | ---: |\n"
        markdown += "".join(
            f"| {label} | {train:.2f} | {test:.2f} |\n" for label, (train, test) in exact.items()
        )
        sizes = [50, 100, 200, 500, 1000, 2000] if not quick else [50, 200, 1000]
        sweep = accuracy_against_size(data, sizes, n_runs=1 if quick else 2, log=log)
        plot_accuracy_against_size(sizes, sweep, exact, output_dir / "tensor_sketch_accuracy.png")
    return rows, markdown


def accuracy_against_size(data, sizes, n_runs, log=print):
    """Mean test accuracy (%) for each kernel and sketch size."""
    X_train, y_train, X_test, y_test = data
    sweep = {}
    for label, degree, coef0 in KERNELS:
        sweep[label] = [
            np.mean(
                [
                    sketch_svm_accuracies(
                        X_train, y_train, X_test, y_test, degree, coef0, size, seed
                    )[1]
                    for seed in range(n_runs)
                ]
            )
            for size in sizes
        ]
        log(f"  sweep {label:<13} " + "  ".join(f"D={s}: {a:.1f}" for s, a in zip(sizes, sweep[label])))
    return sweep


def plot_accuracy_against_size(sizes, sweep, exact, path):
    fig, ax = plt.subplots(figsize=(6, 4))
    for (label, accuracies), color in zip(sweep.items(), plt.cm.tab10.colors):
        ax.plot(sizes, accuracies, "o-", color=color, label=f"TensorSketch {label}")
        ax.axhline(exact[label][1], color=color, linestyle="--", linewidth=1)
    ax.set_xscale("log")
    ax.set_xlabel("n_components (sketch size D)")
    ax.set_ylabel("test accuracy (%)")
    ax.set_title("Tensor Sketch + LinearSVC on digits\n(dashed: exact polynomial-kernel SVC)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)  # left open: the documentation gallery shows it


def main(argv=None):
    parser = example_parser("Reproduce the papers' accuracy tables.")
    parser.add_argument("--dataset", default="digits", choices=["digits", "mnist", "a9a"])
    args = parser.parse_args(argv)
    data_home, output_dir = data_home_and_output_dir(args)

    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        rows, markdown = tensor_sketch_section(args.dataset, data_home, args.quick, output_dir)
    stem = f"tables_{args.dataset}"
    (output_dir / f"{stem}.md").write_text(markdown)
    write_csv(output_dir / f"{stem}.csv", rows)
    print()
    print(markdown)
    print(f"Wrote {output_dir}/{stem}.md, .csv and plots in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
