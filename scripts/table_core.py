"""Li (2014) layout on digits, the CoRE kernels: one section of ``reproduce_tables.py``.

A linear SVM on the original and binarized rows, the exact CoRE type 1,
type 2 and resemblance kernels in ``SVC(kernel="precomputed")``, then
``CoREHasher`` features + LinearSVC as the number of hashes k grows (the
section's figure panel: accuracy against k, the exact CoRE type 1 kernel
dashed).
"""

from sklearn.preprocessing import normalize

from sklearn_sketch import CoREHasher
from sklearn_sketch.metrics import core_kernel, resemblance_kernel

from _common import NO_PAPER, best_kernel, best_linear, timed

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


def section(data, quick, log=print):
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
