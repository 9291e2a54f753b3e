"""Reproduce the papers' accuracy tables in one command.

The main job of sklearn-sketch: for each of its three methods, the table of
its paper in the paper's layout, with the published figures beside ours where
the paper has them, and one plot of quality against sketch size with the
exact kernel machine as a line.

* Tensor Sketch (Pham & Pagh 2013, Table 1): polynomial kernels, sketch +
  linear SVM, training and test accuracy over 4 kernels
  (``table_tensor_sketch.py``).
* CoRE kernels (Li 2014): linear SVM on original and binarized data, exact
  CoRE type 1 / type 2 / resemblance kernel SVMs, and ``CoREHasher`` + linear
  SVM as the number of hashes k grows (``table_core.py``).
* K-JL (Kpotufe & Sriperumbudur 2020): KMeans on ``KernelJL`` features
  (uncentered as in the paper, and centered) against Nystroem, random Fourier
  features, plain KMeans and exact kernel k-means, NMI and ARI
  (``table_kernel_jl.py``).

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
fast: the sketches' speed pays off as rows grow (see the Benchmarks page).
Tables go to ``--output-dir`` (default ``scripts/output/``) as Markdown and
CSV, next to the figure (test accuracy or NMI against n_components, the
exact kernel machine as a dashed line).

Run::

    python scripts/reproduce_tables.py [--dataset digits|mnist|a9a|sector|20news] [--quick]
"""

import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning

import table_core
import table_kernel_jl
import table_tensor_sketch
from _common import (
    data_home_and_output_dir,
    load_digits_split,
    parse_settings,
    pm,
    save_panels,
    script_parser,
    timed,
    write_csv,
)

HERE = Path(__file__).resolve().parent
# The full reproductions: (script of this folder, its options) per --dataset.
FULL_RUNS = {
    "mnist": [
        ("pham_pagh_table1", ["--datasets", "mnist"]),
        ("core_svm_table", ["--datasets", "mnist10k"]),
        ("kernel_jl_clustering", ["--datasets", "mnist"]),
    ],
    "a9a": [("pham_pagh_table1", ["--datasets", "a9a"])],
    "sector": [("core_svm_table", ["--datasets", "sector_counts", "sector_tfidf"])],
    "20news": [("core_figure3_mse", [])],
}
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
    """The full reproductions: each paper's script on the real data."""
    common = ["--data-home", str(data_home), "--output-dir", str(output_dir)]
    common += ["--quick"] if quick else []
    for name, options in FULL_RUNS[dataset]:
        subprocess.run([sys.executable, str(HERE / f"{name}.py"), *common, *options], check=True)


def run_digits(quick, output_dir):
    """The three papers' sections on the digits, the labelled result and the files."""
    # LinearSVC and SVC draw their solvers' seeds from numpy's global random
    # state when given no random_state: it is seeded, so that two runs print
    # the same figures.
    np.random.seed(0)
    data = load_digits_split()
    n_train, n_test = data[0].shape[0], data[2].shape[0]
    print(
        f"Digits: {n_train} training rows, {n_test} test rows, {data[0].shape[1]} features"
        + (" (--quick: fewer runs and sizes)" if quick else "")
    )
    all_rows, markdown, panels = [], ["# sklearn-sketch: the papers' tables on digits\n"], []
    for module in (table_tensor_sketch, table_core, table_kernel_jl):
        (rows, text, panel), seconds = timed(module.section, data, quick)
        print(f"  done in {seconds:.0f} s")
        all_rows.extend(rows)
        markdown.append(text)
        panels.append(panel)
    save_panels(
        panels, output_dir / "tables_digits.png",
        "Sketch quality against sketch size on digits (dashed: exact kernel machine)",
    )
    result = result_lines(all_rows, n_train, n_test)
    markdown.append(
        f"### Result\n\n{result[0]}:\n\n```text\n" + "\n".join(result[1:]) + "\n```\n"
    )
    (output_dir / "tables_digits.md").write_text("\n".join(markdown))
    write_csv(output_dir / "tables_digits.csv", all_rows)
    print("\n" + "\n".join(result))
    return "the figure"


def main(argv=None):
    parser = script_parser("Reproduce the papers' accuracy tables.")
    parser.add_argument(
        "--dataset", default="digits", choices=["digits", "mnist", "a9a", "sector", "20news"],
        help="digits (default) runs the three tables here; the others run the full "
        "reproductions on the real data",
    )
    args = parse_settings(parser, argv)
    data_home, output_dir = data_home_and_output_dir(args)
    start = time.perf_counter()
    warnings.simplefilter("ignore", ConvergenceWarning)
    if args.dataset == "digits":
        written = run_digits(args.quick, output_dir)
    else:
        run_full(args.dataset, args.quick, data_home, output_dir)
        written = "the figures"
    print(
        f"\nWrote the tables (Markdown, CSV) and {written} to {output_dir} "
        f"in {time.perf_counter() - start:.0f} s"
    )


if __name__ == "__main__":
    main()
