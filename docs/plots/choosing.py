"""The figures of the user guide's "Choosing a sketch" page, drawn from the
CSV files of ``python benchmarks/bench_choosing.py`` (``benchmarks/results/``).

Each function draws one figure; the page calls them through matplotlib's
``.. plot::`` directive, so every docs build draws them from the committed
data. ``$SKLEARN_SKETCH_CHOOSING_RESULTS`` names another folder of results.
"""

import csv
import os
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

RESULTS = Path(
    os.environ.get("SKLEARN_SKETCH_CHOOSING_RESULTS")
    or Path(__file__).resolve().parents[2] / "benchmarks" / "results"
)
EXACT = "exact SVC"
LINEAR = "LinearSVC on the input"
# One color and marker per estimator, the same in every figure.
STYLES = {
    "TensorSketch": ("C0", "o"),
    "TensorSRHT": ("C1", "v"),
    "ComplexToRealSketch": ("C2", "^"),
    "PolynomialTreeSketch": ("C3", "D"),
    "MaclaurinSketch": ("C4", "s"),
    "PolynomialCountSketch": ("C7", "x"),
    "OrthogonalRBFSampler(sorf)": ("C0", "o"),
    "OrthogonalRBFSampler(orf)": ("C1", "v"),
    "OrthogonalRBFSampler(fastfood)": ("C2", "^"),
    "RBFSampler": ("C7", "x"),
    "Nystroem": ("C3", "D"),
    'MinMaxHasher(codes="full")': ("C0", "o"),
    'MinMaxHasher(codes="0bit")': ("C1", "v"),
    'CoREHasher(kernel="core1")': ("C2", "^"),
    'CoREHasher(kernel="core2")': ("C3", "D"),
    'CoREHasher(kernel="resemblance")': ("C4", "s"),
    "KernelJL": ("C0", "o"),
    "KMeans on the input": ("C7", "x"),
}
# The kernel each hashed estimator approximates (its exact SVC's color).
HASH_KERNELS = {
    "min-max": 'MinMaxHasher(codes="full")',
    "core1": 'CoREHasher(kernel="core1")',
    "core2": 'CoREHasher(kernel="core2")',
    "resemblance": 'CoREHasher(kernel="resemblance")',
}


def read(family):
    """The rows of ``choosing_<family>.csv``, numbers as floats (NaN if empty)."""
    with open(RESULTS / f"choosing_{family}.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        for key, value in row.items():
            try:
                row[key] = float(value) if value != "" else np.nan
            except ValueError:
                pass
    return rows


def select(rows, **where):
    return [r for r in rows if all(r[k] == v for k, v in where.items())]


def training_seconds(row):
    fit = row["fit_transform_s"]
    return row["svc_fit_s"] + (0.0 if np.isnan(fit) else fit)


def curves(rows, x, y):
    """estimator -> (x values, y values), means over seeds, by n_components."""
    out = {}
    for name in dict.fromkeys(r["estimator"] for r in rows):
        if name in (EXACT, LINEAR):
            continue
        mine = select(rows, estimator=name)
        sizes = sorted({r["n_components"] for r in mine})
        cells = [[r for r in mine if r["n_components"] == n] for n in sizes]
        out[name] = (
            [np.mean([x(r) for r in c]) for c in cells],
            [np.mean([y(r) for r in c]) for c in cells],
            sizes,
        )
    return out


def plain_log(axis, subs=(1, 2, 5)):
    """Log scale, ticks at 1, 2, 5 times powers of ten, written as plain numbers."""
    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def accuracy_panel(ax, rows, title, exact_colors=None):
    """Test accuracy against training CPU seconds: one line per estimator,
    its points n_components from left to right; the anchors as single marks."""
    for name, (xs, ys, _) in curves(
        rows, training_seconds, lambda r: 100 * r["accuracy"]
    ).items():
        color, marker = STYLES[name]
        ax.plot(xs, ys, marker=marker, color=color, label=name, ms=5)
    for row in select(rows, estimator=EXACT):
        color = (exact_colors or {}).get(row["kernel"], "k")
        ax.plot(
            training_seconds(row),
            100 * row["accuracy"],
            "*",
            color=color,
            ms=13,
            mec="k",
            mew=0.6,
            label=f"exact SVC ({row['kernel']})" if exact_colors else "exact SVC",
        )
    for row in select(rows, estimator=LINEAR):
        ax.plot(
            training_seconds(row),
            100 * row["accuracy"],
            "P",
            color="0.4",
            ms=9,
            label="LinearSVC on the input",
        )
    ax.set_xscale("log")
    plain_log(ax.xaxis, subs=(1, 1.5, 2, 3, 5, 7))
    ax.set(
        title=title,
        xlabel="training CPU seconds (fit + transform + LinearSVC)",
        ylabel="test accuracy (%)",
    )
    ax.grid(True, which="both", alpha=0.3)


def error_panel(ax, rows, title):
    """Relative Gram error against n_components, log-log."""
    for name, (xs, ys, _) in curves(
        rows, lambda r: r["n_components"], lambda r: r["gram_error"]
    ).items():
        color, marker = STYLES[name]
        ax.plot(xs, ys, marker=marker, color=color, label=name, ms=5)
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_yscale("log")
    plain_log(ax.yaxis, subs=(1, 2, 5))
    ax.set(
        title=title, xlabel="n_components", ylabel=r"$\|ZZ^\top - K\|_F \,/\, \|K\|_F$"
    )
    ax.grid(True, which="both", alpha=0.3)


def legend_below(fig, axes, ncol):
    handles = {}
    for ax in np.ravel(axes):
        for h, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, h)
    labels = list(handles)
    fig.legend(
        [handles[k] for k in labels],
        labels,
        loc="outside lower center",
        ncol=ncol,
        fontsize=10,
        frameon=False,
    )


