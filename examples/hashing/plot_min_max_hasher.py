"""
==========================================================
The min-max kernel through MinMaxHasher features
==========================================================

For nonnegative rows :math:`x, y`, the min-max kernel (weighted Jaccard)

.. math::

    K(x, y) = \\frac{\\sum_i \\min(x_i, y_i)}{\\sum_i \\max(x_i, y_i)}

has no parameter to tune and suits counts and histograms. Its exact SVM
needs the kernel between every pair of rows.
:class:`~sklearn_sketch.MinMaxHasher` draws ``n_components`` consistent
weighted samples of each row, coded as one nonzero each in a sparse
feature vector, so that a linear SVM on them approximates the kernel SVM.
Two codings of the samples are compared: the full samples (the default) and
Li's 0-bit codes (``codes="0bit"``), which keep only the sampled
coordinate.

The full-size table (sector, 20 Newsgroups, MNIST, Adult) is
``scripts/min_max_svm_table.py``.
"""

# %%
# The data and the exact kernel SVM
# ---------------------------------
# The digits' raw pixel values, 0 to 16, split in halves. The exact SVM
# uses :func:`sklearn_sketch.metrics.min_max_kernel` in
# ``SVC(kernel="precomputed")``; a linear SVM on the pixels is the baseline.

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC, LinearSVC

from sklearn_sketch import MinMaxHasher
from sklearn_sketch.metrics import min_max_kernel

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(
    X.astype(np.float32), y, test_size=0.5, stratify=y, random_state=0
)
exact = SVC(kernel="precomputed").fit(min_max_kernel(X_train), y_train)
exact_accuracy = 100 * exact.score(min_max_kernel(X_test, X_train), y_test)
raw = LinearSVC(random_state=0).fit(X_train, y_train)
raw_accuracy = 100 * raw.score(X_test, y_test)
print(f"exact min-max SVC: {exact_accuracy:.2f}%, LinearSVC on the pixels: {raw_accuracy:.2f}%")

# %%
# The hashed features
# -------------------
# For each number of samples ``k`` and each coding, three random states:
# ``MinMaxHasher`` is fitted on the training rows, both sets are
# transformed, and ``LinearSVC`` is trained on the sparse features.

ks = [16, 32, 64, 128, 256, 512]
accuracy = {}
for codes in ("full", "0bit"):
    accuracy[codes] = np.zeros((len(ks), 3))
    for i, k in enumerate(ks):
        for seed in range(3):
            hasher = MinMaxHasher(n_components=k, codes=codes, random_state=seed).fit(X_train)
            svm = LinearSVC(random_state=0).fit(hasher.transform(X_train), y_train)
            accuracy[codes][i, seed] = 100 * svm.score(hasher.transform(X_test), y_test)
        print(f"codes={codes!r}, k={k:>3}: {accuracy[codes][i].mean():.2f}% "
              f"+- {accuracy[codes][i].std():.2f}")

# %%
# Accuracy against the number of samples
# --------------------------------------

fig, ax = plt.subplots(figsize=(8, 5), layout="constrained")
for (codes, label), marker, offset in zip(
    (("full", "full samples (default)"), ("0bit", 'codes="0bit"')), "o^", (0.96, 1.04)
):
    ax.errorbar(np.array(ks) * offset, accuracy[codes].mean(axis=1),
                yerr=accuracy[codes].std(axis=1), marker=marker, capsize=3,
                label=f"MinMaxHasher, {label} + LinearSVC")
ax.axhline(exact_accuracy, color="C3", ls="--", label="exact min-max kernel, SVC")
ax.axhline(raw_accuracy, color="gray", ls=":", label="LinearSVC on the pixels")
ax.set_xscale("log", base=2)
ax.set_xticks(ks, labels=[str(k) for k in ks])
ax.minorticks_off()
ax.set(xlabel="k (number of samples, n_components)",
       ylabel="test accuracy (%), mean and std over 3 seeds",
       title="The min-max kernel on the digits")
ax.set_ylim(top=exact_accuracy + 1)
ax.legend(loc="lower right")
plt.show()

# %%
# What the figure shows
# ---------------------
# From 64 samples on, the hashed features beat the linear SVM on the
# pixels, and as ``k`` grows they climb toward the exact min-max kernel SVM,
# within a point of it at ``k = 512``. The two codings score alike at every
# ``k``, within the spread of the seeds: the 0-bit codes lose nothing here.
# The exact SVM's kernel matrix grows with the square of the rows; the
# hashed features grow with ``k`` per row, which is what makes them the
# tool for large sparse data (the Benchmarks page has the text data sets,
# where the hashed features also beat the exact one-vs-one SVM).
