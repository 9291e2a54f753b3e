"""
============================================
Running a sketch and its classifier on a GPU
============================================

Under scikit-learn's array API dispatch, :class:`~sklearn_sketch.TensorSketch`
and the other estimators whose tags say ``array_api_support`` (see
:ref:`gpu`) take PyTorch tensors, CuPy arrays or ``array_api_strict``
arrays, and return their features in the same library, on the same device.
With scikit-learn's :class:`~sklearn.linear_model.LogisticRegression`, which
supports the array API too, the pipeline ``TensorSketch -> LogisticRegression``
then runs on a GPU from the data to the predictions.

This example runs that pipeline on the array library it finds: PyTorch (on a
CUDA GPU if there is one), else ``array_api_strict`` (an array library of
the standard, on the CPU), and says which. Where neither is installed, it
says so and runs the NumPy path only. To run it on a GPU, install a build
of PyTorch with CUDA (see pytorch.org) and run this file
(``python plot_gpu.py``): it prints the namespace and device it used, the
largest difference between the device's features and NumPy's, and the
accuracies. The output shown on this page is what it printed where the page
was built.
"""

# %%
# Turning dispatch on
# -------------------
# SciPy reads the variable ``SCIPY_ARRAY_API`` once, when it is first
# imported: it is set before SciPy and scikit-learn are imported (setting it
# in the shell does the same).

import os
import sys

scipy_imported_before = "scipy" in sys.modules and os.environ.get("SCIPY_ARRAY_API") != "1"
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import importlib.util

import matplotlib.pyplot as plt
import numpy as np
from sklearn import config_context
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

from sklearn_sketch import TensorSketch

# %%
# The array library and the device
# --------------------------------
# PyTorch where it is installed, on its CUDA device where there is one;
# else ``array_api_strict``; else none. Each case says so.

xp, device = None, None
if scipy_imported_before:
    print("SciPy was imported before SCIPY_ARRAY_API=1 was set: no array API "
          "dispatch in this session (set it first, or run the file as a script).")
    where = "NumPy only: SciPy imported without array API support"
elif importlib.util.find_spec("torch") is not None:
    import torch

    xp = torch
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    where = f"torch on {device}"
elif importlib.util.find_spec("array_api_strict") is not None:
    import array_api_strict

    xp, device = array_api_strict, array_api_strict.Device("CPU_DEVICE")
    where = "array_api_strict on the CPU"
else:
    print("Neither PyTorch nor array_api_strict is installed here: no array "
          "library to dispatch to, so this run covers the NumPy path only.")
    where = "NumPy only: no array library installed"
print(f"Running on: {where}")
if getattr(device, "type", None) != "cuda":
    print("No GPU here: no GPU time is measured or reported on this run.")

# %%
# The data
# --------
# The digits, float32, split 70/30; labels as 64-bit integers, which every
# array library accepts.

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(
    (X / 16.0).astype(np.float32), y.astype(np.int64), test_size=0.3, stratify=y,
    random_state=0,
)


def to_device(array):
    return array if xp is None else xp.asarray(array, device=device)


def to_numpy(array):
    """A NumPy copy of an array of any of these libraries, on the host."""
    if hasattr(array, "cpu"):  # torch
        array = array.cpu()
    return np.asarray(array)


def make_model(n_components):
    sketch = TensorSketch(n_components=n_components, degree=2, gamma=0.1, coef0=1.0,
                          random_state=0)
    return make_pipeline(sketch, LogisticRegression(random_state=0))


# %%
# The same features on the device as with NumPy
# ---------------------------------------------
# ``fit`` draws the sketch's random hashes on the host, with NumPy, whatever
# the input; ``transform`` moves them to the device once. A sketch fitted on
# device arrays and one fitted on NumPy arrays, with the same
# ``random_state``, give the same features up to float32 rounding. An
# estimator transforms arrays of the library and device it was fitted on.

sketch = make_model(1024)[0]
Z_numpy = sketch.fit(X_train).transform(X_test)
if xp is not None:
    with config_context(array_api_dispatch=True):
        Z_device = sketch.fit(to_device(X_train)).transform(to_device(X_test))
    print(f"features: {type(Z_device).__module__}.{type(Z_device).__name__}, "
          f"{Z_device.dtype}, shape {tuple(Z_device.shape)}")
    difference = np.max(np.abs(to_numpy(Z_device) - Z_numpy))
    print(f"largest difference from the NumPy features: {difference:.1e}")

# %%
# The pipeline, as the sketch grows
# ---------------------------------
# ``TensorSketch -> LogisticRegression`` fitted and scored on the device for
# several sizes of the sketch, beside the same pipeline on NumPy arrays. The
# labels go to the device too; ``score`` returns a Python float.

sizes = [128, 256, 512, 1024]
numpy_accuracy, device_accuracy = [], []
for n_components in sizes:
    model = make_model(n_components).fit(X_train, y_train)
    numpy_accuracy.append(100 * model.score(X_test, y_test))
    if xp is not None:
        with config_context(array_api_dispatch=True):
            model = make_model(n_components).fit(to_device(X_train), to_device(y_train))
            device_accuracy.append(100 * float(model.score(to_device(X_test),
                                                           to_device(y_test))))
    print(f"n_components={n_components:>4}: NumPy {numpy_accuracy[-1]:.2f}%"
          + (f", {where} {device_accuracy[-1]:.2f}%" if device_accuracy else ""))

fig, ax = plt.subplots(figsize=(8, 4.5), layout="constrained")
ax.plot(sizes, numpy_accuracy, "o-", label="NumPy arrays")
if device_accuracy:
    ax.plot(sizes, device_accuracy, "x--", ms=9, color="k", label=f"{where}, dispatched")
ax.set_xscale("log", base=2)
ax.set_xticks(sizes, labels=[str(n) for n in sizes])
ax.minorticks_off()
low, high = min(numpy_accuracy + device_accuracy), max(numpy_accuracy + device_accuracy)
ax.set(xlabel="n_components", ylabel="test accuracy (%)", ylim=(low - 1, high + 1),
       title=f"TensorSketch -> LogisticRegression on the digits ({where})")
ax.legend(loc="lower right")
plt.show()

# %%
# What the figure shows
# ---------------------
# The test accuracy of the pipeline grows with the size of the sketch. Where
# an array library was found, its line lies on the NumPy line, or a test
# row or two away: the device computes the same features up to float32
# rounding, and such rounding can tip the solver's last steps. Where none
# was found, the figure holds the NumPy line alone: the device path did not
# run.
#
# On a CUDA GPU, the Count Sketches and FFTs of the sketch and the solver of
# the logistic regression run on the device, and only ``score``'s float
# comes back. Speed on a GPU is measured by ``benchmarks/bench_gpu.py`` on a
# CUDA machine, against all the cores of its CPU; this example measures no
# time.