def polynomial_accuracy():
    rows = read("polynomial")
    kernels = [k for k in dict.fromkeys(r["kernel"] for r in rows) if k != "linear"]
    fig, axes = plt.subplots(
        2, 2, figsize=(10, 8.2), layout="constrained", sharey="row"
    )
    for ax, kernel in zip(axes.ravel(), kernels):
        p, c = kernel.split()[1:]
        accuracy_panel(
            ax,
            select(rows, kernel=kernel),
            rf"$(\langle x, y\rangle + {c[2:]})^{p[2:]}$",
        )
    for ax in axes[0]:
        ax.set_xlabel("")
    legend_below(fig, axes, 4)
    return fig


def polynomial_error():
    rows = read("polynomial")
    kernels = [k for k in dict.fromkeys(r["kernel"] for r in rows) if k != "linear"]
    fig, axes = plt.subplots(1, 4, figsize=(10, 3.9), layout="constrained", sharey=True)
    for ax, kernel in zip(axes, kernels):
        p, c = kernel.split()[1:]
        error_panel(
            ax,
            select(rows, kernel=kernel),
            rf"$(\langle x, y\rangle + {c[2:]})^{p[2:]}$",
        )
    for ax in axes[1:]:
        ax.set_ylabel("")
    legend_below(fig, axes, 3)
    return fig


def rbf():
    rows = [r for r in read("rbf") if r["kernel"] != "linear"]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.6), layout="constrained")
    accuracy_panel(axes[0], rows, "test accuracy")
    error_panel(axes[1], rows, "kernel error (1000 test rows)")
    legend_below(fig, axes, 4)
    return fig


def hashing():
    rows = read("hashing")
    datasets = list(dict.fromkeys(r["dataset"] for r in rows))
    colors = {kernel: STYLES[name][0] for kernel, name in HASH_KERNELS.items()}
    fig, axes = plt.subplots(
        len(datasets),
        2,
        figsize=(10, 4.3 * len(datasets)),
        layout="constrained",
        squeeze=False,
    )
    for (left, right), dataset in zip(axes, datasets):
        mine = select(rows, dataset=dataset)
        accuracy_panel(left, mine, f"{dataset}: test accuracy", exact_colors=colors)
        error_panel(right, mine, f"{dataset}: kernel error")
        right.set_xlabel("n_components (hashes k)")
    for ax in axes[:-1].ravel():
        ax.set_xlabel("")
    legend_below(fig, axes, 3)
    return fig


def kernel_jl():
    rows = read("kernel_jl")
    fig, axes = plt.subplots(1, 3, figsize=(10, 4.2), layout="constrained")
    cost = select(rows, experiment="fit cost")
    for name in ("KernelJL", "Nystroem"):
        mine = select(cost, estimator=name)
        color, marker = STYLES[name]
        axes[0].plot(
            [r["n_subsample"] for r in mine],
            [r["fit_s"] for r in mine],
            marker=marker,
            color=color,
            label=name,
        )
    axes[0].set(
        xscale="log",
        yscale="log",
        xlabel="subsample n",
        ylabel="fit CPU seconds",
        title="fit cost",
    )
    plain_log(axes[0].yaxis)
    axes[0].set_xticks([r["n_subsample"] for r in select(cost, estimator="KernelJL")])
    axes[0].xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axes[0].xaxis.set_minor_formatter(NullFormatter())
    axes[0].legend(fontsize=9)

    def bars(ax, rows, value, groups, title, ylabel):
        methods = list(dict.fromkeys((r["estimator"], r["n_subsample"]) for r in rows))
        width = 0.8 / len(groups)
        for g, group in enumerate(groups):
            values = [
                [
                    r[value]
                    for r in rows
                    if (r["estimator"], r["n_subsample"]) == m and r["dataset"] == group
                ]
                for m in methods
            ]
            ax.barh(
                np.arange(len(methods)) + g * width,
                [np.mean(v) for v in values],
                height=width,
                label=group,
                color=f"C{g}",
                alpha=0.85,
            )
            for i, v in enumerate(values):  # each seed
                ax.plot(v, np.full(len(v), i + g * width), "k|", ms=7, mew=1.2)
        names = [
            m[0].replace("KMeans on the input", "plain KMeans")
            + ("" if np.isnan(m[1]) else f" n={m[1]:.0f}")
            for m in methods
        ]
        ax.set_yticks(np.arange(len(methods)) + width * (len(groups) - 1) / 2, names)
        ax.invert_yaxis()
        ax.set(title=title, xlabel=ylabel)
        ax.grid(True, axis="x", alpha=0.3)

    clustering = select(rows, experiment="clustering")
    bars(
        axes[1],
        clustering,
        "nmi_held_out",
        ["MNIST", "pendigits"],
        "clustering",
        "NMI of KMeans(10), held-out rows",
    )
    axes[1].legend(
        fontsize=9,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.16),
        ncol=2,
        frameon=False,
    )
    pca = select(rows, experiment="kernel PCA")
    bars(
        axes[2],
        pca,
        "mean_cosine",
        [pca[0]["dataset"]],
        "kernel PCA",
        "top 5 PCs: mean cosine\nwith exact kernel PCA",
    )
    axes[2].set_xlim(0.5, 1.0)
    return fig
