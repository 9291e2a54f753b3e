"""The README's figure: test accuracy against training time, drawn from the CSV
files of ``python benchmarks/bench_choosing.py`` (``benchmarks/results/``).

Left, MNIST (20000 training, 10000 test rows): TensorSketch for the kernel
(<x, y> + 1)^3 and OrthogonalRBFSampler (sorf) for the RBF kernel, beside
scikit-learn's PolynomialCountSketch, RBFSampler and Nystroem, each +
LinearSVC at n_components 512 to 4096, and the exact SVC of each kernel.
Right, 20 Newsgroups counts: CoREHasher and MinMaxHasher + LinearSVC at
k = 128 to 1024 hashes, the exact SVC of each kernel and a linear SVM.
Training time: CPU seconds of one thread, fit and transform of the training
rows and the LinearSVC fit (the SVC's fit, and its kernel where precomputed).
About 900 x 500 pixels. Run::

    python benchmarks/plot_readme_figure.py [--output docs/images/accuracy_time.png]
"""

import argparse
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs"))
from plots.choosing import (  # noqa: E402
    EXACT,
    LINEAR,
    curves,
    plain_log,
    read,
    select,
    training_seconds,
)

POLYNOMIAL = "polynomial p=3 c=1"
# (family, kernel, estimator, label, color, marker)
MNIST_LINES = [
    ("polynomial", POLYNOMIAL, "TensorSketch", "TensorSketch (polynomial)", "C0", "o"),
    (
        "polynomial",
        POLYNOMIAL,
        "PolynomialCountSketch",
        "scikit-learn PolynomialCountSketch",
        "C0",
        "x",
    ),
    (
        "rbf",
        None,
        "OrthogonalRBFSampler(sorf)",
        "OrthogonalRBFSampler (RBF)",
        "C3",
        "o",
    ),
    ("rbf", None, "RBFSampler", "scikit-learn RBFSampler", "C3", "x"),
    ("rbf", None, "Nystroem", "scikit-learn Nystroem (RBF)", "C1", "D"),
]
TEXT = "20 Newsgroups counts"
TEXT_LINES = [
    ("core2", 'CoREHasher(kernel="core2")', "CoREHasher (CoRE type 2)", "C2", "o"),
    (
        "resemblance",
        'CoREHasher(kernel="resemblance")',
        "CoREHasher (resemblance)",
        "C4",
        "s",
    ),
    ("min-max", 'MinMaxHasher(codes="full")', "MinMaxHasher (min-max)", "C0", "^"),
]


def line(ax, rows, estimator, label, color, marker, dashed=False):
    mine = select(rows, estimator=estimator)
    ((xs, ys, _),) = curves(
        mine, training_seconds, lambda r: 100 * r["accuracy"]
    ).values()
    ax.plot(
        xs,
        ys,
        marker=marker,
        color=color,
        label=label,
        ls="--" if dashed else "-",
        ms=6,
    )


def star(ax, row, label, color):
    ax.plot(
        training_seconds(row),
        100 * row["accuracy"],
        "*",
        color=color,
        ms=15,
        mec="k",
        mew=0.7,
        label=label,
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--output", default=str(ROOT / "docs" / "images" / "accuracy_time.png")
    )
    args = parser.parse_args(argv)
    plt.rcParams.update({"font.size": 10.5})
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 5), layout="constrained")

    tables = {family: read(family) for family in ("polynomial", "rbf")}
    for family, kernel, estimator, label, color, marker in MNIST_LINES:
        rows = (
            tables[family] if kernel is None else select(tables[family], kernel=kernel)
        )
        line(left, rows, estimator, label, color, marker, dashed=marker == "x")
    star(
        left,
        select(tables["polynomial"], kernel=POLYNOMIAL, estimator=EXACT)[0],
        r"exact SVC, $(\langle x, y\rangle + 1)^3$",
        "C0",
    )
    star(left, select(tables["rbf"], estimator=EXACT)[0], "exact SVC, RBF", "C3")
    left.set(title="MNIST: 20000 training, 10000 test rows")

    text = select(read("hashing"), dataset=TEXT)
    for kernel, estimator, label, color, marker in TEXT_LINES:
        line(right, text, estimator, label, color, marker)
        star(right, select(text, kernel=kernel, estimator=EXACT)[0], None, color)
    linear = select(text, estimator=LINEAR)[0]
    right.plot(
        training_seconds(linear),
        100 * linear["accuracy"],
        "P",
        color="0.3",
        ms=10,
        label="linear SVM (rows of unit norm)",
    )
    right.plot(
        [], [], "*", color="w", mec="k", ms=13, label="exact kernel SVC (same color)"
    )
    right.set(title="20 Newsgroups: 11314 training, 7532 test rows")

    for ax in (left, right):
        ax.set_xscale("log")
        plain_log(ax.xaxis, subs=(1, 1.5, 2, 3, 5, 7))
        ax.set(
            xlabel="training time (CPU seconds, one thread)", ylabel="test accuracy (%)"
        )
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8.5, loc="lower right")
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.output, dpi=100)
    print(f"Wrote {args.output}")


if __name__ == "__main__":
    main()
