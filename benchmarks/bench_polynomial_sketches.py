"""Kernel error and transform time of the polynomial sketches (Wacker et al. 2023 setup).

For 1000 unit-normalized MNIST test images and the kernel
``((1 - 2/a^2) + (2/a^2) <x, y>)^p`` with ``a = 2`` (``gamma = coef0 = 0.5``),
``p = 3`` and ``p = 7``, ``D = 2^9 .. 2^13`` and ``--seeds`` random states,
this script measures for every method

* the relative kernel error ``||K_hat - K||_F / ||K||_F`` (mean over seeds,
  with its standard error),
* the median wall-clock and CPU time of ``transform`` on the images (float32
  input), the methods timed in turn within each repeat so that load from
  other processes hits them alike,

and the ratios of both to TensorSketch's, all in one run. It writes
``polynomial_sketches.csv``, ``polynomial_sketches.md`` and
``polynomial_sketches.png`` (error and time against D) to ``--output-dir``.

Run::

    python benchmarks/bench_polynomial_sketches.py [--quick] [--seeds 20]
        [--data-home DIR] [--output-dir DIR] [--methods ts,srht,...]
        [--images 1000] [--sizes 9,10,11,12,13] [--replot CSV]
"""

import argparse
import csv
from pathlib import Path

import numpy as np

# The script's folder; importing it puts this source tree first on sys.path.
from _bench import default_data_home, median_times

from sklearn_sketch import (
    ComplexToRealSketch,
    MaclaurinSketch,
    PolynomialTreeSketch,
    TensorSketch,
    TensorSRHT,
)
from sklearn_sketch.datasets import fetch_mnist

METHODS = {
    "ts": ("TensorSketch", lambda **kw: TensorSketch(**kw)),
    "srht": ("TensorSRHT", lambda **kw: TensorSRHT(**kw)),
    "ctr-srht": ("CtR-SRHT", lambda **kw: ComplexToRealSketch(projection="srht", **kw)),
    "ctr-rad": ("CtR-Rademacher", lambda **kw: ComplexToRealSketch(projection="rademacher", **kw)),
    "tree-srht": ("Tree (TensorSRHT)", lambda **kw: PolynomialTreeSketch(base="tensorsrht", **kw)),
    "tree-ts": ("Tree (TensorSketch)", lambda **kw: PolynomialTreeSketch(base="tensorsketch", **kw)),
    "tree-ts-hash": (
        "Tree (TensorSketch, hashed buckets)",
        lambda **kw: PolynomialTreeSketch(base="tensorsketch", buckets="hash", **kw),
    ),
    "maclaurin": ("Maclaurin (tree)", lambda **kw: MaclaurinSketch(**kw)),
    "maclaurin-srht": (
        "Maclaurin (TensorSRHT)",
        lambda **kw: MaclaurinSketch(base="tensorsrht", **kw),
    ),
}

A = 2.0
GAMMA, COEF0 = 2 / A**2, 1 - 2 / A**2


def relative_error(Z, K, norm_K):
    Z = Z.astype(np.float64)
    K_hat = Z @ Z.T  # one operand and its transpose: a symmetric (syrk) product
    K_hat -= K
    return np.linalg.norm(K_hat) / norm_K


def time_transforms(sketches, X, repeats):
    """Median wall and CPU seconds of ``transform(X)`` per sketch.

    The sketches are timed in turn within each repeat, so that a burst of
    load from other processes lands on all of them rather than on one.
    """
    for sketch in sketches.values():
        sketch.transform(X[:10])  # warm-up: caches, FFT plans
    functions = {key: (lambda s=s: s.transform(X)) for key, s in sketches.items()}
    times = median_times(functions, repeats, ("wall", "cpu"))
    return (
        {key: wall for key, (wall, _) in times.items()},
        {key: cpu for key, (_, cpu) in times.items()},
    )


