"""Pham & Pagh (2013), Table 1 layout on digits: one section of ``reproduce_tables.py``.

``Normalizer -> TensorSketch -> LinearSVC`` for the four polynomial kernels
of the paper's Table 1, training and test accuracy over a few sketches,
beside the exact polynomial-kernel SVC and its time, and a sweep of the
sketch size D for ``(1 + <x,y>)^2`` (the section's figure panel).
"""

import numpy as np
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer
from sklearn.svm import SVC

from _common import KERNELS, NO_PAPER, pm, sketch_svm_accuracies, timed

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


def section(data, quick, log=print):
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
