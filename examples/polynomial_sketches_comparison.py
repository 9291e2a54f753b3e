"""
===================================================================
Lower-variance polynomial sketches on MNIST: Pham & Pagh, Table 1
===================================================================

The MNIST rows of Table 1 of Pham & Pagh (KDD 2013), D = 1000, with the
lower-variance sketches beside ``TensorSketch``: the same protocol as
``pham_pagh_table1.py`` (rows normalized to unit length, the sketch, a
linear SVM, training accuracy mean +- std over runs, plus test accuracy),
for ``TensorSketch``, ``ComplexToRealSketch(projection="srht")``,
``PolynomialTreeSketch`` and ``MaclaurinSketch`` (the variants with the
lowest kernel error in ``benchmarks/bench_polynomial_sketches.py``). On the
homogeneous kernels (``coef0 = 0``) ``MaclaurinSketch`` is its base, the
tree, so it is run on the inhomogeneous ones only.

Run::

    python examples/polynomial_sketches_comparison.py [--quick] [--runs 5]
        [--sketches NAME,...] [--data-home DIR] [--output-dir DIR]
"""

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer
from sklearn.svm import LinearSVC

from pham_pagh_table1 import KERNELS, PUBLISHED, load_table_data
from sklearn_sketch import (
    ComplexToRealSketch,
    MaclaurinSketch,
    PolynomialTreeSketch,
    TensorSketch,
)
from sklearn_sketch.datasets import get_data_home

DEFAULT_DATA_HOME = Path(__file__).resolve().parents[2] / "shared" / "datasets"
N_COMPONENTS = 1000

SKETCHES = {
    "TensorSketch": lambda **kw: TensorSketch(**kw),
    "CtR-SRHT": lambda **kw: ComplexToRealSketch(projection="srht", **kw),
    "Tree (TensorSketch)": lambda **kw: PolynomialTreeSketch(**kw),
    "Maclaurin (tree)": lambda **kw: MaclaurinSketch(**kw),
}
# Sketches that differ from another one only when coef0 > 0.
INHOMOGENEOUS_ONLY = {"Maclaurin (tree)"}


def accuracies(make, data, degree, coef0, seed):
    """Train/test accuracy (%) of Normalizer -> sketch -> LinearSVC."""
    X_train, y_train, X_test, y_test = data
    model = make_pipeline(
        Normalizer(),
        make(n_components=N_COMPONENTS, degree=degree, coef0=coef0, random_state=seed),
        LinearSVC(dual=True),  # LIBLINEAR's default solver, as in the paper
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X_train, y_train)
    return 100 * model.score(X_train, y_train), 100 * model.score(X_test, y_test)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[1])
    parser.add_argument(
        "--quick", action="store_true", help="500 rows, 1 run, two kernels: seconds"
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--sketches", default=",".join(SKETCHES), help="comma-separated names of SKETCHES"
    )
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--output-dir", default=str(Path(__file__).parent / "output"))
    args = parser.parse_args(argv)
    data_home = get_data_home(args.data_home) or DEFAULT_DATA_HOME
    output_dir = Path(args.output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    n_max, n_runs = (500, 1) if args.quick else (None, args.runs)
    kernels = [KERNELS[0], KERNELS[3]] if args.quick else KERNELS
    sketches = {name: SKETCHES[name] for name in args.sketches.split(",")}

    data = load_table_data("mnist", data_home, n_max)
    print(f"MNIST: {data[0].shape[0]} training rows, {data[2].shape[0]} test rows, D={N_COMPONENTS}")
    rows = []
    for label, degree, coef0 in kernels:
        for name, make in sketches.items():
            if coef0 == 0 and name in INHOMOGENEOUS_ONLY:
                continue
            start = time.perf_counter()
            runs = np.array([accuracies(make, data, degree, coef0, s) for s in range(n_runs)])
            row = {
                "kernel": label, "sketch": name,
                "train_mean": runs[:, 0].mean(), "train_std": runs[:, 0].std(),
                "test_mean": runs[:, 1].mean(), "test_std": runs[:, 1].std(),
                "paper_ts_train": PUBLISHED["mnist"][label][0],
                "seconds_per_run": (time.perf_counter() - start) / n_runs,
            }
            rows.append(row)
            print(
                f"  {label:<13} {name:<18} train {row['train_mean']:6.2f} +- {row['train_std']:.2f}"
                f"  test {row['test_mean']:6.2f} +- {row['test_std']:.2f}"
                f"  (paper TS train {row['paper_ts_train']:.2f}; {row['seconds_per_run']:.1f} s/run)",
                flush=True,
            )

    lines = [
        f"# MNIST, Pham & Pagh Table 1 kernels, D = {N_COMPONENTS}, linear SVM",
        "",
        f"{n_runs} run(s){' (quick mode: 500 rows, not comparable to the paper)' if args.quick else ''}.",
        "",
        "| kernel | sketch | train accuracy | test accuracy | paper (TS, train) |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for r in rows:
        lines.append(
            f"| {r['kernel']} | {r['sketch']} | {r['train_mean']:.2f} ± {r['train_std']:.2f} "
            f"| {r['test_mean']:.2f} ± {r['test_std']:.2f} | {r['paper_ts_train']:.2f} |"
        )
    (output_dir / "polynomial_sketches_comparison.md").write_text("\n".join(lines) + "\n")
    columns = list(rows[0])
    csv = [",".join(columns)] + [",".join(str(r[c]) for c in columns) for r in rows]
    (output_dir / "polynomial_sketches_comparison.csv").write_text("\n".join(csv) + "\n")
    print(f"Wrote {output_dir / 'polynomial_sketches_comparison.md'} and .csv")


if __name__ == "__main__":
    main()