def plot(rows, path):
    """Error and CPU-time ratio to TensorSketch against D, one column per degree.

    CPU time (all threads of this process) rather than wall time: on a
    shared machine the wall time also counts other processes' load.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    degrees = sorted({r["degree"] for r in rows})
    methods = list(dict.fromkeys(r["method"] for r in rows))
    fig, axes = plt.subplots(2, len(degrees), figsize=(6 * len(degrees), 8), squeeze=False)
    for column, degree in enumerate(degrees):
        for label in methods:
            sel = [r for r in rows if r["degree"] == degree and r["method"] == label]
            Ds = [r["D"] for r in sel]
            axes[0, column].errorbar(
                Ds, [r["error_mean"] for r in sel], yerr=[r["error_sem"] for r in sel],
                marker="o", label=label, capsize=3,
            )
            axes[1, column].plot(Ds, [r["cpu_ratio_vs_ts"] for r in sel], marker="o", label=label)
        axes[1, column].axhline(2.0, color="gray", linestyle="--", linewidth=1)
        labels = ["||K_hat - K||_F / ||K||_F (mean ± s.e.)", "transform CPU time / TensorSketch's"]
        for ax, ylabel in zip(axes[:, column], labels):
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("D")
            ax.set_ylabel(ylabel)
            ax.set_title(f"p = {degree}")
            ax.grid(True, which="both", alpha=0.3)
        axes[0, column].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def read_csv(path):
    """The rows of a ``polynomial_sketches.csv``, numbers converted."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        for key, value in row.items():
            if key != "method":
                row[key] = int(value) if key in ("degree", "D") else float(value)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 images, 2 seeds, D <= 2^11")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5, help="timing repeats (median)")
    parser.add_argument("--images", type=int, default=1000)
    parser.add_argument("--sizes", default="9,10,11,12,13", help="log2 of the D values")
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--degrees", default="3,7")
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--output-dir", default=str(Path(__file__).parent / "output"))
    parser.add_argument(
        "--replot", default=None, metavar="CSV",
        help="only redraw the figure of an earlier run's CSV into --output-dir",
    )
    args = parser.parse_args(argv)
    if args.replot:
        Path(args.output_dir).mkdir(parents=True, exist_ok=True)
        plot(read_csv(args.replot), Path(args.output_dir) / "polynomial_sketches.png")
        return None
    data_home = args.data_home or default_data_home()
    output_dir = Path(args.output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)

    n_images, seeds = args.images, args.seeds
    sizes = [2 ** int(k) for k in args.sizes.split(",")]
    if args.quick:
        n_images, seeds, sizes = 200, 2, [2**9, 2**11]
    methods = args.methods.split(",")
    degrees = [int(p) for p in args.degrees.split(",")]

    X, _ = fetch_mnist(data_home, subset="test", return_X_y=True)
    X = X[:n_images]
    X /= np.linalg.norm(X, axis=1, keepdims=True)  # unit-normalized, float32
    X64 = X.astype(np.float64)

    rows = []
    for degree in degrees:
        K = (GAMMA * X64 @ X64.T + COEF0) ** degree
        norm_K = np.linalg.norm(K)
        for D in sizes:
            params = dict(n_components=D, degree=degree, gamma=GAMMA, coef0=COEF0)
            first = {key: METHODS[key][1](random_state=0, **params).fit(X) for key in methods}
            wall, cpu = time_transforms(first, X, args.repeats)
            for key in methods:
                label, make = METHODS[key]
                errors = [
                    relative_error(
                        (first[key] if seed == 0 else make(random_state=seed, **params).fit(X))
                        .transform(X), K, norm_K,
                    )
                    for seed in range(seeds)
                ]
                row = {
                    "degree": degree, "D": D, "method": label,
                    "error_mean": float(np.mean(errors)),
                    "error_std": float(np.std(errors)),
                    "error_sem": float(np.std(errors, ddof=1) / np.sqrt(seeds)) if seeds > 1 else np.nan,
                    "time_s": wall[key],
                    "cpu_s": cpu[key],
                }
                rows.append(row)
                print(
                    f"p={degree} D={D:<5} {label:<36} error {row['error_mean']:.4f} "
                    f"+- {row['error_sem']:.4f}  transform {row['time_s']:.3f} s "
                    f"(cpu {row['cpu_s']:.3f} s)",
                    flush=True,
                )

    # Ratios to TensorSketch at the same (degree, D), from this run.
    reference = {(r["degree"], r["D"]): r for r in rows if r["method"] == "TensorSketch"}
    for row in rows:
        ts = reference.get((row["degree"], row["D"]))
        row["error_ratio_vs_ts"] = row["error_mean"] / ts["error_mean"] if ts else np.nan
        row["time_ratio_vs_ts"] = row["time_s"] / ts["time_s"] if ts else np.nan
        row["cpu_ratio_vs_ts"] = row["cpu_s"] / ts["cpu_s"] if ts else np.nan

    # The csv module quotes labels that contain commas.
    with open(output_dir / "polynomial_sketches.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    md = [
        f"# Polynomial sketches on {n_images} unit-normalized MNIST test images",
        "",
        f"Kernel ((1 - 2/a^2) + (2/a^2) <x,y>)^p, a = 2; {seeds} seeds; "
        f"time = median of {args.repeats} interleaved transforms (float32).",
        "",
        "| p | D | method | rel. error (mean ± s.e.) | error / TS | time (s) | time / TS "
        "| CPU / TS |",
        "| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        md.append(
            f"| {r['degree']} | {r['D']} | {r['method']} | {r['error_mean']:.4f} ± "
            f"{r['error_sem']:.4f} | {r['error_ratio_vs_ts']:.2f} | {r['time_s']:.3f} | "
            f"{r['time_ratio_vs_ts']:.2f} | {r['cpu_ratio_vs_ts']:.2f} |"
        )
    (output_dir / "polynomial_sketches.md").write_text("\n".join(md) + "\n")

    plot(rows, output_dir / "polynomial_sketches.png")
    print(f"Wrote {output_dir / 'polynomial_sketches.md'}, .csv and .png")
    return rows


if __name__ == "__main__":
    main()
